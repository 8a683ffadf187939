package render

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// GraphDOT writes v in Graphviz DOT, written like the garbage collector's
// debug handler (pkg/controller/garbagecollector/dump.go): the node ID is
// the UID, one attribute per line with the handler's names and values
// (group, version, kind, namespace, name, uid, missing, beingDeleted,
// deletingDependents, virtual), and edges from dependent to owner, so the
// two can be diffed. Drawing attributes come after, in the style every
// kgc drawing shares (dot_style.go): owners left of their dependents,
// trees packed, the UID in the tooltip only, virtual nodes dashed,
// terminating nodes filled red, deletingDependents orange,
// blockOwnerDeletion edges bold.
//
// The hazards kgc finds are drawn on the elements they concern: each
// finding's node and owner-reference edge take the hazard's colour and
// style (hazardStyleOf), name it in a hazards attribute and in the label,
// and carry the finding's message as their tooltip (shown on hover in
// SVG); an owner reference too malformed for the graph is drawn as a
// dotted edge to a note. A legend names every hazard drawn.
//
// It is written with fmt rather than github.com/emicklei/dot because that
// library names nodes n1, n2, … by creation order, and the contract wants
// UIDs as node IDs.
func GraphDOT(w io.Writer, v GraphView) error {
	bw := bufio.NewWriter(w)
	h := v.hazards()
	d := &dotWriter{w: bw, h: h}
	nodes := d.nodesToDraw(v)
	edges := v.edges()
	d.contextNS = dotContextNamespace(nodeRefs(nodes), v.Namespace)
	dotOpen(bw, "strict digraph kgc", d.components(nodes, edges))
	if len(nodes) > 0 {
		fmt.Fprintln(bw, "  // Node definitions.")
	}
	for _, n := range nodes {
		d.node(n)
	}
	d.invalidNotes()
	if len(edges) > 0 || len(h.invalid) > 0 {
		fmt.Fprintln(bw, "  // Edge definitions.")
	}
	for _, e := range edges {
		d.edge(e)
	}
	d.invalidEdges()
	d.legend()
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}

// dotWriter draws one view and remembers which hazards it drew.
type dotWriter struct {
	w         *bufio.Writer
	h         hazards
	drawn     []string
	contextNS string
}

// components counts the trees drawn, the malformed references' notes
// joined to their dependents, and the legend as one more when drawn.
func (d *dotWriter) components(nodes []*graph.Node, edges []graph.Edge) int {
	ids := make([]string, 0, len(nodes)+len(d.h.invalid))
	pairs := make([][2]string, 0, len(edges)+len(d.h.invalid))
	for _, n := range nodes {
		ids = append(ids, n.UID())
	}
	for _, e := range edges {
		pairs = append(pairs, [2]string{e.From, e.To})
	}
	for i, f := range d.h.invalid {
		ids = append(ids, invalidID(i))
		pairs = append(pairs, [2]string{f.Objects[0].UID, invalidID(i)})
	}
	n := dotComponents(ids, pairs)
	if len(d.h.nodes) > 0 || len(d.h.edges) > 0 || len(d.h.invalid) > 0 {
		n++
	}
	return n
}

func nodeRefs(nodes []*graph.Node) []snapshot.ObjectRef {
	refs := make([]snapshot.ObjectRef, len(nodes))
	for i, n := range nodes {
		refs[i] = n.Identity()
	}
	return refs
}

func (d *dotWriter) drew(types ...string) {
	for _, t := range types {
		if !slices.Contains(d.drawn, t) {
			d.drawn = append(d.drawn, t)
		}
	}
}

// nodesToDraw are the view's nodes, plus the dependents of malformed owner
// references that the view leaves out (the graph never links them), sorted
// by UID as the handler sorts its vertices, so the two diff.
func (d *dotWriter) nodesToDraw(v GraphView) []*graph.Node {
	nodes := slices.Clone(v.Nodes)
	in := v.uidSet()
	for _, f := range d.h.invalid {
		uid := f.Objects[0].UID
		if in[uid] {
			continue
		}
		in[uid] = true
		if n := v.Graph.Node(uid); n != nil {
			nodes = append(nodes, n)
		} else {
			nodes = append(nodes, graph.Unobserved(f.Objects[0]))
		}
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].UID() < nodes[j].UID() })
	return nodes
}

func (d *dotWriter) node(n *graph.Node) {
	id := n.Identity()
	group, version := "", id.APIVersion
	if g, v, ok := strings.Cut(id.APIVersion, "/"); ok {
		group, version = g, v
	}
	fs := d.h.nodes[id.UID]
	var fins string
	if n.BeingDeleted && len(n.Finalizers()) > 0 {
		fins = "finalizers: " + strings.Join(n.Finalizers(), ", ")
	}
	label := dotLabel(id, d.contextNS, strings.Join(append(graphFlags(n), hazardTypes(fs)...), ","), fins)
	attrs := [][2]string{
		{"label", label},
		{"group", group},
		{"version", version},
		{"kind", id.Kind},
		{"namespace", id.Namespace},
		{"name", id.Name},
		{"uid", id.UID},
		{"missing", "false"},
		{"beingDeleted", fmt.Sprint(n.BeingDeleted)},
		{"deletingDependents", fmt.Sprint(n.DeletingDependents)},
		{"virtual", fmt.Sprint(n.Virtual)},
	}
	attrs = append(attrs, nodeDrawing(n, fs)...)
	tip := dotTooltip(id)
	if len(fs) > 0 {
		tip += "\n" + hazardTooltip(fs)
	}
	attrs = append(attrs, [2]string{"tooltip", tip})
	d.drew(hazardTypes(fs)...)
	writeDOTAttrs(d.w, id.UID, attrs)
}

