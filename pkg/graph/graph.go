// Package graph rebuilds the owner graph the kube-controller-manager garbage
// collector keeps (its GraphBuilder's uidToNode), from a snapshot, and flags
// the owner-reference hazards that make the collector delete too much,
// nothing, or retry forever.
//
// Build replays the snapshot's objects as if the collector's informers had
// delivered them, one add event each, in creation order, into the graph
// of pkg/collector, which the simulator (pkg/plan) runs its collector on
// too: nodes, edges and flags are what a freshly started collector would
// show on its debug handler. The package is pure: no clock, no cluster.
//
// Where a snapshot cannot say what a running collector would hold, kgc
// chooses, and says so here:
//
//   - A virtual node takes the namespace (and the coordinates) of the first
//     dependent that names it. kgc replays objects in creation order
//     (creationTimestamp, then resourceVersion, then contract order), which
//     is the order a collector running since before they were created saw
//     them. A collector restarted since lists them per type instead; a
//     dependent deleted since may have named the owner first; and one that
//     found the owner absent in one namespace switches the identity to
//     another dependent's (getAlternateOwnerIdentity). So when dependents in
//     several namespaces name one missing owner the namespace can differ.
//     The one switch that always happens is modelled: an absent owner of a
//     namespaced kind named by a cluster-scoped object ends up with no
//     namespace (see settleVirtualIdentities).
//   - A running collector removes a virtual node once it has confirmed the
//     owner is gone (a virtual delete event) and its debug handler then
//     draws a "missing" vertex for references still pointing there. kgc
//     cannot know what was already verified and keeps the node virtual.
//   - An object whose type is not in the snapshot's catalog is taken as
//     watched: it exists, so its type is served, and nearly every served
//     type supports delete, list and watch.
//   - Of several objects with one UID (mixed or edited input) the first in
//     creation order is the node; a duplicate-uid finding names them all.
//   - An owner reference without a UID names no node (the API server
//     rejects it); an invalid-owner-reference finding reports it.
package graph

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kgc-dev/kgc/internal/background"
	"github.com/kgc-dev/kgc/internal/hugepages"
	"github.com/kgc-dev/kgc/internal/parallel"
	"github.com/kgc-dev/kgc/internal/permute"
	"github.com/kgc-dev/kgc/internal/radix"
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

// Build replays snap into a graph and finds every hazard in it. It never
// fails: problems with the input become findings.
func Build(snap *snapshot.Snapshot) *Graph {
	g := Replay(snap)
	g.Findings = g.AllFindings()
	return g
}

// Replay replays snap into a graph without looking for hazards yet: a
// command that shows part of the graph asks FindingsAbout for the
// findings about that part, so that one tree of a million-object cluster
// costs no judgement of every owner reference.
func Replay(snap *snapshot.Snapshot) *Graph {
	return replay(snap, nil)
}

// ReplayAbout replays only the objects connected to uids through owner
// references (see connected): a question about one tree of a
// million-object cluster then replays that tree, not the cluster. Every
// node the collector links to them (owners, dependents, their owners'
// other dependents, virtual owners) is replayed exactly as Replay would,
// because the collector's graph joins objects only through UIDs. The
// graph knows nothing else: Nodes, AllFindings and InNamespaces see only
// that component, so ask it only about uids (Component, FindingsAbout,
// Node).
func ReplayAbout(snap *snapshot.Snapshot, uids ...string) *Graph {
	in, reached := connected(snap.Objects, uids)
	g := replay(snap, func(i int) bool { return in[i] })
	g.reached = reached
	return g
}

// Covers reports whether the graph holds everything the whole graph links
// to uid: always for Replay's; for ReplayAbout's, when uid was reached
// from its UIDs. A UID no object holds or names is covered only by the
// whole graph.
func (g *Graph) Covers(uid string) bool { return g.reached == nil || g.reached[uid] }

// ReplayAboutNamespaces is ReplayAbout for what InNamespaces(namespaces)
// shows: every object of those namespaces is a seed, and a virtual node
// in one of them was named by a dependent there, so it is reached too.
func ReplayAboutNamespaces(snap *snapshot.Snapshot, namespaces ...string) *Graph {
	var uids []string
	for i := range snap.Objects {
		if m := &snap.Objects[i].Metadata; m.Namespace != "" && slices.Contains(namespaces, m.Namespace) {
			uids = append(uids, m.UID)
		}
	}
	return ReplayAbout(snap, uids...)
}

