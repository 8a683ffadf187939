//go:build linux

package bench

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkPlanDumpVsPythonParse is the plan issue's speed target: `kgc
// plan delete` over a big `kubectl get -A -o json` dump, reading included,
// against python3 merely parsing the same file. It builds kgc, writes the
// dump once (KGC_BENCH_DUMP names one to reuse; KGC_BENCH_OBJECTS sizes a
// generated one, default 1,000,000), and reports per run the wall time and
// peak RSS of both processes and their ratio (target: kgc/python ≤ 0.6,
// kgc peak ≤ 1,500 MB):
//
//	go test ./test/bench -run '^$' -bench PlanDumpVsPythonParse -benchtime 3x -timeout 60m
func BenchmarkPlanDumpVsPythonParse(b *testing.B) {
	python, err := exec.LookPath("python3")
	if err != nil {
		b.Skip("python3 is not installed")
	}
	dir := b.TempDir()
	kgc := filepath.Join(dir, "kgc")
	if out, err := exec.Command("go", "build", "-o", kgc, "github.com/kgc-dev/kgc/cmd/kgc").CombinedOutput(); err != nil {
		b.Fatalf("building kgc: %v\n%s", err, out)
	}
	dump := os.Getenv("KGC_BENCH_DUMP")
	if dump == "" {
		n := 1_000_000
		if s := os.Getenv("KGC_BENCH_OBJECTS"); s != "" {
			if n, err = strconv.Atoi(s); err != nil {
				b.Fatalf("KGC_BENCH_OBJECTS: %v", err)
			}
		}
		dump = filepath.Join(dir, "dump.json")
		writeDump(b, dump, n)
	}
	b.ResetTimer()
	var kgcSec, pySec, kgcMB, pyMB float64
	for i := 0; i < b.N; i++ {
		// Alternate, so that neither always runs with a warmer page cache.
		kt, km := measure(b, kgc, "plan", "delete", "deployment/app-0", "-n", "team-0000", "--cascade=foreground", "-f", dump, "-o", "json")
		pt, pm := measure(b, python, "-c", "import json,sys; json.load(open(sys.argv[1]))", dump)
		kgcSec += kt.Seconds()
		pySec += pt.Seconds()
		kgcMB = max(kgcMB, km)
		pyMB = max(pyMB, pm)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(kgcSec/n, "kgc-s/op")
	b.ReportMetric(pySec/n, "python-s/op")
	b.ReportMetric(kgcSec/pySec, "kgc/python")
	b.ReportMetric(kgcMB, "kgc-peak-MB")
	b.ReportMetric(pyMB, "python-peak-MB")
}

// measure runs a command to completion and returns its wall time and peak
// resident set in MB; it fails the benchmark if the command fails.
func measure(b *testing.B, name string, args ...string) (time.Duration, float64) {
	b.Helper()
	s := measureCPU(b, name, args...)
	return s.wall, s.mb
}

// measureCPU runs a command and returns its wall time, its peak resident
// memory and the CPU time (user and system) it used on every core.
func measureCPU(b *testing.B, name string, args ...string) sample {
	b.Helper()
	cmd := exec.Command(name, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = nil, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v\n%s", name, err, stderr.Bytes())
	}
	s := sample{wall: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.mb = float64(ru.Maxrss) / 1024 // Linux reports KiB
	}
	return s
}
