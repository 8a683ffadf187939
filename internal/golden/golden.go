// Package golden compares a test's output with a file committed under
// testdata (a golden file) and rewrites that file on request, so every
// package checks and refreshes its goldens the same way.
//
// Goldens are rewritten, instead of compared, when the test binary runs
// with -update (`go test ./pkg/render -update`) or when KGC_UPDATE_GOLDEN=1
// is set in the environment. Review the diff before committing.
//
// The -update flag is defined by this package, once, as the package is
// initialised. It cannot be defined lazily, on the first Assert: `go test`
// parses the command line before any test runs, and a flag nobody has
// defined by then fails the whole binary ("flag provided but not
// defined"). The package keeps no variable of its own: Update looks the
// flag up by name in the flag package's command line, which is the only
// state involved. `go test ./... -update` passes the flag to every test
// binary, so a package with tests but no goldens imports this package for
// its side effect (see update_flag_test.go in those packages); the
// environment variable works whatever the binary imports.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// EnvUpdate is the environment variable that, set to 1, rewrites goldens.
const EnvUpdate = "KGC_UPDATE_GOLDEN"

const flagName = "update"

// The flag is found again by name in Update; the blank identifier keeps
// no pointer to it.
var _ = flag.Bool(flagName, false, "rewrite golden files with the current output (or set "+EnvUpdate+"=1)")

// Update reports whether goldens are to be rewritten rather than compared.
func Update() bool {
	if os.Getenv(EnvUpdate) == "1" {
		return true
	}
	f := flag.Lookup(flagName)
	return f != nil && f.Value.String() == "true"
}

// Assert compares got with the golden file at path. Under Update it writes
// got to path (creating its folder) instead, so a new golden starts as the
// current output.
func Assert[T ~string | ~[]byte](t testing.TB, path string, got T) {
	t.Helper()
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("updating %s: %v", path, err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("updating %s: %v", path, err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the golden file %s: %v (go test -update creates it)", path, err)
	}
	if bytes.Equal([]byte(got), want) {
		return
	}
	msg := fmt.Sprintf("%s differs from the output (go test -update rewrites it; review the diff):\n%s", path, FirstDifference(string(want), string(got)))
	// A short output is easier to judge whole; a long one would bury the
	// first difference.
	if bytes.Count([]byte(got), []byte("\n")) <= maxShownLines {
		msg += fmt.Sprintf("\n--- got\n%s", got)
	}
	t.Errorf("%s", msg)
}

// maxShownLines is the longest output a failing Assert prints whole.
const maxShownLines = 200

// FirstDifference names the first line where want and got differ, which
// is where to look in a long output.
func FirstDifference(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		w, g := lineAt(wl, i), lineAt(gl, i)
		if w != g {
			return fmt.Sprintf("line %d:\n  golden: %s\n  got:    %s", i+1, w, g)
		}
	}
	return "(they differ in no line: only the final newline differs)"
}

func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "<end of file>"
}