// replay replays the objects with a UID that include accepts (all of them
// when include is nil).
func replay(snap *snapshot.Snapshot, include func(i int) bool) *Graph {
	objs := snap.Objects
	g := &Graph{snap: snap, cat: rules.NewServedTypes(snap), absent: map[string]*Node{}, inOrder: snapshot.Sorted(objs)}
	if include == nil {
		g.names = background.Start(func() nameFinder { return ownerNames(objs, g.inOrder) })
	}
	var last lastType
	kept := rules.Kept(len(objs), func(i int) bool {
		o := &objs[i]
		if o.Metadata.UID == "" || (include != nil && !include(i)) {
			return false
		}
		if !g.typeOf(o, &last).observable {
			g.unobserved = append(g.unobserved, int32(i))
			return false
		}
		return true
	})
	// Every UID and every owner reference is looked up once, before
	// replaying, on every core: one at a time, while replaying, the
	// look-ups were half of a million objects' replay. They need the
	// objects, not their order, so they are filed in the objects' order
	// while another core sorts them into the order replayed.
	order := background.Start(func() []int32 { return rules.ReplayPermutation(objs, g.inOrder, kept) })
	g.keys = kept
	var repeats []int
	g.uids, repeats = uidtable.New(len(kept), func(k int) string { return objs[kept[k]].Metadata.UID })
	if len(repeats) > 0 {
		// Of objects sharing a UID, the first observed stands: file them
		// again in the order replayed, so that repeats are the later ones.
		g.keys = order()
		for k, j := range g.keys {
			g.keys[k] = kept[j]
		}
		g.uids, repeats = uidtable.New(len(g.keys), func(k int) string { return objs[g.keys[k]].Metadata.UID })
	}
	owners := g.uids.Resolve(len(g.keys), func(k int) int { return len(objs[g.keys[k]].Metadata.OwnerReferences) },
		func(k, j int) string { return objs[g.keys[k]].Metadata.OwnerReferences[j].UID })
	// Every replayed object's node is made as first observing the object
	// makes it, in one block, one part per core side by side; then the add
	// events are replayed in order to link the nodes to their owners.
	g.slab = hugepages.Make[Node](len(g.keys) - len(repeats))
	g.nodeOf = make([]*Node, len(objs))
	parallel.Do(len(g.keys), func(_, from, to int) { g.makeNodes(from, to, repeats) })
	var replayed []int32 // the keys in the order replayed; nil: key order is that order
	if len(repeats) == 0 {
		replayed = order()
	}
	g.link(owners, replayed, repeats)
	g.settleVirtualIdentities()
	for n := range g.eachNode {
		n.Seal()
		sortNodes(n.Dependents)
	}
	return g
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

// settleVirtualIdentities applies the one identity change a running
// collector always makes to a virtual node within seconds: an absent owner
// of a namespaced kind that a cluster-scoped object names ends up with no
// namespace (collector.SettledIdentity). Dependents in several namespaces
// alone keep the collector switching for ever; such a node keeps the
// identity its first dependent gave it. The e2e comparison with the debug
// handler shows it.
func (g *Graph) settleVirtualIdentities() {
	// An observed object makes its node non-virtual, so a virtual node's
	// UID can only be present on an object the collector does not watch.
	present := make(map[string]bool, len(g.unobserved))
	for _, i := range g.unobserved {
		present[g.snap.Objects[i].Metadata.UID] = true
	}
	for _, n := range g.virtual {
		id := n.Identity()
		if !n.Virtual || id.Namespace == "" || present[id.UID] {
			continue
		}
		if r, ok := g.cat.Mapping(id.APIVersion, id.Kind); !ok || !r.Namespaced {
			continue
		}
		if alt := collector.SettledIdentity(n); alt != nil {
			n.SetIdentity(*alt)
		}
	}
}

// observable reports whether the collector has an informer for o's type. A
// type missing from the catalog is assumed watched: the object exists, so
// its type is served, and nearly every served type is deletable and
// watchable. Only a catalog entry can say otherwise.
func (g *Graph) observable(o *snapshot.Object) bool {
	return g.cat.Monitored(o.APIVersion, o.Kind)
}

// identityOf is identityFromEvent: the informer's GVK is the preferred
// version, whatever version the dump was written in.
func (g *Graph) identityOf(o *snapshot.Object) snapshot.ObjectRef {
	id := o.Ref()
	id.APIVersion = g.apiVersionOf(o)
	return id
}

// apiVersionOf is the apiVersion of identityOf(o).
func (g *Graph) apiVersionOf(o *snapshot.Object) string {
	if r, ok := g.cat.ForGroupKind(snapshot.GroupOf(o.APIVersion), o.Kind); ok && r.Version != "" {
		return r.GroupVersion()
	}
	return o.APIVersion
}

// lastType is what the replay asks about an object's type, remembered
// for the last type asked: a snapshot holds each type's objects side by
// side, so nearly every object asks about its neighbour's type, and the
// catalog's look-ups were a fifth of making the nodes. Each goroutine
// keeps its own.
type lastType struct {
	apiVersion, kind string
	observable       bool
	preferred        string // the apiVersion of the node's identity
}

// typeOf returns what last remembers about o's type, asking the catalog
// first when o is of another type.
func (g *Graph) typeOf(o *snapshot.Object, last *lastType) *lastType {
	if last.kind == "" || last.kind != o.Kind || last.apiVersion != o.APIVersion {
		*last = lastType{apiVersion: o.APIVersion, kind: o.Kind, observable: g.observable(o), preferred: g.apiVersionOf(o)}
	}
	return last
}

// makeNodes makes the nodes of keys from to to-1, but repeats, as the
// collector's first add event of each object makes them, in the slab at
// their rank among the keys kept.
func (g *Graph) makeNodes(from, to int, repeats []int) {
	r := sort.SearchInts(repeats, from)
	slot := from - r
	var last lastType
	for k := from; k < to; k++ {
		if r < len(repeats) && repeats[r] == k {
			r++
			continue
		}
		i := g.keys[k]
		o := &g.snap.Objects[i]
		g.slab[slot].InitObserved(o, g.typeOf(o, &last).preferred, validOwners(o.Metadata.OwnerReferences))
		g.nodeOf[i] = &g.slab[slot]
		slot++
	}
}

// link is processGraphChanges for the add event of every replayed object,
// in replay order: the keys in the order replayed lists them (nil: key
// order is replay order). Their owner references name the keys owners
// gives: each object becomes a dependent of its owners
// (collector.LinkDependentToOwners), and an owner not observed yet is a
// virtual node meanwhile, named as the first dependent's reference names
// it. A repeated UID's later objects, the keys repeats lists (with keys
// in replay order), are skipped.
//
// An object first seen as a virtual owner is observed through the
// collector's update path instead, which diffs its references against the
// none a virtual node has (so adds them all) and takes its identity; only
// one flag differs: with no old object, collector.ProcessTransitions lets
// waiting for orphaning win before deletingDependents is marked.
func (g *Graph) link(owners uidtable.Refs, replayed []int32, repeats []int) {
	u := &replayedUIDs{g: g, state: make([]uint8, len(g.keys))}
	for r := range g.keys {
		k := r
		if replayed != nil {
			k = int(replayed[r])
		}
		o := &g.snap.Objects[g.keys[k]]
		if len(repeats) > 0 && repeats[0] == k {
			// A UID names one object in a cluster: a second object with
			// the same UID comes from mixed or edited input. The first in
			// creation order stands; a duplicate-uid finding names both.
			repeats = repeats[1:]
			g.replayDups = append(g.replayDups, o.Metadata.UID)
			continue
		}
		n := g.nodeOf[g.keys[k]]
		if u.state[k] == virtualFirst && n.DeletingDependents {
			n.DeletingDependents = collector.ProcessTransitions(nil, o) == collector.StartDeletingDependents
		}
		u.state[k] = observed // before its owners: an object can own itself
		u.refs, u.keys = o.Metadata.OwnerReferences, owners.Of(k)
		collector.LinkDependentToOwners(u, n, n.Owners)
	}
}

// What the replay has done with a key's object.
const (
	unseen = iota
	virtualFirst
	observed
)

// replayedUIDs is the collector's uidToNode while link replays one
// object's add event: the object's owner references were resolved to
// keys before replaying (refs, keys), so an owner is found among them
// rather than by its UID; an owner no replayed object holds is in absent.
// The graph is never asked to delete a node.
type replayedUIDs struct {
	g     *Graph
	state []uint8
	refs  []snapshot.OwnerReference
	keys  []int32
}

// Node implements collector.UIDToNode for the UIDs of the object's owner
// references. An owner observed later is filed already, as the object
// whose add event comes later: it is marked virtual first.
func (u *replayedUIDs) Node(uid string) (*Node, bool) {
	for j, ref := range u.refs {
		if ref.UID != uid {
			continue
		}
		if kk := u.keys[j]; kk >= 0 {
			if u.state[kk] == unseen {
				u.state[kk] = virtualFirst
			}
			return u.g.nodeOf[u.g.keys[kk]], true
		}
		break
	}
	n, ok := u.g.absent[uid]
	return n, ok
}

// Insert implements collector.UIDToNode: a virtual node of an owner no
// replayed object holds.
func (u *replayedUIDs) Insert(uid string, n *Node) {
	u.g.absent[uid] = n
	u.g.virtual = append(u.g.virtual, n)
}

// Delete implements collector.UIDToNode; a replay of add events deletes
// nothing.
func (u *replayedUIDs) Delete(string) {}

// validOwners drops references without a UID: the API server rejects them,
// so only hand-edited dumps carry them, and they cannot name a node. They are
// reported as invalid-owner-reference findings.
func validOwners(refs []snapshot.OwnerReference) []snapshot.OwnerReference {
	if !slices.ContainsFunc(refs, func(r snapshot.OwnerReference) bool { return r.UID == "" }) {
		// All valid, as nearly always: share the object's references (a
		// copy per object was 80 MB on a million objects).
		if len(refs) == 0 {
			return nil
		}
		return refs
	}
	out := make([]snapshot.OwnerReference, 0, len(refs))
	for _, r := range refs {
		if r.UID != "" {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
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

// Edge is a dependent → owner reference of the graph.
type Edge struct {
	From               string `json:"from"`
	To                 string `json:"to"`
	BlockOwnerDeletion bool   `json:"blockOwnerDeletion"`
	Controller         bool   `json:"controller"`
}

// Edges returns the edges of the nodes given, each once (their owner references), one
// per (from, to), sorted by (from, to). Two references from one object to
// the same UID make one edge whose flags are either's.
func Edges(nodes []*Node) []Edge {
	refs := 0
	for _, n := range nodes {
		refs += len(n.Owners)
	}
	out := make([]Edge, 0, refs) // sized once: a cluster has a million
	for _, n := range nodes {
		// A node is listed once, so two edges can share (from, to) only
		// when they are two references of one node: look among its own.
		first := len(out)
	refs:
		for _, r := range n.Owners {
			for i := first; i < len(out); i++ {
				if out[i].To == r.UID {
					out[i].BlockOwnerDeletion = out[i].BlockOwnerDeletion || r.Blocking()
					out[i].Controller = out[i].Controller || r.IsController()
					continue refs
				}
			}
			out = append(out, Edge{From: n.UID(), To: r.UID, BlockOwnerDeletion: r.Blocking(), Controller: r.IsController()})
		}
	}
	sortEdges(out)
	return out
}

// sortEdges sorts edges by (from, to). A million string comparisons cost
// more than the rest of listing the edges, so the edges are first radix
// sorted by their from's first eight bytes as an integer, which orders as
// the strings do wherever the integers differ; only runs of equal ones (a
// dependent's several owners) compare the strings.
func sortEdges(edges []Edge) {
	type key struct {
		prefix uint64
		i      int32
	}
	keys := make([]key, len(edges))
	for i, e := range edges {
		keys[i] = key{prefix: prefix8(e.From), i: int32(i)}
	}
	keys, _ = radix.Sort(keys, nil, func(k key) uint64 { return k.prefix })
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi].prefix == keys[lo].prefix {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(keys[lo:hi], func(a, b key) int {
				x, y := &edges[a.i], &edges[b.i]
				if c := strings.Compare(x.From, y.From); c != 0 {
					return c
				}
				return strings.Compare(x.To, y.To)
			})
		}
		lo = hi
	}
	idx := make([]int32, len(keys))
	for k, e := range keys {
		idx[k] = e.i
	}
	permute.Apply(edges, idx)
}

// prefix8 is s's first eight bytes, big-endian, zero-padded: a < b as
// strings implies prefix8(a) <= prefix8(b).
func prefix8(s string) uint64 {
	var p uint64
	for i := range 8 {
		p <<= 8
		if i < len(s) {
			p |= uint64(s[i])
		}
	}
	return p
}

// Edges returns every edge of the graph, sorted by (from, to).
func (g *Graph) Edges() []Edge { return Edges(g.Nodes()) }

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
