//go:build linux

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkPostmortemHTML measures `kgc postmortem -A --audit-log FILE.gz
// --after none -o html` on the generated gzipped log of
// KGC_BENCH_AUDIT_EVENTS events (default 1,000,000): its time, peak
// memory and the page's size. The page is written to KGC_BENCH_DIR as
// postmortem-N.html, where test/browser's BenchmarkPostmortemPage times
// opening it in headless Chromium (chromedp lives in that module only):
//
//	KGC_BENCH_DIR=/tmp/pmbench go test ./test/bench -run '^$' -bench PostmortemHTML -benchtime 1x -timeout 60m
//	cd test/browser && KGC_BENCH_PAGE=/tmp/pmbench/postmortem-1000000.html go test -run '^$' -bench PostmortemPage -benchtime 3x
func BenchmarkPostmortemHTML(b *testing.B) {
	env := newBenchEnv(b)
	n := envInt(b, "KGC_BENCH_AUDIT_EVENTS", 1_000_000)
	log := gzAuditLog(b, env.dir, n)
	args := []string{"postmortem", "-A", "--audit-log", log, "--after", "none", "-o", "html"}
	page := filepath.Join(env.dir, fmt.Sprintf("postmortem-%d.html", n))
	f, err := os.Create(page)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(env.kgc, args...)
	cmd.Stdout = f
	if err := cmd.Run(); err != nil {
		b.Fatalf("kgc %v: %v", args, err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(page)
	if err != nil {
		b.Fatal(err)
	}
	var samples []sample
	for b.Loop() {
		samples = append(samples, run(b, env.kgc, args...))
	}
	b.StopTimer()
	mb := float64(st.Size()) / 1e6
	b.ReportMetric(mb, "page-MB")
	b.ReportMetric(peak(samples), "peak-MB")
	fmt.Fprintf(os.Stdout, "| events | kgc -o html | peak MB | page |\n|---|---|---|---|\n| %d | %s | %.0f | %.1f MB (%s) |\n",
		n, secRange(samples), peak(samples), mb, page)
}
