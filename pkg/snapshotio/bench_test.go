package snapshotio

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kgc-dev/kgc/test/bench/dumpgen"
)

// BenchmarkReadFiles reads a `kubectl get -A -o json` dump: the one in
// KGC_BENCH_DUMP (go run ./test/bench/gendump -n 1000000 -o /tmp/dump.json),
// or a generated one of 100,000 objects.
func BenchmarkReadFiles(b *testing.B) {
	path := os.Getenv("KGC_BENCH_DUMP")
	if path == "" {
		path = filepath.Join(b.TempDir(), "dump.json")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := dumpgen.Write(f, 100000); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	var n int
	for b.Loop() {
		s, err := ReadFiles([]string{path}, nil, ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		n = len(s.Objects)
	}
	b.ReportMetric(float64(n), "objects")
}
