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
		o := &objs[i]
		if _, dup := ix.byUID[o.Metadata.UID]; !dup && o.Metadata.UID != "" {
			ix.byUID[o.Metadata.UID] = o
		}
		k := nameKey{snapshot.GroupOf(o.APIVersion), o.Kind, o.Metadata.Namespace, o.Metadata.Name}
		if _, dup := ix.byName[k]; !dup {
			ix.byName[k] = o
		}
	}
	return ix
}

// ByUID returns the object with uid, or nil.
func (ix *Index) ByUID(uid string) *snapshot.Object { return ix.byUID[uid] }

// ByName returns the object of group/kind named name in namespace, or nil.
func (ix *Index) ByName(group, kind, namespace, name string) *snapshot.Object {
	return ix.byName[nameKey{group, kind, namespace, name}]
}
