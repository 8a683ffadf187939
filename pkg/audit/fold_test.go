package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kgc-dev/kgc/test/bench/auditgen/gen"
)

// TestFoldSharesAgree: folding the objects a share per core keeps
// exactly what one loop over every request keeps, however many shares,
// on a generated log of each mix.
func TestFoldSharesAgree(t *testing.T) {
	for _, heavy := range []bool{false, true} {
		p := filepath.Join(t.TempDir(), "audit.log")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gen.Write(f, gen.Options{Events: 20000, Seed: 5, WriteHeavy: heavy}); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		log, err := Read([]string{p}, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var evs []*Event
		for e := range log.All() {
			evs = append(evs, e)
		}
		one := foldShares(evs, 1)
		if kept := count(one); kept == len(evs) || kept == 0 {
			t.Fatalf("write-heavy %v: the fold keeps %d of %d requests: nothing to compare", heavy, kept, len(evs))
		}
		for n := 2; n <= 7; n++ {
			if got := foldShares(evs, n); !slices.Equal(got, one) {
				t.Errorf("write-heavy %v: folded in %d shares, %d of %d requests kept, want the %d one loop keeps", heavy, n, count(got), len(evs), count(one))
			}
		}
	}
}

func count(keep []bool) int {
	n := 0
	for _, k := range keep {
		if k {
			n++
		}
	}
	return n
}