// nodeDrawing is a node's fill, outline and tooltip: the outline takes the
// colour of its first hazard.
func nodeDrawing(n *graph.Node, fs []graph.Finding) [][2]string {
	var attrs [][2]string
	style := []string{"rounded"}
	switch {
	case n.DeletingDependents:
		style = append(style, "filled")
		attrs = append(attrs, [2]string{"fillcolor", "#fce5cd"})
	case n.BeingDeleted:
		style = append(style, "filled")
		attrs = append(attrs, [2]string{"fillcolor", "#f4cccc"})
	}
	switch {
	case len(fs) > 0:
		attrs = append(attrs, [2]string{"color", hazardStyleOf(fs[0].Type).color}, [2]string{"penwidth", "2"})
	case n.Virtual:
		attrs = append(attrs, [2]string{"color", "darkcyan"})
	}
	if n.Virtual {
		style = append(style, "dashed")
	}
	attrs = append(attrs, [2]string{"style", strings.Join(style, ",")})
	if len(fs) > 0 {
		attrs = append(attrs, [2]string{"hazards", strings.Join(hazardTypes(fs), ",")})
	}
	return attrs
}

func writeDOTAttrs(w io.Writer, id string, attrs [][2]string) {
	fmt.Fprintf(w, "  %q [\n", id)
	for _, a := range attrs {
		fmt.Fprintf(w, "    %s=%q\n", a[0], a[1])
	}
	fmt.Fprintln(w, "  ];")
}

// edge draws one owner reference: bold when blockOwnerDeletion, and in
// its hazard's colour and style, labelled with it, when a finding judges it.
func (d *dotWriter) edge(e graph.Edge) {
	fs := d.h.edges[[2]string{e.From, e.To}]
	fmt.Fprintf(d.w, "  %q -> %q", e.From, e.To)
	if len(fs) == 0 {
		if e.BlockOwnerDeletion {
			fmt.Fprint(d.w, " ["+dotAttrList(dotBlockingEdge())+"]")
		}
		fmt.Fprintln(d.w, ";")
		return
	}
	hs := hazardStyleOf(fs[0].Type)
	style := hs.edge
	if e.BlockOwnerDeletion && style != "bold" {
		style += ",bold"
	}
	types := strings.Join(hazardTypes(fs), ",")
	fmt.Fprintf(d.w, " [style=%q, penwidth=\"2\", color=%q, fontcolor=%q, label=%q, hazards=%q, tooltip=%q];\n",
		style, hs.color, hs.color, types, types, hazardTooltip(fs))
	d.drew(hazardTypes(fs)...)
}

// invalidID is the node of the i-th malformed owner reference: it has no
// UID of its own to be named by.
func invalidID(i int) string { return fmt.Sprintf("invalid-owner-reference-%d", i+1) }

// invalidNotes draws each malformed owner reference as a note saying what
// it names and what it lacks.
func (d *dotWriter) invalidNotes() {
	for i, f := range d.h.invalid {
		hs := hazardStyleOf(f.Type)
		owner := f.Objects[1]
		label := "owner reference\n" + orUnknown(owner.Kind) + "/" + orUnknown(owner.Name) + "\n" + f.Type + "\n"
		writeDOTAttrs(d.w, invalidID(i), [][2]string{{"label", label}, {"shape", "note"}, {"style", "dashed"},
			{"color", hs.color}, {"fontcolor", hs.color}, {"hazards", f.Type}, {"tooltip", hazardTooltip([]graph.Finding{f})}})
	}
}

func (d *dotWriter) invalidEdges() {
	for i, f := range d.h.invalid {
		hs := hazardStyleOf(f.Type)
		fmt.Fprintf(d.w, "  %q -> %q [style=%q, penwidth=\"2\", color=%q, hazards=%q, tooltip=%q];\n",
			f.Objects[0].UID, invalidID(i), hs.edge, hs.color, f.Type, hazardTooltip([]graph.Finding{f}))
		d.drew(f.Type)
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

// legend names every hazard drawn, in the style it is drawn with: an edge
// for a reference's hazard, a box for an object's.
func (d *dotWriter) legend() {
	types := slices.Clone(d.drawn)
	slices.Sort(types)
	entries := make([]dotLegendEntry, 0, len(types))
	for _, t := range types {
		hs := hazardStyleOf(t)
		e := dotLegendEntry{key: t, text: t + ": " + hs.meaning, color: hs.color}
		if hs.edge == "" {
			e.attrs = [][2]string{{"style", "rounded"}, {"color", hs.color}, {"penwidth", "2"}}
		} else {
			e.edge = true
			e.attrs = [][2]string{{"style", hs.edge}, {"penwidth", "2"}, {"color", hs.color}}
		}
		entries = append(entries, e)
	}
	writeDOTLegend(d.w, "Hazards", "the hazards drawn", entries)
}
