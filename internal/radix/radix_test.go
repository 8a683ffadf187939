package radix

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortIsStableSort: on random keys, repeated keys, keys that differ
// in one digit only and keys all equal, Sort orders as a stable
// comparison sort does, and two Sorts order by two keys.
func TestSortIsStableSort(t *testing.T) {
	type pair struct {
		hi, lo uint64
		pos    int
	}
	rng := rand.New(rand.NewPCG(4, 9))
	gens := map[string]func() uint64{
		"random":       rng.Uint64,
		"few":          func() uint64 { return uint64(rng.IntN(5)) },
		"one digit":    func() uint64 { return uint64(rng.IntN(3)) << 32 },
		"all the same": func() uint64 { return 42 },
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 2, 1000, 70000} {
			s := make([]pair, n)
			for i := range s {
				s[i] = pair{hi: gen(), lo: gen(), pos: i}
			}
			want := slices.Clone(s)
			slices.SortStableFunc(want, func(a, b pair) int {
				return cmp.Or(cmp.Compare(a.hi, b.hi), cmp.Compare(a.lo, b.lo))
			})
			// The second sort reuses the first's spare buffer.
			byLo, spare := Sort(s, nil, func(p pair) uint64 { return p.lo })
			got, _ := Sort(byLo, spare, func(p pair) uint64 { return p.hi })
			if !slices.Equal(got, want) {
				t.Fatalf("%s, %d elements: not the stable order by (hi, lo)", name, n)
			}
		}
	}
}
