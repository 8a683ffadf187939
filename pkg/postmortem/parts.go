package postmortem

import (
	"hash/maphash"
	"io"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// This file says which objects a chain may tie together, so that a log
// too big to hold is analyzed a part at a time (audit.Log.Parts) with the
// same result as whole. A chain stays in one namespace and its Namespace,
// but for these ties: an owner in the cluster's scope (a Node, a custom
// kind the snapshots' catalogs do not say is namespaced), a
// deletecollection across the cluster, and custom resources whose CRD went
// (they go with it, through storage) or whose type no snapshot's catalog
// lists (the analysis learns its kind from the log, which every part must
// learn alike). Every other tie the analysis makes (an owner by UID, a
// namespace's content, a deletecollection's objects, a guess by timing,
// the types a namespace's sweeps itemize) stays inside a part or is
// settled when the parts merge.

// router is the audit.Router of a post-mortem. What it says as the log is
// read depends on the built-in types only; what custom resources tie is
// decided once the log is read and the snapshots' catalogs are known
// (tieCustom), from what it noted of them.
type router struct {
	// namespaced says, of every built-in type by group and resource and
	// by group and kind, whether it is namespaced.
	namespaced     map[typeKey]bool
	kindNamespaced map[[2]string]bool
	// customNS are the namespaces of each custom type's objects, ownerNS
	// those of the dependents of each custom owner kind (group, kind);
	// crdsWent the CRDs a request deleted, all of them after a
	// deletecollection of CRDs.
	customNS    map[typeKey]map[string]bool
	ownerNS     map[[2]string]map[string]bool
	crdsWent    map[string]bool
	allCRDsWent bool
	// uids ties an owner reference whose UID an object of another part
	// holds: the analysis must see that object to know the reference names
	// nothing in the dependent's namespace (see absentOwners). Every UID
	// seen is kept as a hash, with its part, and every owner UID named with
	// its dependents' parts: a collision only ties two parts more.
	uids uidParts
}

// uidParts are the parts of the UIDs seen, and of the dependents naming
// each owner UID.
type uidParts struct {
	seed    maphash.Seed
	holder  map[uint64]string
	namedBy map[uint64][]string
}

// held notes that part holds uid, and ties it to the parts of the
// dependents that named it in another part.
func (u *uidParts) held(uid, part string, tie func(string)) {
	if uid == "" {
		return
	}
	h := maphash.String(u.seed, uid)
	if _, ok := u.holder[h]; !ok {
		u.holder[h] = part
	}
	for _, p := range u.namedBy[h] {
		if p != part {
			tie(p)
		}
	}
}

// named notes that a dependent in part names owner uid, and ties it to
// the part of the object holding it, when another.
func (u *uidParts) named(uid, part string, tie func(string)) {
	h := maphash.String(u.seed, uid)
	if p, ok := u.holder[h]; ok && p != part {
		tie(p)
	}
	for _, p := range u.namedBy[h] {
		if p == part {
			return
		}
	}
	u.namedBy[h] = append(u.namedBy[h], part)
}

// ReadLog reads audit logs as audit.Read does, for a post-mortem: past
// opts.Spill requests (0: never) they are written to temporary files,
// each request with the part of the log its chain may reach (the
// router's), and Prepare analyzes them a part at a time.
func ReadLog(paths []string, stdin io.Reader, opts audit.Options) (*audit.Log, error) {
	opts.Router = nil
	if opts.Spill > 0 {
		opts.Router = newRouter()
	}
	return audit.Read(paths, stdin, opts)
}

func newRouter() *router {
	rt := &router{namespaced: map[typeKey]bool{}, kindNamespaced: map[[2]string]bool{},
		customNS: map[typeKey]map[string]bool{}, ownerNS: map[[2]string]map[string]bool{}, crdsWent: map[string]bool{},
		uids: uidParts{seed: maphash.MakeSeed(), holder: map[uint64]string{}, namedBy: map[uint64][]string{}}}
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
	switch {
	case e.Verb == "deletecollection" && e.Object.Namespace == "":
		tie(audit.AllParts)
		rt.allCRDsWent = rt.allCRDsWent || t == crdType
	case e.Verb == "delete" && t == crdType:
		rt.crdsWent[e.Object.Name] = true
	}
	home := rt.typePart(t, e.Object.Namespace, e.Object.Name)
	rt.uids.held(e.ObjectUID(), home, tie)
	for _, m := range []*audit.Meta{e.Request, e.Response} {
		if m == nil {
			continue
		}
		rt.tieOwners(m.OwnerReferences, home, tie)
		items := m.ListItems()
		for i := range items {
			p := rt.typePart(t, items[i].Namespace, items[i].Name)
			tie(p)
			rt.uids.held(items[i].UID, p, tie)
			rt.tieOwners(items[i].OwnerReferences, p, tie)
		}
	}
	return home, t != namespaceType || e.Object.Name != ""
}

// typePart is the part of an object of type t, noting a custom one.
func (rt *router) typePart(t typeKey, ns, name string) string {
	namespaced, builtin := rt.namespaced[t]
	if !builtin && ns != "" {
		noteIn(rt.customNS, t, ns)
	}
	return partOf(t == namespaceType, builtin, namespaced, ns, name)
}

// objectPart is the part of a snapshot's object, which ties its owners'.
func (rt *router) objectPart(o *snapshot.Object, tie func(string)) string {
	group, _ := snapshot.SplitAPIVersion(o.APIVersion)
	namespaced, builtin := rt.kindNamespaced[[2]string{group, o.Kind}]
	home := partOf(group == "" && o.Kind == "Namespace", builtin, namespaced, o.Metadata.Namespace, o.Metadata.Name)
	rt.tieOwners(o.Metadata.OwnerReferences, home, tie)
	rt.uids.held(o.Metadata.UID, home, tie)
	return home
}

// partOf is the part of an object: a Namespace's own name, a namespaced
// object's namespace (a custom one's too: its ties to its CRD are
// tieCustom's), and the cluster's ("") for the rest.
func partOf(isNamespace, builtin, namespaced bool, ns, name string) string {
	switch {
	case isNamespace:
		return name
	case !builtin, namespaced:
		return ns
	}
	return ""
}

// tieOwners ties the part of every owner not in the dependent's part
// (home): a Namespace, a built-in kind of the cluster's scope; a custom
// kind's is noted, for tieCustom to tie once the catalogs say its scope.
func (rt *router) tieOwners(refs []audit.OwnerRef, home string, tie func(string)) {
	for _, ref := range refs {
		if ref.UID != "" {
			rt.uids.named(ref.UID, home, tie)
		}
		group, _ := snapshot.SplitAPIVersion(ref.APIVersion)
		namespaced, builtin := rt.kindNamespaced[[2]string{group, ref.Kind}]
		switch {
		case group == "" && ref.Kind == "Namespace":
			tie(ref.Name)
		case !builtin && home != "":
			noteIn(rt.ownerNS, [2]string{group, ref.Kind}, home)
		case !namespaced:
			tie("")
		}
	}
}

func noteIn[K comparable](m map[K]map[string]bool, k K, ns string) {
	if m[k] == nil {
		m[k] = map[string]bool{}
	}
	m[k][ns] = true
}

// tieSnapshots ties the parts the snapshots' objects' owners reach, which
// the log may not show, then what custom resources tie; it returns the
// before and after snapshots' objects listed by part, each list in its
// snapshot's order.
func (rt *router) tieSnapshots(log *audit.Log, before, after *snapshot.Snapshot) (homes [2]map[string][]int32) {
	var ties []string
	collect := func(p string) { ties = append(ties, p) }
	k := newKinds(before, after)
	for n, s := range []*snapshot.Snapshot{before, after} {
		homes[n] = map[string][]int32{}
		if s == nil {
			continue
		}
		for i := range s.Objects {
			o := &s.Objects[i]
			ties = ties[:0]
			home := rt.objectPart(o, collect)
			homes[n][home] = append(homes[n][home], int32(i))
			log.Include(home)
			for _, t := range ties {
				log.Tie(home, t)
			}
			if t, ok := k.typeOf(o.APIVersion, o.Kind); ok && o.Metadata.Namespace != "" {
				if _, builtin := rt.namespaced[t]; !builtin {
					noteIn(rt.customNS, t, o.Metadata.Namespace)
				}
			}
		}
	}
	rt.tieCustom(log, k, after)
	return homes
}

// tieCustom ties to the cluster's part the namespaces of custom resources
// whose CRD went (they go with it) or whose type no snapshot's catalog
// lists, and of the dependents of custom owners the catalogs do not say
// are namespaced.
func (rt *router) tieCustom(log *audit.Log, k *kinds, after *snapshot.Snapshot) {
	kept := map[string]bool{} // the CRDs the after state holds
	if after != nil {
		for i := range after.Objects {
			if o := &after.Objects[i]; o.Kind == "CustomResourceDefinition" {
				kept[o.Metadata.Name] = true
			}
		}
	}
	for t, nss := range rt.customNS {
		crd := t.resource + "." + t.group
		_, listed := k.resource(t)
		if listed && !rt.allCRDsWent && !rt.crdsWent[crd] && (after == nil || kept[crd]) {
			continue
		}
		for ns := range nss {
			log.Tie(ns, "")
		}
	}
	for gk, nss := range rt.ownerNS {
		if t, ok := k.typeOfKind(gk[0], gk[1]); ok && k.namespaced(t) {
			continue
		}
		for ns := range nss {
			log.Tie(ns, "")
		}
	}
}
