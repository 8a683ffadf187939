package apply

import (
	"context"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// fakeAPIServer answers every DELETE and PATCH as kube-apiserver does
// with a client's Audit-Id: it adopts it and echoes it (or, when
// override is set, answers its own); drop loses every response.
func fakeAPIServer(t *testing.T, override string, drop bool) (*Live, func() []string) {
	t.Helper()
	var (
		mu   sync.Mutex
		seen []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.Header.Get(auditIDHeader))
		mu.Unlock()
		if drop {
			panic(http.ErrAbortHandler)
		}
		id := r.Header.Get(auditIDHeader)
		if override != "" {
			id = override
		}
		w.Header().Set(auditIDHeader, id)
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPatch {
			_, _ = w.Write([]byte(`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"owner"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Success"}`))
	}))
	t.Cleanup(srv.Close)
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	l, err := NewLive(&rest.Config{Host: srv.URL, Timeout: 5 * time.Second}, mapper)
	if err != nil {
		t.Fatal(err)
	}
	return l, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

var owner = snapshot.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "owner", UID: ownerUID}

// Live sends every DELETE and PATCH with an audit ID of its own and keeps
// the one the API server answers with: the ID of the request's event in
// the audit log.
func TestLiveRecordsAuditIDs(t *testing.T) {
	ctx := context.Background()
	l, seen := fakeAPIServer(t, "", false)
	del := l.Delete(ctx, DeleteRequest{Object: owner, Preconditions: report.Preconditions{UID: ownerUID, ResourceVersion: "10"}})
	patch := l.Send(ctx, diagnose.RemedyRequest{Verb: diagnose.VerbPatch, Object: owner,
		Patch: []diagnose.PatchOp{{Op: "test", Path: "/metadata/uid", Value: ownerUID}}}, false)
	if del.Status != 200 || patch.Status != 200 {
		t.Fatalf("responses %+v, %+v; want 200", del, patch)
	}
	if !uuidRE.MatchString(del.AuditID) || !uuidRE.MatchString(patch.AuditID) || del.AuditID == patch.AuditID {
		t.Errorf("audit IDs %q and %q, want two different UUIDs", del.AuditID, patch.AuditID)
	}
	if want := []string{"DELETE " + del.AuditID, "PATCH " + patch.AuditID}; !slices.Equal(seen(), want) {
		t.Errorf("the API server saw %q, want %q", seen(), want)
	}

	l, _ = fakeAPIServer(t, "from-the-server", false)
	if got := l.Delete(ctx, DeleteRequest{Object: owner}).AuditID; got != "from-the-server" {
		t.Errorf("audit ID %q, want the API server's own", got)
	}

	// A lost response still has the ID the request was sent with.
	l, seen = fakeAPIServer(t, "", true)
	lost := l.Delete(ctx, DeleteRequest{Object: owner})
	if got := seen(); lost.Status != 0 || !uuidRE.MatchString(lost.AuditID) || len(got) == 0 || got[len(got)-1] != "DELETE "+lost.AuditID {
		t.Errorf("lost response %+v, server saw %q; want status 0 and the ID sent", lost, got)
	}
}

// The report records each request's audit ID, for kgc postmortem
// --apply-report to find it in the audit log.
func TestApplyReportRecordsAuditIDs(t *testing.T) {
	saved := mustPlan(t, shop(), plan.PolicyBackground)
	f := &fakeCluster{snap: shop(), after: map[string]*plan.FinalState{}}
	rep, err := applier(f, Options{Consent: yes, Step: true}).Apply(context.Background(), saved)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Requests) != 3 {
		t.Fatalf("requests %+v, want three DELETEs", rep.Requests)
	}
	for i, r := range rep.Requests {
		if r.AuditID != auditID(i+1) {
			t.Errorf("request %d (%s) records audit ID %q, want %q", i, r.Object.Name, r.AuditID, auditID(i+1))
		}
	}

	rem := diagnosis(t, stuckWidget(cleanup))
	f = &fakeCluster{snap: stuckWidget(cleanup), after: map[string]*plan.FinalState{}}
	rep, err = applier(f, Options{Consent: yes}).ApplyRemedy(context.Background(), rem, removeHold)
	if err != nil || len(rep.Requests) != 1 || rep.Requests[0].AuditID != auditID(1) {
		t.Errorf("remedy requests %+v (%v), want one with audit ID %s", rep.Requests, err, auditID(1))
	}
}
