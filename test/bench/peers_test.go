package bench

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// BenchmarkCaptureMemoryVsKubectlTree compares the peak memory of a live
// capture with kubectl-tree's on the same cluster. `kgc snapshot` reads the
// metadata of every object; kubectl-tree reads every object whole, and does
// so in every namespace when asked about a cluster-scoped object with -A
// (here the kube-system Namespace), which is the same question: the whole
// cluster's owner references. Each iteration runs both, alternating, and
// the reported ratio is kgc's peak over kubectl-tree's.
//
// kubectl-tree (github.com/ahmetb/kubectl-tree) is not served by every
// module proxy; build it from its source and name the binary:
//
//	git clone https://github.com/ahmetb/kubectl-tree && (cd kubectl-tree && go build -o /tmp/kubectl-tree ./cmd/kubectl-tree)
//	KGC_BENCH_KUBECONFIG=/tmp/kgc-bench/kubeconfig KGC_BENCH_KUBECTL_TREE=/tmp/kubectl-tree \
//	  go test ./test/bench -run '^$' -bench CaptureMemoryVsKubectlTree -benchtime 5x
func BenchmarkCaptureMemoryVsKubectlTree(b *testing.B) {
	kubeconfig := os.Getenv("KGC_BENCH_KUBECONFIG")
	tree := os.Getenv("KGC_BENCH_KUBECTL_TREE")
	if kubeconfig == "" || tree == "" {
		b.Skip("KGC_BENCH_KUBECONFIG and KGC_BENCH_KUBECTL_TREE are not both set")
	}
	kgc := newBenchEnv(b).kgc
	out := filepath.Join(b.TempDir(), "snapshot.json.gz")
	var kgcMB, treeMB []float64
	for b.Loop() {
		_, mb := measure(b, kgc, "snapshot", "--kubeconfig", kubeconfig, "--output-file", out)
		kgcMB = append(kgcMB, mb)
		_, mb = measure(b, tree, "--kubeconfig", kubeconfig, "-A", "namespace", "kube-system")
		treeMB = append(treeMB, mb)
	}
	ratios := make([]float64, len(kgcMB))
	for i := range kgcMB {
		ratios[i] = kgcMB[i] / treeMB[i] // the pair ran back to back, under the same load
	}
	b.ReportMetric(slices.Max(kgcMB), "kgc-peak-MB")
	b.ReportMetric(slices.Max(treeMB), "kubectl-tree-peak-MB")
	b.ReportMetric(slices.Max(ratios), "worst-ratio")
	b.Logf("peak MB: kgc snapshot %.0f–%.0f, kubectl-tree -A %.0f–%.0f; kgc/kubectl-tree %.2f–%.2f",
		slices.Min(kgcMB), slices.Max(kgcMB), slices.Min(treeMB), slices.Max(treeMB), slices.Min(ratios), slices.Max(ratios))
}
