package rules

import "github.com/kgc-dev/kgc/pkg/snapshot"

// Index finds a snapshot's objects the way the collector's GETs would: by
// group, kind, namespace and name, and by UID. Of several objects with one
// key (mixed or edited input) the first in the snapshot's order wins.
type Index struct {
	byUID  map[string]*snapshot.Object
	byName map[nameKey]*snapshot.Object
}

type nameKey struct{ group, kind, namespace, name string }

// NewIndex indexes objs.
func NewIndex(objs []snapshot.Object) *Index {
	ix := &Index{byUID: make(map[string]*snapshot.Object, len(objs)), byName: make(map[nameKey]*snapshot.Object, len(objs))}
	for i := range objs {
		ix.add(&objs[i], true, true)
	}
	return ix
}

// NewPartialIndex indexes, of objs, only the names in the namespaces
// given and the UIDs given: a question about a few objects then costs one
// pass over objs and maps of its own size, not of the snapshot's. Its
// answers for those namespaces and UIDs are NewIndex's; for others it
// answers nil.
func NewPartialIndex(objs []snapshot.Object, namespaces, uids map[string]bool) *Index {
	ix := &Index{byUID: make(map[string]*snapshot.Object, len(uids)), byName: map[nameKey]*snapshot.Object{}}
	for i := range objs {
		o := &objs[i]
		ix.add(o, uids[o.Metadata.UID], namespaces[o.Metadata.Namespace])
	}
	return ix
}

// GroupKind is a type by group and kind.
type GroupKind struct{ Group, Kind string }

// NewOwnerIndex indexes, of objs, what judging some owner references
// looks up (ClassifyReference): the names of objects of the owners'
// types, and the objects holding the references' UIDs. Judging every
// reference of a cluster then indexes its owners, not its million pods.
// Its answers for those types and UIDs are NewIndex's; for others it
// answers nil.
func NewOwnerIndex(objs []snapshot.Object, types map[GroupKind]bool, uids map[string]bool) *Index {
	ix := &Index{byUID: make(map[string]*snapshot.Object, len(uids)), byName: map[nameKey]*snapshot.Object{}}
	for i := range objs {
		o := &objs[i]
		ix.add(o, uids[o.Metadata.UID], types[GroupKind{snapshot.GroupOf(o.APIVersion), o.Kind}])
	}
	return ix
}

// add files o under its UID and under its name, as asked; the first
// object of a key wins.
func (ix *Index) add(o *snapshot.Object, byUID, byName bool) {
	if _, dup := ix.byUID[o.Metadata.UID]; byUID && !dup && o.Metadata.UID != "" {
		ix.byUID[o.Metadata.UID] = o
	}
	if !byName {
		return
	}
	k := nameKey{snapshot.GroupOf(o.APIVersion), o.Kind, o.Metadata.Namespace, o.Metadata.Name}
	if _, dup := ix.byName[k]; !dup {
		ix.byName[k] = o
	}
}

// ByUID returns the object with uid, or nil.
func (ix *Index) ByUID(uid string) *snapshot.Object { return ix.byUID[uid] }

// ByName returns the object of group/kind named name in namespace, or nil.
func (ix *Index) ByName(group, kind, namespace, name string) *snapshot.Object {
	return ix.byName[nameKey{group, kind, namespace, name}]
}
