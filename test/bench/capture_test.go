// Package bench measures kgc against real clusters. The benchmarks here
// need a kubeconfig in KGC_BENCH_KUBECONFIG and are skipped otherwise:
//
//	KGC_BENCH_KUBECONFIG=/tmp/kgc-bench/kubeconfig go test ./test/bench -run '^$' -bench . -benchtime 5x
//
// BenchmarkCapture is capture.Capture; BenchmarkListFloor is the floor it
// is judged against: the same discovery, then a raw parallel metadata list
// of the same types with the same workers and page size, decoding nothing
// into kgc's model.
package bench

import (
	"context"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kgc-dev/kgc/pkg/capture"
)

func benchConfig(b *testing.B) *rest.Config {
	path := os.Getenv("KGC_BENCH_KUBECONFIG")
	if path == "" {
		b.Skip("KGC_BENCH_KUBECONFIG is not set")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		b.Fatal(err)
	}
	cfg.QPS = -1
	cfg.WarningHandler = rest.NoWarnings{}
	return cfg
}

func BenchmarkCapture(b *testing.B) {
	cfg := benchConfig(b)
	var n int
	for b.Loop() {
		s, err := capture.Capture(context.Background(), cfg, capture.Options{})
		if err != nil {
			b.Fatal(err)
		}
		n = len(s.Objects)
	}
	b.ReportMetric(float64(n), "objects")
}

func BenchmarkListFloor(b *testing.B) {
	cfg := benchConfig(b)
	var n int64
	for b.Loop() {
		n = listFloor(b, cfg)
	}
	b.ReportMetric(float64(n), "objects")
}

// BenchmarkCaptureVsFloor alternates a capture and a floor listing each
// iteration and reports the median of their time ratios: on a shared
// machine, back-to-back pairs see the same load, separate benchmarks don't.
func BenchmarkCaptureVsFloor(b *testing.B) {
	cfg := benchConfig(b)
	var ratios, captures, floors []float64
	for b.Loop() {
		t0 := time.Now()
		listFloor(b, cfg)
		t1 := time.Now()
		if _, err := capture.Capture(context.Background(), cfg, capture.Options{}); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		floors = append(floors, t1.Sub(t0).Seconds())
		captures = append(captures, t2.Sub(t1).Seconds())
		ratios = append(ratios, t2.Sub(t1).Seconds()/t1.Sub(t0).Seconds())
	}
	b.ReportMetric(median(ratios), "capture/floor")
	b.ReportMetric(median(captures)*1000, "capture-ms")
	b.ReportMetric(median(floors)*1000, "floor-ms")
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// listFloor discovers the preferred listable types and lists each,
// metadata only, paginated, with capture.DefaultWorkers at once, reading
// as a default capture does (first page from the watch cache).
func listFloor(b *testing.B, cfg *rest.Config) int64 {
	ctx := context.Background()
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := dc.ServerVersion(); err != nil {
		b.Fatal(err)
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		b.Fatal(err)
	}
	mc, err := metadata.NewForConfig(metadata.ConfigFor(cfg))
	if err != nil {
		b.Fatal(err)
	}
	var gvrs []schema.GroupVersionResource
	for _, l := range lists {
		gv, _ := schema.ParseGroupVersion(l.GroupVersion)
		for _, r := range l.APIResources {
			for _, v := range r.Verbs {
				if v == "list" {
					gvrs = append(gvrs, gv.WithResource(r.Name))
					break
				}
			}
		}
	}
	work := make(chan schema.GroupVersionResource)
	var total atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < capture.DefaultWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for gvr := range work {
				cont := ""
				for {
					lo := metav1.ListOptions{Limit: capture.DefaultPageSize, Continue: cont}
					if cont == "" {
						lo.ResourceVersion = "0"
					}
					l, err := mc.Resource(gvr).List(ctx, lo)
					if err != nil {
						break
					}
					total.Add(int64(len(l.Items)))
					if cont = l.Continue; cont == "" {
						break
					}
				}
			}
		}()
	}
	for _, g := range gvrs {
		work <- g
	}
	close(work)
	wg.Wait()
	return total.Load()
}
