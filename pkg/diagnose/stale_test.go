package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// TestStaleNamespaceConditions: the namespace controller's all-clear
// conditions contradicted by the objects still present are called stale,
// and the objects' root causes stand.
func TestStaleNamespaceConditions(t *testing.T) {
	// https://github.com/kubernetes/kubernetes/issues/138208 (fix in
	// PR 138209): under ordered namespace deletion, a pod held by a
	// finalizer leaves NamespaceContentRemaining and
	// NamespaceFinalizersRemaining False, "All content successfully
	// removed", while the pod and what waits behind it remain.
	allClear := []snapshot.Condition{
		{Type: condContentRemaining, Status: "False", Reason: "ContentRemoved", Message: "All content successfully removed"},
		{Type: condFinalizersRemains, Status: "False", Reason: "ContentHasNoFinalizers", Message: "All content-preserving finalizers finished"},
	}
	ns := terminatingNS("batch", ago(time.Hour), allClear...)
	pod := gone(testobj.Pod("batch", "worker").Deleting(ago(time.Hour)).Finalizers("batch.example.com/drain").Build())
	cm := testobj.ConfigMap("batch", "settings").Build()
	s := testobj.Snapshot(ns, pod, cm).Build()
	d, err := New(s, nil, Options{}).Diagnose(ns.Metadata.UID)
	if err != nil {
		t.Fatal(err)
	}
	var stale []StaleCondition
	for _, b := range d.Blockers {
		stale = append(stale, b.StaleConditions...)
	}
	if len(stale) != 2 || stale[0].Type != condContentRemaining || stale[1].Type != condFinalizersRemains {
		t.Fatalf("stale conditions %+v, want both all-clear conditions", stale)
	}
	if !strings.Contains(stale[0].ContradictedBy, "2 objects still present (ConfigMap/settings -n batch, Pod/worker -n batch)") ||
		!strings.Contains(stale[1].ContradictedBy, "1 object still carrying finalizers (Pod/worker -n batch)") {
		t.Errorf("contradicted by %q / %q", stale[0].ContradictedBy, stale[1].ContradictedBy)
	}
	if strings.Contains(d.Summary, "nothing is stuck") || len(d.RootCauses) == 0 || d.RootCauses[0].Object.UID != pod.Metadata.UID {
		t.Errorf("summary %q, root causes:\n%s\nwant the pod's finalizer first", d.Summary, describe(d.RootCauses))
	}

	// Conditions that agree with the objects are not stale.
	ns2 := terminatingNS("done", ago(time.Hour), allClear...)
	d, err = New(testobj.Snapshot(ns2).Build(), nil, Options{}).Diagnose(ns2.Metadata.UID)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range d.Blockers {
		if len(b.StaleConditions) > 0 {
			t.Errorf("an empty namespace's all-clear is called stale: %+v", b.StaleConditions)
		}
	}
}
