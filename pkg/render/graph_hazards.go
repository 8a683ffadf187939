package render

import (
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/rules"
)

// hazards indexes a view's findings by what draws them: the node of each
// object a finding is about, and the edge of each owner reference a
// finding judges. Every graph renderer flags the same elements.
type hazards struct {
	nodes map[string][]graph.Finding
	edges map[[2]string][]graph.Finding
	// invalid are the owner references the graph leaves out because they
	// lack required fields: drawn apart, from their dependent.
	invalid []graph.Finding
}

// referenceFinding reports whether a finding type judges one owner
// reference: its Objects are the dependent, then the owner.
func referenceFinding(typ string) bool { return rules.FindingMeaning(typ) != "" }

func (v GraphView) hazards() hazards {
	h := hazards{nodes: map[string][]graph.Finding{}, edges: map[[2]string][]graph.Finding{}}
	add := func(uid string, f graph.Finding) {
		if uid != "" && !slices.ContainsFunc(h.nodes[uid], func(g graph.Finding) bool { return g.Type == f.Type && g.Message == f.Message }) {
			h.nodes[uid] = append(h.nodes[uid], f)
		}
	}
	edges := v.edges()
	for _, f := range v.FindingList() {
		switch {
		case f.Type == graph.FindingInvalidOwnerReference && len(f.Objects) == 2:
			add(f.Objects[0].UID, f)
			h.invalid = append(h.invalid, f)
		case referenceFinding(f.Type) && len(f.Objects) == 2:
			add(f.Objects[0].UID, f)
			k := [2]string{f.Objects[0].UID, f.Objects[1].UID}
			h.edges[k] = append(h.edges[k], f)
		case f.Type == graph.FindingCycle:
			members := map[string]bool{}
			for _, o := range f.Objects {
				add(o.UID, f)
				members[o.UID] = true
			}
			for _, e := range edges {
				if members[e.From] && members[e.To] {
					k := [2]string{e.From, e.To}
					h.edges[k] = append(h.edges[k], f)
				}
			}
		default: // stuck-finalizer, duplicate-uid: about the objects themselves
			for _, o := range f.Objects {
				add(o.UID, f)
			}
		}
	}
	return h
}

// hazardTypes names the hazard types of fs once each, in order.
func hazardTypes(fs []graph.Finding) []string {
	var out []string
	for _, f := range fs {
		if !slices.Contains(out, f.Type) {
			out = append(out, f.Type)
		}
	}
	return out
}

// hazardTooltip is every finding of an element, one per line.
func hazardTooltip(fs []graph.Finding) string {
	lines := make([]string, len(fs))
	for i, f := range fs {
		lines[i] = f.Type + ": " + f.Message
	}
	return strings.Join(lines, "\n")
}

// hazardStyle is how the DOT drawing shows one hazard type: a colour for
// the element, the style of its edge (empty when the hazard is an object's
// own, not a reference's), and what the legend says it means.
type hazardStyle struct {
	color, edge, meaning string
}

// consequence is what the garbage collector does about a finding, which
// the tree's colours and the drawing's styles both follow.
type consequence int

const (
	consequenceOther   consequence = iota // an input problem
	collectorDeletes                      // it deletes a dependent
	collectorNeverActs                    // it never collects the object
	collectorUnknown                      // kgc cannot tell
)

// consequenceOf groups the finding types by what the collector does.
func consequenceOf(typ string) consequence {
	switch typ {
	case graph.FindingDanglingOwner, graph.FindingCrossNamespaceOwner, graph.FindingOwnerIdentityMismatch:
		return collectorDeletes
	case graph.FindingUnresolvableOwnerKind, graph.FindingNamespacedOwnerOfGlobal, graph.FindingCycle, graph.FindingStuckFinalizer:
		return collectorNeverActs
	case graph.FindingUnknownOwner:
		return collectorUnknown
	}
	return consequenceOther
}

// hazardStyleOf styles the hazards by consequence: red where the
// collector deletes something, orange where it never acts on a reference,
// grey where kgc cannot tell; cycles, stuck finalizers and input problems
// each have their own.
func hazardStyleOf(typ string) hazardStyle {
	switch typ {
	case graph.FindingCycle:
		return hazardStyle{"#8e44ad", "bold", "owners in a cycle: never collected on their own"}
	case graph.FindingInvalidOwnerReference:
		return hazardStyle{"#c0392b", "dotted", "owner reference missing required fields: left out of the graph"}
	case graph.FindingStuckFinalizer:
		return hazardStyle{color: "#b03a2e", meaning: "terminating and held by a finalizer for more than 5 minutes"}
	case graph.FindingDuplicateUID:
		return hazardStyle{color: "#2c3e50", meaning: "UID shared with another object of the input"}
	}
	meaning := rules.FindingMeaning(typ)
	switch consequenceOf(typ) {
	case collectorDeletes:
		return hazardStyle{"#c0392b", "dashed", meaning}
	case collectorNeverActs:
		return hazardStyle{"#d35400", "dashed", meaning}
	case collectorUnknown:
		return hazardStyle{"#7f8c8d", "dotted", meaning}
	case consequenceOther:
	}
	return hazardStyle{color: "black", meaning: typ}
}
