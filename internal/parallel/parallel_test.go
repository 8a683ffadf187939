package parallel

import (
	"runtime"
	"slices"
	"testing"
)

// TestDoCoversEveryIndexOnce: whatever n and however many cores, each
// index is visited by exactly one part, and the parts are numbered in the
// order of the range.
func TestDoCoversEveryIndexOnce(t *testing.T) {
	for _, procs := range []int{1, 2, 3, 8} {
		old := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 2, 3, 7, 1000, 1001} {
			seen := make([]int, n)
			starts := make([]int, Parts(n))
			Do(n, func(p, from, to int) {
				starts[p] = from
				for i := from; i < to; i++ {
					seen[i]++
				}
			})
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("GOMAXPROCS=%d n=%d: index %d visited %d times", procs, n, i, c)
				}
			}
			if !slices.IsSorted(starts) {
				t.Fatalf("GOMAXPROCS=%d n=%d: parts start at %v, not in order", procs, n, starts)
			}
			if want := min(max(procs, 1), max(n, 1)); Parts(n) != want {
				t.Fatalf("GOMAXPROCS=%d n=%d: %d parts, want %d", procs, n, Parts(n), want)
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// TestConcatKeepsTheRangesOrder: the result is the range's order whatever
// the number of parts.
func TestConcatKeepsTheRangesOrder(t *testing.T) {
	for _, procs := range []int{1, 2, 5} {
		old := runtime.GOMAXPROCS(procs)
		got := Concat(11, func(from, to int) []int {
			var out []int
			for i := from; i < to; i++ {
				out = append(out, i, i)
			}
			return out
		})
		runtime.GOMAXPROCS(old)
		want := []int{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10}
		if !slices.Equal(got, want) {
			t.Fatalf("GOMAXPROCS=%d: %v", procs, got)
		}
	}
}
