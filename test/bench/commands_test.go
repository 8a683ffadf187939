//go:build linux

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/test/bench/dumpgen"
)

// BenchmarkCommands is the million-object issue's yardstick: every kgc
// command on a lean kgc snapshot file (.json.gz) and on a full `kubectl get
// -A -o json` List, at 100k and 1M objects, run side by side with its
// floor: `gzip -dc` of the same snapshot file, and python3's json.load of
// the same List. Commands run alternately with their floors, for
// KGC_BENCH_ROUNDS rounds (default 3; a smaller size gets up to three
// times as many, see roundsAt), because the machine is shared: a range
// says more than one figure. It prints a markdown table (time range,
// ratio to the floor, peak RSS) and the linearity 1M/100k, and reports the
// worst ratios through b.ReportMetric:
//
//	go test ./test/bench -run '^$' -bench Commands -benchtime 1x -timeout 120m
//
// KGC_BENCH_DIR keeps the generated inputs between runs (default: a
// temporary folder); KGC_BENCH_KGC measures a prebuilt binary instead of
// building this tree; KGC_BENCH_BEFORE names an older binary run beside
// it, command by command, for before/after figures taken under the same
// load; KGC_BENCH_SIZES overrides the
// sizes (comma-separated object counts); KGC_BENCH_PYTHON=0 skips Python,
// whose parse of the 1M List takes minutes and 10 GB.
func BenchmarkCommands(b *testing.B) {
	env := newBenchEnv(b)
	rounds := envInt(b, "KGC_BENCH_ROUNDS", 3)
	var rows []row
	for i := 0; i < b.N; i++ {
		rows = nil
		for _, n := range env.sizes {
			got := env.measureSize(b, n, roundsAt(rounds, n, env.sizes))
			// Each size's table as soon as it is measured: a 1M run takes
			// long on a busy machine, and a partial result still says much.
			fmt.Fprint(os.Stdout, markdown(got, nil))
			rows = append(rows, got...)
		}
	}
	b.StopTimer()
	fmt.Fprint(os.Stdout, "\n"+markdown(rows, env.sizes))
	reportWorst(b, rows, env.sizes)
}

// roundsAt is how many rounds size n gets: a size smaller than the
// largest gets more, in proportion, up to three times as many. Its runs
// are cheap, and where a command takes a tenth of a second one slow run
// moves a median of four, and with it the 1M/100k ratio.
func roundsAt(rounds, n int, sizes []int) int {
	return rounds * min(3, max(1, slices.Max(sizes)/n))
}

// benchEnv is what every measurement shares: the binary and the inputs.
type benchEnv struct {
	kgc, dir string
	before   string
	sizes    []int
	python   string
}

func newBenchEnv(b *testing.B) *benchEnv {
	e := &benchEnv{dir: os.Getenv("KGC_BENCH_DIR"), kgc: os.Getenv("KGC_BENCH_KGC"), before: os.Getenv("KGC_BENCH_BEFORE")}
	if e.dir == "" {
		e.dir = b.TempDir()
	}
	if e.kgc == "" {
		e.kgc = filepath.Join(b.TempDir(), "kgc")
		if out, err := exec.Command("go", "build", "-o", e.kgc, "github.com/kgc-dev/kgc/cmd/kgc").CombinedOutput(); err != nil {
			b.Fatalf("building kgc: %v\n%s", err, out)
		}
	}
	e.sizes = envInts(b, "KGC_BENCH_SIZES", []int{100_000, 1_000_000})
	if os.Getenv("KGC_BENCH_PYTHON") != "0" {
		e.python, _ = exec.LookPath("python3")
	}
	return e
}

func envInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	return n
}

// inputs writes (once per KGC_BENCH_DIR) the full List of n objects and
// the lean snapshot file kgc converts it to.
func (e *benchEnv) inputs(b *testing.B, n int) (full, lean string) {
	full = filepath.Join(e.dir, fmt.Sprintf("list-%d.json", n))
	lean = filepath.Join(e.dir, fmt.Sprintf("snapshot-%d.json.gz", n))
	if _, err := os.Stat(full); err != nil {
		writeDump(b, full, n)
	}
	if _, err := os.Stat(lean); err != nil {
		if out, err := exec.Command(e.kgc, "snapshot", "-f", full, "--output-file", lean).CombinedOutput(); err != nil {
			b.Fatalf("kgc snapshot: %v\n%s", err, out)
		}
	}
	return full, lean
}

