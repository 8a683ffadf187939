package plan

import (
	"fmt"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// bigWorld is a cluster-shaped snapshot of about n objects: namespaces of
// Deployments → ReplicaSets → Pods, with ConfigMaps and Secrets, a few of
// them owned, as workload controllers and operators leave them.
func bigWorld(n int) *snapshot.Snapshot {
	objs := make([]snapshot.Object, 0, n+n/8)
	perNS := 2000
	for ns := 0; len(objs) < n; ns++ {
		nsName := fmt.Sprintf("team-%04d", ns)
		objs = append(objs, testobj.Namespace(nsName).UID("ns-"+nsName).Build())
		for k := 0; k < perNS/8 && len(objs) < n; k++ {
			d := testobj.Deployment(nsName, fmt.Sprintf("app-%d", k)).UID(fmt.Sprintf("%s-d%d", nsName, k)).Build()
			rs := testobj.ReplicaSet(nsName, fmt.Sprintf("app-%d-7d9f", k)).UID(fmt.Sprintf("%s-rs%d", nsName, k)).OwnedBy(d).Build()
			objs = append(objs, d, rs)
			for p := 0; p < 4; p++ {
				objs = append(objs, testobj.Pod(nsName, fmt.Sprintf("app-%d-7d9f-%d", k, p)).UID(fmt.Sprintf("%s-p%d-%d", nsName, k, p)).OwnedBy(rs).Build())
			}
			objs = append(objs, testobj.ConfigMap(nsName, fmt.Sprintf("app-%d-config", k)).UID(fmt.Sprintf("%s-cm%d", nsName, k)).Owner(testobj.Ref(d)).Build())
			objs = append(objs, testobj.Secret(nsName, fmt.Sprintf("app-%d-token", k)).UID(fmt.Sprintf("%s-s%d", nsName, k)).Build())
		}
	}
	for i := range objs {
		// Dumps carry resourceVersions; so does the benchmark's world.
		objs[i].Metadata.ResourceVersion = fmt.Sprint(1000 + i)
	}
	return testobj.Snapshot(objs...).Build()
}

func BenchmarkSimulate(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		snap := bigWorld(n)
		target := snap.Objects[1].Metadata.UID // the first Deployment
		b.Run(fmt.Sprintf("objects=%d/deployment-foreground", len(snap.Objects)), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Simulate(snap, Options{Target: target, Policy: PolicyForeground}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("objects=%d/namespace", len(snap.Objects)), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Simulate(snap, Options{Target: snap.Objects[0].Metadata.UID, Policy: PolicyBackground}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The benchmark's world must plan what it claims: the Deployment takes its
// ReplicaSet, four pods and its ConfigMap with it.
func TestBigWorldPlan(t *testing.T) {
	snap := bigWorld(2000)
	p, err := Simulate(snap, Options{Target: snap.Objects[1].Metadata.UID, Policy: PolicyForeground})
	if err != nil {
		t.Fatal(err)
	}
	if p.Summary.Deleted != 7 || p.Summary.Blocked != 0 || len(p.Warnings) != 0 {
		t.Errorf("summary %+v, warnings %v", p.Summary, p.Warnings)
	}
}
