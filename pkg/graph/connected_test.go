package graph

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// FuzzReplayAbout checks that a graph replayed about some objects answers
// questions about them exactly as the whole graph does: the same
// component (nodes, identities, flags, edges, dependents in order) and the
// same findings, for every object and every namespace of the input.
func FuzzReplayAbout(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 0, 1, 0, 0, 1})
	f.Add([]byte{0, 1, 1, 1, 3, 2, 0, 0, 1, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 1, 0})
	f.Add([]byte{1, 0, 0, 5, 0, 2, 0, 1, 5, 0, 0, 2, 1, 1, 0, 4, 1, 0, 0, 0, 0, 5})
	f.Add([]byte{2, 1, 3, 4, 9, 3, 2, 1, 1, 7, 6, 4, 1, 1, 3, 2, 9, 8, 1, 2, 2, 2, 4, 0, 3, 3, 1, 5, 6, 1, 0, 2, 1, 4, 11, 3, 2})
	f.Fuzz(func(t *testing.T, data []byte) { replayAboutAgrees(t, data) })
}

// TestReplayAboutAgrees runs FuzzReplayAbout's check on 500 random
// inputs on every test run, beyond the fuzzer's seeds.
func TestReplayAboutAgrees(t *testing.T) {
	for _, data := range randomInputs(1, 500) {
		replayAboutAgrees(t, data)
	}
}

func replayAboutAgrees(t *testing.T, data []byte) {
	t.Helper()
	snap := snapshotFromBytes(data)
	whole := Replay(snap)
	for i := range snap.Objects {
		uid := snap.Objects[i].Metadata.UID
		part := ReplayAbout(snap, uid)
		want, got := whole.Component(uid), part.Component(uid)
		sameView(t, "object "+uid, want, got)
		if w, g := whole.FindingsAbout(want, []string{uid}, nil), part.FindingsAbout(got, []string{uid}, nil); !reflect.DeepEqual(w, g) {
			t.Fatalf("findings about %s: whole graph %v, replayed about it %v", uid, w, g)
		}
	}
	for _, ns := range []string{"a", "b"} {
		part := ReplayAboutNamespaces(snap, ns)
		want, got := whole.InNamespaces(ns), part.InNamespaces(ns)
		sameView(t, "namespace "+ns, want, got)
		if w, g := whole.FindingsAbout(want, nil, []string{ns}), part.FindingsAbout(got, nil, []string{ns}); !reflect.DeepEqual(w, g) {
			t.Fatalf("findings about namespace %s: whole graph %v, replayed about it %v", ns, w, g)
		}
	}
}

// sameView fails unless two views show the same nodes, edges and
// dependents, in order.
func sameView(t *testing.T, what string, want, got []*Node) {
	t.Helper()
	if w, g := describeWithDependents(want), describeWithDependents(got); !reflect.DeepEqual(w, g) {
		t.Fatalf("%s: whole graph\n%v\nreplayed about it\n%v", what, w, g)
	}
}

func describeWithDependents(nodes []*Node) []string {
	out := describe(nodes)
	for _, n := range nodes {
		line := n.UID() + " dependents:"
		for _, d := range n.Dependents {
			line += " " + d.UID()
		}
		out = append(out, line)
	}
	return out
}

func TestConnectedStopsAtUnrelatedObjects(t *testing.T) {
	snap := snapshotFromBytes([]byte{2, 1, 3, 4, 9, 3, 2, 1, 1, 7, 6, 4, 1, 1, 3, 2, 9, 8, 1, 2, 2, 2, 4, 0, 3, 3, 1, 5, 6, 1, 0, 2, 1, 4, 11, 3, 2})
	in, _ := connected(snap.Objects, []string{"nobody"})
	for i, ok := range in {
		if ok {
			t.Fatalf("%s is connected to a UID no object holds or names", snap.Objects[i].Ref())
		}
	}
}

// TestOwnerIndexJudgesAsTheWholeIndex: judging every owner reference with
// the index of the owners' types and UIDs (rules.NewOwnerIndex) finds what
// judging them with the whole snapshot's index does, on random inputs.
func TestOwnerIndexJudgesAsTheWholeIndex(t *testing.T) {
	for _, data := range randomInputs(3, 500) {
		g := Replay(snapshotFromBytes(data))
		nodes, ix := g.judged(nil)
		for _, n := range nodes {
			if w, got := g.ownerFindings(n, g.Index()), g.ownerFindings(n, ix); !reflect.DeepEqual(w, got) {
				t.Fatalf("%s: with the whole index %v, with the owner index %v", n.UID(), w, got)
			}
		}
	}
}

