package render

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// GraphTree draws v as kubectl-tree does: owners at the top, each
// dependent indented under every owner it has, one line per object, with
// STATUS and AGE columns when the snapshot knows them, a legend for the
// markers drawn, and the findings after the tree. An object drawn once is
// only named again elsewhere ("shown above"), so the output stays linear in
// the graph's size even when many objects share owners, and cycles end.
//
// The tree is walked twice, once to measure the NAME column and once to
// write it, rather than buffered: a whole cluster's tree has millions of
// lines.
func GraphTree(w io.Writer, v GraphView, s Style) error {
	bw := bufio.NewWriter(w)
	t := &graphTreeWriter{w: bw, v: v, s: s, in: v.uidSet(), selected: map[string]bool{}}
	nodes := slices.Clone(v.Nodes)
	for _, uid := range v.Selected {
		t.selected[uid] = true
		if n := v.Graph.Node(uid); n != nil && !t.in[uid] {
			nodes = append(nodes, n)
			t.in[uid] = true
		}
	}
	if len(nodes) == 0 {
		bw.WriteString(v.nothingFound())
	}
	for _, n := range nodes {
		st, age := t.statusAge(n)
		t.columns = t.columns || st != "" || age != ""
		t.ages = t.ages || age != ""
	}
	if t.columns {
		t.walk(nodes) // measure
		t.nameWidth, t.statusWidth, t.ageWidth = max(t.nameWidth, len("NAME")), max(t.statusWidth, len("STATUS")), max(t.ageWidth, len("AGE"))
		t.measured = true
		t.row(text("NAME"), text("STATUS"), text("AGE"), nil)
	}
	t.measured = true
	t.walk(nodes)
	t.legend()
	writeGraphFindings(bw, v.FindingList(), s)
	return bw.Flush()
}

// walk draws every tree of nodes: from each root, then from whatever is
// left, which sits on a cycle with no way in from a root, starting from
// its first object in contract order.
func (t *graphTreeWriter) walk(nodes []*graph.Node) {
	t.drawn = map[*graph.Node]bool{}
	for _, root := range graph.Roots(nodes) {
		t.draw(root, nil, "", "", t.v.Namespace, true)
	}
	for _, n := range nodes {
		if !t.drawn[n] {
			t.draw(n, nil, "", "", t.v.Namespace, true)
		}
	}
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

	// columns: STATUS (and AGE when ages) are shown. measured: the
	// widths are known and rows are written, not measured.
	columns, measured, ages          bool
	nameWidth, statusWidth, ageWidth int
	// The markers drawn, for the legend.
	markedTarget, markedBlocking bool
}

// row writes one line: the NAME cell, the STATUS and AGE cells when the
// tree has those columns, and the flags, with no trailing blanks. Before
// the columns are measured it only measures.
func (t *graphTreeWriter) row(name cell, more ...cell) {
	cells := []cell{name}
	if t.columns && !t.ages && len(more) == 3 {
		more = []cell{more[0], more[2]}
	}
	if t.columns {
		cells = append(cells, more...)
	} else if len(more) == 3 && more[2].width() > 0 {
		cells[0] = name.then(span{text: " "}).then(more[2]...)
	}
	if !t.measured {
		t.nameWidth = max(t.nameWidth, name.width())
		if len(more) > 1 {
			t.statusWidth = max(t.statusWidth, more[0].width())
			t.ageWidth = max(t.ageWidth, more[1].width())
		}
		return
	}
	for len(cells) > 1 && cells[len(cells)-1].width() == 0 {
		cells = cells[:len(cells)-1]
	}
	widths := []int{t.nameWidth, t.statusWidth, t.ageWidth}
	if !t.ages {
		widths = widths[:2]
	}
	for i, c := range cells {
		t.w.WriteString(c.paint(t.s))
		if i < len(cells)-1 {
			t.w.WriteString(strings.Repeat(" ", widths[i]+2-c.width()))
		}
	}
	t.w.WriteByte('\n')
}

// nodeRow writes n's line: its name cell, its status and age, its flags.
func (t *graphTreeWriter) nodeRow(name, flags cell, n *graph.Node) {
	st, age := t.statusAge(n)
	code := ""
	if st == "Terminating" {
		code = Red
	}
	t.row(name, painted(code, st), text(age), flags)
}

