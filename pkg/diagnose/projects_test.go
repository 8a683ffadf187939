package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// TestProjectFinalizers: for every well-known project, an object held by
// its finalizer is attributed to the project, named even when its
// controller is absent from the input (Rancher's namespace-auth finalizer
// on a downstream cluster whose agent is gone: rancher/rancher#14715,
// kubernetes/kubernetes#125143), and to the running controller when it is
// there, never "controller not found".
func TestProjectFinalizers(t *testing.T) {
	for _, p := range rules.Projects {
		t.Run(p.Name, func(t *testing.T) {
			held := gone(testobj.ConfigMap("app", "held").Deleting(ago(time.Hour)).Finalizers(p.Example).Build())
			ns, name := p.Namespace, strings.ReplaceAll(p.Workloads[0], "*", "x")
			if n, w, ok := strings.Cut(name, "/"); ok {
				ns, name = n, w
			}
			ctl := controllerWorkload(testobj.Deployment(ns, name), name, 1)
			info := rules.LookupFinalizer(p.Example)

			d, err := New(testobj.Snapshot(held, testobj.Deployment("app", "web").Build()).Build(), nil, Options{}).Diagnose(held.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			rc := onFinalizer(t, d, held, p.Example)
			if rc.Reason == ReasonControllerNotFound || !strings.Contains(rc.Message+" "+rc.RemovedBy, firstWord(p.Name)) {
				t.Errorf("absent controller: %s %q (removed by %s), want %s named", rc.Reason, rc.Message, rc.RemovedBy, p.Name)
			}
			if info.ByDomain && (rc.Reason != ReasonControllerAbsent || !strings.HasPrefix(rc.Message, p.Name+"'s finalizer "+p.Example) ||
				!strings.Contains(rc.Message, "not in the input")) {
				t.Errorf("absent controller: %s %q, want %s's finalizer said absent from the input", rc.Reason, rc.Message, p.Name)
			}

			d, err = New(testobj.Snapshot(held, ctl).Build(), nil, Options{}).Diagnose(held.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			rc = onFinalizer(t, d, held, p.Example)
			if rc.Reason == ReasonControllerNotFound || info.ByDomain && (rc.Reason != ReasonControllerNotFinishing || !strings.Contains(rc.Message, ctl.Ref().String())) {
				t.Errorf("running controller %s: %s %q", ctl.Ref(), rc.Reason, rc.Message)
			}
		})
	}
}

func firstWord(s string) string { return strings.Fields(s)[0] }

func onFinalizer(t *testing.T, d *Diagnosis, o snapshot.Object, f string) RootCause {
	t.Helper()
	for _, rc := range d.RootCauses {
		if rc.Object.UID == o.Metadata.UID && rc.Finalizer == f {
			return rc
		}
	}
	t.Fatalf("no root cause on %s:\n%s", f, describe(d.RootCauses))
	return RootCause{}
}
