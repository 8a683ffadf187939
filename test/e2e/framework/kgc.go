package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BuildKGC builds the kgc binary from the repository root exactly as a user
// would (`go build ./cmd/kgc`); the e2e module never imports kgc's packages.
func BuildKGC(logf func(string, ...any)) (string, error) {
	dir, err := os.MkdirTemp("", "kgc-e2e-bin-")
	if err != nil {
		return "", fmt.Errorf("creating kgc build dir: %w", err)
	}
	out := filepath.Join(dir, "kgc")
	start := time.Now()
	if err := goBuild(RepoRoot(), out, "./cmd/kgc"); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("building kgc: %w", err)
	}
	logf("built kgc in %s", time.Since(start).Round(100*time.Millisecond))
	return out, nil
}

// KGCResult is one kgc invocation.
type KGCResult struct {
	Args     []string
	Stdout   []byte
	Stderr   []byte
	ExitCode int
	Duration time.Duration
	TimedOut bool
}

func (r KGCResult) String() string {
	status := fmt.Sprintf("exit %d after %s", r.ExitCode, r.Duration.Round(time.Millisecond))
	if r.TimedOut {
		status = fmt.Sprintf("TIMED OUT after %s, killed with SIGQUIT", r.Duration.Round(time.Millisecond))
	}
	return fmt.Sprintf("kgc %s (%s)\nstdout:\n%s\nstderr:\n%s", strings.Join(r.Args, " "), status, clip(r.Stdout), clip(r.Stderr))
}

func clip(b []byte) string {
	const max = 12000
	if len(b) > max {
		return string(b[:max]) + fmt.Sprintf("\n... (%d more bytes)", len(b)-max)
	}
	return string(b)
}

// RunKGC runs kgc with --kubeconfig pointing at the harness cluster and
// returns its output whatever the exit code; it fails the test only when kgc
// could not be built or run at all.
func (e *Env) RunKGC(t testing.TB, args ...string) KGCResult {
	t.Helper()
	return e.StartKGC(t, args...).Wait(t)
}

// RunningKGC is a kgc started by StartKGC and not waited for yet.
type RunningKGC struct {
	cmd            *exec.Cmd
	ctx            context.Context
	cancel         context.CancelFunc
	cacheDir       string
	args           []string
	stdout, stderr bytes.Buffer
	start          time.Time
}

// StartKGC starts kgc as RunKGC runs it, for a test that acts on the
// cluster while kgc runs; Wait returns what RunKGC would.
func (e *Env) StartKGC(t testing.TB, args ...string) *RunningKGC {
	t.Helper()
	return e.startKGC(t, e.CP.Kubeconfig, args...)
}

// startKGC starts kgc against the API server of kubeconfig.
func (e *Env) startKGC(t testing.TB, kubeconfig string, args ...string) *RunningKGC {
	t.Helper()
	if e.kgcErr != nil {
		t.Fatalf("kgc binary unavailable: %v", e.kgcErr)
	}
	r := &RunningKGC{args: append([]string{"--kubeconfig", kubeconfig}, args...)}
	r.ctx, r.cancel = context.WithTimeout(context.Background(), 2*time.Minute)
	r.cmd = exec.CommandContext(r.ctx, e.KGCBinary, r.args...)
	// On timeout, SIGQUIT makes the Go runtime print every goroutine's
	// stack: a hung kgc then reports where it hangs.
	r.cmd.Cancel = func() error { return r.cmd.Process.Signal(syscall.SIGQUIT) }
	r.cmd.WaitDelay = 10 * time.Second
	// A fresh discovery cache per run: a cache left by an earlier run would
	// hide CRDs a test has just created.
	var err error
	if r.cacheDir, err = os.MkdirTemp("", "kgc-e2e-cache-"); err != nil {
		r.cancel()
		t.Fatalf("creating kgc cache dir: %v", err)
	}
	r.cmd.Env = append(cleanEnv(), "KUBECONFIG="+kubeconfig, "KUBECACHEDIR="+r.cacheDir)
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	r.start = time.Now()
	if err := r.cmd.Start(); err != nil {
		r.cleanup()
		t.Fatalf("running kgc %s: %v", strings.Join(r.args, " "), err)
	}
	return r
}

// Wait waits for kgc to end and returns its output whatever the exit
// code; it fails the test only when kgc could not run at all.
func (r *RunningKGC) Wait(t testing.TB) KGCResult {
	t.Helper()
	defer r.cleanup()
	err := r.cmd.Wait()
	res := KGCResult{Args: r.args, Stdout: r.stdout.Bytes(), Stderr: r.stderr.Bytes(), Duration: time.Since(r.start)}
	if r.ctx.Err() != nil {
		res.TimedOut = true
	}
	if err != nil {
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			res.ExitCode = ee.ExitCode()
		} else {
			t.Fatalf("running kgc %s: %v", strings.Join(r.args, " "), err)
		}
	}
	return res
}

// Interrupt sends kgc SIGINT, as Ctrl-C on its terminal would.
func (r *RunningKGC) Interrupt(t testing.TB) {
	t.Helper()
	if err := r.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatalf("interrupting kgc %s: %v", strings.Join(r.args, " "), err)
	}
}

func (r *RunningKGC) cleanup() {
	r.cancel()
	os.RemoveAll(r.cacheDir)
}

// KGC runs kgc and fails the test if it exits non-zero.
func (e *Env) KGC(t testing.TB, args ...string) []byte {
	t.Helper()
	res := e.RunKGC(t, args...)
	if res.ExitCode != 0 {
		t.Fatalf("%s", res)
	}
	return res.Stdout
}

// KGCJSON runs kgc, requires exit 0, and decodes stdout as JSON into v.
func (e *Env) KGCJSON(t testing.TB, v any, args ...string) {
	t.Helper()
	res := e.RunKGC(t, args...)
	if res.ExitCode != 0 {
		t.Fatalf("%s", res)
	}
	if err := json.Unmarshal(res.Stdout, v); err != nil {
		t.Fatalf("decoding output of kgc %s: %v\n%s", strings.Join(res.Args, " "), err, clip(res.Stdout))
	}
}
