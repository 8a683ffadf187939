package collector

import (
	"testing"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// linkAll inserts the objects' nodes in order into a map, as the add
// events of a freshly started collector do.
func linkAll(objs ...snapshot.Object) Map {
	g := Map{}
	for i := range objs {
		o := &objs[i]
		id := o.Ref()
		if n, ok := g.Node(id.UID); ok {
			n.SetIdentity(id)
			n.Virtual = false
			n.Owners = o.Metadata.OwnerReferences
			AddDependentToOwners(g, n, n.Owners)
			continue
		}
		InsertNode(g, NewNode(id, o))
	}
	return g
}

var gone = snapshot.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "gone", UID: "gone"}

func TestVirtualOwnerIsNamedByItsFirstDependent(t *testing.T) {
	pod := testobj.New("v1", "Pod", "a", "p").UID("p").Build()
	pod.Metadata.OwnerReferences = []snapshot.OwnerReference{gone}
	g := linkAll(pod)
	n, _ := g.Node("gone")
	if want := Coordinates(gone, "a"); !n.Virtual || n.Identity() != want {
		t.Fatalf("virtual owner %+v (virtual %v), want %+v", n.Identity(), n.Virtual, want)
	}
}

func TestSettledIdentity(t *testing.T) {
	inA := testobj.New("v1", "Pod", "a", "p").UID("p").Build()
	inA.Metadata.OwnerReferences = []snapshot.OwnerReference{gone}
	inB := testobj.New("v1", "Pod", "b", "q").UID("q").Build()
	inB.Metadata.OwnerReferences = []snapshot.OwnerReference{gone}
	cluster := testobj.New("stable.example.com/v1", "Gadget", "", "c").UID("c").Build()
	cluster.Metadata.OwnerReferences = []snapshot.OwnerReference{gone}

	n, _ := linkAll(inA, cluster).Node("gone")
	if got := SettledIdentity(n); got == nil || *got != Coordinates(gone, "") {
		t.Errorf("a namespaced and a cluster-scoped dependent: settled on %v, want no namespace", got)
	}
	n, _ = linkAll(inA, inB).Node("gone")
	if got := SettledIdentity(n); got != nil {
		t.Errorf("dependents in two namespaces: settled on %v, want none (switching for ever)", got)
	}
	n, _ = linkAll(inA).Node("gone")
	if got := SettledIdentity(n); got != nil {
		t.Errorf("one dependent: settled on %v, want none (the owner is confirmed absent)", got)
	}
}

func TestOrphaningWinsOverDeletingDependents(t *testing.T) {
	both := testobj.New("v1", "ConfigMap", "a", "x").UID("x").Finalizers(rules.FinalizerOrphan, rules.FinalizerForeground).Build()
	at := testobj.CapturedAt
	both.Metadata.DeletionTimestamp = &at
	if got := ProcessTransitions(nil, &both); got != StartOrphaning {
		t.Errorf("both GC finalizers: %v, want StartOrphaning", got)
	}
	if n := NewNode(both.Ref(), &both); !n.DeletingDependents {
		t.Error("inserted with foregroundDeletion while being deleted: not deletingDependents")
	}
}
