package rules

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

func TestDaemonTolerations(t *testing.T) {
	for _, tc := range []struct {
		tolerations []string
		taint       string
		want        bool
	}{
		{nil, "node.kubernetes.io/unreachable:NoExecute", true}, // every daemon pod tolerates it
		{nil, "node.kubernetes.io/unreachable:NoSchedule", false},
		{nil, "dedicated=gpu:NoSchedule", false},
		{[]string{"dedicated:NoSchedule"}, "dedicated=gpu:NoSchedule", true},
		{[]string{"dedicated:"}, "dedicated=gpu:NoExecute", true},
		{[]string{":"}, "anything:NoExecute", true},
		{[]string{"other:NoSchedule"}, "dedicated:NoSchedule", false},
	} {
		if got := tolerates(tc.tolerations, tc.taint); got != tc.want {
			t.Errorf("tolerations %v, taint %s: %v, want %v", tc.tolerations, tc.taint, got, tc.want)
		}
	}
}

// A pod that had already stopped, or was already terminating in the
// input, was replaced then: deleting it now recreates nothing.
func TestRecreateSkipsPodsAlreadyReplaced(t *testing.T) {
	three := int32(3)
	rs := testobj.ReplicaSet("shop", "web-1").Facts(&snapshot.Facts{Workload: &snapshot.WorkloadFacts{Replicas: &three, SelectorMatchesTemplate: true}}).Build()
	look := RecreateLookup{
		Object:    func(uid string) *snapshot.Object { return map[string]*snapshot.Object{rs.Metadata.UID: &rs}[uid] },
		Namespace: func(string) (*snapshot.Object, bool) { return nil, false },
		Node:      func(string) (*snapshot.Object, bool) { return nil, false },
	}
	running := testobj.Pod("shop", "a").OwnedBy(rs).Facts(&snapshot.Facts{Pod: &snapshot.PodFacts{Phase: "Running"}}).Build()
	if rec, _ := Recreate(&running, look); rec == nil || !rec.Certain || rec.Controller != ActorReplicaSet {
		t.Errorf("a running pod: %+v, want replaced by the replicaset-controller", rec)
	}
	failed := testobj.Pod("shop", "b").OwnedBy(rs).Facts(&snapshot.Facts{Pod: &snapshot.PodFacts{Phase: "Failed"}}).Build()
	if rec, not := Recreate(&failed, look); rec != nil || !strings.Contains(not, "had already failed") {
		t.Errorf("a failed pod: %+v, %q; want nothing, said", rec, not)
	}
	leaving := testobj.Pod("shop", "c").OwnedBy(rs).Deleting(time.Unix(0, 0)).Build()
	if rec, _ := Recreate(&leaving, look); rec != nil {
		t.Errorf("a pod terminating in the input: %+v, want nothing", rec)
	}
	ns := testobj.Namespace("shop").Deleting(time.Unix(0, 0)).Build()
	look.Namespace = func(string) (*snapshot.Object, bool) { return &ns, true }
	if rec, _ := Recreate(&running, look); rec != nil {
		t.Errorf("in a namespace being deleted: %+v, want nothing", rec)
	}
}

// TestUndoAdviceFollowsRecreate: the advice of a recreated object is its
// controller's, decided by group as Recreate decides it: a DaemonSet's
// pod gets the DaemonSet's advice, a Job's pod the Job's; a controller
// Recreate does not know gets the generic advice.
func TestUndoAdviceFollowsRecreate(t *testing.T) {
	for actor, want := range map[string]string{
		ActorDaemonSet:                  "change its node selector or delete it instead",
		ActorJob:                        "suspend it or delete it instead",
		ActorCronJob:                    "suspend it or delete it instead",
		ActorStatefulSet:                "scale it or delete it instead",
		ActorEndpointSlice:              "remove its selector or delete it instead",
		ActorServiceAccount:             "its controller keeps one in every namespace",
		"example.com/widget-controller": "change or delete it instead",
	} {
		if got := UndoAdvice(actor); got != want {
			t.Errorf("UndoAdvice(%s) = %q, want %q", actor, got, want)
		}
	}
}
