package apply

import (
	"context"
	"errors"
	"fmt"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kgc-dev/kgc/pkg/capture"
	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// fakeCluster serves a snapshot, records DELETEs and answers them with
// status, and, once a DELETE succeeded, reports the states in after to
// watches (objects absent from after report as gone).
type fakeCluster struct {
	snap    *snapshot.Snapshot
	status  int
	message string
	deletes []DeleteRequest
	sent    []diagnose.RemedyRequest
	// later, when set, is what Capture serves once a DELETE was sent.
	later *snapshot.Snapshot
	// unreadable is the uid Get refuses.
	unreadable string
	after      map[string]*plan.FinalState
	// captures are the namespaces of the captures asked for ("" = whole).
	captures []string
	// lost makes every DELETE get no response (status 0), as when the
	// connection drops once it was sent; Get then reads its target as
	// rereadAs says: "gone", "terminating", or "" (unchanged).
	lost     bool
	rereadAs string
	// rereadFinalizers are the finalizers Get reads once a request was
	// sent, when rereadAs is "patched".
	rereadFinalizers []string
}

// auditID is the audit ID the fake API server gives its nth request.
func auditID(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

// answer is the fake's response to its nth request.
func (f *fakeCluster) answer(n int) Response {
	switch {
	case f.lost:
		return Response{Message: "read tcp 127.0.0.1:50000->127.0.0.1:6443: read: connection reset by peer", AuditID: auditID(n)}
	case f.status == 0:
		return Response{Status: 200, Message: "OK", AuditID: auditID(n)}
	}
	return Response{Status: f.status, Message: f.message, AuditID: auditID(n)}
}

func (f *fakeCluster) Get(_ context.Context, obj snapshot.ObjectRef) (map[string]any, error) {
	if f.unreadable == obj.UID {
		return nil, errors.New("forbidden")
	}
	sent := len(f.deletes)+len(f.sent) > 0
	if f.rereadAs == "gone" && sent {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: strings.ToLower(obj.Kind) + "s"}, obj.Name)
	}
	md := map[string]any{"name": obj.Name, "namespace": obj.Namespace, "uid": obj.UID, "managedFields": []any{map[string]any{"manager": "kubectl"}}}
	if f.rereadAs == "terminating" && sent {
		md["deletionTimestamp"] = "2026-11-20T10:05:00Z"
	}
	if f.rereadAs == "patched" && sent {
		md["finalizers"] = f.rereadFinalizers
	}
	return map[string]any{"apiVersion": obj.APIVersion, "kind": obj.Kind, "data": map[string]any{"k": "v"}, "metadata": md}, nil
}

func (f *fakeCluster) Send(_ context.Context, req diagnose.RemedyRequest, _ bool) Response {
	f.sent = append(f.sent, req)
	return f.answer(len(f.deletes) + len(f.sent))
}

func (f *fakeCluster) Identity(context.Context) string { return "system:admin" }

// Capture serves the cluster's state as a live capture would read it:
// whole, or narrowed to a namespace as pkg/capture narrows it.
func (f *fakeCluster) Capture(_ context.Context, namespace string) (*snapshot.Snapshot, error) {
	f.captures = append(f.captures, namespace)
	s := f.snap
	if f.later != nil && len(f.deletes) > 0 {
		s = f.later
	}
	if namespace != "" {
		return capture.Narrow(s, namespace), nil
	}
	return s, nil
}

func (f *fakeCluster) Delete(_ context.Context, req DeleteRequest) Response {
	f.deletes = append(f.deletes, req)
	return f.answer(len(f.deletes) + len(f.sent))
}

func (f *fakeCluster) Watch(ctx context.Context, objs []snapshot.ObjectRef) (<-chan Event, error) {
	out := make(chan Event)
	go func() {
		defer close(out)
		for _, o := range objs {
			select {
			case out <- Event{UID: o.UID, State: f.after[o.UID]}:
			case <-ctx.Done():
				return
			}
		}
		<-ctx.Done() // a watch stays open until the caller is done
	}()
	return out, nil
}

const ksUID = "ks-1"

// shop is a live snapshot: ConfigMap owner with two Secrets depending on
// it, and an unrelated ConfigMap.
func shop(extra ...snapshot.Object) *snapshot.Snapshot {
	owner := testobj.ConfigMap("shop", "owner").ResourceVersion("10").Build()
	objs := []snapshot.Object{
		owner,
		testobj.Secret("shop", "a").ResourceVersion("11").OwnedBy(owner).Build(),
		testobj.Secret("shop", "b").ResourceVersion("12").OwnedBy(owner).Build(),
		testobj.ConfigMap("shop", "other").ResourceVersion("13").Build(),
	}
	s := testobj.Snapshot(append(objs, extra...)...).Live().At(time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)).Build()
	s.Source.KubeSystemUID = ksUID
	return s
}

const ownerUID = "configmap-shop-owner"

func mustPlan(t *testing.T, snap *snapshot.Snapshot, policy plan.Policy) *plan.Plan {
	t.Helper()
	p, err := plan.Simulate(snap, plan.Options{Target: ownerUID, Policy: policy})
	if err != nil {
		t.Fatal(err)
	}
	plan.Seal(p, snap)
	return p
}

// withRV returns snap with the object uid at resourceVersion rv.
func withRV(snap *snapshot.Snapshot, uid, rv string) *snapshot.Snapshot {
	for i := range snap.Objects {
		if snap.Objects[i].Metadata.UID == uid {
			snap.Objects[i].Metadata.ResourceVersion = rv
		}
	}
	return snap
}

func reason(err error) string {
	if r := (*report.Refusal)(nil); errors.As(err, &r) {
		reasons := []string{r.Reason}
		for _, a := range r.Also {
			reasons = append(reasons, a.Reason)
		}
		return strings.Join(reasons, "+")
	}
	if err == nil {
		return "none"
	}
	return "error: " + err.Error()
}

func mustContain(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q:\n%s", what, sub, s)
		}
	}
}
