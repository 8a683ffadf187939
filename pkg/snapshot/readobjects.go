package snapshot

// This file files the objects read: extraction, the checks that turn
// into warnings, duplicate UIDs, and the chunked store sorted at the end.

import (
	"fmt"
	"slices"
	"strings"
)

// noUIDMessage explains why objects without a UID are dropped: they come
// from manifests or templates, not from the cluster.
const noUIDMessage = "skipped: no metadata.uid; templates are not cluster state"

// add extracts one object and files it, or explains why not.
func (rd *reader) add(file string, desc func() string, f topFields, hint typeHint) {
	o, err := rd.x.extract(f, hint.apiVersion, hint.kind)
	// Named lazily: building the name of every object of a big dump costs
	// more than reading it.
	name := func() string {
		if o.Metadata.Name != "" && o.Kind != "" {
			return o.Ref().String()
		}
		return desc()
	}
	if err != nil {
		rd.warnings = append(rd.warnings, Warning{File: file, Object: name(), Message: fmt.Sprintf("skipped: %v", err)})
		return
	}
	if o.Metadata.UID == "" {
		rd.warnings = append(rd.warnings, Warning{File: file, Object: name(), Message: noUIDMessage})
		return
	}
	if o.Kind == "" {
		rd.listHinted = append(rd.listHinted, rd.objs.Len())
	}
	for i, r := range o.Metadata.OwnerReferences {
		if missing := r.MissingFields(); len(missing) > 0 {
			rd.warnings = append(rd.warnings, Warning{File: file, Object: name(),
				Message: fmt.Sprintf("ownerReferences[%d] has no %s; kept, the garbage collector cannot resolve it", i, strings.Join(missing, ", "))})
		}
	}
	if j, dup := rd.uids[o.Metadata.UID]; dup {
		first := rd.objs.At(int(j))
		rd.warnings = append(rd.warnings, Warning{File: file, Object: name(),
			Message: fmt.Sprintf("duplicate uid %s: already read as %s in %s; kept the first", o.Metadata.UID, first.Ref().String(), rd.files[rd.objFile[j]])})
		rd.dups = append(rd.dups, o)
		return
	}
	rd.uids[o.Metadata.UID] = int32(rd.objs.Len())
	rd.objs.Append(o)
	rd.objFile = append(rd.objFile, rd.curFile)
}

// objStore holds objects in fixed-size chunks while reading: appending to
// one growing slice would copy a million objects several times over and
// briefly hold two copies.
type objStore struct {
	chunks [][]Object
	n      int
}

const chunkBits = 14

func (st *objStore) Len() int { return st.n }

func (st *objStore) At(i int) *Object { return &st.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (st *objStore) Append(o Object) {
	if st.n>>chunkBits == len(st.chunks) {
		st.chunks = append(st.chunks, make([]Object, 1<<chunkBits))
	}
	*st.At(st.n) = o
	st.n++
}

// Sorted returns the objects in the contract's order, in one exactly
// sized slice, and empties the store.
func (st *objStore) Sorted() []Object {
	idx := make([]int32, st.n)
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(a, b int32) int { return compareObjects(st.At(int(a)), st.At(int(b))) })
	out := make([]Object, st.n)
	for k, i := range idx {
		out[k] = *st.At(int(i))
	}
	st.chunks, st.n = nil, 0
	return out
}

// compareObjects orders objects by (namespace, kind, name, uid), the
// contract's order.
func compareObjects(a, b *Object) int {
	if c := strings.Compare(a.Metadata.Namespace, b.Metadata.Namespace); c != 0 {
		return c
	}
	if c := strings.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	if c := strings.Compare(a.Metadata.Name, b.Metadata.Name); c != 0 {
		return c
	}
	return strings.Compare(a.Metadata.UID, b.Metadata.UID)
}

// SortObjects sorts objects in the contract's order. It sorts indexes and
// permutes in place, because moving whole Objects during a sort of a
// million of them costs more than the comparisons.
func SortObjects(objs []Object) {
	sorted := true
	for i := 1; i < len(objs); i++ {
		if compareObjects(&objs[i-1], &objs[i]) > 0 {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	idx := make([]int32, len(objs))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int { return compareObjects(&objs[a], &objs[b]) })
	// Apply the permutation by following cycles: position i takes objs[idx[i]].
	for i := range idx {
		if idx[i] < 0 {
			continue
		}
		tmp := objs[i]
		j := i
		for {
			k := int(idx[j])
			idx[j] = -1
			if k == i {
				objs[j] = tmp
				break
			}
			objs[j] = objs[k]
			j = k
		}
	}
}
