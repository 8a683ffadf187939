package render

import (
	"io"
	"strconv"
	"strings"

	"github.com/kgc-dev/kgc/pkg/graph"
)

// GraphTable lists v's nodes one per row, kubectl style, then the
// findings. OWNERS names each owner reference as KIND/NAME; DEPENDENTS
// counts the drawn dependents; FLAGS has the collector's flags and then
// the type of every finding about the object (a cycle it is on, a broken
// owner reference it has, a finalizer it is stuck on).
func GraphTable(w io.Writer, v GraphView, s Style) error {
	if len(v.Nodes) == 0 {
		if _, err := io.WriteString(w, v.nothingFound()); err != nil {
			return err
		}
		writeGraphFindings(w, v.FindingList(), s)
		return nil
	}
	in := v.uidSet()
	h := v.hazards()
	rows := make([][]string, 0, len(v.Nodes))
	for _, n := range v.Nodes {
		var owners []string
		for _, r := range n.Owners {
			owners = append(owners, r.Kind+"/"+r.Name)
		}
		deps := 0
		for _, d := range n.Dependents {
			if in[d.UID()] {
				deps++
			}
		}
		id := n.Identity()
		rows = append(rows, []string{graphOrNone(id.Namespace), id.Kind, id.Name, id.UID,
			graphOrNone(strings.Join(owners, ",")), strconv.Itoa(deps), graphOrNone(strings.Join(append(graphFlags(n), hazardTypes(h.nodes[id.UID])...), ","))})
	}
	if err := plainTable(w, []string{"NAMESPACE", "KIND", "NAME", "UID", "OWNERS", "DEPENDENTS", "FLAGS"}, rows); err != nil {
		return err
	}
	writeGraphFindings(w, v.FindingList(), s)
	return nil
}

func graphOrNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// graphFlags names a node's flags with the collector's words.
func graphFlags(n *graph.Node) []string {
	var f []string
	if n.Virtual {
		f = append(f, "virtual")
	}
	if n.BeingDeleted {
		f = append(f, "beingDeleted")
	}
	if n.DeletingDependents {
		f = append(f, "deletingDependents")
	}
	return f
}
