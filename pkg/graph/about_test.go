package graph

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// filterFindings is the straightforward definition FindingsAbout
// implements lazily: every finding, kept when it names an object that is
// one of nodes, has one of uids or lives in one of namespaces.
func filterFindings(fs []Finding, nodes []*Node, uids, namespaces []string) []Finding {
	in := map[string]bool{}
	for _, n := range nodes {
		in[n.UID()] = true
	}
	for _, u := range uids {
		in[u] = true
	}
	var out []Finding
	for _, f := range fs {
		for _, obj := range f.Objects {
			if in[obj.UID] || (obj.Namespace != "" && slices.Contains(namespaces, obj.Namespace)) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// TestFindingsAboutIsTheFilteredWhole checks, on random clusters full of
// hazards (dangling, cross-namespace and mismatched owners, cycles,
// duplicate UIDs, unwatched types), that the findings a view computes on
// its own are exactly the whole graph's findings filtered to the view:
// one tree (a component), a namespace's graph, and one object as
// why-stuck asks.
func TestFindingsAboutIsTheFilteredWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	for round := 0; round < 400; round++ {
		data := make([]byte, 20+rng.IntN(300))
		for i := range data {
			data[i] = byte(rng.UintN(256))
		}
		snap := snapshotFromBytes(data)
		for i := range snap.Objects {
			if rng.IntN(10) == 0 {
				// Objects the reader dropped for their UID.
				d := snap.Objects[i]
				d.Metadata.Name += "-dropped"
				snap.Duplicates = append(snap.Duplicates, d)
			}
		}
		whole := Build(snap)
		if all := Replay(snap).AllFindings(); !reflect.DeepEqual(all, whole.Findings) {
			t.Fatalf("round %d: AllFindings differs from Build's findings:\n%s\nwant\n%s", round, findingLines(all), findingLines(whole.Findings))
		}
		for _, n := range whole.AllNodes() {
			comp := whole.Component(n.UID())
			checkAbout(t, round, snap, comp, []string{n.UID()}, nil, whole.Findings)
			checkAbout(t, round, snap, nil, []string{n.UID()}, nil, whole.Findings)
		}
		for _, ns := range []string{"a", "b"} {
			checkAbout(t, round, snap, whole.InNamespaces(ns), nil, []string{ns}, whole.Findings)
		}
		checkAbout(t, round, snap, nil, []string{"u-none"}, nil, whole.Findings)
	}
}

func checkAbout(t *testing.T, round int, snap *snapshot.Snapshot, nodes []*Node, uids, namespaces []string, all []Finding) {
	t.Helper()
	lazy := Replay(snap)
	// The lazy graph's nodes stand for the view's: same UIDs.
	var view []*Node
	for _, n := range nodes {
		view = append(view, lazy.Node(n.UID()))
	}
	got := lazy.FindingsAbout(view, uids, namespaces)
	want := filterFindings(all, nodes, uids, namespaces)
	if !reflect.DeepEqual(got, want) && (len(got) != 0 || len(want) != 0) {
		t.Fatalf("round %d, uids %v, namespaces %v:\n%s\nwant\n%s", round, uids, namespaces, findingLines(got), findingLines(want))
	}
}