func writeDump(b *testing.B, path string, n int) {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := dumpgen.Write(f, n); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		b.Fatal(err)
	}
}

// commands are the questions measured: the first Deployment of the first
// namespace of the generated cluster stands for "one object".
func commands(in, out string) [][]string {
	return [][]string{
		{"plan", "delete", "deployment/app-0", "-n", "team-0000", "--cascade=foreground", "-o", "json", "-f", in},
		{"graph", "deployment/app-0", "-n", "team-0000", "-f", in},
		{"graph", "-n", "team-0000", "-o", "json", "-f", in},
		{"graph", "-A", "-o", "json", "-f", in},
		{"why-stuck", "deployment/app-0", "-n", "team-0000", "-f", in},
		{"why-stuck", "-A", "-o", "json", "-f", in},
		{"snapshot", "-f", in, "-o", out},
	}
}

// row is one command on one input: its samples and its floor's.
type row struct {
	shape, label      string
	objects           int
	kgc, floor, older []sample // older: KGC_BENCH_BEFORE's
}

type sample struct {
	wall, cpu time.Duration
	mb        float64
}

// measureSize measures every command on both shapes of n objects.
func (e *benchEnv) measureSize(b *testing.B, n, rounds int) []row {
	full, lean := e.inputs(b, n)
	out := filepath.Join(e.dir, "out.json.gz")
	var rows []row
	for _, shape := range []struct {
		name, in string
		floor    []string
	}{
		{"lean", lean, []string{"gzip", "-dc", lean}},
		{"full", full, []string{e.python, "-c", "import json,sys; json.load(open(sys.argv[1]))", full}},
	} {
		for _, args := range commands(shape.in, out) {
			rows = append(rows, row{shape: shape.name, label: label(args), objects: n})
		}
		base := len(rows) - len(commands("", ""))
		for r := 0; r < rounds; r++ {
			// Alternate: the floor, then every command, each round, so
			// that both see the same load from the other engineers'
			// builds; a command's ratio pairs it with its round's floor.
			var floor sample
			if shape.floor[0] != "" {
				floor = run(b, shape.floor[0], shape.floor[1:]...)
			}
			for k, args := range commands(shape.in, out) {
				if shape.floor[0] != "" {
					rows[base+k].floor = append(rows[base+k].floor, floor)
				}
				rows[base+k].older, rows[base+k].kgc = e.runPair(b, r, args, rows[base+k].older, rows[base+k].kgc)
			}
		}
	}
	return rows
}

// runPair runs args with the build before (when given) and the build
// measured, appending their samples. Which goes first alternates by round:
// on this machine a run's time depends on its place in a repeating
// pattern (two-second commands run back to back in pairs were 0.3 s
// apart with one binary, the second faster), so a fixed order would
// favour one build.
func (e *benchEnv) runPair(b *testing.B, round int, args []string, older, kgc []sample) ([]sample, []sample) {
	if e.before == "" {
		return older, append(kgc, run(b, e.kgc, args...))
	}
	if round%2 == 1 {
		kgc = append(kgc, run(b, e.kgc, args...))
		return append(older, run(b, e.before, args...)), kgc
	}
	older = append(older, run(b, e.before, args...))
	return older, append(kgc, run(b, e.kgc, args...))
}

// label is the command line without its input.
func label(args []string) string {
	var kept []string
	for i := 0; i < len(args); i++ {
		if args[i] == "-f" || (args[0] == "snapshot" && args[i] == "-o") {
			i++
			continue
		}
		kept = append(kept, args[i])
	}
	return strings.Join(kept, " ")
}

// run is measure with the output discarded into /dev/null.
func run(b *testing.B, name string, args ...string) sample {
	return measureCPU(b, name, args...)
}

