package diagnose

import (
	"fmt"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// bigCluster has namespaces of 165 objects each (configmaps, deployments
// with replica sets and pods, widgets); every other namespace is
// terminating and held by its widgets' finalizers.
func bigCluster(namespaces int) *snapshot.Snapshot {
	var objs []snapshot.Object
	for n := 0; n < namespaces; n++ {
		ns := fmt.Sprintf("ns-%03d", n)
		terminating := n%2 == 0
		if terminating {
			objs = append(objs, terminatingNS(ns, ago(time.Duration(n)*time.Minute)))
		} else {
			objs = append(objs, testobj.Namespace(ns).Build())
		}
		for i := 0; i < 100; i++ {
			objs = append(objs, testobj.ConfigMap(ns, fmt.Sprintf("cm-%d", i)).Build())
		}
		for i := 0; i < 10; i++ {
			d := testobj.Deployment(ns, fmt.Sprintf("d-%d", i)).Build()
			rs := testobj.ReplicaSet(ns, fmt.Sprintf("d-%d-1", i)).OwnedBy(d).Build()
			objs = append(objs, d, rs)
			for p := 0; p < 5; p++ {
				objs = append(objs, testobj.Pod(ns, fmt.Sprintf("d-%d-1-%d", i, p)).OwnedBy(rs).Facts(podFactsOf("n1", "Running")).Build())
			}
		}
		for i := 0; i < 5; i++ {
			w := testobj.New("example.com/v1", "Widget", ns, fmt.Sprintf("w-%d", i)).Finalizers("example.com/cleanup")
			if terminating {
				w = w.Deleting(ago(time.Hour))
			}
			objs = append(objs, gone(w.Build()))
		}
	}
	objs = append(objs, node("n1", "True"))
	return testobj.Snapshot(objs...).CRD("example.com", "Widget", "widgets", true).Build()
}

// BenchmarkAll is `kgc why-stuck -A` without rendering: 200 namespaces,
// 33,000 objects, 600 terminating.
func BenchmarkAll(b *testing.B) {
	snap := bigCluster(200)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		list := New(snap, nil, Options{}).All("")
		if len(list.Items) != 600 {
			b.Fatalf("%d items", len(list.Items))
		}
	}
}

// BenchmarkDiagnoseSimulated is `kgc why-stuck ns/ns-000` on the same
// cluster with every remedy simulated (one settle of the whole cluster for
// the baseline and one per remedy).
func BenchmarkDiagnoseSimulated(b *testing.B) {
	snap := bigCluster(200)
	var uid string
	for _, o := range snap.Objects {
		if o.Kind == "Namespace" && o.Metadata.Name == "ns-000" {
			uid = o.Metadata.UID
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sim := NewSimulator(snap, plan.Options{})
		d, err := New(snap, nil, Options{Finishes: sim.Finishes}).Diagnose(uid)
		if err != nil || len(d.RootCauses) != 6 {
			b.Fatalf("%v, %d root causes", err, len(d.RootCauses))
		}
	}
}
