package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/kgc-dev/kgc/test/bench/auditgen/gen"
)

// This file proves that reading on many cores yields what reading on one
// does: the same requests in the same order, the same files and the same
// warnings at the same lines, however the file is split.

// serial reads on one worker, in one chunk (the tests' files are smaller).
var serial = &cores{workers: 1, chunk: chunkSize}

// readWith reads paths split as c says, folded as a post-mortem reads.
func readWith(t *testing.T, c *cores, paths ...string) string {
	t.Helper()
	l, err := Read(paths, nil, Options{Fold: true, cores: c})
	if err != nil {
		return "error: " + err.Error()
	}
	return logDump(t, l)
}

// readStdin reads data from stdin, split as c says, named path.
func readStdin(t *testing.T, c *cores, data []byte, path string) string {
	t.Helper()
	l, err := Read([]string{"-"}, bytes.NewReader(data), Options{Fold: true, cores: c})
	if err != nil {
		return "error: " + strings.ReplaceAll(err.Error(), "-", path)
	}
	return strings.ReplaceAll(logDump(t, l), `"-"`, strconv.Quote(path))
}

// logDump is everything a log says, as JSON.
func logDump(t *testing.T, l *Log) string {
	t.Helper()
	var evs []*Event
	for e := range l.All() {
		evs = append(evs, e)
	}
	b, err := json.MarshalIndent(map[string]any{"events": evs, "files": l.Files, "warnings": l.Warnings, "dropped": l.Dropped}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// generated is a small generated log with writes, deletes and cascades.
func generated(t *testing.T, events int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := gen.Write(&buf, gen.Options{Events: events, Seed: 3, WriteHeavy: true}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestParallelLinesAreSerial: a log of one event a line, CRLF or not,
// with blank and bad lines and a last line without its newline, split
// into chunks of sizes from a few bytes to a few lines (so that some
// chunk ends exactly at a line's end and others inside a line), read on
// four workers from the file or from stdin, is what one worker reads of
// it whole.
func TestParallelLinesAreSerial(t *testing.T) {
	lines := strings.SplitAfter(string(generated(t, 30)), "\n")
	lines = append(lines[:20], append([]string{"\n", "{not json\n", "   \n"}, lines[20:]...)...)
	lf := strings.TrimSuffix(strings.Join(lines, ""), "\n") // no newline at the end
	crlf := strings.ReplaceAll(lf, "\n", "\r\n")
	dir := t.TempDir()
	variants := map[string]string{"lf.log": lf, "crlf.log": crlf,
		"bom.log":  bom + "\n \n" + lf,                     // the records start past a BOM and blank lines
		"half.log": lf[:len(lf)/2] + "\n" + lf[:len(lf)/2], // a truncated write mid-file
		"bad.log":  "[1]\n" + lf}                           // not a log: its first line says so
	for name, data := range variants {
		p := writeFile(t, dir, name, []byte(data))
		want := readStdin(t, serial, []byte(data), p)
		if name == "lf.log" && (!strings.Contains(want, `"line": 22`) || !strings.Contains(want, "not valid JSON")) {
			t.Fatalf("%s: the bad line 22 is not named:\n%.2000s", name, want)
		}
		sizes := []int{7, 500, 1 << 12, 1 << 16}
		// Chunks ending exactly at a line's end, and a byte either side.
		if end := strings.Index(data, "\n") + 1; end > 0 {
			sizes = append(sizes, end-1, end, end+1)
		}
		for _, size := range sizes {
			c := &cores{workers: 4, chunk: size}
			if got := readWith(t, c, p); got != want {
				t.Fatalf("%s in chunks of %d bytes on 4 workers differs from one worker:\n%s", name, size, firstDiff(got, want))
			}
			if got := readStdin(t, c, []byte(data), p); got != want {
				t.Fatalf("%s in chunks of %d bytes on 4 workers from stdin differs from one worker:\n%s", name, size, firstDiff(got, want))
			}
		}
	}
}

// TestParallelBadLineInSecondPart: a bad line in the second part of a
// file split in two is named at its line in the file, not in its part.
func TestParallelBadLineInSecondPart(t *testing.T) {
	lines := strings.SplitAfter(string(generated(t, 40)), "\n")
	lines = append(lines[:30], append([]string{"[1, 2\n"}, lines[30:]...)...)
	data := strings.Join(lines, "")
	p := writeFile(t, t.TempDir(), "audit.log", []byte(data))
	half := len(data) / 2
	if strings.Index(data, "[1, 2") < half {
		t.Fatalf("the bad line is not in the second half")
	}
	l, err := Read([]string{p}, nil, Options{cores: &cores{workers: 2, chunk: half}})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) != 1 || l.Warnings[0].Position.Line != 31 || l.Warnings[0].Message != "not valid JSON" {
		t.Errorf("warnings %+v, want one at line 31: not valid JSON", l.Warnings)
	}
}

// TestParallelGzipMembers: a gzip file of several members (rotated logs
// concatenated, pigz's output) reads as the plain log does, on one
// worker and on many.
func TestParallelGzipMembers(t *testing.T) {
	data := generated(t, 40)
	var gz bytes.Buffer
	for _, part := range [][]byte{data[:len(data)/3], data[len(data)/3 : 2*len(data)/3], data[2*len(data)/3:]} {
		w := gzip.NewWriter(&gz)
		if _, err := w.Write(part); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	plain := writeFile(t, t.TempDir(), "audit.log", data)
	zipped := writeFile(t, t.TempDir(), "audit.log", gz.Bytes())
	want := readWith(t, serial, plain)
	for _, c := range []*cores{serial, {workers: 4, chunk: 1000}} {
		got := strings.ReplaceAll(readWith(t, c, zipped), zipped, plain)
		if got != want {
			t.Fatalf("gzip of 3 members on %d workers differs from the plain log:\n%s", c.workers, firstDiff(got, want))
		}
	}
}

// TestParallelListsAreSerial: the values of a document's list, converted
// on many workers in batches of every size, are what one worker reads:
// filter-log-events pretty-printed and on one line (every bad value on
// line 1, named in the order they come), an EventList, gcloud's array,
// Event Hubs messages (many short lists, one pool).
func TestParallelListsAreSerial(t *testing.T) {
	native := strings.Split(strings.TrimSpace(string(generated(t, 50))), "\n")
	native = append(native[:10], append([]string{`{"kind":"Event","verb":`, `"not an event"`, `{"message":"{\"verb\":1}"}`}, native[10:]...)...)
	var msgs, items []string
	for i, l := range native {
		m, _ := json.Marshal(map[string]any{"timestamp": i, "message": l})
		msgs = append(msgs, string(m))
		if json.Valid([]byte(l)) {
			items = append(items, l)
		}
	}
	// Event Hubs messages, a few records each, a line each; a native
	// event alone between them is converted at once, the messages' records
	// on the workers.
	var hubs []string
	for i := 0; i < len(native); i += 3 {
		var recs []string
		for _, l := range native[i:min(i+3, len(native))] {
			r, _ := json.Marshal(map[string]any{"category": "kube-audit", "properties": map[string]any{"log": l}})
			recs = append(recs, string(r))
		}
		hubs = append(hubs, `{"records":[`+strings.Join(recs, ",")+`]}`)
		if i == 21 {
			hubs = append(hubs, native[0])
		}
	}
	docs := map[string]string{
		"eventhubs.json":       strings.Join(hubs, "\n") + "\n",
		"events-one-line.json": `{"events":[` + strings.Join(msgs, ",") + `],"searchedLogStreams":[]}`,
		"events-pretty.json":   "{\n  \"events\": [\n    " + strings.Join(msgs, ",\n    ") + "\n  ]\n}\n",
		"eventlist.json":       `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[` + "\n" + strings.Join(items, ",\n") + "\n]}",
		"gcloud.json":          string(gcloudJSON(native[:10])),
		// A list, then a value that is no record: a bad value once the
		// list's were seen, not a file that is no log.
		"array-then-other.json": "[" + native[0] + "]\n" + `{"other":1}` + "\n",
	}
	dir := t.TempDir()
	for name, doc := range docs {
		p := writeFile(t, dir, name, []byte(doc))
		want := readWith(t, serial, p)
		if strings.HasPrefix(want, "error") {
			t.Fatalf("%s: %s", name, want)
		}
		for _, size := range []int{1, 3000, 1 << 20} {
			if got := readWith(t, &cores{workers: 3, chunk: size}, p); got != want {
				t.Fatalf("%s in batches of %d bytes on 3 workers differs from one worker:\n%s", name, size, firstDiff(got, want))
			}
		}
	}
}

// firstDiff shows where two dumps part.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: got %.300s\nwant %.300s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(g), len(w))
}

// FuzzParallelIsSerial: whatever a file holds, in any form, reading it on
// three workers in small chunks, batches and parts (frame.go) says what
// one worker framing its lists alone says.
func FuzzParallelIsSerial(f *testing.F) {
	for _, seed := range formSeeds() {
		f.Add(seed)
	}
	f.Add([]byte("{\"kind\":\"Event\",\"verb\":\"get\"}\n[1,\n{\"events\":[{\"message\":\"x\"},1,\"\\u0026\"]}"))
	f.Add([]byte("{\"events\":[{\"message\":\"x\"}\n,1\n,\"\\u0026\"\n,{\"a\":[\n{}]}\n]}"))
	f.Add([]byte("[\n{\"kind\":\"Event\",\"verb\":\"get\"}\n,\n{]\n]"))
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, data []byte) {
		n++
		p := writeFile(t, dir, fmt.Sprintf("audit-%d.log", n), data)
		defer os.Remove(p)
		want := readWith(t, oneFramer, p)
		for _, size := range []int{1, 64} {
			if got := readWith(t, &cores{workers: 3, chunk: size}, p); got != want {
				t.Errorf("on 3 workers in chunks and parts of %d bytes:\n%s", size, firstDiff(got, want))
			}
		}
	})
}
