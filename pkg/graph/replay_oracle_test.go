package graph

import (
	"maps"
	"slices"
	"testing"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// oracleNode is a node of replayOneByOne.
type oracleNode struct {
	id                              snapshot.ObjectRef
	virtual, beingDeleted, deleting bool
	dependents                      map[string]bool
}

// replayOneByOne replays g's objects the way the collector does, one add
// event at a time in ReplayOrder, with a map from UID to node: the oracle
// for replay's nodes made side by side, in key order, and linked after. It
// returns the nodes by UID and how many objects a repeated UID skipped.
func replayOneByOne(g *Graph) (map[string]*oracleNode, int) {
	nodes := map[string]*oracleNode{}
	skipped := 0
	objs := g.snap.Objects
	order := rules.ReplayOrder(objs, func(i int) bool { return objs[i].Metadata.UID != "" && g.observable(&objs[i]) })
	for _, i := range order {
		o := &g.snap.Objects[i]
		beingDeleted := o.Terminating()
		n := nodes[o.Metadata.UID]
		switch {
		case n != nil && !n.virtual:
			skipped++
			continue
		case n == nil:
			n = &oracleNode{id: g.identityOf(o), beingDeleted: beingDeleted, dependents: map[string]bool{},
				deleting: beingDeleted && o.HasFinalizer(rules.FinalizerForeground)}
			nodes[o.Metadata.UID] = n
		default: // first observed after a dependent named it
			n.id, n.virtual, n.beingDeleted = g.identityOf(o), false, beingDeleted
			n.deleting = beingDeleted && !o.HasFinalizer(rules.FinalizerOrphan) && o.HasFinalizer(rules.FinalizerForeground)
		}
		for _, ref := range o.Metadata.OwnerReferences {
			if ref.UID == "" {
				continue
			}
			owner := nodes[ref.UID]
			if owner == nil {
				owner = &oracleNode{id: snapshot.ObjectRef{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name,
					UID: ref.UID, Namespace: n.id.Namespace}, virtual: true, dependents: map[string]bool{}}
				nodes[ref.UID] = owner
			}
			owner.dependents[o.Metadata.UID] = true
		}
	}
	return nodes, skipped
}

// TestReplayIsOneEventAtATime: on random inputs, in input order and in
// the contract's order, the replay has exactly the nodes, identities,
// flags and dependents of replaying one add event at a time. Virtual
// nodes' identities are left out: settleVirtualIdentities changes some
// after the replay.
func TestReplayIsOneEventAtATime(t *testing.T) {
	virtualFirst, withRepeats, withoutRepeats := 0, 0, 0
	for _, data := range randomInputs(11, 600) {
		for _, sort := range []bool{false, true} {
			snap := snapshotFromBytes(data)
			if sort {
				snapshot.SortObjects(snap.Objects)
			}
			g := Replay(snap)
			want, skipped := replayOneByOne(g)
			if len(g.replayDups) != skipped {
				t.Fatalf("%d objects skipped for a repeated UID, want %d", len(g.replayDups), skipped)
			}
			if skipped > 0 {
				withRepeats++ // filed in the order replayed
			} else {
				withoutRepeats++ // filed in the objects' order, while sorting
			}
			if g.nodeCount() != len(want) {
				t.Fatalf("%d nodes, want %d", g.nodeCount(), len(want))
			}
			for uid, w := range want {
				n := g.Node(uid)
				if n == nil {
					t.Fatalf("no node for %s", uid)
				}
				var deps []string
				for _, d := range n.Dependents {
					deps = append(deps, d.UID())
				}
				slices.Sort(deps)
				if n.Virtual != w.virtual || (!w.virtual && n.Identity() != w.id) || n.BeingDeleted != w.beingDeleted ||
					n.DeletingDependents != w.deleting || !slices.Equal(deps, slices.Sorted(maps.Keys(w.dependents))) {
					t.Fatalf("node %s: virtual %v %v, deleting %v dependents %v; want virtual %v %v, deleting %v dependents %v",
						uid, n.Virtual, n.Identity(), n.DeletingDependents, deps, w.virtual, w.id, w.deleting, slices.Sorted(maps.Keys(w.dependents)))
				}
				if !w.virtual && n.BeingDeleted && n.Object.HasFinalizer(rules.FinalizerOrphan) && n.Object.HasFinalizer(rules.FinalizerForeground) && !n.DeletingDependents {
					virtualFirst++
				}
			}
		}
	}
	if virtualFirst == 0 {
		t.Fatal("no input had an object first seen as a virtual owner, deleting with both finalizers")
	}
	if withRepeats == 0 || withoutRepeats == 0 {
		t.Fatalf("%d inputs with a repeated UID, %d without: both ways of filing need some", withRepeats, withoutRepeats)
	}
}
