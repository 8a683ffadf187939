package render

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/kgc-dev/kgc/pkg/postmortem"
)

// PostMortemDOT writes the causal graph of a post-mortem in Graphviz DOT:
// each object a node (its UID the node ID), grouped in a cluster per actor
// that deleted it, and an edge from each cause to what it caused, styled
// by how the link is known: solid from the audit log, dashed from the
// before snapshot, dotted from kgc's model, red and dotted from timing
// alone. A root request's node is bold.
func PostMortemDOT(w io.Writer, pm *postmortem.PostMortem) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "digraph postmortem {")
	fmt.Fprintln(bw, `  graph [rankdir="LR", fontname="Helvetica"];`)
	fmt.Fprintln(bw, `  node [shape="box", style="rounded", fontname="Helvetica", fontsize="10"];`)
	fmt.Fprintln(bw, `  edge [fontname="Helvetica", fontsize="8"];`)
	nodes := map[string]postmortem.Link{}
	var order []string
	var edges [][2]postmortem.Link
	for _, r := range pm.Roots {
		for _, l := range r.Cascade {
			collect(l, nodes, &order, &edges)
		}
	}
	byActor := map[string][]postmortem.Link{}
	for _, id := range order {
		l := nodes[id]
		a := l.Actor
		if a == postmortem.ActorUser {
			a = l.User
		}
		byActor[a] = append(byActor[a], l)
	}
	actors := make([]string, 0, len(byActor))
	for a := range byActor {
		actors = append(actors, a)
	}
	slices.Sort(actors)
	for i, a := range actors {
		fmt.Fprintf(bw, "  subgraph cluster_%d {\n    label=%s;\n", i, strconv.Quote(a))
		for _, l := range byActor[a] {
			style := "rounded"
			if l.Via == postmortem.ViaRoot {
				style = "rounded,bold"
			}
			fmt.Fprintf(bw, "    %s [label=%s, style=%s, tooltip=%s];\n", strconv.Quote(nodeID(l)),
				strconv.Quote(l.Object.Kind+"\n"+refName(l.Object)+"\n"+l.Result), strconv.Quote(style), strconv.Quote(l.Detail))
		}
		fmt.Fprintln(bw, "  }")
	}
	for _, e := range edges {
		fmt.Fprintf(bw, "  %s -> %s [%s];\n", strconv.Quote(nodeID(e[0])), strconv.Quote(nodeID(e[1])), evidenceStyle(e[1]))
	}
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}

// collect gathers each object's node once: an object one chain orphaned
// and another deleted later is one node, drawn as the deletion, with an
// edge from each chain.
func collect(l postmortem.Link, nodes map[string]postmortem.Link, order *[]string, edges *[][2]postmortem.Link) {
	id := nodeID(l)
	switch prev, ok := nodes[id]; {
	case !ok:
		*order = append(*order, id)
		nodes[id] = l
	case prev.Result == postmortem.ResultOrphaned && l.Result != postmortem.ResultOrphaned:
		nodes[id] = l
	}
	for _, d := range l.Dependents {
		*edges = append(*edges, [2]postmortem.Link{l, d})
		collect(d, nodes, order, edges)
	}
}

func nodeID(l postmortem.Link) string {
	if l.Object.UID != "" {
		return l.Object.UID
	}
	return l.Object.Kind + "/" + refName(l.Object)
}

func evidenceStyle(l postmortem.Link) string {
	label := "label=" + strconv.Quote(l.Via+": "+l.Evidence)
	switch l.Evidence {
	case postmortem.EvidenceAudit:
		return label + `, style="solid"`
	case postmortem.EvidenceSnapshot:
		return label + `, style="dashed"`
	case postmortem.EvidenceModel:
		return label + `, style="dotted"`
	}
	return label + `, style="dotted", color="red"`
}
