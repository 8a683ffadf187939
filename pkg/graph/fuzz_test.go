package graph

import (
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// snapshotFromBytes decodes fuzz input into a small snapshot: few UIDs,
// names and namespaces, so references collide, cross namespaces, repeat
// and point at objects of other kinds far more often than random strings
// would.
func snapshotFromBytes(data []byte) *snapshot.Snapshot {
	kinds := [][2]string{{"v1", "ConfigMap"}, {"v1", "Node"}, {"apps/v1", "Deployment"}, {"v1", "Event"},
		{"example.com/v1", "Widget"}, {"apps/v1beta1", "Deployment"}, {"", "ConfigMap"}, {"v1", "Namespace"}}
	nss := []string{"", "a", "b"}
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	var objs []snapshot.Object
	for len(data) > 0 && len(objs) < 64 {
		k := kinds[next()%len(kinds)]
		ns := nss[next()%len(nss)]
		if k[1] == "Node" || k[1] == "Namespace" {
			ns = ""
		}
		b := testobj.New(k[0], k[1], ns, "o"+strconv.Itoa(next()%4)).UID("u" + strconv.Itoa(next()%12))
		flags := next()
		if flags&1 != 0 {
			b.Deleting(testobj.CapturedAt.Add(-time.Duration(flags) * time.Minute))
		}
		if flags&2 != 0 {
			b.Finalizers("foregroundDeletion")
		}
		if flags&4 != 0 {
			b.Finalizers("orphan")
		}
		if flags&8 != 0 {
			b.Finalizers("example.com/x")
		}
		for n := next() % 4; n > 0; n-- {
			rk := kinds[next()%len(kinds)]
			ref := testobj.RefTo(rk[0], rk[1], "o"+strconv.Itoa(next()%4), "u"+strconv.Itoa(next()%13))
			if next()%7 == 0 {
				ref.UID = ""
			}
			if next()%2 == 0 {
				testobj.Block(&ref)
			}
			b.Owner(ref)
		}
		objs = append(objs, b.Build())
	}
	return testobj.Snapshot(objs...).Build()
}

// FuzzBuild checks the graph's invariants on arbitrary owner references:
// no panic, edges only between nodes, owners and dependents agree, output
// sorted, and the same input always gives the same graph.
func FuzzBuild(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 0, 1, 0, 0, 1})
	f.Add([]byte{0, 1, 1, 1, 3, 2, 0, 0, 1, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 1, 0})
	f.Add([]byte{1, 0, 0, 5, 0, 2, 0, 1, 5, 0, 0, 2, 1, 1, 0, 4, 1, 0, 0, 0, 0, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		snap := snapshotFromBytes(data)
		g := Build(snap)
		nodes := g.Nodes()
		in := map[string]*Node{}
		for i, n := range nodes {
			in[n.UID()] = n
			if i > 0 && !nodes[i-1].Identity().Less(n.Identity()) {
				t.Fatalf("nodes not in contract order: %v then %v", nodes[i-1].Identity(), n.Identity())
			}
			if n.Virtual != (n.Object == nil) {
				t.Fatalf("%s: virtual=%v but object=%v", n.UID(), n.Virtual, n.Object)
			}
			if n.Virtual && len(n.Owners) > 0 {
				t.Fatalf("virtual node %s has owners", n.UID())
			}
			for _, d := range n.Dependents {
				if !slices.ContainsFunc(d.Owners, func(r snapshot.OwnerReference) bool { return r.UID == n.UID() }) {
					t.Fatalf("%s lists dependent %s, which has no reference to it", n.UID(), d.UID())
				}
			}
			for _, r := range n.Owners {
				o := g.Node(r.UID)
				if o == nil || !slices.Contains(o.Dependents, n) {
					t.Fatalf("%s references %s, which does not list it as a dependent", n.UID(), r.UID)
				}
			}
			if c := g.Component(n.UID()); !slices.Contains(c, n) {
				t.Fatalf("the component of %s does not contain it", n.UID())
			}
		}
		for _, e := range g.Edges() {
			if in[e.From] == nil || in[e.To] == nil {
				t.Fatalf("edge %s -> %s leaves the node set", e.From, e.To)
			}
		}
		for _, fd := range g.Findings {
			if fd.Type == "" || fd.Message == "" || len(fd.Objects) == 0 {
				t.Fatalf("incomplete finding %+v", fd)
			}
		}
		again := Build(snapshotFromBytes(data))
		if !reflect.DeepEqual(g.Findings, again.Findings) || !reflect.DeepEqual(describe(nodes), describe(again.Nodes())) {
			t.Fatalf("two builds of the same input differ")
		}
	})
}
