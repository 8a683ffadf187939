package graph

import (
	"slices"
	"sort"

	"github.com/kgc-dev/kgc/internal/background"
	"github.com/kgc-dev/kgc/internal/hugepages"
	"github.com/kgc-dev/kgc/internal/parallel"
	"github.com/kgc-dev/kgc/internal/uidtable"
	"github.com/kgc-dev/kgc/pkg/collector"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

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
