// This file mirrors the graph-changing half of
// pkg/controller/garbagecollector/graph_builder.go of k8s.io/kubernetes
// v1.36.3: inserting and removing nodes, linking dependents to their
// owners, and the identities of virtual nodes. What the GraphBuilder
// queues for the workers is the caller's (pkg/plan).

package collector

import (
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// UIDToNode is where a graph keeps its nodes by UID: upstream's
// GraphBuilder.uidToNode.
type UIDToNode interface {
	// Node returns the node of uid, if the graph holds one.
	Node(uid string) (*Node, bool)
	// Insert files n under uid, replacing what was there.
	Insert(uid string, n *Node)
	// Delete forgets uid.
	Delete(uid string)
}

// Map is uidToNode as upstream keeps it, a map.
type Map map[string]*Node

// Node implements UIDToNode.
func (m Map) Node(uid string) (*Node, bool) { n, ok := m[uid]; return n, ok }

// Insert implements UIDToNode.
func (m Map) Insert(uid string, n *Node) { m[uid] = n }

// Delete implements UIDToNode.
func (m Map) Delete(uid string) { delete(m, uid) }

// Linked is what addDependentToOwners found, for the caller to queue:
// the virtual nodes it made (each to be checked by attemptToDelete), and
// whether the dependent's references disagree with owners already in the
// graph (the dependent is then checked), with the UIDs of the observed
// owners in another namespace (an OwnerRefInvalidNamespace event each).
type Linked struct {
	Virtual          []*Node
	Invalid          bool
	InvalidNamespace []string
}

// InsertNode follows its namesake (graph_builder.go).
func InsertNode(g UIDToNode, n *Node) Linked {
	g.Insert(n.UID(), n)
	return AddDependentToOwners(g, n, n.Owners)
}

// AddDependentToOwners follows its namesake (graph_builder.go): n becomes
// a dependent of each owner; an owner not in the graph gets a virtual
// node (NewVirtual). Once one reference disagrees with its owner's node,
// the rest are not checked, as upstream.
func AddDependentToOwners(g UIDToNode, n *Node, owners []snapshot.OwnerReference) Linked {
	var out Linked
	for _, r := range owners {
		on, ok := addDependentToOwner(g, n, r)
		if !ok {
			out.Virtual = append(out.Virtual, on)
		} else if !out.Invalid {
			out.Invalid = invalidReference(on, n, r)
			if out.Invalid && !on.Virtual && rules.InvalidOwnerNamespace(on.Identity().Namespace, n.Identity().Namespace) {
				out.InvalidNamespace = append(out.InvalidNamespace, r.UID)
			}
		}
	}
	return out
}

// LinkDependentToOwners is AddDependentToOwners without its checks, for
// a replay that queues nothing (the graph it leaves is the same): a check
// reads the owner's object, which on a million references was most of a
// replay's memory traffic.
func LinkDependentToOwners(g UIDToNode, n *Node, owners []snapshot.OwnerReference) {
	for _, r := range owners {
		addDependentToOwner(g, n, r)
	}
}

// addDependentToOwner is one turn of addDependentToOwners' loop: n
// becomes a dependent of r's owner, made virtual when the graph has no
// node for it (found false).
func addDependentToOwner(g UIDToNode, n *Node, r snapshot.OwnerReference) (owner *Node, found bool) {
	on, ok := g.Node(r.UID)
	if !ok {
		on = NewVirtual(r, n)
		g.Insert(r.UID, on)
	}
	on.AddDependent(n)
	return on, ok
}

// invalidReference is addDependentToOwners' check of dependent n's
// reference r against the owner's node already in the graph: a
// namespaced owner in another namespace, other coordinates, or a virtual
// cluster-scoped owner named from a namespace.
func invalidReference(owner, n *Node, r snapshot.OwnerReference) bool {
	oid, ns := owner.Identity(), n.Identity().Namespace
	switch {
	case rules.InvalidOwnerNamespace(oid.Namespace, ns):
		return true
	case !OwnerReferenceMatchesCoordinates(r, oid):
		return true
	case oid.Namespace == "" && ns != "" && owner.Virtual:
		return true
	}
	return false
}

// RemoveDependentFromOwners follows its namesake (graph_builder.go).
func RemoveDependentFromOwners(g UIDToNode, n *Node, owners []snapshot.OwnerReference) {
	for _, r := range owners {
		if on, ok := g.Node(r.UID); ok {
			on.DeleteDependent(n)
		}
	}
}

// RemoveNode follows its namesake (graph_builder.go).
func RemoveNode(g UIDToNode, n *Node) {
	g.Delete(n.UID())
	RemoveDependentFromOwners(g, n, n.Owners)
}

// Transition is what processTransitions starts for an object's update.
type Transition int

const (
	// NoTransition: the update starts no deletion the collector acts on.
	NoTransition Transition = iota
	// StartOrphaning: deletion with the orphan finalizer started; the
	// owner goes to attemptToOrphan.
	StartOrphaning
	// StartDeletingDependents: deletion with foregroundDeletion started;
	// the node is marked deletingDependents and it and its dependents go
	// to attemptToDelete.
	StartDeletingDependents
)

// ProcessTransitions is the decision of processTransitions
// (graph_builder.go): waiting for orphaning wins, and returns before
// deletingDependents is marked, so an object with both finalizers first
// observed through an update (a virtual node's) is not deletingDependents.
func ProcessTransitions(old, new *snapshot.Object) Transition {
	if deletionStartsWithFinalizer(old, new, rules.FinalizerOrphan) {
		return StartOrphaning
	}
	if deletionStartsWithFinalizer(old, new, rules.FinalizerForeground) {
		return StartDeletingDependents
	}
	return NoTransition
}

// deletionStartsWithFinalizer follows its namesake (graph_builder.go).
func deletionStartsWithFinalizer(old, new *snapshot.Object, f string) bool {
	if new.Metadata.DeletionTimestamp == nil || !new.HasFinalizer(f) {
		return false
	}
	if old == nil {
		return true
	}
	return old.Metadata.DeletionTimestamp == nil || !old.HasFinalizer(f)
}

// PartitionDependents follows its namesake (graph_builder.go): the
// dependents whose reference to id's uid matches id, and those with one
// that does not (a dependent can be in both).
func PartitionDependents(dependents []*Node, id snapshot.ObjectRef) (matching, nonmatching []*Node) {
	namespaced := id.Namespace != ""
	for _, d := range dependents {
		match, mismatch := false, false
		if namespaced && id.Namespace != d.Identity().Namespace {
			mismatch = true
		} else {
			for _, r := range d.Owners {
				if r.UID == id.UID {
					if OwnerReferenceMatchesCoordinates(r, id) {
						match = true
					} else {
						mismatch = true
					}
				}
			}
		}
		if match {
			matching = append(matching, d)
		}
		if mismatch {
			nonmatching = append(nonmatching, d)
		}
	}
	return matching, nonmatching
}

// referenceLessThan follows its namesake (graph_builder.go): kind,
// apiVersion, namespace, name, uid.
func referenceLessThan(a, b snapshot.ObjectRef) bool { return rules.ReferenceLess(a, b) }

// GetAlternateOwnerIdentity follows its namesake (graph_builder.go): the
// other identity the dependents give an absent owner's uid, the first
// after absent in referenceLessThan order, else the first.
func GetAlternateOwnerIdentity(deps []*Node, absent snapshot.ObjectRef) *snapshot.ObjectRef {
	clusterScoped := absent.Namespace == ""
	seen := map[snapshot.ObjectRef]bool{absent: true}
	var first, firstFollowing *snapshot.ObjectRef
	for _, d := range deps {
		dns := d.Identity().Namespace
		for _, r := range d.Owners {
			if r.UID != absent.UID {
				continue
			}
			if OwnerReferenceMatchesCoordinates(r, absent) && (clusterScoped || absent.Namespace == dns) {
				continue
			}
			ref := Coordinates(r, dns)
			if clusterScoped && ref.APIVersion == absent.APIVersion && ref.Kind == absent.Kind {
				ref.Namespace = ""
			}
			if seen[ref] {
				continue
			}
			seen[ref] = true
			if first == nil || referenceLessThan(ref, *first) {
				r2 := ref
				first = &r2
			}
			if referenceLessThan(absent, ref) && (firstFollowing == nil || referenceLessThan(ref, *firstFollowing)) {
				r2 := ref
				firstFollowing = &r2
			}
		}
	}
	if firstFollowing != nil {
		return firstFollowing
	}
	return first
}

// SettledIdentity is the identity a running collector's retries leave a
// virtual node of an absent owner of a namespaced kind with, or nil when
// they settle on none. Each retry finds nothing at the node's identity
// (a virtual delete event) and, while dependents name the owner
// otherwise, switches the identity to the alternate one
// (PartitionDependents, GetAlternateOwnerIdentity). Once the identity
// has no namespace the object cannot be looked up
// (namespacedOwnerOfClusterScopedObjectErr) and is never retried, so the
// switching stops there; dependents in several namespaces alone keep it
// switching for ever, and name no identity to settle on.
func SettledIdentity(n *Node) *snapshot.ObjectRef {
	id := n.Identity()
	// Each switch goes to another identity a reference gives: after as
	// many switches as references, the identities cycle.
	refs := 1
	for _, d := range n.Dependents {
		refs += len(d.Owners)
	}
	for range refs {
		if id.Namespace == "" {
			return &id
		}
		_, nonmatching := PartitionDependents(n.Dependents, id)
		alt := GetAlternateOwnerIdentity(nonmatching, id)
		if alt == nil {
			return nil
		}
		id = *alt
	}
	return nil
}
