package browser

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// env is what every test uses: the kgc built from this checkout, the
// checkout's root (the examples are read from it), and the browser, or
// why there is none.
var env struct {
	kgc, root, chromium, skip string
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	_, file, _, _ := runtime.Caller(0)
	env.root = filepath.Join(filepath.Dir(file), "..", "..")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			env.chromium = p
			break
		}
	}
	if env.chromium == "" {
		env.skip = "chromium is not on PATH: install it (apt-get install chromium) to run the browser tests"
	}
	dir, err := os.MkdirTemp("", "kgc-browser-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	env.kgc = filepath.Join(dir, "kgc")
	build := exec.Command("go", "build", "-o", env.kgc, "./cmd/kgc")
	build.Dir = env.root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building kgc: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// needBrowser skips a test without chromium, or fails it when the browser
// tests are required (KGC_E2E_REQUIRED, set in CI).
func needBrowser(t *testing.T) {
	t.Helper()
	if env.skip == "" {
		return
	}
	if os.Getenv("KGC_E2E_REQUIRED") != "" {
		t.Fatalf("KGC_E2E_REQUIRED is set but %s", env.skip)
	}
	t.Skip(env.skip)
}

// kgc runs the built kgc in the checkout's root and returns its stdout.
func kgc(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(env.kgc, args...)
	cmd.Dir = env.root
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		// why-stuck and graph exit non-zero on purpose only with gates.
		t.Fatalf("kgc %s: %v: %s", strings.Join(args, " "), err, errOut.String())
	}
	return out.Bytes()
}

// example is one page of the shipped examples: the command that writes it.
type example struct {
	name string
	args []string
}

// examples are the pages the tests load: every command with -o html, on
// examples/ and examples-postmortem/ as the README and docs run them.
func examples() []example {
	pm := []string{"postmortem", "-n", "team-a", "--audit-log", "examples-postmortem/audit.log.gz",
		"--before", "examples-postmortem/before.json.gz", "--after", "examples-postmortem/after.json.gz"}
	return []example{
		{"postmortem-team-a", pm},
		{"plan-web", []string{"plan", "delete", "deployment/web", "-n", "shop", "-f", "examples"}},
		{"plan-web-foreground", []string{"plan", "delete", "deployment/web", "-n", "shop", "--cascade=foreground", "-f", "examples"}},
		{"plan-rs-recreated", []string{"plan", "delete", "rs/web-zwl66dqmgk", "-n", "shop", "-f", "examples"}},
		{"plan-ns-shop", []string{"plan", "delete", "ns/shop", "-f", "examples"}},
		{"why-stuck-legacy", []string{"why-stuck", "ns/legacy", "-f", "examples"}},
		{"why-stuck-gizmo", []string{"why-stuck", "widget/gizmo", "-n", "shop", "-f", "examples"}},
		{"why-stuck-all", []string{"why-stuck", "-A", "-f", "examples"}},
		{"graph-shop", []string{"graph", "-n", "shop", "-f", "examples"}},
		{"graph-all", []string{"graph", "-A", "-f", "examples"}},
	}
}

// html writes the example's page into dir and returns its path and text.
func (e example) html(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	page := kgc(t, append(e.args, "-o", "html")...)
	path := filepath.Join(dir, e.name+".html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, page
}

// document is the example's JSON document: what the page must show.
func (e example) document(t *testing.T) []byte {
	t.Helper()
	return kgc(t, append(e.args, "-o", "json")...)
}
