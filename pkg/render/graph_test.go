package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/internal/golden"
	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// exampleGraph is a small cluster with one of each thing the renderers
// draw: a deployment chain with blocking references, a foreground delete in
// progress, a pod stuck on a finalizer, a virtual owner, a cross-namespace
// owner, a cycle and a cluster-scoped owner.
func exampleGraph() *graph.Graph {
	at := testobj.CapturedAt
	deploy := testobj.Deployment("web", "web").UID("0-deploy").Deleting(at.Add(-time.Minute)).Finalizers("foregroundDeletion").Build()
	rs := testobj.ReplicaSet("web", "web-7d9f").UID("1-rs").OwnedBy(deploy).Build()
	pod1 := testobj.Pod("web", "web-7d9f-a").UID("2-pod-a").OwnedBy(rs).Build()
	pod2 := testobj.Pod("web", "web-7d9f-b").UID("3-pod-b").OwnedBy(rs).
		Deleting(at.Add(-time.Hour)).Finalizers("example.com/drain").Build()
	orphan := testobj.ConfigMap("web", "leftover").UID("4-cm").
		Owner(testobj.RefTo("apps/v1", "ReplicaSet", "web-old", "5-gone", testobj.Controller)).Build()
	node := testobj.Node("worker-1").UID("6-node").Build()
	lease := testobj.ConfigMap("web", "node-info").UID("7-cm").Owner(testobj.Ref(node)).Build()
	other := testobj.ConfigMap("other", "shared").UID("8-cm").Build()
	cross := testobj.ConfigMap("web", "borrowed").UID("9-cm").Owner(testobj.Ref(other)).Build()
	a := testobj.ConfigMap("loop", "a").UID("a-cm").Owner(testobj.RefTo("v1", "ConfigMap", "b", "b-cm")).Build()
	b := testobj.ConfigMap("loop", "b").UID("b-cm").Owner(testobj.RefTo("v1", "ConfigMap", "a", "a-cm")).Build()
	lonely := testobj.ConfigMap("web", "alone").UID("c-cm").Build()
	return graph.Build(testobj.Snapshot(deploy, rs, pod1, pod2, orphan, node, lease, other, cross, a, b, lonely).Build())
}

func fullView(g *graph.Graph) GraphView {
	return GraphView{Graph: g, Nodes: g.Nodes(), Findings: g.Findings, CapturedAt: testobj.CapturedAt}
}

func componentView(g *graph.Graph, uid string) GraphView {
	nodes := g.Component(uid)
	return GraphView{Graph: g, Nodes: nodes, Selected: []string{uid}, Namespace: g.Node(uid).Identity().Namespace,
		Findings: findingsAbout(g.Findings, nodes), CapturedAt: testobj.CapturedAt}
}

