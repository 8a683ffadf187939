package snapshotio

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

func gzipInMembers(t *testing.T, data []byte, chunk int) []byte {
	t.Helper()
	var out bytes.Buffer
	g := newGzipMembers(&out)
	for p := data; len(p) > 0; {
		k := min(chunk, len(p))
		if _, err := g.Write(p[:k]); err != nil {
			t.Fatal(err)
		}
		p = p[k:]
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// What gzipMembers writes decompresses to what was written, at member
// boundaries and between them, and the same input gives the same file
// however it was written.
func TestGzipMembersRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, memberSize - 1, memberSize, memberSize + 1, 3*memberSize + memberSize/2} {
		data := make([]byte, n)
		for i := range data {
			data[i] = "abcdefgh\n{}\""[rng.IntN(12)]
		}
		gz := gzipInMembers(t, data, 4096)
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: decompressed %d bytes (%v), want the %d written", n, len(got), err, n)
		}
		if again := gzipInMembers(t, data, 1<<20+7); !bytes.Equal(again, gz) {
			t.Errorf("%d bytes: written in other chunks, the file differs", n)
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// An error of the file surfaces at Close.
func TestGzipMembersReportsWriteError(t *testing.T) {
	g := newGzipMembers(failingWriter{})
	g.Write(make([]byte, 3*memberSize)) //nolint:errcheck // the error comes at Close
	if err := g.Close(); err == nil || err.Error() != "disk full" {
		t.Errorf("Close = %v, want disk full", err)
	}
}
