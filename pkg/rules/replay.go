package rules

import (
	"slices"
	"strconv"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// ReplayOrder returns the indexes of objs for which keep(index) is true, in the
// order a running collector observed them: creation order, since its
// informers deliver each object's add event when it is created. Creation
// times have one-second resolution, so within a second the
// resourceVersion, the etcd revision of the last write, stands in for
// creation order (exact for objects not written since); then contract
// order; then input order, so that duplicate UIDs keep file order. Objects
// without a creation time (hand-written dumps) come first, in contract
// order. The order matters for virtual nodes, whose identity is taken from
// the first dependent that names them, and for the order of the
// collector's queues.
func ReplayOrder(objs []snapshot.Object, keep func(i int) bool) []int32 {
	keys := make([]observation, 0, len(objs))
	for i := range objs {
		if keep(i) {
			keys = append(keys, newObservation(&objs[i], int32(i)))
		}
	}
	slices.SortFunc(keys, compareObservations)
	out := make([]int32, len(keys))
	for i, k := range keys {
		out[i] = k.idx
	}
	return out
}

type observation struct {
	obj     *snapshot.Object
	created *time.Time
	rv      uint64
	hasRV   bool
	idx     int32
}

func newObservation(o *snapshot.Object, idx int32) observation {
	k := observation{obj: o, created: o.Metadata.CreationTimestamp, idx: idx}
	if rv := o.Metadata.ResourceVersion; rv != "" {
		if n, err := strconv.ParseUint(rv, 10, 64); err == nil {
			k.rv, k.hasRV = n, true
		}
	}
	return k
}

func compareObservations(a, b observation) int {
	switch {
	case a.created == nil && b.created != nil:
		return -1
	case a.created != nil && b.created == nil:
		return 1
	case a.created != nil && !a.created.Equal(*b.created):
		return a.created.Compare(*b.created)
	}
	if a.hasRV && b.hasRV && a.rv != b.rv {
		if a.rv < b.rv {
			return -1
		}
		return 1
	}
	ra, rb := a.obj.Ref(), b.obj.Ref()
	switch {
	case ra.Less(rb):
		return -1
	case rb.Less(ra):
		return 1
	}
	return int(a.idx - b.idx)
}
