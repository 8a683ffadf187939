package rules

import (
	"sync"
	"sync/atomic"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Index finds a snapshot's objects the way the collector's GETs would: by
// group, kind, namespace and name, and by UID. Of several objects with one
// key (mixed or edited input) the first in the snapshot's order wins.
// Any number of goroutines may use one.
type Index struct {
	// objs, for NewIndex's: the objects it scans for its first few
	// look-ups, and indexes on the next one (once).
	objs    []snapshot.Object
	lookups atomic.Int32
	once    sync.Once

	byUID  map[string]*snapshot.Object
	byName map[nameKey]*snapshot.Object
}

type nameKey struct{ group, kind, namespace, name string }

// scannedLookups is how many look-ups NewIndex's index answers by a pass
// over the objects before it builds its maps: one object's diagnosis asks
// a few questions, and indexing a million objects costs as much as
// scanning them a dozen times.
const scannedLookups = 4

// NewIndex indexes objs, on demand: its first look-ups scan them, the
// next one builds the maps.
func NewIndex(objs []snapshot.Object) *Index { return &Index{objs: objs} }

// indexed reports whether look-ups go to the maps, building them when it
// is time; false means scan.
func (ix *Index) indexed() bool {
	if ix.objs == nil {
		return true
	}
	if ix.lookups.Add(1) <= scannedLookups {
		return false
	}
	ix.once.Do(func() {
		ix.byUID, ix.byName = make(map[string]*snapshot.Object, len(ix.objs)), make(map[nameKey]*snapshot.Object, len(ix.objs))
		for i := range ix.objs {
			ix.add(&ix.objs[i], true, true)
		}
	})
	return true
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
func (ix *Index) ByUID(uid string) *snapshot.Object {
	if ix.indexed() {
		return ix.byUID[uid]
	}
	if uid == "" {
		return nil
	}
	for i := range ix.objs {
		if ix.objs[i].Metadata.UID == uid {
			return &ix.objs[i]
		}
	}
	return nil
}

// ByName returns the object of group/kind named name in namespace, or nil.
func (ix *Index) ByName(group, kind, namespace, name string) *snapshot.Object {
	if ix.indexed() {
		return ix.byName[nameKey{group, kind, namespace, name}]
	}
	for i := range ix.objs {
		o := &ix.objs[i]
		if o.Metadata.Name == name && o.Kind == kind && o.Metadata.Namespace == namespace && snapshot.GroupOf(o.APIVersion) == group {
			return o
		}
	}
	return nil
}
