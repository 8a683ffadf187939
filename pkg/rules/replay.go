package rules

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/kgc-dev/kgc/internal/hugepages"
	"github.com/kgc-dev/kgc/internal/radix"
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
	return ReplayOrderOf(objs, snapshot.Sorted(objs), keep)
}

// ReplayOrderOf is ReplayOrder for a caller that knows whether objs are
// in the contract's order: sorted is snapshot.Sorted(objs), which costs a
// pass over a million objects.
func ReplayOrderOf(objs []snapshot.Object, sorted bool, keep func(i int) bool) []int32 {
	kept := Kept(len(objs), keep)
	order := ReplayPermutation(objs, sorted, kept)
	for k, j := range order {
		order[k] = kept[j]
	}
	return order
}

// Kept returns the indexes below n for which keep(index) is true, in
// increasing order.
func Kept(n int, keep func(i int) bool) []int32 {
	kept := make([]int32, 0, n)
	for i := range n {
		if keep(i) {
			kept = append(kept, int32(i))
		}
	}
	return kept
}

// ReplayPermutation returns the positions in kept, the indexes of the
// objects replayed in increasing order (Kept's), in the order ReplayOrder
// puts those objects: ReplayOrderOf's order is kept[p] for each position
// p. A caller that files the objects by position can do so while the
// order is sorted.
func ReplayPermutation(objs []snapshot.Object, sorted bool, kept []int32) []int32 {
	// Positions keep the objects' order, so a position breaks ties as the
	// object's index would.
	if sorted {
		// Input order is then contract order: ties need no references
		// compared, and the comparisons are integers only.
		order, ok := radixOrder(len(kept), func(k int) observation { return newObservation(&objs[kept[k]], int32(k)) })
		if ok {
			return order
		}
	}
	keys := make([]observation, len(kept))
	for k, i := range kept {
		keys[k] = newObservation(&objs[i], int32(k))
	}
	if sorted {
		slices.SortFunc(keys, compareObservationsInOrder)
	} else {
		slices.SortFunc(keys, compareObservations)
	}
	out := make([]int32, len(keys))
	for i, k := range keys {
		out[i] = k.idx
	}
	return out
}

// observation is an object's place in ReplayOrder, its creation time
// copied out of the object so that sorting a million of them compares
// integers instead of following a pointer per comparison.
type observation struct {
	obj        *snapshot.Object
	sec        int64 // creation time: Unix seconds
	nsec       int32 // and nanoseconds
	hasCreated bool
	hasRV      bool
	rv         uint64
	idx        int32
}

func newObservation(o *snapshot.Object, idx int32) observation {
	k := observation{obj: o, idx: idx}
	if t := o.Metadata.CreationTimestamp; t != nil {
		k.sec, k.nsec, k.hasCreated = t.Unix(), int32(t.Nanosecond()), true
	}
	if rv := o.Metadata.ResourceVersion; rv != "" {
		if n, err := strconv.ParseUint(rv, 10, 64); err == nil {
			k.rv, k.hasRV = n, true
		}
	}
	return k
}

// ObservedBefore reports whether ReplayOrder(objs) puts objs[a] before
// objs[b]; sorted is snapshot.Sorted(objs), which ReplayOrder asks once.
func ObservedBefore(objs []snapshot.Object, a, b int32, sorted bool) bool {
	x, y := newObservation(&objs[a], a), newObservation(&objs[b], b)
	if sorted {
		return compareObservationsInOrder(x, y) < 0
	}
	return compareObservations(x, y) < 0
}

func compareObservations(a, b observation) int {
	if c := compareCreated(a, b); c != 0 {
		return c
	}
	if c := a.obj.Ref().Compare(b.obj.Ref()); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}

// compareObservationsInOrder is compareObservations for objects in
// contract order, where input order breaks the ties alone.
func compareObservationsInOrder(a, b observation) int {
	if c := compareCreated(a, b); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}

// compareCreated orders by creation time, then, within it, by
// resourceVersion when both have one; 0 leaves the tie to contract order.
func compareCreated(a, b observation) int {
	switch {
	case a.hasCreated != b.hasCreated:
		if !a.hasCreated {
			return -1
		}
		return 1
	case a.sec != b.sec:
		return cmp.Compare(a.sec, b.sec)
	case a.nsec != b.nsec:
		return cmp.Compare(a.nsec, b.nsec)
	}
	if a.hasRV && b.hasRV {
		return cmp.Compare(a.rv, b.rv)
	}
	return 0
}

// radixOrder returns the indexes of the n keys at gives, in input order,
// as sorting them with compareObservationsInOrder orders them, when that
// comparison is a total order that fits two integers: every key has a
// resourceVersion or none has (with some but not all, a key without one
// ties with keys that do not tie with each other, and only the comparison
// sort defines the result), and creation times span less than 2^33
// seconds. It sorts by (creation, resourceVersion) with stable radix
// passes, so that input order breaks ties: a million keys in a few passes
// instead of twenty million comparisons. It reports false when the
// comparison is not such an order.
func radixOrder(n int, at func(k int) observation) ([]int32, bool) {
	minSec, maxSec := int64(math.MaxInt64), int64(math.MinInt64)
	var hasRV bool
	sorted := hugepages.Make[radixKey](n)
	for i := range n {
		k := at(i)
		if i == 0 {
			hasRV = k.hasRV
		}
		if k.hasRV != hasRV {
			return nil, false
		}
		sorted[i] = radixKey{rv: k.rv, idx: k.idx, nsec: -1}
		if k.hasCreated {
			minSec, maxSec = min(minSec, k.sec), max(maxSec, k.sec)
			sorted[i].created, sorted[i].nsec = uint64(k.sec), k.nsec
		}
	}
	if maxSec >= minSec && uint64(maxSec-minSec) >= 1<<33-1 {
		return nil, false
	}
	// created: 0 without a creation time, else 1 + seconds since the
	// earliest, then the nanoseconds (below 2^30) in the low bits.
	for i := range sorted {
		if k := &sorted[i]; k.nsec < 0 {
			k.created = 0
		} else {
			k.created = uint64(int64(k.created)-minSec+1)<<30 | uint64(k.nsec)
		}
	}
	sorted, spare := radix.Sort(sorted, nil, func(k radixKey) uint64 { return k.rv })
	sorted, _ = radix.Sort(sorted, spare, func(k radixKey) uint64 { return k.created })
	out := make([]int32, len(sorted))
	for i, r := range sorted {
		out[i] = r.idx
	}
	return out, true
}

// radixKey is an observation's order as two integers, and its object;
// created holds the creation second until radixOrder knows the earliest.
type radixKey struct {
	created, rv uint64
	idx         int32
	nsec        int32 // -1 without a creation time
}
