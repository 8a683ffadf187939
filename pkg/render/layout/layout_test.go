package layout

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

func nodes(ids ...string) []Node {
	out := make([]Node, len(ids))
	for i, id := range ids {
		out[i] = Node{ID: id, W: float64(40 + 7*len(id)), H: 20}
	}
	return out
}

func edge(owner, dependent string) Edge { return Edge{Owner: owner, Dependent: dependent} }

// check asserts what every drawing promises: every node placed once, no two
// boxes overlapping, every owner left of its dependents unless the edge
// closes a cycle, every edge routed, and all of it on the page.
func check(t *testing.T, ns []Node, es []Edge, d Drawing) {
	t.Helper()
	if len(d.Boxes) != len(ns) {
		t.Fatalf("placed %d boxes for %d nodes", len(d.Boxes), len(ns))
	}
	at := map[string]Box{}
	for i, b := range d.Boxes {
		if b.ID != ns[i].ID || b.W != ns[i].W || b.H != ns[i].H {
			t.Fatalf("box %d is %+v, want node %+v", i, b, ns[i])
		}
		if b.X < 0 || b.Y < 0 || b.X+b.W > d.W || b.Y+b.H > d.H {
			t.Errorf("box %s %+v is off the page %gx%g", b.ID, b, d.W, d.H)
		}
		at[b.ID] = b
	}
	for i, a := range d.Boxes {
		for _, b := range d.Boxes[i+1:] {
			if a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H {
				t.Errorf("boxes overlap: %+v and %+v", a, b)
			}
		}
	}
	if len(d.Routes) != len(es) {
		t.Fatalf("routed %d edges of %d", len(d.Routes), len(es))
	}
	for i, r := range d.Routes {
		if r.Owner != es[i].Owner || r.Dependent != es[i].Dependent || len(r.Points) < 2 {
			t.Errorf("route %d is %+v, want the edge %+v", i, r, es[i])
		}
		o, dep := at[r.Owner], at[r.Dependent]
		if !r.Back && o.X+o.W >= dep.X {
			t.Errorf("owner %s (x %g..%g) is not left of its dependent %s (x %g)", r.Owner, o.X, o.X+o.W, r.Dependent, dep.X)
		}
	}
}

func TestLayoutTree(t *testing.T) {
	ns := nodes("deploy", "rs-1", "rs-2", "pod-a", "pod-b", "pod-c", "lonely")
	es := []Edge{edge("deploy", "rs-1"), edge("deploy", "rs-2"), edge("rs-1", "pod-a"), edge("rs-1", "pod-b"), edge("rs-2", "pod-c")}
	d := Layout(ns, es)
	check(t, ns, es, d)
	layers := map[string]int{}
	for _, b := range d.Boxes {
		layers[b.ID] = b.Layer
	}
	want := map[string]int{"deploy": 0, "rs-1": 1, "rs-2": 1, "pod-a": 2, "pod-b": 2, "pod-c": 2, "lonely": 0}
	if !reflect.DeepEqual(layers, want) {
		t.Errorf("layers %v, want %v", layers, want)
	}
	for _, r := range d.Routes {
		if r.Back {
			t.Errorf("a tree has no back edge, got %+v", r)
		}
	}
}

func TestLayoutLongestPath(t *testing.T) {
	// A dependent owned from two layers sits right of the farther owner.
	ns := nodes("a", "b", "c")
	es := []Edge{edge("a", "b"), edge("b", "c"), edge("a", "c")}
	d := Layout(ns, es)
	check(t, ns, es, d)
	if d.Boxes[2].Layer != 2 {
		t.Errorf("c is in layer %d, want 2", d.Boxes[2].Layer)
	}
}

func TestLayoutCycles(t *testing.T) {
	ns := nodes("a", "b", "c", "self")
	es := []Edge{edge("a", "b"), edge("b", "c"), edge("c", "a"), edge("self", "self")}
	d := Layout(ns, es)
	check(t, ns, es, d)
	backs := 0
	for _, r := range d.Routes {
		if r.Back {
			backs++
		}
	}
	if backs != 2 {
		t.Errorf("%d back edges, want 2 (one per cycle): %+v", backs, d.Routes)
	}
}

func TestLayoutIgnoresUnknownAndDuplicates(t *testing.T) {
	d := Layout(append(nodes("a", "b"), Node{ID: "a", W: 5, H: 5}), []Edge{edge("a", "b"), edge("a", "missing")})
	if len(d.Boxes) != 2 || len(d.Routes) != 1 {
		t.Errorf("got %d boxes and %d routes, want 2 and 1", len(d.Boxes), len(d.Routes))
	}
}

func TestLayoutEmpty(t *testing.T) {
	if d := Layout(nil, nil); len(d.Boxes) != 0 || len(d.Routes) != 0 {
		t.Errorf("empty input drew %+v", d)
	}
}

func randomGraph(r *rand.Rand, n int) ([]Node, []Edge) {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("n%d", i)
	}
	ns := nodes(ids...)
	var es []Edge
	for range n + n/2 {
		es = append(es, edge(ids[r.IntN(n)], ids[r.IntN(n)]))
	}
	return ns, es
}

func TestLayoutRandomGraphs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		ns, es := randomGraph(r, 1+r.IntN(60))
		t.Run(fmt.Sprint(i), func(t *testing.T) { check(t, ns, es, Layout(ns, es)) })
	}
}

func TestLayoutDeterministic(t *testing.T) {
	ns, es := randomGraph(rand.New(rand.NewPCG(3, 4)), 200)
	first := Layout(ns, es)
	for range 5 {
		if again := Layout(ns, es); !reflect.DeepEqual(first, again) {
			t.Fatal("the same graph was laid out differently")
		}
	}
}

// BenchmarkLayout lays out a forest like a busy cluster's: 100,000 objects
// in deployments of a ReplicaSet and a few pods each, some with shared
// owners.
func BenchmarkLayout(b *testing.B) {
	var ns []Node
	var es []Edge
	for i := 0; len(ns) < 100_000; i++ {
		d, rs := fmt.Sprintf("deploy-%d", i), fmt.Sprintf("rs-%d", i)
		ns = append(ns, nodes(d, rs)...)
		es = append(es, edge(d, rs))
		for p := range 1 + i%5 {
			pod := fmt.Sprintf("pod-%d-%d", i, p)
			ns = append(ns, nodes(pod)...)
			es = append(es, edge(rs, pod))
		}
		if i > 0 && i%7 == 0 {
			es = append(es, edge(fmt.Sprintf("deploy-%d", i-1), rs))
		}
	}
	for b.Loop() {
		Layout(ns, es)
	}
}
