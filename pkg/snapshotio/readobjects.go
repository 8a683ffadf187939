package snapshotio

// This file files the objects read: extraction, the checks that turn
// into warnings, duplicate UIDs, and the chunked store sorted at the end.

import (
	"fmt"
	"hash/maphash"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/internal/hugepages"
	"github.com/kgc-dev/kgc/internal/radix"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// noUIDMessage explains why objects without a UID are dropped: they come
// from manifests or templates, not from the cluster.
const noUIDMessage = "skipped: no metadata.uid; templates are not cluster state"

// add extracts one object and files it, or explains why not.
func (rd *reader) add(file string, desc func() string, f topFields, hint typeHint) {
	if o, ok := checkedExtract(rd.x, file, desc, f, hint, &rd.warnings); ok {
		rd.file(o)
	}
}

// checkedExtract extracts one object with x, and appends to warns why it
// is skipped (ok false) or what the garbage collector cannot follow in it.
func checkedExtract(x *Extractor, file string, desc func() string, f topFields, hint typeHint, warns *[]snapshot.Warning) (o snapshot.Object, ok bool) {
	o, err := x.extract(f, hint.apiVersion, hint.kind)
	// Named lazily: building the name of every object of a big dump costs
	// more than reading it.
	name := func() string {
		if o.Metadata.Name != "" && o.Kind != "" {
			return o.Ref().String()
		}
		return desc()
	}
	if err != nil {
		*warns = append(*warns, snapshot.Warning{File: file, Object: name(), Message: fmt.Sprintf("skipped: %v", err)})
		return o, false
	}
	if o.Metadata.UID == "" {
		*warns = append(*warns, snapshot.Warning{File: file, Object: name(), Message: noUIDMessage})
		return o, false
	}
	for i, r := range o.Metadata.OwnerReferences {
		if missing := r.MissingFields(); len(missing) > 0 {
			*warns = append(*warns, snapshot.Warning{File: file, Object: name(),
				Message: fmt.Sprintf("ownerReferences[%d] has no %s; kept, the garbage collector cannot resolve it", i, strings.Join(missing, ", "))})
		}
	}
	return o, true
}

// file keeps an extracted object, in the order read.
func (rd *reader) file(o snapshot.Object) {
	if o.Kind == "" {
		rd.listHinted = append(rd.listHinted, rd.objs.Len())
	}
	// Which copy of a repeated UID stays is decided once every file's
	// capture time is known (a snapshot file's comes after its objects):
	// until then every object is kept, with its UID's hash.
	rd.uidHashes = append(rd.uidHashes, maphash.String(rd.seed, o.Metadata.UID))
	rd.objs.Append(o)
	rd.objFile = append(rd.objFile, rd.curFile)
}

// repeat is an object whose UID was read before: the same object in two
// inputs (a dump and a snapshot of one cluster), or two objects sharing a
// UID (mixed or edited input).
type repeat struct {
	obj  snapshot.Object
	file int32
}

// findRepeats takes out of the store every object whose UID an object
// read before it has, into rd.repeats in the order read, and returns where
// each repeated UID was first read. It sorts the UIDs' hashes instead of
// filing a million UIDs in a map as they are read: the map's look-ups,
// each a cache miss, cost more than the sort, and repeats are rare.
func (rd *reader) findRepeats() map[string]int32 {
	sorted, _ := radix.Sort(rd.uidHashes, nil, func(h uint64) uint64 { return h })
	repeated := map[uint64]bool{}
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			repeated[sorted[i]] = true
		}
	}
	rd.uidHashes = nil
	if len(repeated) == 0 {
		return nil
	}
	first := map[string]int32{}
	var drop []int
	for i := range rd.objs.Len() {
		if !repeated[maphash.String(rd.seed, rd.objs.At(i).Metadata.UID)] {
			continue
		}
		uid := rd.objs.At(i).Metadata.UID
		if _, seen := first[uid]; !seen {
			first[uid] = int32(i)
			continue
		}
		rd.repeats = append(rd.repeats, repeat{obj: *rd.objs.At(i), file: rd.objFile[i]})
		drop = append(drop, i)
	}
	rd.drop(drop)
	for uid, i := range first {
		first[uid] = i - int32(countBelow(drop, int(i)))
	}
	return first
}

