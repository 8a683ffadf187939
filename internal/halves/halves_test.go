package halves

import "testing"

// TestDoCoversEveryIndexOnce: whatever n, each index is visited by
// exactly one half.
func TestDoCoversEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 1000, 1001} {
		seen := make([]int, n)
		Do(n, func(from, to int) {
			for i := from; i < to; i++ {
				seen[i]++
			}
		})
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d: index %d visited %d times", n, i, c)
			}
		}
	}
}
