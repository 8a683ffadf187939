package graph

import "github.com/kgc-dev/kgc/pkg/snapshot"

// maxConnectedPasses bounds connected's passes over the objects. Each
// pass reaches one step further along owner references in both
// directions, and owner chains are short (Deployment → ReplicaSet → Pod
// is three); a longer chain is replayed whole rather than walked pass by
// pass.
const maxConnectedPasses = 12

// connected returns which of objs are connected to uids through owner
// references, in either direction and through any number of steps: the
// objects holding one of the UIDs, the objects their references name,
// the objects referring to them, and so on; and the UIDs reached: those
// of the objects connected and of their owners. It is the object-level
// superset of the collector's connected component (it also follows
// references without a UID's node, which never joins two nodes). It makes
// a few passes over objs with a map of the UIDs reached so far, instead
// of indexing every owner reference of the cluster; past
// maxConnectedPasses it returns every object, and nil UIDs.
func connected(objs []snapshot.Object, uids []string) ([]bool, map[string]bool) {
	reached := make(map[string]bool, len(uids))
	for _, u := range uids {
		if u != "" {
			reached[u] = true
		}
	}
	in := make([]bool, len(objs))
	for pass := 0; pass < maxConnectedPasses; pass++ {
		if !connectPass(objs, reached, in) {
			return in, reached
		}
	}
	for i := range in {
		in[i] = true
	}
	return in, nil
}

// connectPass adds to in the objects reached so far, and to reached their
// UIDs and their owners'; it reports whether it added anything.
func connectPass(objs []snapshot.Object, reached map[string]bool, in []bool) bool {
	grew := false
	for i := range objs {
		m := &objs[i].Metadata
		if in[i] || m.UID == "" || !touches(m, reached) {
			continue
		}
		in[i], grew = true, true
		reached[m.UID] = true
		for _, r := range m.OwnerReferences {
			if r.UID != "" {
				reached[r.UID] = true
			}
		}
	}
	return grew
}

// touches reports whether m's UID or one of its owners' was reached.
func touches(m *snapshot.ObjectMeta, reached map[string]bool) bool {
	if reached[m.UID] {
		return true
	}
	for _, r := range m.OwnerReferences {
		if reached[r.UID] {
			return true
		}
	}
	return false
}
