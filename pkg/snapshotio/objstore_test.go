package snapshotio

import (
	"fmt"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// TestObjStore: whatever the reservation (none, exact, too small, too
// large), the store gives back every object in the order added, and in
// the contract's order when asked to sort.
func TestObjStore(t *testing.T) {
	const n = 1<<chunkBits + 3 // spills into a second chunk
	for _, reserve := range []int{0, n, 10, 2 * n} {
		var st objStore
		st.Reserve(reserve)
		for i := range n {
			st.Append(snapshot.Object{Metadata: snapshot.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("o-%06d", n-i)}})
		}
		if st.Len() != n || st.At(0).Metadata.Name != fmt.Sprintf("o-%06d", n) || st.At(n-1).Metadata.Name != "o-000001" {
			t.Fatalf("reserve %d: len %d, first %s, last %s", reserve, st.Len(), st.At(0).Metadata.Name, st.At(n-1).Metadata.Name)
		}
		got := st.Sorted()
		if len(got) != n || st.Len() != 0 {
			t.Fatalf("reserve %d: sorted %d objects, %d left in the store", reserve, len(got), st.Len())
		}
		for i := range got {
			if want := fmt.Sprintf("o-%06d", i+1); got[i].Metadata.Name != want {
				t.Fatalf("reserve %d: object %d is %s, want %s", reserve, i, got[i].Metadata.Name, want)
			}
		}
	}
	var st objStore
	st.Reserve(5)
	for i := range 7 {
		st.Append(snapshot.Object{Metadata: snapshot.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("o-%d", i)}})
	}
	if got := st.Sorted(); len(got) != 7 || got[6].Metadata.Name != "o-6" {
		t.Fatalf("in order, past the reservation: %d objects", len(got))
	}
}
