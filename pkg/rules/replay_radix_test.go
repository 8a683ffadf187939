package rules

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRadixSortIsTheComparisonSort: where the radix sort applies (every
// key with a resourceVersion, or none), it orders keys exactly as the
// comparison sort does, ties, undated keys and nanoseconds included; with
// some keys lacking a resourceVersion it declines and leaves them alone.
func TestRadixSortIsTheComparisonSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 400 {
		n := 1 + rng.IntN(300)
		hasRV := round%2 == 0
		keys := make([]observation, n)
		for i := range keys {
			k := observation{idx: int32(i), hasRV: hasRV}
			if rng.IntN(6) != 0 {
				k.hasCreated = true
				k.sec = int64(rng.IntN(4)) + int64(round)*1_000_003 - 200_000_000
				if rng.IntN(3) == 0 {
					k.nsec = int32(rng.IntN(1_000_000_000))
				}
			}
			if hasRV {
				k.rv = uint64(rng.IntN(8)) << (8 * uint(rng.IntN(8)))
			}
			keys[i] = k
		}
		want := slices.Clone(keys)
		slices.SortFunc(want, compareObservationsInOrder)
		got, ok := radixOrder(len(keys), func(k int) observation { return keys[k] })
		if !ok {
			t.Fatalf("round %d: declined keys that all agree on having a resourceVersion", round)
		}
		if !slices.EqualFunc(got, want, func(i int32, k observation) bool { return i == k.idx }) {
			t.Fatalf("round %d: radix order differs from the comparison sort's", round)
		}
	}
	mixed := []observation{{idx: 0, hasRV: true, rv: 2}, {idx: 1}, {idx: 2, hasRV: true, rv: 1}}
	if _, ok := radixOrder(len(mixed), func(k int) observation { return mixed[k] }); ok {
		t.Fatal("sorted keys some of which lack a resourceVersion, where only the comparison sort defines the order")
	}
	wide := []observation{{idx: 0, hasCreated: true, sec: -62135596800}, {idx: 1, hasCreated: true, sec: 1_800_000_000}}
	if _, ok := radixOrder(len(wide), func(k int) observation { return wide[k] }); ok {
		t.Fatal("sorted creation times spanning more than 2^33 seconds into 64 bits")
	}
}