// drop removes the objects at the sorted indexes from the store.
func (rd *reader) drop(indexes []int) {
	if len(indexes) == 0 {
		return
	}
	kept, next := 0, 0
	for i := range rd.objs.Len() {
		if next < len(indexes) && indexes[next] == i {
			next++
			continue
		}
		*rd.objs.At(kept), rd.objFile[kept] = *rd.objs.At(i), rd.objFile[i]
		kept++
	}
	rd.objs.Truncate(kept)
	rd.objFile = rd.objFile[:kept]
}

// countBelow counts the sorted indexes below i.
func countBelow(indexes []int, i int) int {
	n, _ := slices.BinarySearch(indexes, i)
	return n
}

// settleRepeats keeps the newer copy of each UID read more than once. The
// same object read again is summed up in one warning: a folder holding a
// dump and a snapshot of one cluster repeats every object, and a line per
// object would bury the warnings that matter. Different objects sharing a
// UID are a hazard: each is warned about and kept in Duplicates, which
// pkg/graph reports as duplicate-uid.
func (rd *reader) settleRepeats() {
	first := rd.findRepeats()
	same := 0
	files := map[int32]bool{}
	for _, r := range rd.repeats {
		j := first[r.obj.Metadata.UID]
		kept, keptFile := rd.objs.At(int(j)), rd.objFile[j]
		older, olderFile := r.obj, r.file
		if rd.newer(&r.obj, r.file, kept, keptFile) {
			older, olderFile = *kept, keptFile
			*kept, rd.objFile[j] = r.obj, r.file
		}
		if sameObject(&older, kept) {
			same++
			files[olderFile], files[rd.objFile[j]] = true, true
			continue
		}
		rd.dups = append(rd.dups, older)
		rd.warnings = append(rd.warnings, snapshot.Warning{File: rd.files[olderFile], Object: older.Ref().String(),
			Message: fmt.Sprintf("duplicate uid %s: %s in %s has it too; kept that one (%s)", older.Metadata.UID,
				kept.Ref().String(), rd.files[rd.objFile[j]], keepRule)})
	}
	rd.repeats = nil
	rd.warnRepeated(same, files)
}

// warnRepeated sums up, in one warning, the objects read more than once
// from files.
func (rd *reader) warnRepeated(same int, files map[int32]bool) {
	if same == 0 {
		return
	}
	rd.warnings = append(rd.warnings, snapshot.Warning{Message: fmt.Sprintf(
		"%d %s read more than once (same UID, kind and name) from %s: kept one copy of each (%s)",
		same, plural(same, "object was", "objects were"), rd.fileList(files), keepRule)})
}

// keepRule is which of two copies with one UID stays, for messages.
const keepRule = "the higher resourceVersion, else the later capture, else the first read"

// newer reports whether a (read from file fa) is a later state than b: a
// higher resourceVersion (etcd's revision: opaque by contract, a number in
// practice), else a later capture of its file. A tie keeps b, read first.
func (rd *reader) newer(a *snapshot.Object, fa int32, b *snapshot.Object, fb int32) bool {
	ra, errA := strconv.ParseUint(a.Metadata.ResourceVersion, 10, 64)
	rb, errB := strconv.ParseUint(b.Metadata.ResourceVersion, 10, 64)
	if errA == nil && errB == nil {
		return ra > rb
	}
	return rd.fileTimes[fa].Truncate(time.Second).After(rd.fileTimes[fb].Truncate(time.Second))
}

// sameObject reports whether two copies with one UID are one object: same
// kind, group, namespace and name.
func sameObject(a, b *snapshot.Object) bool {
	return a.Kind == b.Kind && snapshot.GroupOf(a.APIVersion) == snapshot.GroupOf(b.APIVersion) &&
		a.Metadata.Namespace == b.Metadata.Namespace && a.Metadata.Name == b.Metadata.Name
}