// draw prints n under parent (nil at the top) and then its dependents.
func (t *graphTreeWriter) draw(n, parent *graph.Node, prefix, branch, contextNS string, top bool) {
	name, flags := t.label(n, parent, contextNS)
	line := text(prefix + branch).then(name...)
	switch {
	case n == parent:
		t.row(line.then(span{text: " "}, span{Yellow, "(owns itself)"}))
		return
	case slices.Contains(t.path, n):
		t.row(line.then(span{text: " "}, span{Yellow, "(cycle: owns one of its owners)"}))
		return
	case t.drawn[n]:
		t.row(line.then(span{text: " "}, span{Dim, "(shown above)"}))
		return
	}
	t.nodeRow(line, flags, n)
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
		t.row(text(prefix + "    ").then(span{Dim, fmt.Sprintf("… deeper than %d levels: its dependents start trees of their own below", graphTreeMaxDepth)}))
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

// label is KIND/NAME, "-n NAMESPACE" when the namespace is not the one
// around it (snapshot.KubectlName's form), and the target marker; then
// the flags of the node and of its reference to parent.
func (t *graphTreeWriter) label(n, parent *graph.Node, contextNS string) (name, flags cell) {
	id := n.Identity()
	kn := id.Kind + "/" + id.Name
	name = text(kn)
	if t.selected[n.UID()] {
		name = painted(Bold, kn)
	}
	switch id.Namespace {
	case contextNS:
	case "":
		name = name.then(span{text: " "}, span{Dim, "(cluster-scoped)"})
	default:
		name = name.then(span{text: " "}, span{Dim, "-n " + id.Namespace})
	}
	if t.selected[n.UID()] {
		name = name.then(span{text: " "}, span{Bold, "◀"})
		t.markedTarget = true
	}
	flag := func(code, s string) {
		if len(flags) > 0 {
			flags = flags.then(span{text: " "})
		}
		flags = flags.then(span{code, s})
	}
	if n.Virtual {
		flag(Cyan, "[virtual]")
	}
	if n.BeingDeleted {
		if f := n.Finalizers(); len(f) > 0 {
			flag(Red, "[finalizers: "+strings.Join(f, ", ")+"]")
		}
	}
	if n.DeletingDependents {
		flag(Yellow, "[deletingDependents]")
	}
	if parent != nil && parent.DeletingDependents {
		// The reference matters only while its owner is deleted in the
		// foreground: then the owner stays until this dependent is gone.
		for _, r := range n.Owners {
			if r.UID == parent.UID() && r.Blocking() {
				flag(Yellow, "[blockOwnerDeletion]")
				t.markedBlocking = true
				break
			}
		}
	}
	return name, flags
}

// legend explains the markers the tree drew, on one line.
func (t *graphTreeWriter) legend() {
	var parts []string
	if t.markedTarget {
		parts = append(parts, "◀ "+words.Agree(len(t.selected), "the object asked about", "the objects asked about"))
	}
	if t.markedBlocking {
		parts = append(parts, "[blockOwnerDeletion] its owner, deleted in the foreground, stays until it is gone")
	}
	if len(parts) > 0 {
		fmt.Fprintln(t.w, t.s.Paint(Dim, strings.Join(parts, "; ")))
	}
}

// statusAge is n's STATUS and AGE as kubectl get prints them, when the
// snapshot knows them: Terminating while it is being deleted, else the
// phase its status reports (Pods, Namespaces, claims and volumes), a Job's
// Complete or Failed, a Node's Ready or NotReady; the age from its
// creationTimestamp to the capture.
func (t *graphTreeWriter) statusAge(n *graph.Node) (status, age string) {
	o := n.Object
	if o == nil {
		return "", ""
	}
	if ts := o.Metadata.CreationTimestamp; ts != nil && !t.v.CapturedAt.IsZero() {
		age = duration.HumanDuration(t.v.CapturedAt.Sub(*ts))
	}
	if n.BeingDeleted {
		return "Terminating", age
	}
	return objectStatus(o), age
}

// objectStatus is the phase or condition kubectl shows for o, when its
// facts hold one.
func objectStatus(o *snapshot.Object) string {
	f := o.Facts
	switch {
	case f == nil:
		return ""
	case f.Pod != nil:
		return f.Pod.Phase
	case f.Namespace != nil:
		return f.Namespace.Phase
	case f.PVC != nil:
		return f.PVC.Phase
	case f.PV != nil:
		return f.PV.Phase
	case f.Job != nil && f.Job.Finished:
		if f.Job.Failed > 0 && f.Job.Succeeded == 0 {
			return "Failed"
		}
		return "Complete"
	case f.Node != nil && f.Node.Ready != "":
		if f.Node.Ready == "True" {
			return "Ready"
		}
		return "NotReady"
	}
	return ""
}

// graphFindingColor: red for findings where the collector deletes something,
// yellow for ones where it never acts, plain for the others.
func graphFindingColor(typ string) string {
	switch consequenceOf(typ) {
	case collectorDeletes:
		return Red
	case collectorNeverActs:
		return Yellow
	case collectorUnknown, consequenceOther:
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
