package render

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// One drawing style for every DOT kgc writes (graph and plan), laid out for
// a screen rather than for the collector's debug handler:
//
//   - ranks run right to left (rankdir RL) with edges from dependent to
//     owner, so owners stand on the left and a tree reads left to right, and
//     a wide level of dependents stacks down the page instead of across it;
//   - disconnected trees are packed into a grid (pack, packmode array_c N)
//     whose column count grows with the square root of their number, so a
//     namespace of many small trees is drawn about as wide as it is tall;
//   - a node is labelled with what a person reads: KIND/NAME, the namespace
//     only when it is not the one the drawing is about, then flags. The UID, which
//     names nothing to a reader, is the node's ID and its tooltip only.
const (
	dotGraphAttrs = `rankdir="RL", pack="true", packmode="%s", nodesep="0.15", ranksep="0.5", fontname="Helvetica"`
	dotNodeAttrs  = `shape="box", style="rounded", fontname="Helvetica", fontsize="10"`
	dotEdgeAttrs  = `color="gray40", fontname="Helvetica", fontsize="8"`
)

// dotBlockingEdge draws an owner reference with blockOwnerDeletion.
func dotBlockingEdge() [][2]string {
	return [][2]string{{"style", "bold"}, {"penwidth", "2"}, {"color", "black"}}
}

// dotAttrList writes attrs as DOT writes them in brackets: k="v", k="v".
func dotAttrList(attrs [][2]string) string {
	parts := make([]string, len(attrs))
	for i, a := range attrs {
		parts[i] = fmt.Sprintf("%s=%q", a[0], a[1])
	}
	return strings.Join(parts, ", ")
}

// dotOpen writes the digraph's opening line and the defaults of the style
// for a drawing of components disconnected trees.
func dotOpen(w io.Writer, opening string, components int) {
	fmt.Fprintln(w, opening+" {")
	fmt.Fprintf(w, "  graph ["+dotGraphAttrs+"];\n", fmt.Sprintf("array_c%d", dotColumns(components)))
	fmt.Fprintln(w, "  node ["+dotNodeAttrs+"];")
	fmt.Fprintln(w, "  edge ["+dotEdgeAttrs+"];")
}

// dotColumns is how many columns the packed trees take: about the square
// root of half their number, as a tree laid out left to right is about
// twice as wide as it is tall.
func dotColumns(components int) int {
	return max(1, int(math.Round(math.Sqrt(float64(components)/2))))
}

// dotComponents counts the connected components of the nodes ids joined by
// edges (either direction), for dotColumns.
func dotComponents(ids []string, edges [][2]string) int {
	parent := make(map[string]string, len(ids))
	find := func(x string) string {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, id := range ids {
		parent[id] = id
	}
	n := len(parent)
	for _, e := range edges {
		if _, ok := parent[e[0]]; !ok {
			continue
		}
		if _, ok := parent[e[1]]; !ok {
			continue
		}
		if a, b := find(e[0]), find(e[1]); a != b {
			parent[a] = b
			n--
		}
	}
	return n
}

// dotContextNamespace is the namespace a drawing is about: the one asked
// for, else the only one its objects live in, else none. Labels name the
// namespace of objects outside it only.
func dotContextNamespace(refs []snapshot.ObjectRef, asked string) string {
	if asked != "" {
		return asked
	}
	only := ""
	for _, r := range refs {
		switch {
		case r.Namespace == "":
		case only == "":
			only = r.Namespace
		case r.Namespace != only:
			return ""
		}
	}
	return only
}

// dotLabel is a node's label: KIND/NAME, the namespace when it is not
// contextNS, then one line per non-empty entry of lines.
func dotLabel(r snapshot.ObjectRef, contextNS string, lines ...string) string {
	out := []string{r.Kind + "/" + r.Name}
	if r.Namespace != "" && r.Namespace != contextNS {
		out = append(out, "namespace "+r.Namespace)
	}
	for _, l := range lines {
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// dotTooltip names the object the way kubectl takes it, and its UID: what
// hovering a node in an SVG shows.
func dotTooltip(r snapshot.ObjectRef) string {
	return r.String() + "\nuid " + r.UID
}

// dotLegendEntry is one entry of a drawing's legend, drawn as what it
// stands for is drawn: a box with a node's attributes, or an edge with an
// edge's.
type dotLegendEntry struct {
	key, text string
	edge      bool
	color     string      // an edge entry's colour, for the point it ends on
	attrs     [][2]string // the drawing attributes, in order
}

// writeDOTLegend writes the legend of a drawing, every kgc drawing's the
// same way: a dashed cluster titled title, one entry per line. Every entry
// sits in the rightmost rank, so they stack in one column; an edge entry
// points left from its text, as references point from dependents to owners.
// No entries, no legend.
func writeDOTLegend(w io.Writer, title, comment string, entries []dotLegendEntry) {
	if len(entries) == 0 {
		return
	}
	fmt.Fprintf(w, "  // Legend: %s.\n", comment)
	fmt.Fprintf(w, "  subgraph \"cluster_legend\" {\n")
	fmt.Fprintf(w, "    label=%q; fontname=\"Helvetica\"; fontsize=\"10\"; style=\"dashed\"; color=\"gray60\";\n", title)
	for _, e := range entries {
		key := "legend-" + e.key
		if !e.edge {
			fmt.Fprintf(w, "    %q [label=%q, shape=\"box\", %s, fontsize=\"9\", tooltip=%q];\n", key, e.text, dotAttrList(e.attrs), e.text)
			continue
		}
		to := key + "-to"
		fmt.Fprintf(w, "    %q [label=%q, shape=\"plaintext\", fontsize=\"9\"]; %q [label=\"\", shape=\"point\", width=\"0.05\", color=%q];\n",
			key, e.text, to, e.color)
		fmt.Fprintf(w, "    %q -> %q [%s, tooltip=%q];\n", key, to, dotAttrList(e.attrs), e.text)
	}
	fmt.Fprintln(w, "  }")
}
