package bench

import (
	"testing"
	"time"
)

// TestRoundsAt: the smaller size gets rounds in proportion to the
// largest, at most three times as many; the largest gets what was asked.
func TestRoundsAt(t *testing.T) {
	sizes := []int{100000, 1000000}
	for _, c := range []struct{ n, want int }{{1000000, 4}, {100000, 12}, {500000, 8}, {10000, 12}} {
		if got := roundsAt(4, c.n, append(sizes, c.n)); got != c.want {
			t.Errorf("roundsAt(4, %d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// TestFastestGrowthComparesLikeWithLike: with three times as many rounds
// at the small size, its third fastest stands for its fastest.
func TestFastestGrowthComparesLikeWithLike(t *testing.T) {
	secs := func(v ...float64) []sample {
		var s []sample
		for _, x := range v {
			s = append(s, sample{wall: time.Duration(x * float64(time.Second))})
		}
		return s
	}
	big := secs(2.0, 2.4, 2.2, 2.6)
	small := secs(0.25, 0.1, 0.3, 0.2, 0.22, 0.24, 0.3, 0.3, 0.28, 0.26, 0.29, 0.27)
	if got := fastestGrowth(big, small); got != "9.1" {
		t.Errorf("growth by the fastest rounds %s, want 9.1 (2.0 s against the third fastest, 0.22 s)", got)
	}
	if got := fastestGrowth(big, secs(0.2, 0.25)); got != "10.0" {
		t.Errorf("growth with fewer small rounds %s, want 10.0 (fastest against fastest)", got)
	}
}
