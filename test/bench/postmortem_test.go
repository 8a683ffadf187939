//go:build linux

package bench

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/kgc-dev/kgc/test/bench/auditgen/gen"
)

// BenchmarkPostmortem measures `kgc postmortem -A --audit-log FILE --after
// none -o json` on a generated audit log of KGC_BENCH_AUDIT_EVENTS events
// (default 1,000,000, about 1.5 GB of JSON lines), plain and gzipped,
// against its floors: jq selecting the deletes of the plain file (skipped
// when jq is not installed) and `gzip -dc` of the gzipped one. Targets:
// at most 0.1× jq, 2× gzip -dc, 1 GB peak RSS.
//
//	go test ./test/bench -run '^$' -bench Postmortem -benchtime 1x -timeout 60m
//
// KGC_BENCH_DIR keeps the generated log between runs; KGC_BENCH_KGC names
// a prebuilt binary.
func BenchmarkPostmortem(b *testing.B) {
	env := newBenchEnv(b)
	n := envInt(b, "KGC_BENCH_AUDIT_EVENTS", 1_000_000)
	plain, gz := auditLogs(b, env.dir, n)
	jq, _ := exec.LookPath("jq")
	if jq == "" {
		b.Log("jq is not installed: the comparison with jq is skipped")
	}
	var kPlain, kGz, fJq, fGz []sample
	for b.Loop() {
		if jq != "" {
			fJq = append(fJq, run(b, jq, "-c", `select(.verb=="delete" or .verb=="deletecollection")`, plain))
		}
		kPlain = append(kPlain, run(b, env.kgc, "postmortem", "-A", "--audit-log", plain, "--after", "none", "-o", "json"))
		fGz = append(fGz, run(b, "gzip", "-dc", gz))
		kGz = append(kGz, run(b, env.kgc, "postmortem", "-A", "--audit-log", gz, "--after", "none", "-o", "json"))
	}
	b.StopTimer()
	if jq != "" {
		b.ReportMetric(slices.Max(ratios(kPlain, fJq)), "worst-x-jq")
	}
	b.ReportMetric(slices.Max(ratios(kGz, fGz)), "worst-x-gzip")
	b.ReportMetric(max(peak(kPlain), peak(kGz)), "peak-MB")
	fmt.Fprintf(os.Stdout, "| input | events | floor | floor time | kgc postmortem | ratio | peak MB |\n|---|---|---|---|---|---|---|\n")
	if jq != "" {
		fmt.Fprintf(os.Stdout, "| plain | %d | jq select deletes | %s | %s | %s | %.0f |\n", n, secRange(fJq), secRange(kPlain), ratioRange(kPlain, fJq), peak(kPlain))
	}
	fmt.Fprintf(os.Stdout, "| gzip | %d | gzip -dc | %s | %s | %s | %.0f |\n", n, secRange(fGz), secRange(kGz), ratioRange(kGz, fGz), peak(kGz))
}

// auditLogs writes (once per folder) the generated log, plain and gzipped.
func auditLogs(b *testing.B, dir string, n int) (plain, gz string) {
	plain = filepath.Join(dir, fmt.Sprintf("audit-%d.log", n))
	gz = plain + ".gz"
	if _, err := os.Stat(gz); err == nil {
		return plain, gz
	}
	pf, err := os.Create(plain)
	if err != nil {
		b.Fatal(err)
	}
	gf, err := os.Create(gz + ".tmp")
	if err != nil {
		b.Fatal(err)
	}
	zw := gzip.NewWriter(gf)
	if _, err := gen.Write(io.MultiWriter(pf, zw), gen.Options{Events: n, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	for _, err := range []error{zw.Close(), gf.Close(), pf.Close(), os.Rename(gz+".tmp", gz)} {
		if err != nil {
			b.Fatal(err)
		}
	}
	return plain, gz
}
