package layout

import "math"

// component is one connected component placed at the origin, and its size.
type component struct {
	members []int
	w, h    float64
}

// sweeps is how many times the barycentre ordering goes over the layers
// each way: a few passes settle small graphs, and more cost time on large
// ones for little.
const sweeps = 4

// place lays out one component at the origin: its layers as columns, each
// ordered by barycentre, then its boxes stacked in each column as close as
// they can be to their owners (and owners to their dependents) without
// overlapping.
func (g *graph) place(members []int, layer []int, back []bool, boxes []Box) component {
	nl := 0
	for _, m := range members {
		nl = max(nl, layer[m]+1)
	}
	cols := make([][]int, nl)
	for _, m := range members {
		cols[layer[m]] = append(cols[layer[m]], m)
	}
	pos := make(map[int]float64, len(members))
	for _, col := range cols {
		for i, m := range col {
			pos[m] = float64(i)
		}
	}
	for range sweeps {
		for l := 1; l < nl; l++ {
			g.order(cols[l], pos, back, true)
		}
		for l := nl - 2; l >= 0; l-- {
			g.order(cols[l], pos, back, false)
		}
	}
	x := 0.0
	for l, col := range cols {
		w := 0.0
		for _, m := range col {
			n := g.nodes[m]
			boxes[m] = Box{ID: n.ID, X: x, W: n.W, H: n.H, Layer: l}
			w = max(w, n.W)
		}
		x += w + LayerGap
	}
	for l := range cols {
		g.stack(cols[l], boxes, back, true)
	}
	for l := nl - 2; l >= 0; l-- {
		g.stack(cols[l], boxes, back, false)
	}
	c := component{members: members, w: max(0, x-LayerGap)}
	for _, m := range members {
		c.h = max(c.h, boxes[m].Y+boxes[m].H)
	}
	return c
}

// neighbours are the ends of m's edges that are not back edges: its owners
// (left) or its dependents.
func (g *graph) neighbours(m int, back []bool, left bool) []int {
	var out []int
	if left {
		for _, ei := range g.owners[m] {
			if !back[ei] {
				out = append(out, g.edges[ei][0])
			}
		}
		return out
	}
	for _, ei := range g.dependents[m] {
		if !back[ei] {
			out = append(out, g.edges[ei][1])
		}
	}
	return out
}

// order sorts a column by the mean position of each box's neighbours on
// one side; a box without any keeps its place.
func (g *graph) order(col []int, pos map[int]float64, back []bool, left bool) {
	key := make(map[int]float64, len(col))
	for _, m := range col {
		ns := g.neighbours(m, back, left)
		if len(ns) == 0 {
			key[m] = pos[m]
			continue
		}
		sum := 0.0
		for _, n := range ns {
			sum += pos[n]
		}
		key[m] = sum / float64(len(ns))
	}
	sortByKey(col, key)
	for i, m := range col {
		pos[m] = float64(i)
	}
}

// stack sets the tops of a column's boxes, in its order: each as near as
// it can be to the middle of its neighbours on one side, below the box
// before it. Boxes of a column never overlap, whatever the wishes, and
// columns do not share x, so no two boxes do.
func (g *graph) stack(col []int, boxes []Box, back []bool, left bool) {
	next := 0.0
	for _, m := range col {
		b := &boxes[m]
		want := next
		if !left && len(g.neighbours(m, back, false)) == 0 {
			want = b.Y // a box with no dependent stays where its owners put it
		} else if ns := g.neighbours(m, back, left); len(ns) > 0 {
			sum := 0.0
			for _, n := range ns {
				sum += boxes[n].Y + boxes[n].H/2
			}
			want = sum/float64(len(ns)) - b.H/2
		}
		b.Y = math.Max(want, next)
		next = b.Y + b.H + NodeGap
	}
}

// pack places the components in rows about as wide as the whole is tall
// (a little wider: screens are), in order, shifting their boxes, and
// returns the page's size.
func pack(comps []component, boxes []Box) (w, h float64) {
	area, widest := 0.0, 0.0
	for _, c := range comps {
		area += (c.w + ComponentGap) * (c.h + ComponentGap)
		widest = max(widest, c.w)
	}
	target := math.Max(widest, math.Sqrt(area)*1.6)
	x, y, rowH := 0.0, 0.0, 0.0
	for _, c := range comps {
		if x > 0 && x+c.w > target {
			x, y, rowH = 0, y+rowH+ComponentGap, 0
		}
		for _, m := range c.members {
			boxes[m].X += x
			boxes[m].Y += y
		}
		w = max(w, x+c.w)
		x += c.w + ComponentGap
		rowH = max(rowH, c.h)
	}
	// Back edges run a little below and right of their boxes.
	return w + backDrop, y + rowH + backDrop
}
