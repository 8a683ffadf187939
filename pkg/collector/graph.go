// Package collector is the garbage collector's owner graph: the node of
// its uidToNode and the changes its GraphBuilder makes to it, following
// pkg/controller/garbagecollector of k8s.io/kubernetes v1.36.3 file for
// file (graph.go here mirrors upstream's graph.go, graph_builder.go the
// graph-changing half of upstream's graph_builder.go), under upstream's
// names.
//
// Two parts of kgc hold such a graph: the simulator (pkg/plan), which
// feeds it events and runs the workers, and the read-only view
// (pkg/graph), which replays a snapshot into it as add events. Every rule
// of the collector's graph is written here once, so the two cannot
// disagree: a virtual owner's identity (NewVirtual, and the identity the
// collector's retries settle on, SettledIdentity), orphan-beats-
// deletingDependents (ProcessTransitions), blockingDependents, and the
// namespace and coordinate checks (AddDependentToOwners,
// PartitionDependents). Where the nodes are stored (uidToNode) is each
// caller's choice (UIDToNode): a map in the simulator, a slab of a
// million nodes in the view.
//
// The package is pure: no clock, no cluster.
package collector

import (
	"slices"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Node follows upstream's node (graph.go). Its fields are read directly,
// without upstream's locks and getters: the simulator runs one worker
// task at a time, and the view is not changed after its replay.
// Dependents keep insertion order, where upstream ranges over a map, so
// that a simulation is deterministic.
type Node struct {
	// Object is the snapshot object a replay observed (nil for a virtual
	// node, for Unobserved's, and for the simulator's nodes, whose objects
	// change).
	Object *snapshot.Object
	// apiVersion is the identity's apiVersion of a node with an Object,
	// which takes the rest of its identity from the object rather than
	// copying it (on a million nodes a copy was 56 MB); id is the identity
	// of every other node. See Identity.
	apiVersion string
	id         *snapshot.ObjectRef
	// Owners are the owner references the collector last saw on the
	// object, usually the object's own slice: never modify them in place.
	Owners []snapshot.OwnerReference
	// Dependents are the nodes with an owner reference to this node's UID.
	Dependents []*Node
	depSet     map[*Node]struct{} // built once Dependents grows large
	// Virtual: referenced as an owner but not observed (upstream's
	// !isObserved()).
	Virtual bool
	// BeingDeleted: deletionTimestamp is set.
	BeingDeleted bool
	// DeletingDependents: being deleted with the foregroundDeletion
	// finalizer, as the collector marks it (see ProcessTransitions).
	DeletingDependents bool
}

// depSetThreshold is how many dependents a node keeps in a slice alone
// before it indexes them: a namespace of a million pods would make
// addDependent quadratic.
const depSetThreshold = 32

// NewNode returns the node upstream's processGraphChanges inserts for an
// object it observes for the first time, known as id.
func NewNode(id snapshot.ObjectRef, o *snapshot.Object) *Node {
	// The node and its identity in one allocation: a simulation of a
	// million objects makes a million nodes.
	b := &struct {
		n  Node
		id snapshot.ObjectRef
	}{id: id}
	b.n.id = &b.id
	b.n.observe(o)
	return &b.n
}

// InitObserved makes n the node of snapshot object o a replay inserts,
// whose identity is o's with the informer's apiVersion, with o's owner
// references given (owners): in place, so that a replay can make a
// million of them in one block.
func (n *Node) InitObserved(o *snapshot.Object, apiVersion string, owners []snapshot.OwnerReference) {
	*n = Node{Object: o, apiVersion: apiVersion}
	n.observe(o)
	n.Owners = owners
}

// observe sets what insertion takes from the object: its references and
// its deletion flags (processGraphChanges' "case !found").
func (n *Node) observe(o *snapshot.Object) {
	m := &o.Metadata
	n.Owners = m.OwnerReferences
	n.BeingDeleted = m.DeletionTimestamp != nil
	n.DeletingDependents = n.BeingDeleted && o.HasFinalizer(rules.FinalizerForeground)
}

// NewVirtual is the virtual node addDependentToOwners makes for an owner
// not in the graph: named as the dependent's reference names it, in the
// dependent's namespace.
func NewVirtual(ref snapshot.OwnerReference, dependent *Node) *Node {
	id := Coordinates(ref, dependent.Identity().Namespace)
	return &Node{id: &id, Virtual: true}
}

// Unobserved returns a node for an object the collector does not observe
// (of a type it does not watch), to draw beside a graph's nodes: it has
// the object's identity, no flags, owners or dependents.
func Unobserved(ref snapshot.ObjectRef) *Node { return &Node{id: &ref} }

// Identity is upstream's node.identity: what the collector knows the node
// as (its objectReference).
func (n *Node) Identity() snapshot.ObjectRef {
	if n.id != nil {
		return *n.id
	}
	m := &n.Object.Metadata
	return snapshot.ObjectRef{APIVersion: n.apiVersion, Kind: n.Object.Kind, Namespace: m.Namespace, Name: m.Name, UID: m.UID}
}

// SetIdentity changes what the collector knows the node as.
func (n *Node) SetIdentity(id snapshot.ObjectRef) { n.id, n.Object = &id, nil }

// UID is the node's key in uidToNode.
func (n *Node) UID() string {
	if n.id != nil {
		return n.id.UID
	}
	return n.Object.Metadata.UID
}

// Finalizers of the object a replay observed (none for other nodes).
func (n *Node) Finalizers() []string {
	if n.Object == nil {
		return nil
	}
	return n.Object.Metadata.Finalizers
}

// Clone follows node.clone (graph.go).
func (n *Node) Clone() *Node {
	c := *n
	c.Dependents = slices.Clone(n.Dependents)
	if n.depSet != nil {
		c.depSet = make(map[*Node]struct{}, len(n.depSet))
		for k := range n.depSet {
			c.depSet[k] = struct{}{}
		}
	}
	c.Owners = slices.Clone(n.Owners)
	return &c
}

// AddDependent follows node.addDependent (graph.go).
func (n *Node) AddDependent(d *Node) {
	if n.depSet != nil {
		if _, ok := n.depSet[d]; ok {
			return
		}
		n.depSet[d] = struct{}{}
	} else {
		if slices.Contains(n.Dependents, d) {
			return
		}
		if len(n.Dependents) >= depSetThreshold {
			n.depSet = make(map[*Node]struct{}, len(n.Dependents)*2)
			for _, x := range n.Dependents {
				n.depSet[x] = struct{}{}
			}
			n.depSet[d] = struct{}{}
		}
	}
	n.Dependents = append(n.Dependents, d)
}

// DeleteDependent follows node.deleteDependent (graph.go).
func (n *Node) DeleteDependent(d *Node) {
	if n.depSet != nil {
		if _, ok := n.depSet[d]; !ok {
			return
		}
		delete(n.depSet, d)
	}
	if i := slices.Index(n.Dependents, d); i >= 0 {
		n.Dependents = slices.Delete(n.Dependents, i, i+1)
	}
}

// Seal drops what only adding dependents needs, once a graph is not
// changed any more.
func (n *Node) Seal() { n.depSet = nil }

// BlockingDependents follows node.blockingDependents (graph.go): the
// dependents with an owner reference to n with blockOwnerDeletion=true,
// whether or not they are being deleted themselves. A dependent is listed
// once, where upstream lists it once per such reference: only whether
// the list is empty, and which dependents it names, matter.
func (n *Node) BlockingDependents() []*Node {
	var out []*Node
	uid := n.UID()
	for _, d := range n.Dependents {
		for _, r := range d.Owners {
			if r.UID == uid && r.Blocking() {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// Coordinates is upstream's objectReference{OwnerReference:
// ownerReferenceCoordinates(r), Namespace: ns} (graph.go).
func Coordinates(r snapshot.OwnerReference, ns string) snapshot.ObjectRef {
	return snapshot.ObjectRef{APIVersion: r.APIVersion, Kind: r.Kind, Name: r.Name, UID: r.UID, Namespace: ns}
}

// OwnerReferenceMatchesCoordinates follows its namesake (graph.go): uid,
// name, kind and apiVersion agree.
func OwnerReferenceMatchesCoordinates(r snapshot.OwnerReference, id snapshot.ObjectRef) bool {
	return r.UID == id.UID && r.Name == id.Name && r.Kind == id.Kind && r.APIVersion == id.APIVersion
}