// fileList names up to three of the files, sorted.
func (rd *reader) fileList(files map[int32]bool) string {
	var names []string
	for f := range files {
		names = append(names, inputName(rd.files[f]))
	}
	slices.Sort(names)
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + fmt.Sprintf(" and %d more files", len(names)-3)
	}
	if len(names) > 1 {
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return names[0]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// objStore holds objects while reading: in one slice reserved for as many
// objects as a kgc snapshot's catalog counts (Reserve), which becomes the
// snapshot's Objects without a copy, and beyond it (or without a count)
// in fixed-size chunks: appending to one growing slice would copy a
// million objects several times over and briefly hold two copies.
type objStore struct {
	first  []snapshot.Object
	chunks [][]snapshot.Object
	n      int
}

const chunkBits = 14

// collectAfterChunks is how many chunks (of 1<<chunkBits objects, 3 MB
// each) make Sorted collect them at once.
const collectAfterChunks = 16

// Reserve makes room for n objects, before the first is added.
func (st *objStore) Reserve(n int) {
	if st.n == 0 && n > 0 {
		st.first = make([]snapshot.Object, 0, n)
		hugepages.Advise(st.first)
	}
}

func (st *objStore) Len() int { return st.n }

func (st *objStore) At(i int) *snapshot.Object {
	if i < len(st.first) {
		return &st.first[i]
	}
	i -= cap(st.first)
	return &st.chunks[i>>chunkBits][i&(1<<chunkBits-1)]
}

// Truncate keeps the first n objects.
func (st *objStore) Truncate(n int) {
	for i := n; i < st.n; i++ {
		*st.At(i) = snapshot.Object{}
	}
	st.n = n
	if n < len(st.first) {
		st.first = st.first[:n]
	}
}

func (st *objStore) Append(o snapshot.Object) {
	if st.n < cap(st.first) {
		st.first = append(st.first, o)
		st.n++
		return
	}
	if i := st.n - cap(st.first); i>>chunkBits == len(st.chunks) {
		st.chunks = append(st.chunks, make([]snapshot.Object, 1<<chunkBits))
	}
	*st.At(st.n) = o
	st.n++
}

// Sorted returns the objects in the contract's order, in one exactly
// sized slice, and empties the store.
func (st *objStore) Sorted() []snapshot.Object {
	if len(st.chunks) >= collectAfterChunks {
		// The chunks are garbage once copied out: 190 MB for a million
		// objects. Collected now (0.07 s at that size) and handed back to
		// the system, they cost no memory while the command builds what
		// comes next. Left to the next cycle, the heap grows by what the
		// command builds first; collected but kept, their 3 MB pieces
		// are too small for its large blocks (a million graph nodes take
		// one of 145 MB), and stay resident beside them (either put full
		// `graph -A` near 1 GB).
		defer debug.FreeOSMemory()
	}
	if st.inOrder() {
		return st.drain()
	}
	idx := make([]int32, st.n)
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(a, b int32) int { return snapshot.CompareObjects(st.At(int(a)), st.At(int(b))) })
	out := make([]snapshot.Object, st.n)
	for k, i := range idx {
		out[k] = *st.At(int(i))
	}
	st.first, st.chunks, st.n = nil, nil, 0
	return out
}

// inOrder reports whether the objects were read in the contract's order,
// as a kgc snapshot file holds them.
func (st *objStore) inOrder() bool {
	for i := 1; i < st.n; i++ {
		if snapshot.CompareObjects(st.At(i-1), st.At(i)) > 0 {
			return false
		}
	}
	return true
}

// drain copies the objects out in the order read, dropping each chunk once
// copied, so that a million objects are never held twice.
func (st *objStore) drain() []snapshot.Object {
	if len(st.chunks) == 0 {
		// Everything fits the reserved slice: it is the result.
		out := st.first
		st.first, st.n = nil, 0
		return out
	}
	out := make([]snapshot.Object, 0, st.n)
	out = append(out, st.first...)
	st.first = nil
	for c := range st.chunks {
		out = append(out, st.chunks[c][:min(st.n-len(out), len(st.chunks[c]))]...)
		st.chunks[c] = nil
	}
	st.first, st.chunks, st.n = nil, nil, 0
	return out
}
