// This file mirrors pkg/controller/garbagecollector/graph.go of
// k8s.io/kubernetes v1.36.3: the node of the collector's owner graph and
// the objectReference that identifies it.

package plan

import (
	"slices"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// identity is objectReference: owner-reference coordinates plus namespace.
type objectReference struct {
	APIVersion, Kind, Name, UID, Namespace string
}

func (id objectReference) ref() snapshot.ObjectRef {
	return snapshot.ObjectRef{APIVersion: id.APIVersion, Kind: id.Kind, Namespace: id.Namespace, Name: id.Name, UID: id.UID}
}

// node is the GC graph node (GC/graph.go). Dependents keep insertion
// order so that the simulation is deterministic (upstream uses a map).
type node struct {
	identity           objectReference
	owners             []snapshot.OwnerReference
	dependents         []*node
	depSet             map[*node]struct{} // built once dependents grows large
	beingDeleted       bool
	deletingDependents bool
	virtual            bool
}

const depSetThreshold = 32

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

// blockingDependents: dependents with an ownerRef to n with
// blockOwnerDeletion=true, whether or not they are being deleted.
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

func coords(r snapshot.OwnerReference, ns string) objectReference {
	return objectReference{APIVersion: r.APIVersion, Kind: r.Kind, Name: r.Name, UID: r.UID, Namespace: ns}
}

// ownerReferenceMatchesCoordinates compares uid, name, kind and apiVersion.
func ownerReferenceMatchesCoordinates(r snapshot.OwnerReference, id objectReference) bool {
	return r.UID == id.UID && r.Name == id.Name && r.Kind == id.Kind && r.APIVersion == id.APIVersion
}
