// The collector's owner graph is pkg/collector's: upstream's graph.go
// lives there, shared with the read-only view (pkg/graph), so that the
// simulator and the graph kgc draws follow one set of rules.

package plan

import (
	"github.com/kgc-dev/kgc/pkg/collector"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// node is upstream's node (graph.go).
type node = collector.Node

// objectReference is upstream's objectReference (graph.go): the
// coordinates of an owner reference plus a namespace.
type objectReference = snapshot.ObjectRef
