//go:build linux

package bench

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/kgc-dev/kgc/test/bench/auditgen/gen"
)

// BenchmarkPostmortem measures `kgc postmortem -A --audit-log FILE --after
// none -o json` on generated audit logs of KGC_BENCH_AUDIT_EVENTS events
// (default 1,000,000): today's mix (mostly reads; about 1.5 GB of JSON
// lines) plain and gzipped, and the write-heavy mix (half the events
// writes with bodies; 1.7 GB), against their floors: jq selecting the
// deletes of each plain file (skipped when jq is not installed; run
// right before kgc, as the machine's load moves it) and `gzip -dc` of
// the gzipped one. Targets: at most 0.1× jq, 2× gzip -dc, 1 GB peak RSS.
//
//	go test ./test/bench -run '^$' -bench 'Postmortem$' -benchtime 3x -timeout 60m
//
// KGC_BENCH_DIR keeps the generated logs between runs; KGC_BENCH_KGC names
// a prebuilt binary.
func BenchmarkPostmortem(b *testing.B) {
	env := newBenchEnv(b)
	n := envInt(b, "KGC_BENCH_AUDIT_EVENTS", 1_000_000)
	plain, gz := auditLogs(b, env.dir, n)
	writes := writeHeavyLog(b, env.dir, n)
	jq, _ := exec.LookPath("jq")
	if jq == "" {
		b.Log("jq is not installed: the comparison with jq is skipped")
	}
	pm := func(log string) sample {
		return run(b, env.kgc, "postmortem", "-A", "--audit-log", log, "--after", "none", "-o", "json")
	}
	var kPlain, kGz, kWrites, fJq, fJqWrites, fGz []sample
	for b.Loop() {
		if jq != "" {
			fJq = append(fJq, run(b, jq, "-c", jqDeletes, plain))
		}
		kPlain = append(kPlain, pm(plain))
		fGz = append(fGz, run(b, "gzip", "-dc", gz))
		kGz = append(kGz, pm(gz))
		if jq != "" {
			fJqWrites = append(fJqWrites, run(b, jq, "-c", jqDeletes, writes))
		}
		kWrites = append(kWrites, pm(writes))
	}
	b.StopTimer()
	if jq != "" {
		b.ReportMetric(slices.Max(ratios(kPlain, fJq)), "worst-x-jq")
		b.ReportMetric(slices.Max(ratios(kWrites, fJqWrites)), "worst-x-jq-writes")
	}
	b.ReportMetric(slices.Max(ratios(kGz, fGz)), "worst-x-gzip")
	b.ReportMetric(max(peak(kPlain), peak(kGz), peak(kWrites)), "peak-MB")
	fmt.Fprintf(os.Stdout, "| input | events | floor | floor time | kgc postmortem | kgc CPU | ratio | peak MB |\n|---|---|---|---|---|---|---|---|\n")
	row := func(input, floor string, k, f []sample) {
		fmt.Fprintf(os.Stdout, "| %s | %d | %s | %s | %s | %s | %s | %.0f |\n", input, n, floor, secRange(f), secRange(k), cpuRange(k), ratioRange(k, f), peak(k))
	}
	if jq != "" {
		row("plain", "jq select deletes", kPlain, fJq)
		row("write-heavy plain", "jq select deletes", kWrites, fJqWrites)
	}
	row("gzip", "gzip -dc", kGz, fGz)
}

// jqDeletes is the floor's filter: the deletes of a log.
const jqDeletes = `select(.verb=="delete" or .verb=="deletecollection")`

// cpuRange is the range of CPU times (user and system, every core).
func cpuRange(s []sample) string { return secRange(cpuOnly(s)) }

// cpuOnly are the CPU times of s, as wall times.
func cpuOnly(s []sample) []sample {
	out := make([]sample, len(s))
	for i, x := range s {
		out[i] = sample{wall: x.cpu}
	}
	return out
}

// writeHeavyLog writes (once per folder) the write-heavy log of n events.
func writeHeavyLog(b *testing.B, dir string, n int) string {
	p := filepath.Join(dir, fmt.Sprintf("audit-%d-writes.log", n))
	if _, err := os.Stat(p); err != nil {
		writeLog(b, p, func(w io.Writer) error {
			_, err := gen.Write(w, gen.Options{Events: n, Seed: 1, WriteHeavy: true})
			return err
		})
	}
	return p
}

