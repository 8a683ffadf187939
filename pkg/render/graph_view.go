package render

import (
	"fmt"
	"io"
	"time"

	"slices"

	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// GraphView is what the graph renderers draw: a selection of a graph's
// nodes (a connected component, a namespace, or all of it) and the findings
// about them. Every renderer draws the same view, so -o tree, table, dot and
// json always agree on what is shown.
type GraphView struct {
	Graph *graph.Graph
	// Nodes to draw, in contract order.
	Nodes []*graph.Node
	// Selected are the UIDs the user asked for. The tree marks them and
	// draws them even when the collector's dump would leave them out (an
	// object with neither owners nor dependents).
	Selected []string
	// Namespace is the namespace the user is looking at ("" for all): the
	// tree names the namespace of objects outside it only.
	Namespace string
	// Findings about the nodes. Read them with FindingList.
	Findings []graph.Finding
	// FindingsLater, when set, yields the findings instead of Findings.
	// A renderer that writes the findings last calls it only then, so
	// that a whole cluster's are judged on other cores while its million
	// nodes are written.
	FindingsLater func() []graph.Finding
	// Scope says where the view looked ("in namespace shop, in
	// cluster.yaml"), for the line that says it found nothing there.
	Scope string
	// Elsewhere, when set, says what lies outside Scope and how to see
	// it ("3 in other namespaces (kgc graph -A)"), after the line that
	// says nothing was found.
	Elsewhere string
	// CapturedAt is when the snapshot was taken: the tree's AGE column
	// counts to it. Zero: no ages.
	CapturedAt time.Time
	// All says that Nodes are all of Graph.Nodes(): every owner a drawn
	// node references is drawn too (as a virtual node if absent), so no
	// edge needs to be checked.
	All bool
}

// FindingList returns the findings about the nodes, waiting for
// FindingsLater if set.
func (v GraphView) FindingList() []graph.Finding {
	if v.FindingsLater != nil {
		return v.FindingsLater()
	}
	return v.Findings
}

// nothingFound is the line that says the view holds no object, and where
// it looked.
func (v GraphView) nothingFound() string {
	s := "No objects with owners or dependents"
	if v.Scope != "" {
		s += " " + v.Scope
	}
	if v.Elsewhere != "" {
		s += "; " + v.Elsewhere
	}
	return s + ".\n"
}

// edges returns the edges between drawn nodes.
func (v GraphView) edges() []graph.Edge {
	if v.All {
		return graph.Edges(v.Nodes)
	}
	in := v.uidSet()
	var out []graph.Edge
	for _, e := range graph.Edges(v.Nodes) {
		if in[e.To] {
			out = append(out, e)
		}
	}
	return out
}

func (v GraphView) uidSet() map[string]bool {
	in := make(map[string]bool, len(v.Nodes))
	for _, n := range v.Nodes {
		in[n.UID()] = true
	}
	return in
}

// GraphDocument is the Graph document of the output contract.
type GraphDocument struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Nodes      []GraphNode     `json:"nodes"`
	Edges      []graph.Edge    `json:"edges"`
	Findings   []graph.Finding `json:"findings"`
}

// GraphNode is one node of the Graph document: the identity the garbage
// collector knows it by, and its flags.
type GraphNode struct {
	snapshot.ObjectRef
	Virtual            bool     `json:"virtual"`
	BeingDeleted       bool     `json:"beingDeleted"`
	DeletingDependents bool     `json:"deletingDependents"`
	Finalizers         []string `json:"finalizers"`
}

// NewGraphDocument builds the document of v. Lists are never null, so a
// script can iterate them without checking.
func NewGraphDocument(v GraphView) GraphDocument {
	doc := GraphDocument{APIVersion: APIVersion, Kind: "Graph",
		Nodes: make([]GraphNode, 0, len(v.Nodes)), Edges: v.edges(), Findings: v.FindingList()}
	for _, n := range v.Nodes {
		fins := slices.Clone(n.Finalizers())
		if fins == nil {
			fins = []string{}
		}
		doc.Nodes = append(doc.Nodes, GraphNode{ObjectRef: n.Identity(), Virtual: n.Virtual,
			BeingDeleted: n.BeingDeleted, DeletingDependents: n.DeletingDependents, Finalizers: fins})
	}
	if doc.Edges == nil {
		doc.Edges = []graph.Edge{}
	}
	if doc.Findings == nil {
		doc.Findings = []graph.Finding{}
	}
	return doc
}

// GraphDocumentTo writes v as the Graph document in format json or yaml.
func GraphDocumentTo(w io.Writer, format string, v GraphView) error {
	if format == "json" {
		if err := writeGraphJSON(w, v); err != nil {
			return fmt.Errorf("encoding json: %w", err)
		}
		return nil
	}
	return Document(w, format, NewGraphDocument(v))
}
