package graph

import (
	"strconv"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// benchSnapshot is n objects shaped like a cluster's workloads: per
// deployment one ReplicaSet and eight Pods, in 50 namespaces.
func benchSnapshot(n int) *snapshot.Snapshot {
	objs := make([]snapshot.Object, 0, n)
	for i := 0; len(objs) < n; i++ {
		ns := "ns-" + strconv.Itoa(i%50)
		d := testobj.Deployment(ns, "d"+strconv.Itoa(i)).Build()
		rs := testobj.ReplicaSet(ns, "d"+strconv.Itoa(i)+"-rs").OwnedBy(d).Build()
		objs = append(objs, d, rs)
		for p := 0; p < 8; p++ {
			objs = append(objs, testobj.Pod(ns, rs.Metadata.Name+"-"+strconv.Itoa(p)).OwnedBy(rs).Build())
		}
	}
	return testobj.Snapshot(objs...).Build()
}

func BenchmarkBuild100k(b *testing.B) {
	snap := benchSnapshot(100_000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Build(snap)
	}
}