func findingsAbout(fs []graph.Finding, nodes []*graph.Node) []graph.Finding {
	in := map[string]bool{}
	for _, n := range nodes {
		in[n.UID()] = true
	}
	var out []graph.Finding
	for _, f := range fs {
		for _, o := range f.Objects {
			if in[o.UID] {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

func TestGraphRenderersGolden(t *testing.T) {
	g := exampleGraph()
	tests := []struct {
		golden string
		render func(*bytes.Buffer) error
	}{
		{"graph_tree.golden", func(b *bytes.Buffer) error { return GraphTree(b, fullView(g), Style{}) }},
		{"graph_tree_color.golden", func(b *bytes.Buffer) error { return GraphTree(b, fullView(g), Style{Color: true}) }},
		{"graph_tree_component.golden", func(b *bytes.Buffer) error { return GraphTree(b, componentView(g, "1-rs"), Style{}) }},
		{"graph_table.golden", func(b *bytes.Buffer) error { return GraphTable(b, fullView(g), Style{}) }},
		{"graph_dot.golden", func(b *bytes.Buffer) error { return GraphDOT(b, fullView(g)) }},
		{"graph_component.dot.golden", func(b *bytes.Buffer) error { return GraphDOT(b, componentView(g, "1-rs")) }},
		{"graph.json.golden", func(b *bytes.Buffer) error { return GraphDocumentTo(b, "json", fullView(g)) }},
		{"graph.yaml.golden", func(b *bytes.Buffer) error { return GraphDocumentTo(b, "yaml", componentView(g, "1-rs")) }},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.render(&b); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, filepath.Join("testdata", tt.golden), b.Bytes())
		})
	}
}

func TestGraphTreeShowsAnIsolatedSelectedObject(t *testing.T) {
	g := exampleGraph()
	var b bytes.Buffer
	v := GraphView{Graph: g, Nodes: g.Component("c-cm"), Selected: []string{"c-cm"}, Namespace: "web"}
	if err := GraphTree(&b, v, Style{}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "ConfigMap/alone ◀\n◀ the object asked about\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestGraphEmptyViews(t *testing.T) {
	g := graph.Build(testobj.Snapshot().Build())
	v := GraphView{Graph: g, Nodes: g.Nodes()}
	for name, render := range map[string]func(*bytes.Buffer) error{
		"tree":  func(b *bytes.Buffer) error { return GraphTree(b, v, Style{}) },
		"table": func(b *bytes.Buffer) error { return GraphTable(b, v, Style{}) },
	} {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != "No objects with owners or dependents.\n" {
			t.Errorf("%s: got %q", name, got)
		}
	}
	var b bytes.Buffer
	if err := GraphDocumentTo(&b, "json", v); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"nodes", "edges", "findings"} {
		if l, ok := doc[k].([]any); !ok || len(l) != 0 {
			t.Errorf("%s = %v, want an empty list (never null)", k, doc[k])
		}
	}
}

// TestGraphDocumentRoundTrip checks the document carries what the contract
// says, field by field, for a virtual node and a blocking edge.
func TestGraphDocumentFields(t *testing.T) {
	owner := testobj.RefTo("apps/v1", "ReplicaSet", "gone", "rs", testobj.Block, testobj.Controller)
	g := graph.Build(testobj.Snapshot(testobj.Pod("web", "p").UID("p").Owner(owner).Build()).Build())
	doc := NewGraphDocument(fullView(g))
	want := GraphDocument{APIVersion: "kgc.dev/v1alpha1", Kind: "Graph",
		Nodes: []GraphNode{
			{ObjectRef: snapshot.ObjectRef{APIVersion: "v1", Kind: "Pod", Namespace: "web", Name: "p", UID: "p"}, Finalizers: []string{}},
			{ObjectRef: snapshot.ObjectRef{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "web", Name: "gone", UID: "rs"}, Virtual: true, Finalizers: []string{}},
		},
		Edges: []graph.Edge{{From: "p", To: "rs", BlockOwnerDeletion: true, Controller: true}},
	}
	gotJSON, _ := json.Marshal(doc.Nodes)
	wantJSON, _ := json.Marshal(want.Nodes)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("nodes:\n%s\nwant\n%s", gotJSON, wantJSON)
	}
	if len(doc.Edges) != 1 || doc.Edges[0] != want.Edges[0] {
		t.Errorf("edges = %+v, want %+v", doc.Edges, want.Edges)
	}
	if len(doc.Findings) != 1 || doc.Findings[0].Type != graph.FindingDanglingOwner || !strings.Contains(doc.Findings[0].Message, "will delete Pod/p -n web") {
		t.Errorf("findings = %+v, want one dangling-owner saying the pod will be deleted", doc.Findings)
	}
}

func TestGraphTreeSelfOwner(t *testing.T) {
	g := graph.Build(testobj.Snapshot(
		testobj.ConfigMap("web", "me").UID("me").Owner(testobj.RefTo("v1", "ConfigMap", "me", "me")).Build()).Build())
	var b bytes.Buffer
	if err := GraphTree(&b, GraphView{Graph: g, Nodes: g.Nodes(), Namespace: "web"}, Style{}); err != nil {
		t.Fatal(err)
	}
	want := "ConfigMap/me\n└── ConfigMap/me (owns itself)\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestGraphTreeBoundsDeepChains(t *testing.T) {
	const n = 200
	objs := make([]snapshot.Object, 0, n)
	for i := 0; i < n; i++ {
		b := testobj.ConfigMap("web", fmt.Sprintf("c%03d", i)).UID(fmt.Sprintf("u%03d", i))
		if i > 0 {
			b.Owner(testobj.RefTo("v1", "ConfigMap", fmt.Sprintf("c%03d", i-1), fmt.Sprintf("u%03d", i-1)))
		}
		objs = append(objs, b.Build())
	}
	g := graph.Build(testobj.Snapshot(objs...).Build())
	var b bytes.Buffer
	if err := GraphTree(&b, GraphView{Graph: g, Nodes: g.Nodes(), Namespace: "web"}, Style{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for i := 0; i < n; i++ {
		if c := strings.Count(out, fmt.Sprintf("ConfigMap/c%03d\n", i)); c != 1 {
			t.Fatalf("ConfigMap/c%03d drawn %d times, want once:\n%s", i, c, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if len([]rune(line)) > 4*(graphTreeMaxDepth+2)+80 {
			t.Fatalf("line of %d characters: indentation is not bounded", len([]rune(line)))
		}
	}
	if !strings.Contains(out, "deeper than 40 levels: its dependents start trees of their own below") {
		t.Errorf("the cut is not explained:\n%s", out)
	}
}