// BenchmarkPostmortemExports measures `kgc postmortem -A --after none -o
// json` on KGC_BENCH_EXPORT_EVENTS generated events (default 100,000,
// today's mix), native and rewritten in each platform's export form
// (auditgen -export: an AKS PT1H.json blob, filter-log-events output,
// gcloud's LogEntry array), each form right after the native log.
// Target: each form at most 1.5× the native log's time for the same
// events.
//
//	KGC_BENCH_DIR=/tmp/pmbench go test ./test/bench -run '^$' -bench PostmortemExports -benchtime 5x
func BenchmarkPostmortemExports(b *testing.B) {
	env := newBenchEnv(b)
	n := envInt(b, "KGC_BENCH_EXPORT_EVENTS", 100_000)
	native := filepath.Join(env.dir, fmt.Sprintf("export-%d.log", n))
	if _, err := os.Stat(native); err != nil {
		writeLog(b, native, func(w io.Writer) error {
			_, err := gen.Write(w, gen.Options{Events: n, Seed: 1})
			return err
		})
	}
	forms := map[string]string{}
	for _, form := range gen.Exports {
		forms[form] = filepath.Join(env.dir, fmt.Sprintf("export-%d.%s.json", n, form))
		if _, err := os.Stat(forms[form]); err == nil {
			continue
		}
		writeLog(b, forms[form], func(w io.Writer) error {
			r, err := os.Open(native)
			if err != nil {
				return err
			}
			defer r.Close()
			return gen.Export(w, r, form)
		})
	}
	pm := func(log string) sample {
		return run(b, env.kgc, "postmortem", "-A", "--audit-log", log, "--after", "none", "-o", "json")
	}
	k := map[string][]sample{}
	var base []sample
	for b.Loop() {
		for _, form := range gen.Exports {
			base = append(base, pm(native))
			k[form] = append(k[form], pm(forms[form]))
		}
	}
	b.StopTimer()
	fmt.Fprintf(os.Stdout, "| input | events | kgc postmortem | CPU | time / native's (target ≤ 1.5) | CPU / native's | peak MB |\n|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(os.Stdout, "| native | %d | %s | %s | 1 | 1 | %.0f |\n", n, secRange(base), cpuRange(base), peak(base))
	worst, worstMedian := 0.0, 0.0
	for i, form := range gen.Exports {
		mine := everyNth(base, len(gen.Exports), i)
		r := ratios(k[form], mine)
		worst, worstMedian = max(worst, slices.Max(r)), max(worstMedian, median(r))
		fmt.Fprintf(os.Stdout, "| %s | %d | %s | %s | %s (median %.2f) | %s | %.0f |\n", form, n, secRange(k[form]), cpuRange(k[form]),
			ratioRange(k[form], mine), median(r), cpuRatioRange(k[form], mine), peak(k[form]))
	}
	b.ReportMetric(worst, "worst-x-native")
	b.ReportMetric(worstMedian, "worst-median-x-native")
}

// everyNth is s[i], s[i+n], s[i+2n]...: the native runs paired with one
// form's.
func everyNth(s []sample, n, i int) []sample {
	var out []sample
	for ; i < len(s); i += n {
		out = append(out, s[i])
	}
	return out
}

// cpuRatioRange is ratioRange of the CPU times.
func cpuRatioRange(runs, floor []sample) string { return ratioRange(cpuOnly(runs), cpuOnly(floor)) }

// writeLog writes a benchmark's input through a temporary file, so that
// an interrupted run leaves none half written.
func writeLog(b *testing.B, path string, write func(io.Writer) error) {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		b.Fatal(err)
	}
	for _, err := range []error{write(f), f.Close(), os.Rename(path+".tmp", path)} {
		if err != nil {
			b.Fatal(err)
		}
	}
	// A child's peak resident memory counts its parent's at the fork
	// (Linux keeps the larger across exec): give back what writing took.
	debug.FreeOSMemory()
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
