package snapshot

import (
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/internal/permute"
)

// CompareObjects orders objects by (namespace, kind, name, uid), the
// contract's order.
func CompareObjects(a, b *Object) int {
	if c := CompareNamed(a, b.Metadata.Namespace, b.Kind, b.Metadata.Name); c != 0 {
		return c
	}
	return strings.Compare(a.Metadata.UID, b.Metadata.UID)
}

// CompareNamed orders o against an object of namespace, kind and name in
// the contract's order, which sorts by those, then by UID: the objects
// of one name are next to each other.
func CompareNamed(o *Object, namespace, kind, name string) int {
	if c := strings.Compare(o.Metadata.Namespace, namespace); c != 0 {
		return c
	}
	if c := strings.Compare(o.Kind, kind); c != 0 {
		return c
	}
	return strings.Compare(o.Metadata.Name, name)
}

// Sorted reports whether objs are in the contract's order, as ReadFiles
// and a live capture return them.
func Sorted(objs []Object) bool {
	for i := 1; i < len(objs); i++ {
		if CompareObjects(&objs[i-1], &objs[i]) > 0 {
			return false
		}
	}
	return true
}

// SortObjects sorts objects in the contract's order. It sorts indexes and
// permutes in place, because moving whole Objects during a sort of a
// million of them costs more than the comparisons.
func SortObjects(objs []Object) {
	if Sorted(objs) {
		return
	}
	idx := make([]int32, len(objs))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int { return CompareObjects(&objs[a], &objs[b]) })
	permute.Apply(objs, idx)
}

// SortResources sorts a catalog by group, then resource: the order of a
// written snapshot's resources.
func SortResources(res []Resource) {
	for i := 1; i < len(res); i++ {
		for j := i; j > 0 && lessResource(res[j], res[j-1]); j-- {
			res[j], res[j-1] = res[j-1], res[j]
		}
	}
}

func lessResource(a, b Resource) bool {
	if a.Group != b.Group {
		return a.Group < b.Group
	}
	return a.Resource < b.Resource
}
