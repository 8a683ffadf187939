package render

import (
	"io"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/graph"
)

// graphHTML is the model of the graph page.
type graphHTML struct {
	Scope    string
	Objects  int
	Findings []graph.Finding
	Legend   []legendEntry
	Nothing  string
}

// legendEntry is one line of a drawing's legend: how something is drawn
// and what it means. Edge entries are drawn as a line, others as a box.
type legendEntry struct {
	Name, Meaning string
	Stroke, Fill  string
	Dash          string
	Edge          bool
}

// GraphHTML writes v as a page: the drawing (kgc's own layout, owners on
// the left) with each hazard in the style and colour the DOT drawing gives
// it (hazardStyleOf), a legend of those drawn, a search and zoom, and the
// findings.
func GraphHTML(w io.Writer, v GraphView) error {
	h := v.hazards()
	d := &dotWriter{h: h}
	nodes := d.nodesToDraw(v)
	contextNS := dotContextNamespace(nodeRefs(nodes), v.Namespace)
	selected := map[string]bool{}
	for _, uid := range v.Selected {
		selected[uid] = true
	}
	var dn []drawNode
	for _, n := range nodes {
		dn = append(dn, graphDrawNode(n, h.nodes[n.UID()], contextNS, selected[n.UID()]))
	}
	var de []drawEdge
	edges := v.edges()
	for _, e := range edges {
		de = append(de, graphDrawEdge(e, h.edges[[2]string{e.From, e.To}]))
	}
	for i, f := range h.invalid {
		hs := hazardStyleOf(f.Type)
		owner := f.Objects[1]
		dn = append(dn, drawNode{id: invalidID(i), label: "owner reference\n" + orUnknown(owner.Kind) + "/" + orUnknown(owner.Name) + "\n" + f.Type,
			tip: hazardTooltip([]graph.Finding{f}), class: "note", stroke: hs.color})
		de = append(de, drawEdge{dependent: f.Objects[0].UID, owner: invalidID(i), ownerRef: true, stroke: hs.color, dash: hs.edge,
			tip: hazardTooltip([]graph.Finding{f})})
	}
	fs := v.FindingList()
	body := graphHTML{Scope: v.Scope, Objects: len(v.Nodes), Findings: fs, Legend: graphLegend(nodes, edges, fs)}
	if len(v.Nodes) == 0 {
		body.Nothing = strings.TrimSpace(v.nothingFound())
	}
	return writeHTMLPage(w, htmlPage{Kind: "graph", Title: "kgc graph", Body: body, Data: newDrawing(dn, de)})
}

// graphDrawNode is a node as GraphDOT labels and styles it.
func graphDrawNode(n *graph.Node, fs []graph.Finding, contextNS string, selected bool) drawNode {
	id := n.Identity()
	var fins string
	if n.BeingDeleted && len(n.Finalizers()) > 0 {
		fins = "finalizers: " + strings.Join(n.Finalizers(), ", ")
	}
	dn := drawNode{id: id.UID, label: dotLabel(id, contextNS, strings.Join(append(graphFlags(n), hazardTypes(fs)...), ","), fins),
		tip: dotTooltip(id), fill: nodeFill(n)}
	var class []string
	if n.Virtual {
		class = append(class, "virtual")
	}
	if selected {
		class = append(class, "selected")
	}
	dn.class = strings.Join(class, " ")
	if len(fs) > 0 {
		dn.stroke = hazardStyleOf(fs[0].Type).color
		dn.tip += "\n" + hazardTooltip(fs)
	}
	return dn
}

// graphDrawEdge is an owner reference as GraphDOT styles it.
func graphDrawEdge(e graph.Edge, fs []graph.Finding) drawEdge {
	de := drawEdge{dependent: e.From, owner: e.To, ownerRef: true}
	if e.BlockOwnerDeletion {
		de.class = "blocking"
	}
	if len(fs) > 0 {
		hs := hazardStyleOf(fs[0].Type)
		de.stroke, de.dash = hs.color, hs.edge
		de.tip = hazardTooltip(fs)
	}
	return de
}

// graphLegend says what the drawing's styles mean: those of the nodes
// drawn, then each hazard drawn, with the meaning DOT's legend gives it.
func graphLegend(nodes []*graph.Node, edges []graph.Edge, fs []graph.Finding) []legendEntry {
	var out []legendEntry
	has := func(f func(*graph.Node) bool) bool { return slices.ContainsFunc(nodes, f) }
	if slices.ContainsFunc(edges, func(e graph.Edge) bool { return e.BlockOwnerDeletion }) {
		out = append(out, legendEntry{Name: "blockOwnerDeletion", Meaning: "the owner, deleted in the foreground, waits for this dependent: bold", Edge: true, Dash: "bold"})
	}
	if has(func(n *graph.Node) bool { return n.Virtual }) {
		out = append(out, legendEntry{Name: "virtual", Meaning: "an owner the collector has not seen: dashed", Dash: "dashed"})
	}
	if has(func(n *graph.Node) bool { return n.BeingDeleted && !n.DeletingDependents }) {
		out = append(out, legendEntry{Name: "beingDeleted", Meaning: "terminating", Fill: nodeFill(&graph.Node{BeingDeleted: true})})
	}
	if has(func(n *graph.Node) bool { return n.DeletingDependents }) {
		out = append(out, legendEntry{Name: "deletingDependents", Meaning: "deleted in the foreground: waits for its dependents",
			Fill: nodeFill(&graph.Node{DeletingDependents: true})})
	}
	var types []string
	for _, f := range fs {
		if !slices.Contains(types, f.Type) {
			types = append(types, f.Type)
		}
	}
	slices.Sort(types)
	for _, t := range types {
		hs := hazardStyleOf(t)
		out = append(out, legendEntry{Name: t, Meaning: hs.meaning, Stroke: hs.color, Dash: hs.edge, Edge: hs.edge != ""})
	}
	return out
}
