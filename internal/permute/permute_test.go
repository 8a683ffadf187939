package permute

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestApplyIsTheCopy: applying a random permutation in place gives what
// building the permuted copy gives, and consumes the permutation.
func TestApplyIsTheCopy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		s := make([]string, n)
		for i := range s {
			s[i] = string(rune('a' + i%26))
		}
		idx := make([]int32, n)
		for i, p := range rng.Perm(n) {
			idx[i] = int32(p)
		}
		want := make([]string, n)
		for i, from := range idx {
			want[i] = s[from]
		}
		Apply(s, idx)
		if !slices.Equal(s, want) {
			t.Fatalf("n=%d: %v, want %v", n, s, want)
		}
		if slices.ContainsFunc(idx, func(i int32) bool { return i >= 0 }) {
			t.Fatalf("n=%d: permutation not consumed: %v", n, idx)
		}
	}
}
