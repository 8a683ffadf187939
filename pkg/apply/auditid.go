package apply

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	"k8s.io/client-go/rest"
)

// auditIDHeader is the header in which the API server names a request's
// audit event: it adopts the one the client sends, or makes one, and
// echoes it in the response.
const auditIDHeader = "Audit-Id"

// auditSlot carries the audit ID of one request apply sends: the one kgc
// chose and sent, then the one the API server answered with.
type auditSlot struct {
	sent, got string
}

// id is the audit ID to record: the API server's answer, or, when the
// response was lost, the ID kgc sent, which the API server adopted if
// the request reached it.
func (s *auditSlot) id() string {
	if s.got != "" {
		return s.got
	}
	return s.sent
}

type auditSlotKey struct{}

// withAuditID marks ctx so that the request sent with it carries a fresh
// audit ID and records the API server's.
func withAuditID(ctx context.Context) (context.Context, *auditSlot) {
	s := &auditSlot{sent: uuid.NewString()}
	return context.WithValue(ctx, auditSlotKey{}, s), s
}

// auditIDTransport sends the audit ID of a request marked by withAuditID
// and records the one its response carries; other requests (captures,
// watches) pass untouched.
type auditIDTransport struct {
	next http.RoundTripper
}

func (t auditIDTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	s, _ := req.Context().Value(auditSlotKey{}).(*auditSlot)
	if s == nil {
		return t.next.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	req.Header.Set(auditIDHeader, s.sent)
	resp, err := t.next.RoundTrip(req)
	if resp != nil {
		if id := resp.Header.Get(auditIDHeader); id != "" {
			s.got = id
		}
	}
	return resp, err
}

// withAuditIDs returns a copy of cfg whose transport records audit IDs,
// after whatever wrapping cfg already does.
func withAuditIDs(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return auditIDTransport{next: rt} })
	return cfg
}
