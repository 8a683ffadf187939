package graph

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSortEdgesIsStringOrder: edges come out in (from, to) string order,
// with UIDs that share long prefixes, are shorter than eight bytes,
// embed NUL bytes or repeat.
func TestSortEdgesIsStringOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	alphabet := []string{"", "\x00", "a", "b", "ab", "ab\x00", "abcdefgh", "abcdefghi", "abcdefgh\x00", "zzzzzzzzzz", "é"}
	uid := func() string {
		var b strings.Builder
		for range rng.IntN(4) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for round := range 200 {
		edges := make([]Edge, rng.IntN(400))
		for i := range edges {
			edges[i] = Edge{From: uid(), To: uid(), Controller: rng.IntN(2) == 0}
		}
		want := slices.Clone(edges)
		slices.SortStableFunc(want, func(a, b Edge) int {
			if c := strings.Compare(a.From, b.From); c != 0 {
				return c
			}
			return strings.Compare(a.To, b.To)
		})
		sortEdges(edges)
		for i := range edges {
			if edges[i].From != want[i].From || edges[i].To != want[i].To {
				t.Fatalf("round %d: edge %d is %q→%q, want %q→%q", round, i, edges[i].From, edges[i].To, want[i].From, want[i].To)
			}
		}
	}
}
