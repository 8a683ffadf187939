package render

import (
	"bufio"
	"io"
	"strconv"

	"github.com/kgc-dev/kgc/internal/background"
	"github.com/kgc-dev/kgc/internal/jsonw"
	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// writeGraphJSON writes the Graph document of v byte for byte as
// Document(w, "json", NewGraphDocument(v)) would, without building the
// document or reflecting on it: a whole cluster's is a million nodes and
// edges, and encoding/json spent more time on it than replaying the graph.
// A test compares the two on random graphs and strings.
func writeGraphJSON(w io.Writer, v GraphView) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var b []byte
	b = append(b, "{\n  \"apiVersion\": "...)
	b = jsonw.AppendString(b, APIVersion)
	b = append(b, ",\n  \"kind\": \"Graph\",\n  \"nodes\": "...)
	b = flushAt(bw, b)
	// A cluster's million edges are listed and sorted on another core
	// while the nodes are written.
	listed := background.Start(v.edges)
	b = appendList(bw, b, len(v.Nodes), func(b []byte, i int) []byte { return appendGraphNode(b, v.Nodes[i]) })
	b = append(b, ",\n  \"edges\": "...)
	edges := listed()
	b = appendList(bw, b, len(edges), func(b []byte, i int) []byte { return appendEdge(b, edges[i]) })
	b = append(b, ",\n  \"findings\": "...)
	findings := v.FindingList()
	b = appendList(bw, b, len(findings), func(b []byte, i int) []byte { return appendFinding(b, findings[i]) })
	b = append(b, "\n}\n"...)
	if _, err := bw.Write(b); err != nil {
		return err
	}
	return bw.Flush()
}

// flushAt hands b to bw once it holds 32 KiB, and returns it emptied.
func flushAt(bw *bufio.Writer, b []byte) []byte {
	if len(b) < 32<<10 {
		return b
	}
	_, _ = bw.Write(b) // bufio keeps the first error, and Flush returns it
	return b[:0]
}

// appendList appends a top-level list of n elements at indentation level
// 1, as encoding/json indents it: [] when empty.
func appendList(bw *bufio.Writer, b []byte, n int, elem func(b []byte, i int) []byte) []byte {
	if n == 0 {
		return append(b, "[]"...)
	}
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = elem(b, i)
		b = flushAt(bw, b)
	}
	return append(b, "\n  ]"...)
}

// appendGraphNode is one GraphNode at indentation level 2.
func appendGraphNode(b []byte, n *graph.Node) []byte {
	b = append(b, '{')
	b = appendRefFields(b, n.Identity(), "\n      ")
	b = appendBoolField(b, "virtual", n.Virtual)
	b = appendBoolField(b, "beingDeleted", n.BeingDeleted)
	b = appendBoolField(b, "deletingDependents", n.DeletingDependents)
	b = append(b, ",\n      \"finalizers\": "...)
	fins := n.Finalizers()
	if len(fins) == 0 {
		b = append(b, "[]"...)
	} else {
		b = append(b, '[')
		for k, f := range fins {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n        "...)
			b = jsonw.AppendString(b, f)
		}
		b = append(b, "\n      ]"...)
	}
	return append(b, "\n    }"...)
}

// appendRefFields appends an ObjectRef's fields, each on a new line
// starting with nl; the first without a leading comma.
func appendRefFields(b []byte, r snapshot.ObjectRef, nl string) []byte {
	b = appendStringField(b, nl, "apiVersion", r.APIVersion)
	b = append(b, ',')
	b = appendStringField(b, nl, "kind", r.Kind)
	if r.Namespace != "" {
		b = append(b, ',')
		b = appendStringField(b, nl, "namespace", r.Namespace)
	}
	b = append(b, ',')
	b = appendStringField(b, nl, "name", r.Name)
	b = append(b, ',')
	return appendStringField(b, nl, "uid", r.UID)
}

// appendEdge is one graph.Edge at indentation level 2.
func appendEdge(b []byte, e graph.Edge) []byte {
	b = append(b, '{')
	b = appendStringField(b, "\n      ", "from", e.From)
	b = append(b, ',')
	b = appendStringField(b, "\n      ", "to", e.To)
	b = appendBoolField(b, "blockOwnerDeletion", e.BlockOwnerDeletion)
	b = appendBoolField(b, "controller", e.Controller)
	return append(b, "\n    }"...)
}

// appendFinding is one graph.Finding at indentation level 2: its objects
// are null when nil, as encoding/json writes a nil slice.
func appendFinding(b []byte, f graph.Finding) []byte {
	b = append(b, '{')
	b = appendStringField(b, "\n      ", "type", f.Type)
	b = append(b, ",\n      \"objects\": "...)
	switch {
	case f.Objects == nil:
		b = append(b, "null"...)
	case len(f.Objects) == 0:
		b = append(b, "[]"...)
	default:
		b = append(b, '[')
		for k, r := range f.Objects {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n        {"...)
			b = appendRefFields(b, r, "\n          ")
			b = append(b, "\n        }"...)
		}
		b = append(b, "\n      ]"...)
	}
	b = append(b, ',')
	b = appendStringField(b, "\n      ", "message", f.Message)
	return append(b, "\n    }"...)
}

func appendStringField(b []byte, nl, name, value string) []byte {
	b = append(b, nl...)
	b = append(b, '"')
	b = append(b, name...)
	b = append(b, "\": "...)
	return jsonw.AppendString(b, value)
}

// appendBoolField appends a field of an element of a top-level list.
func appendBoolField(b []byte, name string, value bool) []byte {
	b = append(b, ",\n      \""...)
	b = append(b, name...)
	b = append(b, "\": "...)
	return strconv.AppendBool(b, value)
}
