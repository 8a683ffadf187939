package rules

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// TestSortedNamesIsTheIndex: on random objects in the contract's order,
// many sharing a namespace, kind and name across groups or UIDs,
// SortedNames answers every name as the index does, and Named(i) holds
// exactly for the object ByName returns.
func TestSortedNamesIsTheIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	for round := range 200 {
		objs := make([]snapshot.Object, rng.IntN(60))
		for i := range objs {
			objs[i] = snapshot.Object{APIVersion: pick("v1", "apps/v1", "example.com/v1", "example.com/v2"), Kind: pick("Pod", "Widget"),
				Metadata: snapshot.ObjectMeta{Namespace: pick("", "a", "b"), Name: pick("x", "y", "z"), UID: fmt.Sprint(rng.IntN(1000))}}
		}
		snapshot.SortObjects(objs)
		ix, sn := NewIndex(objs), NewSortedNames(objs)
		for _, ns := range []string{"", "a", "b", "c"} {
			for _, kind := range []string{"Pod", "Widget", "Gadget"} {
				for _, name := range []string{"x", "y", "z", "w"} {
					for _, group := range []string{"", "apps", "example.com", "other"} {
						want := ix.ByName(group, kind, ns, name)
						if got := sn.ByName(group, kind, ns, name); got != want {
							t.Fatalf("round %d: ByName(%q, %s, %q, %s) = %v, want %v", round, group, kind, ns, name, got, want)
						}
						for i := range objs {
							if named := sn.Named(i, group, kind, ns, name); named != (want == &objs[i]) {
								t.Fatalf("round %d: Named(%d, %q, %s, %q, %s) = %v, ByName gives %v", round, i, group, kind, ns, name, named, want)
							}
						}
					}
				}
			}
		}
	}
}
