package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

func TestNotTerminatingVerdicts(t *testing.T) {
	rs := testobj.ReplicaSet("shop", "web-1").Build()
	otherNSOwner := testobj.ConfigMap("other", "owner").Build()
	tests := []struct {
		name    string
		objs    []snapshot.Object
		target  snapshot.Object
		verdict string
		class   string // class of the first owner reference
		says    string
		offline bool
	}{
		{name: "offline, an owner group the dump does not define is unknown",
			target:  testobj.Pod("shop", "p").Owner(testobj.RefTo("gone.example.com/v1", "Ghost", "g", "u1")).Build(),
			verdict: VerdictUnknown, class: ClassUnknown, says: "neither discovery nor a CRD", offline: true},
		{name: "no owner references",
			target: testobj.ConfigMap("shop", "lonely").Build(), verdict: VerdictNotOwned, says: "never deletes it"},
		{name: "solid owner",
			objs: []snapshot.Object{rs}, target: testobj.Pod("shop", "p").OwnedBy(rs).Build(), verdict: VerdictKept, class: ClassSolid, says: "kept while its owner ReplicaSet/web-1 exists"},
		{name: "owner of a kind the cluster does not serve",
			target:  testobj.Pod("shop", "p").Owner(testobj.RefTo("gone.example.com/v1", "Ghost", "g", "u1")).Build(),
			verdict: VerdictNeverCollected, class: ClassUnresolvable, says: "retries it forever"},
		{name: "owner at a version no longer served",
			target:  testobj.Pod("shop", "p").Owner(testobj.RefTo("apps/v1beta1", "ReplicaSet", "web-1", rs.Metadata.UID)).Build(),
			objs:    []snapshot.Object{rs},
			verdict: VerdictNeverCollected, class: ClassUnresolvable, says: "apps/v1beta1"},
		{name: "namespaced owner of a cluster-scoped object",
			objs:    []snapshot.Object{rs},
			target:  testobj.ClusterRole("cr").Owner(testobj.Ref(rs)).Build(),
			verdict: VerdictNeverCollected, class: ClassNamespacedOwner, says: "cannot own a cluster-scoped object"},
		{name: "owner in another namespace is looked up in the dependent's and found dangling",
			objs:    []snapshot.Object{otherNSOwner},
			target:  testobj.ConfigMap("shop", "dep").Owner(testobj.Ref(otherNSOwner)).Build(),
			verdict: VerdictWillBeDeleted, class: ClassDangling, says: "owner references cannot cross namespaces: the garbage collector looks for the owner in namespace shop only"},
		{name: "absent owner of a listed type",
			target:  testobj.Pod("shop", "p").Owner(testobj.RefTo("apps/v1", "ReplicaSet", "gone", "u2")).Build(),
			verdict: VerdictWillBeDeleted, class: ClassDangling, says: "does not exist"},
		{name: "owner replaced by a namesake",
			objs:    []snapshot.Object{rs},
			target:  testobj.Pod("shop", "p").Owner(testobj.RefTo("apps/v1", "ReplicaSet", "web-1", "old-uid")).Build(),
			verdict: VerdictWillBeDeleted, class: ClassDangling, says: "it was deleted and recreated"},
		{name: "owner being deleted in the foreground",
			objs:    []snapshot.Object{testobj.ReplicaSet("shop", "fg").Deleting(ago(time.Minute)).Finalizers(rules.FinalizerForeground).Build()},
			target:  testobj.Pod("shop", "p").Owner(testobj.RefTo("apps/v1", "ReplicaSet", "fg", "replicaset-shop-fg")).Build(),
			verdict: VerdictWillBeDeleted, class: ClassWaiting, says: "foreground"},
		{name: "owner of a group whose discovery failed is unknown",
			target:  testobj.Pod("shop", "p").Owner(testobj.RefTo("metrics.k8s.io/v1beta1", "PodMetrics", "m", "u4")).Build(),
			verdict: VerdictUnknown, class: ClassUnknown, says: "discovery of metrics.k8s.io/v1beta1 failed"},
		{name: "unwatched type is never collected",
			target:  testobj.Event("shop", "e").Owner(testobj.RefTo("v1", "Pod", "gone", "u3")).Build(),
			verdict: VerdictNeverCollected, class: ClassDangling, says: "does not watch Event"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap := testobj.Snapshot(append(tc.objs, tc.target)...).Build()
			snap.Source = snapshot.Source{Type: "live", Server: "https://127.0.0.1:6443"}
			if tc.offline {
				snap.Source = snapshot.Source{Type: "files", Files: []string{"dump.yaml"}}
			}
			snap.DiscoveryErrors = []snapshot.DiscoveryError{{GroupVersion: "metrics.k8s.io/v1beta1", Error: "the server is currently unable to handle the request"}}
			d, err := New(snap, nil, Options{}).Diagnose(tc.target.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			if d.Terminating || len(d.RootCauses) != 0 || d.Since != nil {
				t.Fatalf("a live object got terminating=%v since=%v rootCauses=%v", d.Terminating, d.Since, d.RootCauses)
			}
			c := d.GarbageCollection
			if c == nil || c.Verdict != tc.verdict {
				t.Fatalf("verdict = %+v, want %s", c, tc.verdict)
			}
			if tc.class != "" && (len(c.Owners) == 0 || c.Owners[0].Class != tc.class) {
				t.Errorf("owners = %+v, want first class %s", c.Owners, tc.class)
			}
			if !strings.Contains(d.Summary, tc.says) {
				t.Errorf("summary %q does not say %q", d.Summary, tc.says)
			}
		})
	}
}

func TestNamespaceTerminatingOverridesVerdict(t *testing.T) {
	ns := terminatingNS("shop", ago(time.Minute))
	cm := testobj.ConfigMap("shop", "c").Build()
	d, err := New(testobj.Snapshot(ns, cm).Build(), nil, Options{}).Diagnose(cm.Metadata.UID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Summary, "namespace controller deletes it") {
		t.Errorf("summary %q does not say the namespace controller deletes it", d.Summary)
	}
}

func TestUnknownUID(t *testing.T) {
	_, err := New(testobj.Snapshot().Build(), nil, Options{}).Diagnose("nope")
	if err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("err = %v, want one naming the uid", err)
	}
}
