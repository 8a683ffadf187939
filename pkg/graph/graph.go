package graph

import (
	"slices"
	"sync"

	"github.com/kgc-dev/kgc/internal/uidtable"
	"github.com/kgc-dev/kgc/pkg/collector"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Node is one vertex of the collector's graph (see collector.Node): its
// Object is the snapshot object observed, nil for a virtual node and for
// one Unobserved makes; its Dependents are in contract order.
type Node = collector.Node

// Unobserved returns a node for an object the collector does not observe
// (of a type it does not watch), to draw beside a graph's nodes: it has
// the object's identity, no flags, owners or dependents.
func Unobserved(ref snapshot.ObjectRef) *Node { return collector.Unobserved(ref) }

// Graph is the collector's graph of one snapshot. It is not changed after
// Build, so any number of goroutines may read it.
type Graph struct {
	snap *snapshot.Snapshot
	cat  *rules.ServedTypes
	// inOrder is snapshot.Sorted(snap.Objects), asked once.
	inOrder bool
	// keys are the objects replayed, by the key uids files each under: in
	// the objects' order, or, when two share a UID, in the order replayed
	// (see replay). uids finds them by UID, and with nodeOf and absent is
	// the collector's uidToNode map: see Node.
	keys []int32
	uids *uidtable.Table
	// absent are the virtual nodes whose UID no replayed object has.
	absent map[string]*Node
	// slab holds the node of every replayed object (but the later ones
	// of a repeated UID); virtual the nodes of owners no replayed object
	// holds, which stay virtual. Together they are every node once.
	slab    []Node
	virtual []*Node
	// nodeOf is the node of each object replayed, by index (nil for the
	// others, and for the later objects of a repeated UID).
	nodeOf []*Node
	sorted []*Node // every node, in contract order
	// unobserved are the objects with a UID that are not nodes: of types
	// the collector does not watch. Few in a cluster.
	unobserved []int32
	// replayDups are the UIDs of observed objects skipped because an
	// object with that UID was observed before.
	replayDups []string
	// reached are the UIDs a ReplayAbout graph covers (nil: the whole
	// cluster's).
	reached map[string]bool
	// Findings are the hazards found, sorted by (type, first object,
	// message). Build sets them; Replay leaves them to AllFindings and
	// FindingsAbout, which compute only what is asked.
	Findings []Finding

	sortOnce  sync.Once
	indexOnce sync.Once
	index     *rules.Index
	// names waits for what judging every reference looks owners up by
	// name in, which a whole replay prepares on another core while it
	// replays (nil for a replay about some objects).
	names   func() nameFinder
	allOnce sync.Once
	all     []Finding
}

// Node returns the node of uid: any observed object of a watched type
// (whether or not it has owners or dependents) or a virtual owner; nil if
// the collector would not know uid.
func (g *Graph) Node(uid string) *Node {
	if k, ok := g.uids.Find(uid); ok {
		return g.nodeOf[g.keys[k]]
	}
	return g.absent[uid]
}

// eachNode yields every node once, in no particular order.
func (g *Graph) eachNode(yield func(*Node) bool) {
	for i := range g.slab {
		if !yield(&g.slab[i]) {
			return
		}
	}
	for _, n := range g.virtual {
		if !yield(n) {
			return
		}
	}
}

// nodeCount is how many nodes the graph holds.
func (g *Graph) nodeCount() int { return len(g.slab) + len(g.virtual) }

// sortedNodes returns every node in contract order, sorted once, on
// first use: a question about one tree never needs the whole order.
func (g *Graph) sortedNodes() []*Node {
	g.sortOnce.Do(func() {
		if g.inOrder {
			g.sorted = g.nodesInObjectOrder()
			return
		}
		g.sorted = make([]*Node, 0, g.nodeCount())
		for n := range g.eachNode {
			g.sorted = append(g.sorted, n)
		}
		sortNodes(g.sorted)
	})
	return g.sorted
}

// nodesInObjectOrder returns every node in contract order without
// sorting them all, for a snapshot whose objects are in contract order:
// an observed node's identity differs from its object's reference only
// in apiVersion, which the order ignores, so the observed nodes come in
// their objects' order. Only the virtual nodes, few, are sorted, and
// merged in.
func (g *Graph) nodesInObjectOrder() []*Node {
	virtual := slices.Clone(g.virtual)
	sortNodes(virtual)
	out := make([]*Node, 0, g.nodeCount())
	for _, n := range g.nodeOf {
		if n == nil {
			continue
		}
		for len(virtual) > 0 && virtual[0].Identity().Compare(n.Identity()) < 0 {
			out, virtual = append(out, virtual[0]), virtual[1:]
		}
		out = append(out, n)
	}
	return append(out, virtual...)
}

// Index returns the collector's lookups over the whole snapshot, built
// once, on first use, and shared (diagnosis asks the same questions).
func (g *Graph) Index() *rules.Index {
	g.indexOnce.Do(func() { g.index = rules.NewIndex(g.snap.Objects) })
	return g.index
}

// Snapshot returns the snapshot the graph was built from.
func (g *Graph) Snapshot() *snapshot.Snapshot { return g.snap }

// ServedTypes returns the served types the graph was built with.
func (g *Graph) ServedTypes() *rules.ServedTypes { return g.cat }

// Nodes returns what the collector's debug handler prints without ?uid=:
// every node with owners or dependents (which includes every virtual node),
// in contract order. Observed objects that neither own nor are owned are in
// the collector's map but not in its dump (dump.go toDOTNodesAndEdges).
func (g *Graph) Nodes() []*Node {
	out := make([]*Node, 0, g.nodeCount())
	for _, n := range g.sortedNodes() {
		if inDump(n) {
			out = append(out, n)
		}
	}
	return out
}

func inDump(n *Node) bool { return len(n.Owners) > 0 || len(n.Dependents) > 0 }

// AllNodes returns every node the collector would hold, including observed
// objects with neither owners nor dependents, in contract order.
func (g *Graph) AllNodes() []*Node { return slices.Clone(g.sortedNodes()) }

// Component returns what the debug handler prints for ?uid=U&uid=V: the
// nodes reachable from the UIDs through owner references and dependents,
// keeping only those with owners or dependents (so an isolated object's
// component is empty, as upstream), in contract order. Unknown UIDs are
// skipped.
func (g *Graph) Component(uids ...string) []*Node {
	seen := map[string]*Node{}
	queue := append([]string(nil), uids...)
	for len(queue) > 0 {
		uid := queue[0]
		queue = queue[1:]
		if _, ok := seen[uid]; ok {
			continue
		}
		n := g.Node(uid)
		if n == nil {
			continue
		}
		seen[uid] = n
		for _, r := range n.Owners {
			queue = append(queue, r.UID)
		}
		for _, d := range n.Dependents {
			queue = append(queue, d.UID())
		}
	}
	out := make([]*Node, 0, len(seen))
	for _, n := range seen {
		if inDump(n) {
			out = append(out, n)
		}
	}
	sortNodes(out)
	return out
}

// BlockingDependents returns the dependents with an owner reference to n
// with blockOwnerDeletion=true, in contract order: the collector's
// blockingDependents (collector.Node.BlockingDependents), which ignores
// whether they are being deleted themselves.
func (g *Graph) BlockingDependents(n *Node) []*Node { return n.BlockingDependents() }

// Owners resolves n's owner references to nodes, in reference order, one
// per UID.
func (g *Graph) Owners(n *Node) []*Node {
	var out []*Node
	for _, r := range n.Owners {
		if o := g.Node(r.UID); o != nil && !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// Roots returns the nodes of nodes that have no owner among them: the tops
// of the forest a tree view draws, in contract order.
func Roots(nodes []*Node) []*Node {
	in := map[string]bool{}
	for _, n := range nodes {
		in[n.UID()] = true
	}
	var out []*Node
	for _, n := range nodes {
		hasOwner := false
		for _, r := range n.Owners {
			if in[r.UID] && r.UID != n.UID() {
				hasOwner = true
				break
			}
		}
		if !hasOwner {
			out = append(out, n)
		}
	}
	return out
}

// InNamespaces returns the graph of namespaces: the connected components
// of every node whose identity is in one of them (a virtual node counts in
// the namespace of the dependent that named it first), which brings in
// their owners and their owners' other dependents, wherever they live. It is
// what the debug handler prints for ?uid= with every such UID, so the
// namespace filter limits what is shown, never what is recognised. No
// namespaces means the whole graph.
func (g *Graph) InNamespaces(namespaces ...string) []*Node {
	if len(namespaces) == 0 {
		return g.Nodes()
	}
	var seeds []string
	for n := range g.eachNode {
		if slices.Contains(namespaces, n.Identity().Namespace) {
			seeds = append(seeds, n.UID())
		}
	}
	return g.Component(seeds...)
}

func sortNodes(nodes []*Node) {
	slices.SortFunc(nodes, func(a, b *Node) int { return a.Identity().Compare(b.Identity()) })
}
