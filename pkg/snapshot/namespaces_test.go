package snapshot

import (
	"slices"
	"testing"
)

// A namespace is known absent only where the snapshot would show it: in a
// dump, anywhere it holds nothing; live, where namespaces were read (all
// of them, or by name for a user who may not list them).
func TestNamespaceAbsent(t *testing.T) {
	objs := []Object{
		{APIVersion: "v1", Kind: "Namespace", Metadata: ObjectMeta{Name: "team", UID: "ns"}},
		{APIVersion: "v1", Kind: "Pod", Metadata: ObjectMeta{Name: "p", Namespace: "shop", UID: "p"}},
	}
	ns := func(listed bool, in ...string) []Resource {
		return []Resource{{Group: "", Version: "v1", Resource: "namespaces", Kind: "Namespace", Listed: listed, Namespaces: in}}
	}
	for _, tc := range []struct {
		name   string
		snap   Snapshot
		absent []string
	}{
		{"dump", Snapshot{Source: Source{Type: "files"}, Objects: objs}, []string{"tem", "other"}},
		{"live, every namespace listed", Snapshot{Source: Source{Type: "live"}, Objects: objs, Resources: ns(true)}, []string{"tem", "other"}},
		{"live, namespaces read by name", Snapshot{Source: Source{Type: "live"}, Objects: objs, Resources: ns(true, "team", "tem")}, []string{"tem"}},
		{"live, namespaces not readable", Snapshot{Source: Source{Type: "live"}, Objects: objs, Resources: ns(false)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var absent []string
			for _, n := range []string{"team", "shop", "tem", "other"} {
				if tc.snap.NamespaceAbsent(n) {
					absent = append(absent, n)
				}
			}
			if !slices.Equal(absent, tc.absent) {
				t.Errorf("absent = %v, want %v", absent, tc.absent)
			}
		})
	}
	if got := Similar("tem", []string{"shop", "team", "temp-1"}); !slices.Equal(got, []string{"team", "temp-1"}) {
		t.Errorf("Similar = %v", got)
	}
}
