package bench

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kgc-dev/kgc/pkg/apply"
	"github.com/kgc-dev/kgc/pkg/capture"
	"github.com/kgc-dev/kgc/pkg/plan"
)

// BenchmarkApplyPreflight is apply's check before its DELETE on a
// 50-object plan (a ConfigMap owning 49 Secrets in namespace
// kgc-bench-preflight, created if missing) in a cluster holding whatever
// else KGC_BENCH_KUBECONFIG's cluster holds (fill it with loadgen):
// "narrow" is what apply does (Scope: the plan's namespace and the
// cluster-scoped kinds it depends on), "whole" is the whole-cluster
// capture apply used before. Each reports its requests and the objects
// it read per check.
//
//	go run ./test/bench/loadgen -kubeconfig /tmp/kgc-bench/kubeconfig -n 30000
//	KGC_BENCH_KUBECONFIG=/tmp/kgc-bench/kubeconfig go test ./test/bench -run '^$' -bench ApplyPreflight -benchtime 20x
func BenchmarkApplyPreflight(b *testing.B) {
	cfg := benchConfig(b)
	ctx := context.Background()
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	saved := cascadePlan(b, cfg, cascadeCase(b, c, "kgc-bench-preflight"))
	for _, c := range []struct {
		name  string
		scope func(*plan.Plan) string
	}{{"narrow", apply.Scope}, {"whole", func(*plan.Plan) string { return "" }}} {
		b.Run(c.name, func(b *testing.B) {
			var requests atomic.Int64
			counted := rest.CopyConfig(cfg)
			counted.Wrap(func(rt http.RoundTripper) http.RoundTripper {
				return roundTripFunc(func(r *http.Request) (*http.Response, error) {
					requests.Add(1)
					return rt.RoundTrip(r)
				})
			})
			objects := 0
			for b.Loop() {
				live, err := apply.NewLive(counted, meta.MultiRESTMapper{})
				if err != nil {
					b.Fatal(err)
				}
				snap, err := live.Capture(ctx, c.scope(saved))
				if err != nil {
					b.Fatal(err)
				}
				objects = len(snap.Objects)
				fresh, err := apply.Replan(saved, snap)
				if err != nil {
					b.Fatal(err)
				}
				if err := apply.CheckStale(saved, fresh); err != nil {
					b.Fatalf("the plan is stale: %v", err)
				}
			}
			b.ReportMetric(float64(requests.Load())/float64(b.N), "requests/op")
			b.ReportMetric(float64(objects), "objects-read")
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// cascadeCase creates, in namespace ns, the 50-object cascade unless it
// exists (a ConfigMap owning 49 Secrets), and returns its owner's UID.
func cascadeCase(b *testing.B, c kubernetes.Interface, ns string) string {
	ctx := context.Background()
	_, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		b.Fatal(err)
	}
	owner, err := c.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		owner, err = c.CoreV1().ConfigMaps(ns).Get(ctx, "owner", metav1.GetOptions{})
	}
	if err != nil {
		b.Fatal(err)
	}
	ref := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}
	for i := range 49 {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("dep-%02d", i), OwnerReferences: []metav1.OwnerReference{ref}}}
		if _, err := c.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			b.Fatal(err)
		}
	}
	return string(owner.UID)
}

// cascadePlan plans the owner's background delete as kgc plan does:
// from a whole capture.
func cascadePlan(b *testing.B, cfg *rest.Config, owner string) *plan.Plan {
	snap, err := capture.Capture(context.Background(), cfg, capture.Options{})
	if err != nil {
		b.Fatal(err)
	}
	p, err := plan.Simulate(snap, plan.Options{Target: owner, Policy: "Background"})
	if err != nil {
		b.Fatal(err)
	}
	plan.Seal(p, snap)
	if p.Summary.Deleted != 50 {
		b.Fatalf("the plan deletes %d objects, want 50", p.Summary.Deleted)
	}
	return p
}
