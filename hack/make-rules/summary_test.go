// Package makerules tests the scripts the Makefile runs.
package makerules

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// The last line of `make test` counts the tests of every suite run, from
// their go test -json events: a module with a passing, a failing and a
// skipped test, and a passing subtest, run as two suites, counts 2 passed
// (the subtest and its parent), 1 failed and 1 skipped.
func TestSummaryCountsEverySuite(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the make rules are bash scripts")
	}
	mod := t.TempDir()
	write(t, filepath.Join(mod, "go.mod"), "module example.com/m\n\ngo 1.21\n")
	write(t, filepath.Join(mod, "a", "a_test.go"), `package a

import "testing"

func TestPasses(t *testing.T) { t.Run("sub", func(t *testing.T) {}) }
func TestSkips(t *testing.T)  { t.Skip("no cluster") }
`)
	write(t, filepath.Join(mod, "b", "b_test.go"), `package b

import "testing"

func TestFails(t *testing.T) { t.Error("\"Action\":\"pass\",\"Test\":\"x\" in the output is not a pass") }
`)
	events := t.TempDir()
	for suite, pkg := range map[string]string{"unit": "./a", "e2e": "./b"} {
		cmd := exec.Command("go", "test", "-count=1", "-json", pkg)
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
		out, _ := cmd.Output() // b fails on purpose
		write(t, filepath.Join(events, suite+".json"), string(out))
	}
	cmd := exec.Command("bash", "test.sh", "summary")
	cmd.Env = append(os.Environ(), "TEST_EVENTS="+events)
	got, err := cmd.CombinedOutput()
	if want := "2 passed, 1 failed, 1 skipped\n"; err != nil || string(got) != want {
		t.Errorf("test.sh summary: %v, %q; want %q", err, got, want)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
