package render

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/kgc-dev/kgc/pkg/graph"
)

// GraphDOT writes v in Graphviz DOT, laid out like the garbage collector's
// debug handler (pkg/controller/garbagecollector/dump.go): the node ID is
// the UID, one attribute per line with the handler's names and values
// (group, version, kind, namespace, name, uid, missing, beingDeleted,
// deletingDependents, virtual), and edges from dependent to owner, so the
// two can be diffed. Drawing attributes come after: owners above
// dependents, virtual nodes dashed, terminating nodes filled red,
// deletingDependents orange, blockOwnerDeletion edges bold.
//
// It is written with fmt rather than github.com/emicklei/dot because that
// library names nodes n1, n2, … by creation order, and the contract wants
// UIDs as node IDs.
func GraphDOT(w io.Writer, v GraphView) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "strict digraph kgc {")
	fmt.Fprintln(bw, `  graph [rankdir="BT", fontname="Helvetica"];`)
	fmt.Fprintln(bw, `  node [shape="box", style="rounded", fontname="Helvetica", fontsize="10"];`)
	fmt.Fprintln(bw, `  edge [color="gray40"];`)
	if len(v.Nodes) > 0 {
		fmt.Fprintln(bw, "  // Node definitions.")
	}
	// Sorted by UID, as the handler sorts its vertices, so the two diff.
	nodes := slices.Clone(v.Nodes)
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].UID() < nodes[j].UID() })
	for _, n := range nodes {
		graphDOTNode(bw, n)
	}
	edges := v.edges()
	if len(edges) > 0 {
		fmt.Fprintln(bw, "  // Edge definitions.")
	}
	for _, e := range edges {
		fmt.Fprintf(bw, "  %q -> %q", e.From, e.To)
		if e.BlockOwnerDeletion {
			fmt.Fprint(bw, ` [style="bold", penwidth="2", color="black"]`)
		}
		fmt.Fprintln(bw, ";")
	}
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}

func graphDOTNode(w io.Writer, n *graph.Node) {
	id := n.Identity
	group, version := "", id.APIVersion
	if g, v, ok := strings.Cut(id.APIVersion, "/"); ok {
		group, version = g, v
	}
	label := id.Kind + "/" + id.Name + "\n"
	if id.Namespace != "" {
		label += "namespace " + id.Namespace + "\n"
	}
	label += "uid " + id.UID + "\n"
	if fl := graphFlags(n); len(fl) > 0 {
		label += strings.Join(fl, ",") + "\n"
	}
	if n.BeingDeleted && len(n.Finalizers()) > 0 {
		label += "finalizers: " + strings.Join(n.Finalizers(), ", ") + "\n"
	}
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
	style := []string{"rounded"}
	switch {
	case n.DeletingDependents:
		style = append(style, "filled")
		attrs = append(attrs, [2]string{"fillcolor", "#fce5cd"})
	case n.BeingDeleted:
		style = append(style, "filled")
		attrs = append(attrs, [2]string{"fillcolor", "#f4cccc"})
	}
	if n.Virtual {
		style = append(style, "dashed")
		attrs = append(attrs, [2]string{"color", "darkcyan"})
	}
	attrs = append(attrs, [2]string{"style", strings.Join(style, ",")})
	fmt.Fprintf(w, "  %q [\n", id.UID)
	for _, a := range attrs {
		fmt.Fprintf(w, "    %s=%q\n", a[0], a[1])
	}
	fmt.Fprintln(w, "  ];")
}
