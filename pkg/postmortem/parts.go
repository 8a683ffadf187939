package postmortem

import (
	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// This file says which objects a chain may tie together, so that a log
// too big to hold is analyzed a part at a time (audit.Log.Parts) with the
// same result as whole. A chain stays in one namespace and its Namespace,
// but for three ties: an owner in the cluster's scope (a Node, a custom
// kind whose scope no built-in table says), a custom resource and its CRD
// (the cluster's), and a deletecollection across the cluster. Every other
// tie the analysis makes (an owner by UID, a namespace's content, a
// deletecollection's objects, a guess by timing, the types a namespace's
// sweeps itemize) stays inside a part or is settled when the parts merge.

// router is the audit.Router of a post-mortem: what it says of the
// built-in types only, so that a part is the same whatever the
// snapshots' catalogs hold.
type router struct {
	// namespaced says, of every built-in type by group and resource and
	// by group and kind, whether it is namespaced.
	namespaced     map[typeKey]bool
	kindNamespaced map[[2]string]bool
}

// NewRouter is the audit.Router a post-mortem reads a spilled log with.
func NewRouter() audit.Router { return newRouter() }

func newRouter() *router {
	rt := &router{namespaced: map[typeKey]bool{}, kindNamespaced: map[[2]string]bool{}}
	for _, r := range snapshot.BuiltinResources() {
		rt.namespaced[typeKey{r.Group, r.Resource}] = r.Namespaced
		rt.kindNamespaced[[2]string{r.Group, r.Kind}] = r.Namespaced
	}
	return rt
}

// namespaceType is the type of Namespaces.
var namespaceType = typeKey{"", "namespaces"}

// Route names the part of an event's object and ties its owners' parts.
// A Namespace's create names it only in its response: its other stages
// say no part.
func (rt *router) Route(e *audit.Event, tie func(string)) (string, bool) {
	t := typeKey{e.Object.APIGroup, e.Object.Resource}
	if e.Verb == "deletecollection" && e.Object.Namespace == "" {
		tie(audit.AllParts)
	}
	namespaced, builtin := rt.namespaced[t]
	home := partOf(t == namespaceType, builtin, namespaced, e.Object.Namespace, e.Object.Name, tie)
	for _, m := range []*audit.Meta{e.Request, e.Response} {
		if m == nil {
			continue
		}
		rt.tieOwners(m.OwnerReferences, tie)
		items := m.ListItems()
		for i := range items {
			tie(partOf(t == namespaceType, builtin, namespaced, items[i].Namespace, items[i].Name, tie))
			rt.tieOwners(items[i].OwnerReferences, tie)
		}
	}
	return home, t != namespaceType || e.Object.Name != ""
}

// objectPart is the part of a snapshot's object, which ties its owners'.
func (rt *router) objectPart(o *snapshot.Object, tie func(string)) string {
	group, _ := snapshot.SplitAPIVersion(o.APIVersion)
	namespaced, builtin := rt.kindNamespaced[[2]string{group, o.Kind}]
	home := partOf(group == "" && o.Kind == "Namespace", builtin, namespaced, o.Metadata.Namespace, o.Metadata.Name, tie)
	rt.tieOwners(o.Metadata.OwnerReferences, tie)
	return home
}

// partOf is the part of an object: a Namespace's own name, a built-in
// namespaced object's namespace, and the cluster's ("") for the rest. A
// custom resource is the cluster's, with its CRD, and ties its namespace.
func partOf(isNamespace, builtin, namespaced bool, ns, name string, tie func(string)) string {
	switch {
	case isNamespace:
		return name
	case !builtin:
		if ns != "" {
			tie(ns)
		}
		return ""
	case namespaced:
		return ns
	}
	return ""
}

// tieOwners ties the part of every owner not in the dependent's
// namespace: a Namespace, or a kind no built-in table says is namespaced.
func (rt *router) tieOwners(refs []audit.OwnerRef, tie func(string)) {
	for _, ref := range refs {
		group, _ := snapshot.SplitAPIVersion(ref.APIVersion)
		switch {
		case group == "" && ref.Kind == "Namespace":
			tie(ref.Name)
		case !rt.kindNamespaced[[2]string{group, ref.Kind}]:
			tie("")
		}
	}
}

// tieSnapshots ties the parts the snapshots' objects' owners reach, which
// the log may not show.
func (rt *router) tieSnapshots(log *audit.Log, snaps ...*snapshot.Snapshot) {
	var ties []string
	collect := func(p string) { ties = append(ties, p) }
	for _, s := range snaps {
		if s == nil {
			continue
		}
		for i := range s.Objects {
			ties = ties[:0]
			home := rt.objectPart(&s.Objects[i], collect)
			for _, t := range ties {
				log.Tie(home, t)
			}
		}
	}
}
