package bench

import (
	"context"
	"fmt"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kgc-dev/kgc/pkg/apply"
)

// BenchmarkApplyFollow applies a 50-object background cascade (a
// ConfigMap owning 49 Secrets, in a fresh namespace each time) on the
// cluster of KGC_BENCH_KUBECONFIG, whose garbage collector carries it
// out, and measures how long after the real controllers' last deletion
// (seen by a watch of its own) kgc apply returns its report: the cost of
// following the cascade, which should be about one watch round trip.
//
//	KGC_BENCH_KUBECONFIG=/tmp/kgc-bench/kubeconfig go test ./test/bench -run '^$' -bench ApplyFollow -benchtime 10x
func BenchmarkApplyFollow(b *testing.B) {
	cfg := benchConfig(b)
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	var lag, cascade time.Duration
	for i := 0; b.Loop(); i++ {
		ns := fmt.Sprintf("kgc-bench-follow-%d-%d", time.Now().UnixNano(), i)
		saved := cascadePlan(b, cfg, cascadeCase(b, c, ns))
		last := lastDeletion(b, c, ns)
		live, err := apply.NewLive(cfg, meta.MultiRESTMapper{})
		if err != nil {
			b.Fatal(err)
		}
		a := &apply.Applier{Cluster: live, Options: apply.Options{Consent: apply.Consent{Yes: true}, Timeout: time.Minute,
			Limits: apply.Limits{MaxDeletions: -1}}}
		start := time.Now()
		rep, err := a.Apply(context.Background(), saved)
		end := time.Now()
		if err != nil || rep.Outcome != report.OutcomeAsPlanned {
			b.Fatalf("apply: %v (outcome %s)", err, rep.Outcome)
		}
		seen := last()
		lag += end.Sub(seen)
		cascade += seen.Sub(start)
		_ = c.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	}
	b.ReportMetric(float64(lag.Microseconds())/1000/float64(b.N), "ms-after-last-deletion")
	b.ReportMetric(float64(cascade.Microseconds())/1000/float64(b.N), "ms-cascade")
}

// lastDeletion watches the Secrets and ConfigMaps of ns and returns a
// function that waits for the 50th deletion and returns when it was seen.
func lastDeletion(b *testing.B, c kubernetes.Interface, ns string) func() time.Time {
	ctx := context.Background()
	var ws []watch.Interface
	for _, w := range []func() (watch.Interface, error){
		func() (watch.Interface, error) { return c.CoreV1().Secrets(ns).Watch(ctx, metav1.ListOptions{}) },
		func() (watch.Interface, error) { return c.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{}) },
	} {
		wi, err := w()
		if err != nil {
			b.Fatal(err)
		}
		ws = append(ws, wi)
	}
	var mu sync.Mutex
	var last time.Time
	deleted := 0
	all := make(chan struct{})
	for _, w := range ws {
		go func() {
			for ev := range w.ResultChan() {
				if ev.Type != watch.Deleted {
					continue
				}
				mu.Lock()
				if o, ok := ev.Object.(metav1.Object); ok && o.GetName() != "kube-root-ca.crt" {
					deleted++
					last = time.Now()
					if deleted == 50 {
						close(all)
					}
				}
				mu.Unlock()
			}
		}()
	}
	return func() time.Time {
		select {
		case <-all:
		case <-time.After(time.Minute):
			b.Fatal("the watch never saw the 50 deletions")
		}
		for _, w := range ws {
			w.Stop()
		}
		mu.Lock()
		defer mu.Unlock()
		return last
	}
}
