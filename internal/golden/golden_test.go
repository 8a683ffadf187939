package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what a failing Assert reports.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, a...))
}

// setUpdate sets -update for one test, as if given on the command line.
func setUpdate(t *testing.T, v string) {
	t.Helper()
	t.Setenv(EnvUpdate, "")
	was := flag.Lookup(flagName).Value.String()
	if err := flag.Set(flagName, v); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flag.Set(flagName, was) })
}

func TestAssertReportsTheFirstDifferentLine(t *testing.T) {
	setUpdate(t, "false")
	path := filepath.Join(t.TempDir(), "out.golden")
	if err := os.WriteFile(path, []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Assert(r, path, "a\nB\nc\n")
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "line 2:\n  golden: b\n  got:    B") || !strings.Contains(r.errors[0], "-update") {
		t.Errorf("a differing output reported %q, want one error naming line 2 and -update", r.errors)
	}
	r = &recorder{TB: t}
	Assert(r, path, []byte("a\nb\nc\n"))
	if len(r.errors) != 0 {
		t.Errorf("an equal output reported %q", r.errors)
	}
}

func TestAssertRewritesUnderTheEnvironmentVariable(t *testing.T) {
	setUpdate(t, "false")
	t.Setenv(EnvUpdate, "1")
	path := filepath.Join(t.TempDir(), "new", "out.golden")
	Assert(t, path, "fresh\n")
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "fresh\n" {
		t.Errorf("%s = %q, %v; want the output written", path, b, err)
	}
}

func TestUpdateFollowsTheFlag(t *testing.T) {
	setUpdate(t, "false")
	if Update() {
		t.Error("Update() is true without -update or " + EnvUpdate + "=1")
	}
	setUpdate(t, "true")
	if !Update() {
		t.Error("Update() is false under -update")
	}
}

func TestFirstDifferenceAtTheEnd(t *testing.T) {
	if got := FirstDifference("a\n", "a\nb\n"); got != "line 2:\n  golden: \n  got:    b" {
		t.Errorf("FirstDifference = %q", got)
	}
	if got := FirstDifference("a", "a\nb"); got != "line 2:\n  golden: <end of file>\n  got:    b" {
		t.Errorf("FirstDifference = %q", got)
	}
}
