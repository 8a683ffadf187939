package render

import (
	"math"
	"strings"

	"github.com/kgc-dev/kgc/pkg/render/layout"
)

// htmlDrawing is an owner graph laid out by kgc (pkg/render/layout) for the
// page's script to draw as SVG: no graphviz needed. Field names are short:
// a cluster's drawing holds many.
type htmlDrawing struct {
	W     float64    `json:"w"`
	H     float64    `json:"h"`
	Nodes []htmlNode `json:"nodes"`
	Edges []htmlEdge `json:"edges"`
}

// htmlNode is one placed box: its lines of text, its tooltip, its CSS
// classes (fate-deleted, virtual, terminating, …) and, when a hazard
// concerns it, the hazard's colour.
type htmlNode struct {
	ID     string   `json:"id"`
	X      float64  `json:"x"`
	Y      float64  `json:"y"`
	W      float64  `json:"w"`
	H      float64  `json:"h"`
	Lines  []string `json:"lines"`
	Tip    string   `json:"tip"`
	Class  string   `json:"cls,omitempty"`
	Stroke string   `json:"stroke,omitempty"`
	Fill   string   `json:"fill,omitempty"`
}

// htmlEdge is one placed edge, from dependent to owner (the arrow at the
// owner, as in the DOT drawings), or from a blocker to what it blocks.
type htmlEdge struct {
	Points [][2]float64 `json:"p"`
	Class  string       `json:"cls,omitempty"`
	Stroke string       `json:"stroke,omitempty"`
	Dash   string       `json:"dash,omitempty"`
	Tip    string       `json:"tip,omitempty"`
}

// drawNode and drawEdge are what a page asks to draw, before layout.
type drawNode struct {
	id           string
	label        string // lines separated by \n, as dotLabel writes them
	tip, class   string
	stroke, fill string
}

type drawEdge struct {
	dependent, owner string
	// owner is false for an edge that is no owner reference (a blocker):
	// it is drawn straight and takes no part in the layering.
	ownerRef            bool
	class, stroke, dash string
	tip                 string
}

// Text metrics of the drawing's monospace labels, so that boxes fit their
// text without a browser measuring it.
const (
	charWidth  = 6.7
	lineHeight = 14
	boxPadding = 8
)

// newDrawing lays out nodes and edges: owners left of their dependents.
func newDrawing(nodes []drawNode, edges []drawEdge) htmlDrawing {
	ln := make([]layout.Node, len(nodes))
	for i, n := range nodes {
		lines := strings.Split(n.label, "\n")
		longest := 0
		for _, l := range lines {
			longest = max(longest, len([]rune(l)))
		}
		ln[i] = layout.Node{ID: n.id, W: math.Ceil(float64(longest)*charWidth) + 2*boxPadding, H: float64(len(lines)*lineHeight + boxPadding)}
	}
	var le []layout.Edge
	for _, e := range edges {
		if e.ownerRef {
			le = append(le, layout.Edge{Owner: e.owner, Dependent: e.dependent})
		}
	}
	d := layout.Layout(ln, le)
	out := htmlDrawing{W: d.W, H: d.H, Nodes: make([]htmlNode, len(d.Boxes))}
	at := make(map[string]layout.Box, len(d.Boxes))
	for i, b := range d.Boxes {
		n := nodes[i]
		at[b.ID] = b
		out.Nodes[i] = htmlNode{ID: b.ID, X: b.X, Y: b.Y, W: b.W, H: b.H, Lines: strings.Split(n.label, "\n"),
			Tip: n.tip, Class: n.class, Stroke: n.stroke, Fill: n.fill}
	}
	routes := d.Routes
	for _, e := range edges {
		he := htmlEdge{Class: e.class, Stroke: e.stroke, Dash: e.dash, Tip: e.tip}
		if e.ownerRef {
			if len(routes) == 0 || routes[0].Owner != e.owner || routes[0].Dependent != e.dependent {
				continue // an end not drawn: layout left it out
			}
			r := routes[0]
			routes = routes[1:]
			he.Points = points(r.Points)
			if r.Back {
				he.Class = strings.TrimSpace(he.Class + " back")
			}
		} else {
			from, ok1 := at[e.dependent]
			to, ok2 := at[e.owner]
			if !ok1 || !ok2 {
				continue
			}
			he.Points = [][2]float64{{from.X + from.W/2, from.Y + from.H/2}, {to.X + to.W/2, to.Y + to.H/2}}
		}
		out.Edges = append(out.Edges, he)
	}
	return out
}

func points(ps []layout.Point) [][2]float64 {
	out := make([][2]float64, len(ps))
	for i, p := range ps {
		out[i] = [2]float64{p.X, p.Y}
	}
	return out
}
