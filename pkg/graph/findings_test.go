package graph

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// findingLines renders findings as a user reads them in the tree view:
// type, the objects, the message.
func findingLines(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		var objs []string
		for _, o := range f.Objects {
			objs = append(objs, name(o)+"("+o.UID+")")
		}
		b.WriteString(f.Type + " [" + strings.Join(objs, "; ") + "] " + f.Message + "\n")
	}
	return b.String()
}

func TestFindings(t *testing.T) {
	deploy := testobj.Deployment("web", "web").UID("d").Build()
	rs := testobj.ReplicaSet("web", "web-1").UID("rs").OwnedBy(deploy).Build()
	gone := testobj.ReplicaSet("web", "gone").UID("gone").Build() // referenced, never added
	captured := testobj.CapturedAt

	tests := []struct {
		name string
		snap *snapshot.Snapshot
		want string
	}{
		{
			name: "a healthy chain has no findings",
			snap: testobj.Snapshot(deploy, rs, testobj.Pod("web", "p").UID("p").OwnedBy(rs).Build()).Build(),
			want: "",
		},
		{
			name: "an absent owner of a listed type is dangling: the dependent will be deleted",
			snap: testobj.Snapshot(testobj.Pod("web", "p").UID("p").OwnedBy(gone).Build()).Build(),
			want: "dangling-owner [Pod/p -n web(p); ReplicaSet/gone -n web(gone)] Pod/p -n web names owner ReplicaSet/gone -n web, which does not exist; the garbage collector will delete Pod/p -n web\n",
		},
		{
			name: "a dangling owner next to an existing one: only the reference goes",
			snap: testobj.Snapshot(deploy, testobj.Pod("web", "p").UID("p").OwnedBy(gone).Owner(testobj.Ref(deploy)).Build()).Build(),
			want: "dangling-owner [Pod/p -n web(p); ReplicaSet/gone -n web(gone)] Pod/p -n web names owner ReplicaSet/gone -n web, which does not exist; the garbage collector keeps Pod/p -n web, because its owner Deployment/web -n web exists, and removes the broken owner reference\n",
		},
		{
			name: "an owner recreated under the same name is still dangling",
			snap: testobj.Snapshot(
				testobj.ReplicaSet("web", "gone").UID("new-uid").Build(),
				testobj.Pod("web", "p").UID("p").OwnedBy(gone).Build()).Build(),
			want: "dangling-owner [Pod/p -n web(p); ReplicaSet/gone -n web(gone)] Pod/p -n web names owner ReplicaSet/gone -n web with UID gone, but the ReplicaSet of that name has UID new-uid (it was deleted and recreated); the garbage collector will delete Pod/p -n web\n",
		},
		{
			name: "an absent owner of a type kgc could not list is unknown",
			snap: testobj.Snapshot(testobj.Pod("web", "p").UID("p").OwnedBy(gone).Build()).
				Unlisted("apps", "ReplicaSet", "forbidden").Build(),
			want: "unknown-owner [Pod/p -n web(p); ReplicaSet/gone -n web(gone)] Pod/p -n web names owner ReplicaSet/gone -n web, which is not in the input, but kgc could not list replicasets.apps (forbidden), so kgc cannot tell whether the owner exists\n",
		},
		{
			// A dump that holds no ReplicaSets says nothing about them: the
			// finding must not blame a list that never happened.
			name: "an absent owner of a type a dump does not hold is unknown, and said so",
			snap: testobj.Snapshot(testobj.Pod("web", "p").UID("p").OwnedBy(gone).Build()).
				Unlisted("apps", "ReplicaSet", "").Build(),
			want: "unknown-owner [Pod/p -n web(p); ReplicaSet/gone -n web(gone)] Pod/p -n web names owner ReplicaSet/gone -n web, which is not in the input, but the input holds no replicasets.apps objects, so kgc cannot tell whether the owner exists\n",
		},
		{
			name: "a dangling owner next to one of a type the dump does not hold: the fate says what the input lacks",
			snap: testobj.Snapshot(testobj.Pod("web", "p").UID("p").OwnedBy(gone).Owner(testobj.RefTo("v1", "ConfigMap", "cm", "cm-gone")).Build()).
				Unlisted("apps", "ReplicaSet", "").Build(),
			want: "dangling-owner [Pod/p -n web(p); ConfigMap/cm -n web(cm-gone)] Pod/p -n web names owner ConfigMap/cm -n web, which does not exist; whether the garbage collector deletes Pod/p -n web depends on owners whose type the input does not hold\n" +
				"unknown-owner [Pod/p -n web(p); ReplicaSet/gone -n web(gone)] Pod/p -n web names owner ReplicaSet/gone -n web, which is not in the input, but the input holds no replicasets.apps objects, so kgc cannot tell whether the owner exists\n",
		},
		{
			name: "an owner in another namespace is looked up in the dependent's namespace: dangling",
			snap: testobj.Snapshot(
				testobj.ConfigMap("other", "owner").UID("o").Build(),
				testobj.ConfigMap("web", "c").UID("c").Owner(testobj.RefTo("v1", "ConfigMap", "owner", "o")).Build()).Build(),
			want: "cross-namespace-owner [ConfigMap/c -n web(c); ConfigMap/owner -n other(o)] ConfigMap/c -n web names owner ConfigMap/owner -n other, but owner references cannot cross namespaces: the garbage collector looks for the owner in namespace web only and treats it as gone; the garbage collector will delete ConfigMap/c -n web\n",
		},
		{
			name: "a cluster-scoped owner of a namespaced dependent is fine",
			snap: testobj.Snapshot(
				testobj.Node("n1").UID("n1").Build(),
				testobj.Pod("web", "p").UID("p").Owner(testobj.RefTo("v1", "Node", "n1", "n1")).Build()).Build(),
			want: "",
		},
		{
			name: "a reference whose UID belongs to another kind of object",
			snap: testobj.Snapshot(rs,
				testobj.Pod("web", "p").UID("p").Owner(testobj.RefTo("apps/v1", "Deployment", "web-1", "rs")).Build()).Build(),
			want: "dangling-owner [ReplicaSet/web-1 -n web(rs); Deployment/web -n web(d)] ReplicaSet/web-1 -n web names owner Deployment/web -n web, which does not exist; the garbage collector will delete ReplicaSet/web-1 -n web\n" +
				"owner-identity-mismatch [Pod/p -n web(p); ReplicaSet/web-1 -n web(rs)] Pod/p -n web names its owner as Deployment/web-1 with UID rs, but that UID belongs to ReplicaSet/web-1 -n web: the garbage collector looks the owner up by kind and name, finds no match and treats it as gone; the garbage collector will delete Pod/p -n web\n",
		},
		{
			name: "an owner version the cluster no longer serves blocks collection, even of other dangling owners",
			snap: testobj.Snapshot(
				testobj.Pod("web", "p").UID("p").
					Owner(testobj.RefTo("apps/v1beta1", "Deployment", "old", "old")).
					OwnedBy(gone).Build()).Build(),
			want: "dangling-owner [Pod/p -n web(p); ReplicaSet/gone -n web(gone)] Pod/p -n web names owner ReplicaSet/gone -n web, which does not exist; the garbage collector fails to map an owner kind of Pod/p -n web, retries it forever and never collects it, whatever its other owners\n" +
				"unresolvable-owner-kind [Pod/p -n web(p); Deployment/old -n web(old)] Pod/p -n web names an owner of kind apps/v1beta1 Deployment that the cluster does not serve (the cluster serves Deployment only at v1): the garbage collector cannot look it up, retries Pod/p -n web forever and never collects it, nor acts on its other owners\n",
		},
		{
			name: "offline, a removed built-in group is still known not to be served",
			snap: testobj.Snapshot(
				testobj.ConfigMap("web", "c").UID("c").Owner(testobj.RefTo("extensions/v1beta1", "Deployment", "web", "d")).Build()).Build(),
			want: "unresolvable-owner-kind [ConfigMap/c -n web(c); Deployment/web -n web(d)] ConfigMap/c -n web names an owner of kind extensions/v1beta1 Deployment that the cluster does not serve: the garbage collector cannot look it up, retries ConfigMap/c -n web forever and never collects it, nor acts on its other owners\n",
		},
		{
			name: "an owner kind a live cluster does not serve",
			snap: testobj.Snapshot(
				testobj.ConfigMap("web", "c").UID("c").Owner(testobj.RefTo("example.com/v1", "Widget", "w", "w")).Build()).Live().Build(),
			want: "unresolvable-owner-kind [ConfigMap/c -n web(c); Widget/w -n web(w)] ConfigMap/c -n web names an owner of kind example.com/v1 Widget that the cluster does not serve: the garbage collector cannot look it up, retries ConfigMap/c -n web forever and never collects it, nor acts on its other owners\n",
		},
		{
			name: "an owner kind of a group a plain dump says nothing about is unknown, not unresolvable",
			snap: testobj.Snapshot(
				testobj.ConfigMap("web", "c").UID("c").Owner(testobj.RefTo("example.com/v1", "Widget", "w", "w")).Build()).Build(),
			want: "unknown-owner [ConfigMap/c -n web(c); Widget/w -n web(w)] ConfigMap/c -n web names owner Widget/w -n web of kind example.com/v1 Widget, which is not in the input, and kgc cannot tell whether the cluster serves that kind (the input has neither discovery nor a CRD for group example.com)\n",
		},
		{
			name: "an owner kind whose discovery failed is unknown",
			snap: testobj.Snapshot(
				testobj.ConfigMap("web", "c").UID("c").Owner(testobj.RefTo("metrics.k8s.io/v1beta1", "PodMetrics", "m", "m")).Build()).
				Live().DiscoveryError("metrics.k8s.io/v1beta1", "the server is currently unable to handle the request").Build(),
			want: "unknown-owner [ConfigMap/c -n web(c); PodMetrics/m -n web(m)] ConfigMap/c -n web names owner PodMetrics/m -n web of kind metrics.k8s.io/v1beta1 PodMetrics, which is not in the input, and kgc cannot tell whether the cluster serves that kind (discovery of metrics.k8s.io/v1beta1 failed: the server is currently unable to handle the request)\n",
		},
		{
			name: "a cluster-scoped dependent of a namespaced kind is never collected",
			snap: testobj.Snapshot(
				testobj.PV("pv1").UID("pv1").Owner(testobj.RefTo("v1", "Pod", "p", "p")).Build()).Build(),
			want: "namespaced-owner-of-cluster-scoped [PersistentVolume/pv1(pv1); Pod/p(p)] cluster-scoped PersistentVolume/pv1 names owner Pod/p, but a Pod is namespaced and cannot own a cluster-scoped object: the garbage collector gives up on it and never collects it, whatever its other owners\n",
		},
		{
			name: "an owner deleting its dependents in the foreground is not a hazard",
			snap: testobj.Snapshot(
				testobj.Deployment("web", "web").UID("d").Deleting(captured.Add(-time.Minute)).Finalizers("foregroundDeletion").Build(),
				rs).Build(),
			want: "",
		},
		{
			name: "two objects owning each other, and one owning itself",
			snap: testobj.Snapshot(
				testobj.ConfigMap("web", "a").UID("a").Owner(testobj.RefTo("v1", "ConfigMap", "b", "b")).Build(),
				testobj.ConfigMap("web", "b").UID("b").Owner(testobj.RefTo("v1", "ConfigMap", "a", "a")).Build(),
				testobj.ConfigMap("web", "tail").UID("tail").Owner(testobj.RefTo("v1", "ConfigMap", "a", "a")).Build(),
				testobj.ConfigMap("web", "self").UID("self").Owner(testobj.RefTo("v1", "ConfigMap", "self", "self")).Build()).Build(),
			want: "cycle [ConfigMap/a -n web(a); ConfigMap/b -n web(b)] ConfigMap/a -n web and ConfigMap/b -n web own each other in a cycle: each always has an existing owner, so the garbage collector never collects them on its own, even when everything else they belong to is gone; deleting any one of them lets the collector remove the rest\n" +
				"cycle [ConfigMap/self -n web(self)] ConfigMap/self -n web lists itself as its owner: it always has an existing owner, so the garbage collector never collects it; delete it explicitly or remove that owner reference\n",
		},
		{
			name: "two objects with one UID",
			snap: testobj.Snapshot(
				testobj.ConfigMap("web", "b").UID("same").Build(),
				testobj.Secret("web", "a").UID("same").Build()).Build(),
			want: "duplicate-uid [ConfigMap/b -n web(same); Secret/a -n web(same)] ConfigMap/b -n web and Secret/a -n web share UID same, which a cluster gives to one object only: the input mixes dumps of different objects or was edited; kgc uses ConfigMap/b -n web and ignores the others\n",
		},
		{
			name: "an object the reader dropped for its UID",
			snap: testobj.Snapshot(testobj.Secret("web", "kept").UID("same").Build()).
				Duplicates(testobj.ConfigMap("web", "dropped").UID("same").Build()).Build(),
			want: "duplicate-uid [ConfigMap/dropped -n web(same); Secret/kept -n web(same)] ConfigMap/dropped -n web and Secret/kept -n web share UID same, which a cluster gives to one object only: the input mixes dumps of different objects or was edited; kgc uses Secret/kept -n web and ignores the others\n",
		},
		{
			name: "terminating with finalizers for longer than five minutes is stuck; for one minute it is not",
			snap: testobj.Snapshot(
				testobj.ConfigMap("web", "old").UID("old").Deleting(captured.Add(-2*time.Hour)).Finalizers("example.com/a", "example.com/b").Build(),
				testobj.ConfigMap("web", "young").UID("young").Deleting(captured.Add(-time.Minute)).Finalizers("example.com/a").Build(),
				testobj.Namespace("team").UID("ns").Deleting(captured.Add(-10*time.Minute)).
					Facts(&snapshot.Facts{Namespace: &snapshot.NamespaceFacts{SpecFinalizers: []string{"kubernetes"}}}).Build(),
				testobj.ConfigMap("web", "gone-soon").UID("gs").Deleting(captured.Add(-time.Hour)).Build()).Build(),
			// Cluster-scoped objects sort first (empty namespace).
			want: "stuck-finalizer [Namespace/team(ns)] Namespace/team has been terminating for 10m and is still held by finalizer kubernetes (spec.finalizers); `kgc why-stuck` on it says who should remove it\n" +
				"stuck-finalizer [ConfigMap/old -n web(old)] ConfigMap/old -n web has been terminating for 120m and is still held by finalizers example.com/a, example.com/b; `kgc why-stuck` on it says who should remove them\n",
		},
		{
			name: "owner references missing fields are invalid",
			snap: testobj.Snapshot(
				testobj.ConfigMap("web", "c").UID("c").Owner(snapshot.OwnerReference{Kind: "ConfigMap", Name: "x"}).Build()).Build(),
			want: "invalid-owner-reference [ConfigMap/c -n web(c); ConfigMap/x()] ConfigMap/c -n web has an owner reference without apiVersion, uid: the API server would reject it, so the input was edited or is corrupt; kgc leaves this reference out of the graph\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := findingLines(Build(tt.snap).Findings)
			if got != tt.want {
				t.Errorf("findings:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestStuckFinalizerWithoutCaptureTime(t *testing.T) {
	snap := testobj.Snapshot(testobj.ConfigMap("web", "c").UID("c").Deleting(testobj.CapturedAt).Finalizers("example.com/x").Build()).
		At(time.Time{}).Build()
	got := findingLines(Build(snap).Findings)
	want := "stuck-finalizer [ConfigMap/c -n web(c)] ConfigMap/c -n web has been terminating and is still held by finalizer example.com/x; `kgc why-stuck` on it says who should remove it\n"
	if got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
}

func TestCycleOfManyObjectsIsOneFinding(t *testing.T) {
	const n = 20000
	objs := make([]snapshot.Object, 0, n)
	uid := func(i int) string { return "u" + strings.Repeat("0", 7-len(itoa(i))) + itoa(i) }
	for i := 0; i < n; i++ {
		b := testobj.ConfigMap("web", uid(i)).UID(uid(i))
		owner := (i + 1) % n
		b.Owner(testobj.RefTo("v1", "ConfigMap", uid(owner), uid(owner)))
		objs = append(objs, b.Build())
	}
	g := Build(testobj.Snapshot(objs...).Build())
	if len(g.Findings) != 1 || g.Findings[0].Type != FindingCycle || len(g.Findings[0].Objects) != n {
		t.Fatalf("want one cycle of %d objects, got %d findings", n, len(g.Findings))
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}
