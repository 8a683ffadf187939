//go:build linux

package bench

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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

// BenchmarkPostmortemMemory measures the peak resident memory of `kgc
// postmortem -A --audit-log FILE.gz --after none` (-o json and text) on
// generated gzipped audit logs of KGC_BENCH_AUDIT_SIZES events (default
// 1,000,000, 5,000,000 and 10,000,000; the last is 1 GB gzipped, 15 GB of
// JSON, and takes minutes to write once into KGC_BENCH_DIR). Target: at
// most 1 GB whatever the log's size; a log past --spill-after is analyzed
// a part at a time, so its peak does not grow with it.
//
//	KGC_BENCH_DIR=/tmp/pmbench go test ./test/bench -run '^$' -bench PostmortemMemory -benchtime 1x -timeout 120m
func BenchmarkPostmortemMemory(b *testing.B) {
	env := newBenchEnv(b)
	sizes := envInts(b, "KGC_BENCH_AUDIT_SIZES", []int{1_000_000, 5_000_000, 10_000_000})
	logs := make([]string, len(sizes))
	for i, n := range sizes {
		logs[i] = gzAuditLog(b, env.dir, n)
	}
	samples := map[string][]sample{}
	for b.Loop() {
		for i, n := range sizes {
			for _, format := range []string{"json", "text"} {
				k := fmt.Sprintf("%d %s", n, format)
				samples[k] = append(samples[k], run(b, env.kgc, "postmortem", "-A", "--audit-log", logs[i], "--after", "none", "-o", format))
			}
		}
	}
	b.StopTimer()
	worst := 0.0
	fmt.Fprintf(os.Stdout, "| events | -o | time | peak MB |\n|---|---|---|---|\n")
	for _, n := range sizes {
		for _, format := range []string{"json", "text"} {
			s := samples[fmt.Sprintf("%d %s", n, format)]
			worst = max(worst, peak(s))
			fmt.Fprintf(os.Stdout, "| %d | %s | %s | %.0f |\n", n, format, secRange(s), peak(s))
		}
	}
	b.ReportMetric(worst, "peak-MB")
}

// gzAuditLog writes (once per folder) the generated log of n events,
// gzipped only: a plain log of ten million events is 15 GB.
func gzAuditLog(b *testing.B, dir string, n int) string {
	gz := filepath.Join(dir, fmt.Sprintf("audit-%d.log.gz", n))
	if _, err := os.Stat(gz); err == nil {
		return gz
	}
	f, err := os.Create(gz + ".tmp")
	if err != nil {
		b.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	if _, err := gen.Write(zw, gen.Options{Events: n, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	for _, err := range []error{zw.Close(), f.Close(), os.Rename(gz+".tmp", gz)} {
		if err != nil {
			b.Fatal(err)
		}
	}
	return gz
}

// envInts reads a comma-separated list of numbers, def when unset.
func envInts(b *testing.B, name string, def []int) []int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		out = append(out, n)
	}
	return out
}
