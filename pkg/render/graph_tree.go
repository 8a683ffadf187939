package render

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/graph"
)

// GraphTree draws v as kubectl-tree does: owners at the top, each
// dependent indented under every owner it has, one line per object, and
// the findings after the tree. An object drawn once is only named again
// elsewhere ("shown above"), so the output stays linear in the graph's size
// even when many objects share owners, and cycles end.
func GraphTree(w io.Writer, v GraphView, s Style) error {
	bw := bufio.NewWriter(w)
	t := &graphTreeWriter{w: bw, v: v, s: s, in: v.uidSet(), drawn: map[*graph.Node]bool{}, selected: map[string]bool{}}
	nodes := slices.Clone(v.Nodes)
	for _, uid := range v.Selected {
		t.selected[uid] = true
		if n := v.Graph.Node(uid); n != nil && !t.in[uid] {
			nodes = append(nodes, n)
			t.in[uid] = true
		}
	}
	if len(nodes) == 0 {
		fmt.Fprintln(bw, "No objects with owners or dependents.")
	}
	for _, root := range graph.Roots(nodes) {
		t.draw(root, nil, "", "", v.Namespace, true)
	}
	// Whatever is left sits on a cycle with no way in from a root: start
	// from its first object in contract order.
	for _, n := range nodes {
		if !t.drawn[n] {
			t.draw(n, nil, "", "", v.Namespace, true)
		}
	}
	writeGraphFindings(bw, v.FindingList(), s)
	return bw.Flush()
}

// graphTreeMaxDepth bounds the indentation of the tree.
const graphTreeMaxDepth = 40

type graphTreeWriter struct {
	w        *bufio.Writer
	v        GraphView
	s        Style
	in       map[string]bool
	drawn    map[*graph.Node]bool
	selected map[string]bool
	path     []*graph.Node
}

// draw prints n under parent (nil at the top) and then its dependents.
func (t *graphTreeWriter) draw(n, parent *graph.Node, prefix, branch, contextNS string, top bool) {
	line := prefix + branch + t.label(n, parent, contextNS)
	switch {
	case n == parent:
		line += " " + t.s.Paint(Yellow, "(owns itself)")
		fmt.Fprintln(t.w, line)
		return
	case slices.Contains(t.path, n):
		line += " " + t.s.Paint(Yellow, "(cycle: owns one of its owners)")
		fmt.Fprintln(t.w, line)
		return
	case t.drawn[n]:
		line += " " + t.s.Paint(Dim, "(shown above)")
		fmt.Fprintln(t.w, line)
		return
	}
	fmt.Fprintln(t.w, line)
	t.drawn[n] = true
	var deps []*graph.Node
	for _, d := range n.Dependents {
		if t.in[d.UID()] {
			deps = append(deps, d)
		}
	}
	if len(deps) > 0 && len(t.path) >= graphTreeMaxDepth {
		// Owner chains this deep only come from generated or hostile
		// input; indenting further would make the output quadratic. The
		// dependents not drawn here start trees of their own below.
		fmt.Fprintln(t.w, prefix+"    "+t.s.Paint(Dim, fmt.Sprintf("… deeper than %d levels: its dependents start trees of their own below", graphTreeMaxDepth)))
		return
	}
	childPrefix := prefix
	if !top {
		if branch == "└── " {
			childPrefix += "    "
		} else {
			childPrefix += "│   "
		}
	}
	t.path = append(t.path, n)
	for i, d := range deps {
		b := "├── "
		if i == len(deps)-1 {
			b = "└── "
		}
		t.draw(d, n, childPrefix, b, n.Identity().Namespace, false)
	}
	t.path = t.path[:len(t.path)-1]
}

// label is KIND/NAME, the namespace when it is not the one around it, and
// the flags of the node and of its reference to parent.
func (t *graphTreeWriter) label(n, parent *graph.Node, contextNS string) string {
	id := n.Identity()
	text := id.Kind + "/" + id.Name
	if t.selected[n.UID()] {
		text = t.s.Paint(Bold, text)
	}
	parts := []string{text}
	switch id.Namespace {
	case contextNS:
	case "":
		parts = append(parts, t.s.Paint(Dim, "(cluster-scoped)"))
	default:
		parts = append(parts, t.s.Paint(Dim, "(namespace "+id.Namespace+")"))
	}
	if n.Virtual {
		parts = append(parts, t.s.Paint(Cyan, "[virtual]"))
	}
	if n.BeingDeleted {
		flag := "[terminating]"
		if f := n.Finalizers(); len(f) > 0 {
			flag = "[terminating: " + strings.Join(f, ", ") + "]"
		}
		parts = append(parts, t.s.Paint(Red, flag))
	}
	if n.DeletingDependents {
		parts = append(parts, t.s.Paint(Yellow, "[deletingDependents]"))
	}
	if parent != nil {
		for _, r := range n.Owners {
			if r.UID == parent.UID() && r.Blocking() {
				parts = append(parts, t.s.Paint(Yellow, "[blockOwnerDeletion]"))
				break
			}
		}
	}
	if t.selected[n.UID()] {
		parts = append(parts, t.s.Paint(Bold, "◀"))
	}
	return strings.Join(parts, " ")
}

// graphFindingColor: red for findings where the collector deletes something,
// yellow for ones where it never acts, plain for input problems.
func graphFindingColor(typ string) string {
	switch typ {
	case graph.FindingDanglingOwner, graph.FindingCrossNamespaceOwner, graph.FindingOwnerIdentityMismatch:
		return Red
	case graph.FindingUnresolvableOwnerKind, graph.FindingNamespacedOwnerOfGlobal, graph.FindingCycle, graph.FindingStuckFinalizer:
		return Yellow
	}
	return ""
}

func writeGraphFindings(w io.Writer, fs []graph.Finding, s Style) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s:\n", words.Count(len(fs), "finding"))
	for _, f := range fs {
		fmt.Fprintf(w, "  %s %s\n", s.Paint(graphFindingColor(f.Type), f.Type+":"), f.Message)
	}
}
