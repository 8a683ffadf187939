package graph

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

var t0 = time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)

// describe renders nodes the way the collector's debug DOT identifies them,
// one line per node, then one line per edge.
func describe(nodes []*Node) []string {
	var out []string
	for _, n := range nodes {
		var flags []string
		if n.Virtual {
			flags = append(flags, "virtual")
		}
		if n.BeingDeleted {
			flags = append(flags, "beingDeleted")
		}
		if n.DeletingDependents {
			flags = append(flags, "deletingDependents")
		}
		out = append(out, fmt.Sprintf("%s %s %s/%s ns=%q %s", n.UID(), n.Identity().APIVersion, n.Identity().Kind, n.Identity().Name, n.Identity().Namespace, strings.Join(flags, ",")))
	}
	for _, e := range Edges(nodes) {
		out = append(out, fmt.Sprintf("%s -> %s block=%v controller=%v", e.From, e.To, e.BlockOwnerDeletion, e.Controller))
	}
	return out
}

func TestBuildNodesAndEdges(t *testing.T) {
	deploy := testobj.Deployment("web", "web").UID("d").Build()
	rs := testobj.ReplicaSet("web", "web-1").UID("rs").OwnedBy(deploy).Build()
	pod := testobj.Pod("web", "web-1-a").UID("p").OwnedBy(rs).Build()
	lonely := testobj.ConfigMap("web", "settings").UID("cm").Build()

	tests := []struct {
		name string
		snap *snapshot.Snapshot
		want []string
	}{
		{
			name: "a deployment chain, and an object with no owner and no dependent is left out",
			snap: testobj.Snapshot(pod, lonely, rs, deploy).Build(),
			want: []string{
				`d apps/v1 Deployment/web ns="web" `,
				`p v1 Pod/web-1-a ns="web" `,
				`rs apps/v1 ReplicaSet/web-1 ns="web" `,
				"p -> rs block=true controller=true",
				"rs -> d block=true controller=true",
			},
		},
		{
			name: "an absent owner becomes a virtual node with the reference's coordinates and the dependent's namespace",
			snap: testobj.Snapshot(pod).Build(),
			want: []string{
				`p v1 Pod/web-1-a ns="web" `,
				`rs apps/v1 ReplicaSet/web-1 ns="web" virtual`,
				"p -> rs block=true controller=true",
			},
		},
		{
			name: "without creation times, a virtual owner takes the namespace of the first dependent in contract order",
			snap: testobj.Snapshot(
				testobj.ConfigMap("zeta", "b").UID("cm-b").Owner(testobj.RefTo("v1", "Node", "n1", "node")).Build(),
				testobj.ConfigMap("alpha", "a").UID("cm-a").Owner(testobj.RefTo("v1", "Node", "n1", "node")).Build(),
			).Build(),
			want: []string{
				`cm-a v1 ConfigMap/a ns="alpha" `,
				`node v1 Node/n1 ns="alpha" virtual`,
				`cm-b v1 ConfigMap/b ns="zeta" `,
				"cm-a -> node block=false controller=false",
				"cm-b -> node block=false controller=false",
			},
		},
		{
			name: "with creation times, the first dependent created names the virtual owner",
			snap: testobj.Snapshot(
				testobj.ConfigMap("zeta", "b").UID("cm-b").Created(t0).Owner(testobj.RefTo("v1", "Node", "n1", "node")).Build(),
				testobj.ConfigMap("alpha", "a").UID("cm-a").Created(t0.Add(time.Second)).Owner(testobj.RefTo("v1", "Node", "first-seen-as-n2", "node")).Build(),
			).Build(),
			want: []string{
				`cm-a v1 ConfigMap/a ns="alpha" `,
				`cm-b v1 ConfigMap/b ns="zeta" `,
				`node v1 Node/n1 ns="zeta" virtual`,
				"cm-a -> node block=false controller=false",
				"cm-b -> node block=false controller=false",
			},
		},
		{
			name: "within one second of creation, the resourceVersion orders",
			snap: testobj.Snapshot(
				testobj.ConfigMap("alpha", "a").UID("cm-a").Created(t0).ResourceVersion("120").Owner(testobj.RefTo("v1", "Node", "n1", "node")).Build(),
				testobj.ConfigMap("zeta", "b").UID("cm-b").Created(t0).ResourceVersion("99").Owner(testobj.RefTo("v1", "Node", "n1", "node")).Build(),
			).Build(),
			want: []string{
				`cm-a v1 ConfigMap/a ns="alpha" `,
				`cm-b v1 ConfigMap/b ns="zeta" `,
				`node v1 Node/n1 ns="zeta" virtual`,
				"cm-a -> node block=false controller=false",
				"cm-b -> node block=false controller=false",
			},
		},
		{
			name: "an absent owner of a namespaced kind named by a cluster-scoped object ends up without a namespace",
			snap: testobj.Snapshot(
				testobj.ConfigMap("web", "c").UID("cm").Created(t0).Owner(testobj.RefTo("v1", "ConfigMap", "ghost", "ghost")).Build(),
				testobj.ClusterRole("r").UID("cr").Created(t0.Add(time.Second)).Owner(testobj.RefTo("v1", "ConfigMap", "ghost", "ghost")).Build(),
			).Build(),
			want: []string{
				`cr rbac.authorization.k8s.io/v1 ClusterRole/r ns="" `,
				`ghost v1 ConfigMap/ghost ns="" virtual`,
				`cm v1 ConfigMap/c ns="web" `,
				"cm -> ghost block=false controller=false",
				"cr -> ghost block=false controller=false",
			},
		},
		{
			name: "an absent owner of a cluster-scoped kind keeps the first dependent's namespace",
			snap: testobj.Snapshot(
				testobj.ConfigMap("web", "c").UID("cm").Created(t0).Owner(testobj.RefTo("v1", "Node", "n", "node")).Build(),
				testobj.ClusterRole("r").UID("cr").Created(t0.Add(time.Second)).Owner(testobj.RefTo("v1", "Node", "n", "node")).Build(),
			).Build(),
			want: []string{
				`cr rbac.authorization.k8s.io/v1 ClusterRole/r ns="" `,
				`cm v1 ConfigMap/c ns="web" `,
				`node v1 Node/n ns="web" virtual`,
				"cm -> node block=false controller=false",
				"cr -> node block=false controller=false",
			},
		},
		{
			name: "observing the owner replaces the virtual identity with the observed one",
			snap: testobj.Snapshot(
				testobj.ConfigMap("alpha", "a").UID("cm-a").Owner(testobj.RefTo("v1", "ConfigMap", "wrong-name", "owner")).Build(),
				testobj.ConfigMap("beta", "real").UID("owner").Build(),
			).Build(),
			want: []string{
				`cm-a v1 ConfigMap/a ns="alpha" `,
				`owner v1 ConfigMap/real ns="beta" `,
				"cm-a -> owner block=false controller=false",
			},
		},
		{
			name: "events are not watched: neither nodes nor dependents",
			snap: testobj.Snapshot(
				testobj.Event("web", "e1").UID("ev").OwnedBy(pod).Build(),
				testobj.New("events.k8s.io/v1", "Event", "web", "e2").UID("ev2").OwnedBy(pod).Build(),
			).Build(),
			want: nil,
		},
		{
			name: "an object of an unwatched type is only ever a virtual owner",
			snap: testobj.Snapshot(
				testobj.Secret("web", "s").UID("s").Build(),
				testobj.ConfigMap("web", "c").UID("c").OwnedBy(testobj.Secret("web", "s").UID("s").Build()).Build(),
			).Verbs("", "Secret", "get", "delete", "list").Build(),
			want: []string{
				`c v1 ConfigMap/c ns="web" `,
				`s v1 Secret/s ns="web" virtual`,
				"c -> s block=true controller=true",
			},
		},
		{
			name: "the identity carries the preferred version, whatever version the dump used",
			snap: testobj.Snapshot(
				testobj.New("example.com/v1beta1", "Widget", "web", "w").UID("w").OwnedBy(deploy).Build(),
				deploy,
			).CRD("example.com", "Widget", "widgets", true, "v1", "v1beta1").Build(),
			want: []string{
				`d apps/v1 Deployment/web ns="web" `,
				`w example.com/v1 Widget/w ns="web" `,
				"w -> d block=true controller=true",
			},
		},
		{
			name: "an object of a type the catalog does not know is taken as watched",
			snap: testobj.Snapshot(
				testobj.New("example.com/v1", "Gadget", "web", "g").UID("g").OwnedBy(deploy).Build(), deploy).Build(),
			want: []string{
				`d apps/v1 Deployment/web ns="web" `,
				`g example.com/v1 Gadget/g ns="web" `,
				"g -> d block=true controller=true",
			},
		},
		{
			name: "a self-reference makes the object its own owner and dependent",
			snap: testobj.Snapshot(
				testobj.ConfigMap("web", "loop").UID("loop").Owner(testobj.RefTo("v1", "ConfigMap", "loop", "loop")).Build(),
			).Build(),
			want: []string{
				`loop v1 ConfigMap/loop ns="web" `,
				"loop -> loop block=false controller=false",
			},
		},
		{
			name: "a reference without a UID names no node",
			snap: testobj.Snapshot(
				testobj.ConfigMap("web", "c").UID("c").Owner(testobj.RefTo("v1", "ConfigMap", "x", "")).Build(),
			).Build(),
			want: nil,
		},
		{
			name: "two references to one owner make one edge",
			snap: testobj.Snapshot(
				testobj.ConfigMap("web", "c").UID("c").
					Owner(testobj.RefTo("apps/v1", "Deployment", "web", "d", testobj.Block)).
					Owner(testobj.RefTo("apps/v1", "Deployment", "web", "d", testobj.Controller)).Build(),
				deploy,
			).Build(),
			want: []string{
				`c v1 ConfigMap/c ns="web" `,
				`d apps/v1 Deployment/web ns="web" `,
				"c -> d block=true controller=true",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := describe(Build(tt.snap).Nodes())
			if !slices.Equal(got, tt.want) {
				t.Errorf("graph:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestBuildFlags(t *testing.T) {
	owner := testobj.Deployment("web", "web").UID("d").Build()
	tests := []struct {
		name string
		objs []snapshot.Object
		want string
	}{
		{"alive", []snapshot.Object{testobj.Deployment("web", "web").UID("d").Build()}, `d apps/v1 Deployment/web ns="web" `},
		{"terminating with a custom finalizer",
			[]snapshot.Object{testobj.Deployment("web", "web").UID("d").Deleting(t0).Finalizers("example.com/x").Build()},
			`d apps/v1 Deployment/web ns="web" beingDeleted`},
		{"foreground deletion",
			[]snapshot.Object{testobj.Deployment("web", "web").UID("d").Deleting(t0).Finalizers("foregroundDeletion").Build()},
			`d apps/v1 Deployment/web ns="web" beingDeleted,deletingDependents`},
		{"foregroundDeletion without a deletionTimestamp is not deleting anything",
			[]snapshot.Object{testobj.Deployment("web", "web").UID("d").Finalizers("foregroundDeletion").Build()},
			`d apps/v1 Deployment/web ns="web" `},
		{"orphan and foreground on a node created by its own add event: deletingDependents is set",
			[]snapshot.Object{testobj.Deployment("web", "web").UID("d").Deleting(t0).Finalizers("orphan", "foregroundDeletion").Build()},
			`d apps/v1 Deployment/web ns="web" beingDeleted,deletingDependents`},
		{"orphan and foreground on a node first seen as virtual: orphaning wins and deletingDependents stays unset",
			[]snapshot.Object{
				testobj.Deployment("web", "web").UID("d").Deleting(t0).Finalizers("orphan", "foregroundDeletion").Build(),
				// "a" sorts before "web": the dependent is observed first.
				testobj.ConfigMap("a", "c").UID("c").Owner(testobj.Ref(owner)).Build(),
			},
			`d apps/v1 Deployment/web ns="web" beingDeleted`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := append(slices.Clone(tt.objs), testobj.Pod("web", "p").UID("p").Owner(testobj.Ref(owner)).Build())
			g := Build(testobj.Snapshot(objs...).Build())
			got := describe([]*Node{g.Node("d")})[0]
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestComponentAndBlockingDependents(t *testing.T) {
	deploy := testobj.Deployment("web", "web").UID("d").Build()
	rs := testobj.ReplicaSet("web", "web-1").UID("rs").OwnedBy(deploy).Build()
	p1 := testobj.Pod("web", "a").UID("p1").OwnedBy(rs).Build()
	p2 := testobj.Pod("web", "b").UID("p2").Owner(testobj.Ref(rs, testobj.NoBlock)).Build()
	other := testobj.Pod("other", "x").UID("x").Owner(testobj.RefTo("v1", "Node", "n", "node")).Build()
	lonely := testobj.ConfigMap("web", "c").UID("c").Build()
	g := Build(testobj.Snapshot(deploy, rs, p1, p2, other, lonely).Build())

	uids := func(nodes []*Node) []string {
		var out []string
		for _, n := range nodes {
			out = append(out, n.UID())
		}
		return out
	}
	for _, tt := range []struct {
		seeds []string
		want  []string
	}{
		{[]string{"p2"}, []string{"d", "p1", "p2", "rs"}},
		{[]string{"node"}, []string{"node", "x"}}, // the virtual Node took namespace "other"
		{[]string{"d", "x"}, []string{"node", "x", "d", "p1", "p2", "rs"}},
		{[]string{"c"}, nil},           // isolated: the debug handler prints nothing
		{[]string{"no-such-uid"}, nil}, // unknown UIDs are skipped
		{[]string{"no-such-uid", "rs"}, []string{"d", "p1", "p2", "rs"}},
	} {
		if got := uids(g.Component(tt.seeds...)); !slices.Equal(got, tt.want) {
			t.Errorf("Component(%v) = %v, want %v", tt.seeds, got, tt.want)
		}
	}
	if got := uids(g.BlockingDependents(g.Node("rs"))); !slices.Equal(got, []string{"p1"}) {
		t.Errorf("BlockingDependents(rs) = %v, want [p1]", got)
	}
	if got := uids(g.Owners(g.Node("p1"))); !slices.Equal(got, []string{"rs"}) {
		t.Errorf("Owners(p1) = %v, want [rs]", got)
	}
	if g.Node("c") == nil {
		t.Errorf("an isolated object must still be a node of the graph (the collector holds every observed object)")
	}
	if got := uids(Roots(g.Nodes())); !slices.Equal(got, []string{"node", "d"}) {
		t.Errorf("Roots = %v, want [node d]", got)
	}
	if got := uids(g.InNamespaces("other")); !slices.Equal(got, []string{"node", "x"}) {
		t.Errorf("InNamespaces(other) = %v, want [node x]", got)
	}
	if got := uids(g.InNamespaces()); len(got) != len(g.Nodes()) {
		t.Errorf("InNamespaces() = %v, want the whole graph", got)
	}
}

func TestDuplicateUIDKeepsTheFirstObject(t *testing.T) {
	a := testobj.ConfigMap("web", "a").UID("dup").Owner(testobj.RefTo("v1", "Node", "n1", "n1")).Build()
	b := testobj.ConfigMap("web", "b").UID("dup").Owner(testobj.RefTo("v1", "Node", "n2", "n2")).Deleting(t0).Build()
	g := Build(testobj.Snapshot(b, a).Build())
	got := describe(g.Nodes())
	want := []string{
		`dup v1 ConfigMap/a ns="web" `,
		`n1 v1 Node/n1 ns="web" virtual`,
		"dup -> n1 block=false controller=false",
	}
	if !slices.Equal(got, want) {
		t.Errorf("graph:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestInNamespacesFollowsOwnersAcrossNamespaces(t *testing.T) {
	node := testobj.Node("n1").UID("node").Build()
	g := Build(testobj.Snapshot(node,
		testobj.ConfigMap("a", "c").UID("cm-a").Owner(testobj.Ref(node)).Build(),
		testobj.ConfigMap("b", "c").UID("cm-b").Owner(testobj.Ref(node)).Build(),
		testobj.ConfigMap("c", "unrelated").UID("cm-c").Owner(testobj.RefTo("v1", "Node", "n2", "node-2")).Build(),
	).Build())
	var got []string
	for _, n := range g.InNamespaces("b") {
		got = append(got, n.UID())
	}
	// The owner is cluster-scoped, and its other dependent lives in "a":
	// the GC's ?uid= for cm-b prints all three.
	if want := []string{"node", "cm-a", "cm-b"}; !slices.Equal(got, want) {
		t.Errorf("InNamespaces(b) = %v, want %v", got, want)
	}
}
