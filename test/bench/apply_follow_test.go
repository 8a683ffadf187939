package bench

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kgc-dev/kgc/pkg/apply"
	"github.com/kgc-dev/kgc/pkg/capture"
	"github.com/kgc-dev/kgc/pkg/plan"
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
		saved := followCase(b, cfg, c, ns)
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
		if err != nil || rep.Outcome != apply.OutcomeAsPlanned {
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

// followCase creates the cascade in ns and plans its background delete
// from a whole capture, as kgc plan does.
func followCase(b *testing.B, cfg *rest.Config, c kubernetes.Interface, ns string) *plan.Plan {
	ctx := context.Background()
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	owner, err := c.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ref := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}
	for i := range 49 {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("dep-%02d", i), OwnerReferences: []metav1.OwnerReference{ref}}}
		if _, err := c.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	snap, err := capture.Capture(ctx, cfg, capture.Options{})
	if err != nil {
		b.Fatal(err)
	}
	p, err := plan.Simulate(snap, plan.Options{Target: string(owner.UID), Policy: "Background"})
	if err != nil {
		b.Fatal(err)
	}
	plan.Seal(p, snap)
	return p
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
