// Package layout places an owner graph on a page without graphviz, which a
// user may not have: owners on the left of their dependents, a layer per
// step of ownership (longest-path layering), each layer ordered by the
// barycentre of its neighbours so that edges cross little, and the
// connected components packed into rows. Cycles, which owner references
// can form, are broken for the layering only: every edge is routed,
// a back edge below the boxes it joins. It is a pure function of its input
// order, so the same graph is drawn the same way every time.
package layout

import (
	"math"
	"sort"
)

// Node is a box to place, and its size.
type Node struct {
	ID   string
	W, H float64
}

// Edge is an owner reference: Owner is drawn left of Dependent.
type Edge struct {
	Owner, Dependent string
}

// Point is a position on the page, y growing downwards.
type Point struct{ X, Y float64 }

// Box is a placed node.
type Box struct {
	ID         string
	X, Y, W, H float64
	// Layer is the node's column in its component: 0 for an owner of
	// nothing drawn.
	Layer int
}

// Route is a placed edge: a polyline from the dependent to the owner.
// Back marks the edges the layering ignored to break a cycle: they go
// rightwards or stay in a column, drawn under the boxes.
type Route struct {
	Owner, Dependent string
	Points           []Point
	Back             bool
}

// Drawing is a whole layout: the boxes in input order, the routes in
// input order, and the size of the page.
type Drawing struct {
	Boxes  []Box
	Routes []Route
	W, H   float64
}

// Spacing of the drawing, in the units of the nodes' sizes.
const (
	LayerGap     = 48 // between columns
	NodeGap      = 10 // between boxes of a column
	ComponentGap = 28 // between packed components
	backDrop     = 12 // how far below its boxes a back edge runs
)

// graph is the input indexed: nodes by position, edges by node.
type graph struct {
	nodes      []Node
	index      map[string]int
	edges      [][2]int // owner, dependent
	owners     [][]int  // edge indices by dependent
	dependents [][]int  // edge indices by owner
}

func newGraph(nodes []Node, edges []Edge) *graph {
	g := &graph{index: make(map[string]int, len(nodes))}
	for _, n := range nodes {
		if _, dup := g.index[n.ID]; dup {
			continue
		}
		g.index[n.ID] = len(g.nodes)
		g.nodes = append(g.nodes, n)
	}
	g.owners = make([][]int, len(g.nodes))
	g.dependents = make([][]int, len(g.nodes))
	for _, e := range edges {
		o, ok1 := g.index[e.Owner]
		d, ok2 := g.index[e.Dependent]
		if !ok1 || !ok2 {
			continue
		}
		g.owners[d] = append(g.owners[d], len(g.edges))
		g.dependents[o] = append(g.dependents[o], len(g.edges))
		g.edges = append(g.edges, [2]int{o, d})
	}
	return g
}

// Layout places nodes and routes edges. Edges naming a node not given are
// left out, and so is a second node with an ID already given.
func Layout(nodes []Node, edges []Edge) Drawing {
	g := newGraph(nodes, edges)
	back := g.backEdges()
	layer := g.layers(back)
	boxes := make([]Box, len(g.nodes))
	var comps []component
	for _, members := range g.components() {
		comps = append(comps, g.place(members, layer, back, boxes))
	}
	w, h := pack(comps, boxes)
	routes := make([]Route, 0, len(g.edges))
	for i, e := range g.edges {
		o, d := &boxes[e[0]], &boxes[e[1]]
		routes = append(routes, Route{Owner: o.ID, Dependent: d.ID, Back: back[i], Points: route(o, d, back[i])})
	}
	return Drawing{Boxes: boxes, Routes: routes, W: w, H: h}
}

// components are the connected components, each in input order, ordered
// by their first node.
func (g *graph) components() [][]int {
	parent := make([]int, len(g.nodes))
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, e := range g.edges {
		a, b := find(e[0]), find(e[1])
		if a != b {
			parent[max(a, b)] = min(a, b)
		}
	}
	at := map[int]int{}
	var out [][]int
	for i := range g.nodes {
		r := find(i)
		k, ok := at[r]
		if !ok {
			k = len(out)
			at[r] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], i)
	}
	return out
}

// backEdges finds, by a depth-first walk from owners to dependents that
// starts at the owners of nothing, the edges that close a cycle.
func (g *graph) backEdges() []bool {
	back := make([]bool, len(g.edges))
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(g.nodes))
	type frame struct{ node, next int }
	walk := func(start int) {
		stack := []frame{{start, 0}}
		state[start] = onPath
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(g.dependents[top.node]) {
				state[top.node] = done
				stack = stack[:len(stack)-1]
				continue
			}
			ei := g.dependents[top.node][top.next]
			top.next++
			switch d := g.edges[ei][1]; state[d] {
			case onPath:
				back[ei] = true
			case unseen:
				state[d] = onPath
				stack = append(stack, frame{d, 0})
			}
		}
	}
	for i := range g.nodes {
		if len(g.owners[i]) == 0 && state[i] == unseen {
			walk(i)
		}
	}
	for i := range g.nodes {
		if state[i] == unseen {
			walk(i)
		}
	}
	return back
}

// layers is the longest-path layering over the edges that are not back
// edges: an owner of nothing is in layer 0, a dependent one layer right of
// its rightmost owner.
func (g *graph) layers(back []bool) []int {
	layer := make([]int, len(g.nodes))
	indegree := make([]int, len(g.nodes))
	for i, e := range g.edges {
		if !back[i] {
			indegree[e[1]]++
		}
	}
	queue := make([]int, 0, len(g.nodes))
	for i := range g.nodes {
		if indegree[i] == 0 {
			queue = append(queue, i)
		}
	}
	for q := 0; q < len(queue); q++ {
		o := queue[q]
		for _, ei := range g.dependents[o] {
			if back[ei] {
				continue
			}
			d := g.edges[ei][1]
			layer[d] = max(layer[d], layer[o]+1)
			if indegree[d]--; indegree[d] == 0 {
				queue = append(queue, d)
			}
		}
	}
	return layer
}

// route is the polyline of one edge, from the dependent to the owner: from
// the dependent's left side to the owner's right side, or, for a back
// edge, under both boxes (around the right of a box that owns itself).
func route(o, d *Box, back bool) []Point {
	if !back {
		return []Point{{d.X, d.Y + d.H/2}, {o.X + o.W, o.Y + o.H/2}}
	}
	if o == d {
		r, top := o.X+o.W, o.Y+o.H/4
		return []Point{{r, top}, {r + backDrop, top}, {r + backDrop, top + o.H/2}, {r, top + o.H/2}}
	}
	low := math.Max(o.Y+o.H, d.Y+d.H) + backDrop
	return []Point{{d.X + d.W/2, d.Y + d.H}, {d.X + d.W/2, low}, {o.X + o.W/2, low}, {o.X + o.W/2, o.Y + o.H}}
}

// sortByKey orders ids by key, keeping the given order among equals.
func sortByKey(ids []int, key map[int]float64) {
	sort.SliceStable(ids, func(i, j int) bool { return key[ids[i]] < key[ids[j]] })
}
