package plan

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// drawnNode is what the graph kgc draws shows of one node of the
// collector's uidToNode.
type drawnNode struct {
	Identity           snapshot.ObjectRef
	Virtual            bool
	BeingDeleted       bool
	DeletingDependents bool
	Dependents         []string // UIDs, sorted
}

func drawn(n *node) drawnNode {
	d := drawnNode{Identity: n.Identity(), Virtual: n.Virtual, BeingDeleted: n.BeingDeleted, DeletingDependents: n.DeletingDependents}
	for _, x := range n.Dependents {
		d.Dependents = append(d.Dependents, x.UID())
	}
	slices.Sort(d.Dependents)
	return d
}

func drawnAll(nodes map[string]*node) map[string]drawnNode {
	out := make(map[string]drawnNode, len(nodes))
	for uid, n := range nodes {
		out[uid] = drawn(n)
	}
	return out
}

// TestGraphIsTheSimulatorsBaseline checks, on random clusters, that the
// graph kgc draws (graph.Replay) is the graph the simulator's collector
// holds. The comparison is in two steps, as a freshly started collector
// builds its graph:
//
//  1. Once the simulator's graph builder has processed the add event of
//     every object (observeAll, then processGraphChanges, before any
//     worker runs), its uidToNode holds the same UIDs as the drawn graph,
//     and each node has the same identity, virtual flag, beingDeleted,
//     deletingDependents and dependents; except the identity of a virtual
//     node the drawn graph settled (see step 2).
//  2. After the baseline settles (the workers ran), every node the drawn
//     graph settled to another identity, and every virtual node the
//     simulator still holds, has the same identity in both. The
//     simulator's other changes (virtual nodes of owners confirmed absent
//     removed, dependents deleted, references dropped) are what the
//     baseline changes, and the drawn graph does not show them: it draws
//     the snapshot.
func TestGraphIsTheSimulatorsBaseline(t *testing.T) {
	for seed := int64(1); seed <= 300; seed++ {
		snap := unorderedWorld(seed, 4+int(seed%12))
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			compareWithBaseline(t, snap)
			if t.Failed() {
				b, _ := json.MarshalIndent(snap.Objects, "", " ")
				t.Logf("objects: %s", b)
			}
		})
	}
}

// unorderedWorld is randomWorld with objects created in random order
// (the collector observes them so, so a namespaced dependent can name an
// absent owner before a cluster-scoped one does) and some deleted with
// both GC finalizers (orphaning wins over deleting dependents).
func unorderedWorld(seed int64, n int) *snapshot.Snapshot {
	snap := randomWorld(seed, n)
	r := rand.New(rand.NewSource(-seed))
	for i := range snap.Objects {
		m := &snap.Objects[i].Metadata
		created := testobj.CapturedAt.Add(-time.Duration(1+r.Intn(n)) * time.Minute)
		m.CreationTimestamp = &created
		if m.DeletionTimestamp != nil && r.Intn(2) == 0 {
			for _, f := range []string{rules.FinalizerOrphan, rules.FinalizerForeground} {
				if !slices.Contains(m.Finalizers, f) {
					m.Finalizers = append(m.Finalizers, f)
				}
			}
		}
	}
	return snap
}

func compareWithBaseline(t *testing.T, snap *snapshot.Snapshot) {
	t.Helper()
	g := graph.Replay(snap)
	s, err := newSim(snap, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.baseline = true
	s.observeAll()
	s.gc.runProcessGraphChanges()
	fresh := drawnAll(s.gc.uidToNode)
	s.run()

	uids := slices.Sorted(maps.Keys(fresh))
	var drawnUIDs []string
	for _, n := range g.AllNodes() {
		drawnUIDs = append(drawnUIDs, n.UID())
	}
	slices.Sort(drawnUIDs)
	if !slices.Equal(uids, drawnUIDs) {
		t.Fatalf("the simulator's graph holds %v, the drawn graph %v", uids, drawnUIDs)
	}
	for _, uid := range uids {
		want, got := fresh[uid], drawn(g.Node(uid))
		settled := got.Virtual && got.Identity != want.Identity
		if settled {
			got.Identity = want.Identity // step 2 compares it
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: drawn %+v, the simulator's graph after the add events %+v", uid, got, want)
		}
		sn, held := s.gc.uidToNode[uid]
		switch {
		case settled && (!held || !sn.Virtual):
			t.Errorf("%s: drawn with the settled identity %v, but the simulator's baseline does not keep it virtual", uid, g.Node(uid).Identity())
		case (settled || held && sn.Virtual) && sn.Identity() != g.Node(uid).Identity():
			t.Errorf("%s: drawn as %v, the simulator's baseline settles on %v", uid, g.Node(uid).Identity(), sn.Identity())
		}
	}
}