// TestGraphLookupJudgesAsTheWholeIndex: where no two objects share a UID,
// a whole replay judges every reference with names from the owners'
// index and UIDs from the graph; that finds what judging with the whole
// snapshot's index does, on random inputs, some with objects of types
// the collector does not watch.
func TestGraphLookupJudgesAsTheWholeIndex(t *testing.T) {
	used, unobserved, sorted := 0, 0, 0
	for _, data := range randomInputs(9, 800) {
		for _, sort := range []bool{false, true} {
			snap := snapshotFromBytes(data)
			seen := map[string]bool{}
			snap.Objects = slices.DeleteFunc(snap.Objects, func(o snapshot.Object) bool {
				dup := seen[o.Metadata.UID]
				seen[o.Metadata.UID] = true
				return dup
			})
			if sort {
				// In the contract's order, as read: owners are then found
				// by name in the objects themselves (rules.SortedNames).
				snapshot.SortObjects(snap.Objects)
			}
			g := Replay(snap)
			nodes, look := g.judged(nil)
			l, ok := look.(*uidsOfGraph)
			if !ok {
				t.Fatalf("objects with distinct UIDs judged with %T, not the graph's UIDs", look)
			}
			used++
			if _, ok := l.names.(*rules.SortedNames); ok {
				sorted++
			}
			if len(g.unobserved) > 0 {
				unobserved++
			}
			for _, n := range nodes {
				if w, got := g.ownerFindings(n, g.Index()), g.ownerFindings(n, look); !reflect.DeepEqual(w, got) {
					t.Fatalf("%s: with the whole index %v, with the graph's UIDs %v", n.UID(), w, got)
				}
			}
		}
	}
	if unobserved < used/10 {
		t.Fatalf("only %d of %d inputs have objects the collector does not watch", unobserved, used)
	}
	if sorted < used/2 {
		t.Fatalf("only %d of %d inputs were judged with names found in sorted objects", sorted, used)
	}
}

// TestNodesInObjectOrder: for a snapshot in contract order, the nodes
// listed in their objects' order with the virtual ones merged in are the
// nodes sorted, on random inputs.
func TestNodesInObjectOrder(t *testing.T) {
	for _, data := range randomInputs(5, 500) {
		snap := snapshotFromBytes(data)
		snapshot.SortObjects(snap.Objects)
		g := Replay(snap)
		want := make([]*Node, 0, g.nodeCount())
		for n := range g.eachNode {
			want = append(want, n)
		}
		sortNodes(want)
		if got := g.AllNodes(); !reflect.DeepEqual(describe(got), describe(want)) {
			t.Fatalf("in object order:\n%v\nsorted:\n%v", describe(got), describe(want))
		}
	}
}

// randomInputs returns n random inputs for snapshotFromBytes, the same for
// the same seed.
func randomInputs(seed uint64, n int) [][]byte {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	out := make([][]byte, n)
	for k := range out {
		out[k] = make([]byte, 20+rng.IntN(120))
		for i := range out[k] {
			out[k][i] = byte(rng.IntN(256))
		}
	}
	return out
}

// TestGraphLookupTakesTheFirstUnwatchedObject: two objects of a type the
// collector does not watch share the UID a reference names; the finding
// names the first in the snapshot's order, as the whole index does, and
// the graph's look-up still serves the judgement.
func TestGraphLookupTakesTheFirstUnwatchedObject(t *testing.T) {
	dep := testobj.ConfigMap("web", "c").UID("c").Owner(testobj.RefTo("apps/v1", "Deployment", "d", "ev")).Build()
	first := testobj.New("v1", "Event", "web", "a-first").UID("ev").Build()
	second := testobj.New("v1", "Event", "web", "b-second").UID("ev").Build()
	snap := testobj.Snapshot(dep, second, first).Build()
	snapshot.SortObjects(snap.Objects)
	g := Replay(snap)
	if len(g.unobserved) != 2 {
		t.Fatalf("%d unwatched objects, want the two Events", len(g.unobserved))
	}
	nodes, look := g.judged(nil)
	if _, ok := look.(*uidsOfGraph); !ok {
		t.Fatalf("judged with %T, not the graph's UIDs", look)
	}
	got := g.ownerFindings(nodes[0], look)
	if want := g.ownerFindings(nodes[0], g.Index()); !reflect.DeepEqual(got, want) {
		t.Fatalf("with the graph's UIDs %v, with the whole index %v", got, want)
	}
	if len(got) != 1 || !strings.Contains(got[0].Message, "belongs to Event/a-first -n web") {
		t.Fatalf("findings %v, want the identity mismatch naming Event/a-first -n web", got)
	}
}
