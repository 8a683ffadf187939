// This file mirrors pkg/controller/garbagecollector/graph.go of
// k8s.io/kubernetes v1.36.3: the node of the collector's owner graph and
// the objectReference that identifies it.

package plan

import (
	"slices"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// objectReference follows upstream's objectReference (graph.go): the
// coordinates of an owner reference plus a namespace. Upstream embeds a
// metav1.OwnerReference; the fields are the same.
type objectReference struct {
	APIVersion, Kind, Name, UID, Namespace string
}

// ref is objectReference.String (graph.go), as a snapshot reference.
func (id objectReference) ref() snapshot.ObjectRef {
	return snapshot.ObjectRef{APIVersion: id.APIVersion, Kind: id.Kind, Namespace: id.Namespace, Name: id.Name, UID: id.UID}
}

// node follows upstream's node (graph.go). Its fields are read directly,
// without upstream's locks and getters (isBeingDeleted,
// isDeletingDependents, isObserved, getDependents): only one worker task
// runs at a time (sched.go). dependents keeps insertion order so the
// simulation is deterministic where upstream ranges over a map.
type node struct {
	identity           objectReference
	owners             []snapshot.OwnerReference
	dependents         []*node
	depSet             map[*node]struct{} // built once dependents grows large
	beingDeleted       bool
	deletingDependents bool
	virtual            bool
}

// depSetThreshold is how many dependents a node keeps in a slice alone
// before it indexes them: a namespace of a million pods would make
// addDependent quadratic.
const depSetThreshold = 32

// clone follows node.clone (graph.go).
func (n *node) clone() *node {
	c := *n
	c.dependents = slices.Clone(n.dependents)
	if n.depSet != nil {
		c.depSet = make(map[*node]struct{}, len(n.depSet))
		for k := range n.depSet {
			c.depSet[k] = struct{}{}
		}
	}
	c.owners = slices.Clone(n.owners)
	return &c
}

// addDependent follows node.addDependent (graph.go).
func (n *node) addDependent(d *node) {
	if n.depSet != nil {
		if _, ok := n.depSet[d]; ok {
			return
		}
		n.depSet[d] = struct{}{}
	} else {
		if slices.Contains(n.dependents, d) {
			return
		}
		if len(n.dependents) >= depSetThreshold {
			n.depSet = make(map[*node]struct{}, len(n.dependents)*2)
			for _, x := range n.dependents {
				n.depSet[x] = struct{}{}
			}
			n.depSet[d] = struct{}{}
		}
	}
	n.dependents = append(n.dependents, d)
}

// deleteDependent follows node.deleteDependent (graph.go).
func (n *node) deleteDependent(d *node) {
	if n.depSet != nil {
		if _, ok := n.depSet[d]; !ok {
			return
		}
		delete(n.depSet, d)
	}
	if i := slices.Index(n.dependents, d); i >= 0 {
		n.dependents = slices.Delete(n.dependents, i, i+1)
	}
}

// blockingDependents follows node.blockingDependents (graph.go): the
// dependents with an ownerRef to n with blockOwnerDeletion=true, whether
// or not they are being deleted. A dependent is listed once, where
// upstream lists it once per such reference: only whether the list is
// empty, and which dependents it names, matter.
func (n *node) blockingDependents() []*node {
	var out []*node
	for _, d := range n.dependents {
		for _, r := range d.owners {
			if r.UID == n.identity.UID && r.Blocking() {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// coords is upstream's objectReference{OwnerReference:
// ownerReferenceCoordinates(r), Namespace: ns} (graph.go).
func coords(r snapshot.OwnerReference, ns string) objectReference {
	return objectReference{APIVersion: r.APIVersion, Kind: r.Kind, Name: r.Name, UID: r.UID, Namespace: ns}
}

// ownerReferenceMatchesCoordinates follows its namesake (graph.go): uid,
// name, kind and apiVersion agree.
func ownerReferenceMatchesCoordinates(r snapshot.OwnerReference, id objectReference) bool {
	return r.UID == id.UID && r.Name == id.Name && r.Kind == id.Kind && r.APIVersion == id.APIVersion
}
