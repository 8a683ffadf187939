package render

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// randomGraph is a seeded random owner graph over a few namespaces, with
// cycles, self-references, shared owners and absent owners.
func randomGraph(seed uint64) *graph.Graph {
	rng := rand.New(rand.NewPCG(seed, 0))
	n := 1 + rng.IntN(30)
	var objs []snapshot.Object
	for i := 0; i < n; i++ {
		ns := []string{"a", "b", ""}[rng.IntN(3)]
		var b *testobj.Builder
		if ns == "" {
			b = testobj.Node("n" + strconv.Itoa(i))
		} else {
			b = testobj.ConfigMap(ns, "c"+strconv.Itoa(i))
		}
		b.UID("u" + strconv.Itoa(i))
		for k := rng.IntN(3); k > 0; k-- {
			j := rng.IntN(n + 5) // some point past the objects: absent owners
			ref := testobj.RefTo("v1", "ConfigMap", "c"+strconv.Itoa(j), "u"+strconv.Itoa(j))
			if rng.IntN(2) == 0 {
				testobj.Block(&ref)
			}
			b.Owner(ref)
		}
		if rng.IntN(5) == 0 {
			b.Deleting(testobj.CapturedAt).Finalizers("foregroundDeletion")
		}
		objs = append(objs, b.Build())
	}
	return graph.Build(testobj.Snapshot(objs...).Build())
}

// TestGraphRenderersShowEveryNode: whatever the shape (cycles included),
// the tree names every node, the table and DOT have one entry per node, and
// the document carries every node and edge.
func TestGraphRenderersShowEveryNode(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		g := randomGraph(seed)
		v := fullView(g)
		var tree, table, dot, doc bytes.Buffer
		if err := GraphTree(&tree, v, Style{}); err != nil {
			t.Fatal(err)
		}
		if err := GraphTable(&table, v, Style{}); err != nil {
			t.Fatal(err)
		}
		if err := GraphDOT(&dot, v); err != nil {
			t.Fatal(err)
		}
		if err := GraphDocumentTo(&doc, "json", v); err != nil {
			t.Fatal(err)
		}
		treeText := tree.String()
		for _, n := range v.Nodes {
			id := n.Identity()
			label := id.Kind + "/" + id.Name
			if !strings.Contains(treeText, label) {
				t.Fatalf("seed %d: the tree does not show %s:\n%s", seed, label, treeText)
			}
			if c := strings.Count(dot.String(), "\n  \""+n.UID()+"\" [\n"); c != 1 {
				t.Fatalf("seed %d: DOT defines %s %d times", seed, n.UID(), c)
			}
		}
		// Each node is drawn in full once; other mentions are references.
		full := 0
		drawing, _, _ := strings.Cut(treeText, "\n\n") // the findings follow a blank line
		for _, line := range strings.Split(drawing, "\n") {
			// The column header and the legend name no object.
			if strings.HasPrefix(line, "NAME ") || strings.HasPrefix(line, "◀ ") || strings.HasPrefix(line, "[blockOwnerDeletion] ") {
				continue
			}
			if line != "" && !strings.Contains(line, "(shown above)") && !strings.Contains(line, "(cycle") && !strings.Contains(line, "(owns itself)") {
				full++
			}
		}
		if len(v.Nodes) == 0 {
			full = 0 // the "No objects" line
		}
		if full != len(v.Nodes) {
			t.Fatalf("seed %d: %d objects drawn in full, want %d:\n%s", seed, full, len(v.Nodes), treeText)
		}
		if len(v.Nodes) > 0 {
			if rows := strings.Count(table.String(), "\n") - 1; rows < len(v.Nodes) {
				t.Fatalf("seed %d: table has %d rows for %d nodes", seed, rows, len(v.Nodes))
			}
		}
		var d GraphDocument
		if err := json.Unmarshal(doc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		if len(d.Nodes) != len(v.Nodes) || len(d.Edges) != len(g.Edges()) {
			t.Fatalf("seed %d: document has %d nodes and %d edges, want %d and %d", seed, len(d.Nodes), len(d.Edges), len(v.Nodes), len(g.Edges()))
		}
	}
}
