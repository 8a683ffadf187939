package uidtable

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
)

// The table finds every key, and answers for UIDs it does not hold, at
// every size around its growth steps.
func TestFind(t *testing.T) {
	eachCoreCount(t, testFind)
}

// eachCoreCount runs test with one, two, three and eight cores: the
// table has a shard or more per core, and its answers must not change.
func eachCoreCount(t *testing.T, test func(*testing.T)) {
	for _, procs := range []int{1, 2, 3, 8} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			test(t)
		})
	}
}

func testFind(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 16, 17, 1000} {
		uids := make([]string, n)
		for k := range uids {
			uids[k] = fmt.Sprintf("uid-%d", k)
		}
		tab, repeats := New(n, func(k int) string { return uids[k] })
		if repeats != nil {
			t.Fatalf("%d keys: repeats %v, want none", n, repeats)
		}
		for k := range uids {
			if j, ok := tab.Find(uids[k]); !ok || j != int32(k) {
				t.Fatalf("%d keys: Find(uid-%d) = %d, %v", n, k, j, ok)
			}
		}
		if _, ok := tab.Find("absent"); ok {
			t.Fatalf("%d keys: found a UID it does not hold", n)
		}
	}
}

// Repeated UIDs: the first key keeps the UID, and every later one is
// listed, in order, whichever shard of the table it falls in.
func TestRepeats(t *testing.T) {
	eachCoreCount(t, testRepeats)
}

func testRepeats(t *testing.T) {
	uids := make([]string, 1000)
	for k := range uids {
		uids[k] = fmt.Sprintf("uid-%d", k%300)
	}
	tab, repeats := New(len(uids), func(k int) string { return uids[k] })
	want := make([]int, 0, 700)
	for k := 300; k < 1000; k++ {
		want = append(want, k)
	}
	if !slices.Equal(repeats, want) {
		t.Fatalf("repeats = %v…, want 300…999", repeats[:min(5, len(repeats))])
	}
	for k := range 300 {
		if j, _ := tab.Find(uids[k]); j != int32(k) {
			t.Fatalf("Find(%s) = %d, want the first key, %d", uids[k], j, k)
		}
	}
}

// Resolve names each reference's owner key, -1 for a UID no key has.
func TestResolve(t *testing.T) {
	uids := []string{"a", "b", "c"}
	refs := [][]string{
		{"b", "gone"},
		nil,
		{"a", "c", ""},
	}
	tab, _ := New(len(uids), func(k int) string { return uids[k] })
	r := tab.Resolve(len(refs), func(k int) int { return len(refs[k]) }, func(k, j int) string { return refs[k][j] })
	want := [][]int32{{1, -1}, {}, {0, 2, -1}}
	for k := range refs {
		if got := r.Of(k); !slices.Equal(got, want[k]) {
			t.Errorf("owners of key %d = %v, want %v", k, got, want[k])
		}
	}
}
