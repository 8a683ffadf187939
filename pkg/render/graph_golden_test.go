package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// The -update flag is shared by every golden test of the package; whichever
// test file registers it first wins, so two files can both ask for it
// without the "flag redefined" panic.
var _ = func() bool {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite testdata/*.golden with the current output")
	}
	return true
}()

func updatingGoldens() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// assertGraphGolden compares got with testdata/name, or rewrites it with -update.
func assertGraphGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if updatingGoldens() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("updating %s: %v", path, err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s (run go test -update to create it): %v", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
