package audit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kgc-dev/kgc/test/bench/auditgen/gen"
)

// BenchmarkRead reads a generated log of 300,000 events (about 450 MB):
//
//	go test ./pkg/audit -run '^$' -bench Read -benchtime 3x
func BenchmarkRead(b *testing.B) {
	p := filepath.Join(b.TempDir(), "audit.log")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	st, err := gen.Write(f, gen.Options{Events: 300_000, Seed: 1})
	if err != nil || f.Close() != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Bytes)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Read([]string{p}, nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