// markdown renders rows as the table of docs/performance.md: before (when
// KGC_BENCH_BEFORE is set) → after.
func markdown(rows []row, sizes []int) string {
	var sb strings.Builder
	sb.WriteString("| shape | objects | command | floor | kgc before | kgc after | before/floor | after/floor | peak MB before → after |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&sb, "| %s | %d | `kgc %s` | %s | %s | %s | %s | %s | %.0f → %.0f |\n", r.shape, r.objects, r.label,
			secRange(r.floor), secRange(r.older), secRange(r.kgc), ratioRange(r.older, r.floor), ratioRange(r.kgc, r.floor), peak(r.older), peak(r.kgc))
	}
	if len(sizes) == 2 {
		small, big := min(sizes[0], sizes[1]), max(sizes[0], sizes[1])
		// The fastest rounds are the ones the machine's noise slowed
		// least: on a shared machine, a ratio of medians moves by more
		// than its distance to a target.
		fmt.Fprintf(&sb, "\n| shape | command | %d/%d time before (medians) | after | after (fastest rounds) |\n|---|---|---|---|---|\n", big, small)
		for _, r := range rows {
			if r.objects != big {
				continue
			}
			if small := find(rows, r.shape, r.label, small); small != nil {
				fmt.Fprintf(&sb, "| %s | `kgc %s` | %s | %s | %s |\n", r.shape, r.label,
					growth(r.older, small.older, medianWall), growth(r.kgc, small.kgc, medianWall), fastestGrowth(r.kgc, small.kgc))
			}
		}
	}
	return sb.String()
}

// growth is how many times longer the big input took than the small one,
// by the statistic of their rounds' times.
func growth(big, small []sample, stat func([]sample) float64) string {
	if len(big) == 0 || len(small) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f", stat(big)/stat(small))
}

func find(rows []row, shape, label string, n int) *row {
	for i := range rows {
		if rows[i].shape == shape && rows[i].label == label && rows[i].objects == n {
			return &rows[i]
		}
	}
	return nil
}

func seconds(s []sample) []float64 {
	out := make([]float64, len(s))
	for i, x := range s {
		out[i] = x.wall.Seconds()
	}
	sort.Float64s(out)
	return out
}

// fastestGrowth is growth by the fastest rounds. When the small input had
// k times as many rounds (roundsAt), its k-th fastest stands for its
// fastest: the fastest of more rounds is luckier, and would make the
// growth look larger than it is.
func fastestGrowth(big, small []sample) string {
	if len(big) == 0 || len(small) == 0 {
		return "—"
	}
	k := max(1, len(small)/len(big))
	return fmt.Sprintf("%.1f", seconds(big)[0]/seconds(small)[k-1])
}

func medianWall(s []sample) float64 {
	v := seconds(s)
	if len(v) == 0 {
		return 0
	}
	return v[len(v)/2]
}

func secRange(s []sample) string {
	v := seconds(s)
	if len(v) == 0 {
		return "—"
	}
	if v[0] == v[len(v)-1] {
		return fmt.Sprintf("%.2f s", v[0])
	}
	return fmt.Sprintf("%.2f–%.2f s", v[0], v[len(v)-1])
}

// ratios pairs each command run with the floor run of its round.
func ratios(runs, floor []sample) []float64 {
	var out []float64
	for i := range runs {
		if i < len(floor) && floor[i].wall > 0 {
			out = append(out, runs[i].wall.Seconds()/floor[i].wall.Seconds())
		}
	}
	sort.Float64s(out)
	return out
}

func ratioRange(runs, floor []sample) string {
	v := ratios(runs, floor)
	if len(v) == 0 {
		return "—"
	}
	if v[0] == v[len(v)-1] {
		return fmt.Sprintf("%.2f", v[0])
	}
	return fmt.Sprintf("%.2f–%.2f", v[0], v[len(v)-1])
}

func peak(s []sample) float64 {
	m := 0.0
	for _, x := range s {
		m = max(m, x.mb)
	}
	return m
}

// reportWorst reports, per shape and size, the worst median ratio to the
// floor and the highest peak over every command.
func reportWorst(b *testing.B, rows []row, sizes []int) {
	for _, n := range sizes {
		for _, shape := range []string{"lean", "full"} {
			worst, mb := 0.0, 0.0
			for _, r := range rows {
				if r.objects != n || r.shape != shape {
					continue
				}
				if v := ratios(r.kgc, r.floor); len(v) > 0 {
					worst = max(worst, v[len(v)/2])
				}
				mb = max(mb, peak(r.kgc))
			}
			b.ReportMetric(worst, fmt.Sprintf("%s-%dk-worst-x-floor", shape, n/1000))
			b.ReportMetric(mb, fmt.Sprintf("%s-%dk-peak-MB", shape, n/1000))
		}
	}
}
