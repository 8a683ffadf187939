package audit

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/internal/jsonskip"
)

// This file proves that a document's list framed in parts by the workers
// (frame.go) reads as the stream framing it alone does: the same events,
// counts, warnings and lines, whatever the document's layout, wherever
// the cuts fall, and whatever is wrong with it.

// oneFramer frames every list on the stream's goroutine, one value after
// the other: what framing in parts must agree with.
var oneFramer = &cores{workers: 1, chunk: chunkSize, oneFramer: true}

// framedDocs are documents whose lists cut into parts: one value a line,
// pretty-printed values over many lines (cuts that fall inside a value),
// nested lists of objects indented like the list's, bad values, and
// documents that end, or go wrong, inside the list.
func framedDocs(t *testing.T) map[string]string {
	t.Helper()
	native := strings.Split(strings.TrimSpace(string(generated(t, 60))), "\n")
	var msgs []string
	for i, l := range native {
		m, _ := json.Marshal(map[string]any{"timestamp": i, "message": l, "eventId": fmt.Sprint(i)})
		msgs = append(msgs, string(m))
	}
	withBad := append(append(append([]string{}, msgs[:20]...), `{"message":"{\"verb\":1}"}`, `"not an event"`, `{"message":`+"\n"+`"x"}`), msgs[20:]...)
	perLine := `{"events":[` + strings.Join(msgs, "\n,") + "\n],\"searchedLogStreams\":[]}\n"
	nested := make([]string, len(msgs))
	for i, m := range msgs {
		nested[i] = "{\"wrapped\": [\n{\"a\": 1},\n{\"b\": [\n{}]}\n],\n" + strings.TrimPrefix(m, "{")
	}
	return map[string]string{
		"per-line.json":        perLine,
		"pretty.json":          string(filterLogEvents(native)),
		"gcloud.json":          string(gcloudJSON(native)),
		"eventlist.json":       `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[` + "\n" + strings.Join(native, ",\n") + "\n]}",
		"bad-values.json":      `{"events":[` + strings.Join(withBad, "\n,") + "\n]}\n",
		"nested.json":          `{"events":[` + "\n" + strings.Join(nested, ",\n") + "\n]}\n",
		"crlf.json":            strings.ReplaceAll(perLine, "\n", "\r\n"),
		"commas.json":          `{"events":[` + "\n,,\n" + strings.Join(msgs, "\n,\n,") + "\n,]}",
		"truncated.json":       perLine[:len(perLine)*2/3],
		"garbage-in-list.json": `{"events":[` + strings.Join(msgs[:30], "\n,") + "\n, ]x[ \n," + strings.Join(msgs[30:], "\n,") + "\n]}",
		"unclosed-value.json":  `{"events":[` + strings.Join(msgs[:30], "\n,") + "\n,{\"message\": [\n" + strings.Join(msgs[30:], "\n,"),
		"two-lists.json":       perLine + perLine,
		"values-then-end.json": `{"events":[` + strings.Join(msgs, "\n,") + "\n]}\n]\n",
	}
}

// TestPartsAreOneFramer: every framed document reads in parts of every
// size, on one to three workers, as one framer reads it.
func TestPartsAreOneFramer(t *testing.T) {
	dir := t.TempDir()
	for name, doc := range framedDocs(t) {
		p := writeFile(t, dir, name, []byte(doc))
		want := readWith(t, oneFramer, p)
		for _, workers := range []int{1, 2, 3} {
			for _, size := range []int{1, 7, 200, 1000, 5000, 1 << 20} {
				c := &cores{workers: workers, chunk: size}
				if got := readWith(t, c, p); got != want {
					t.Fatalf("%s in parts of %d bytes on %d workers differs from one framer:\n%s", name, size, workers, firstDiff(got, want))
				}
			}
		}
		if got := readStdin(t, &cores{workers: 2, chunk: 300}, []byte(doc), p); got != readStdin(t, oneFramer, []byte(doc), p) {
			t.Fatalf("%s from stdin in parts differs from one framer", name)
		}
	}
}

// TestPartsAreTaken: the parts of a document framed by the workers are
// taken, not read again by the stream: a list of one value a line, and a
// pretty-printed one once a cut between its values has shown how they
// are indented.
func TestPartsAreTaken(t *testing.T) {
	docs := framedDocs(t)
	for _, name := range []string{"per-line.json", "pretty.json", "gcloud.json", "eventlist.json"} {
		opts := Options{cores: &cores{workers: 2, chunk: 2000}}
		c := startRequestTable(opts)
		acc := newAccumulator(0, name, opts, c)
		acc.cv = &converter{acc: acc}
		if err := readStream(strings.NewReader(docs[name]), acc.cv, 1); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		acc.flush()
		c.wait()
		t.Logf("%s: %d of %d values in parts taken", name, acc.inParts, acc.events)
		if acc.events != 60 || acc.inParts < 50 {
			t.Errorf("%s: %d events read, %d values in parts taken; want 60, most in parts", name, acc.events, acc.inParts)
		}
	}
}

// TestPartsAreOneFramerMutated: documents of every form with bytes
// changed, cut short and commas and newlines slipped in (a fixed seed:
// the fuzzer reaches few such documents a second) read in parts as one
// framer reads them.
func TestPartsAreOneFramerMutated(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 5))
	var seeds [][]byte
	for _, name := range slices.Sorted(maps.Keys(formSeeds())) {
		seeds = append(seeds, formSeeds()[name])
	}
	seeds = append(seeds, []byte(framedDocs(t)["bad-values.json"][:6000]))
	dir := t.TempDir()
	for n := range 400 {
		d := slices.Clone(seeds[r.IntN(len(seeds))])
		for k := r.IntN(4); k >= 0 && len(d) > 0; k-- {
			switch i := r.IntN(len(d)); r.IntN(3) {
			case 0:
				d[i] = "{}[],\n\" x1"[r.IntN(10)]
			case 1:
				d = d[:i]
			default:
				d = slices.Insert(d, i, []byte("\n,")...)
			}
		}
		p := writeFile(t, dir, fmt.Sprintf("m-%d.json", n), d)
		if got, want := readWith(t, &cores{workers: 3, chunk: 16}, p), readWith(t, oneFramer, p); got != want {
			t.Fatalf("%q in parts:\n%s", d, firstDiff(got, want))
		}
	}
}

// FuzzLogEventIsFramed: a log event read where it starts (logEvent,
// which finds its end) is read as its framing and value would read it:
// the same end, the same stages, counts and warnings; and what logEvent
// declines it leaves untouched.
func FuzzLogEventIsFramed(f *testing.F) {
	for _, l := range formEvents()[:3] {
		m, _ := json.Marshal(map[string]any{"eventId": "1", "timestamp": 1, "message": l})
		f.Add(append(m, "\n,{}"...))
	}
	f.Add([]byte(`{"message":"{\"verb\":\"get\"}","x":[1]}`))
	f.Add([]byte(`{"message":{"verb":"get"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func(f func(cv *converter)) (*accumulator, string) {
			c := startRequestTable(Options{})
			acc := newAccumulator(0, "f.json", Options{}, c)
			acc.hold = true
			acc.cv = &converter{acc: acc, depth: 1, seen: true}
			f(acc.cv)
			acc.flush()
			c.wait()
			var evs []Event
			for _, b := range acc.held {
				for _, st := range b {
					evs = append(evs, st.ev)
				}
			}
			j, err := json.Marshal(evs)
			if err != nil {
				t.Fatal(err)
			}
			return acc, string(j)
		}
		n, ok := 0, false
		a, aStages := read(func(cv *converter) { n, ok = cv.logEvent(data, 1) })
		if !ok {
			if a.events+a.badCount != 0 || aStages != "null" {
				t.Fatalf("declined, yet read %d events, %d bad", a.events, a.badCount)
			}
			return
		}
		end, err := jsonskip.Value(data, 0)
		if err != nil || end != n {
			t.Fatalf("read to %d, framed to %d (%v)", n, end, err)
		}
		b, bStages := read(func(cv *converter) { cv.value(data[:end], 1) })
		got := fmt.Sprint(a.events, a.dropped, a.badCount, a.bad, a.window, a.forms, aStages)
		want := fmt.Sprint(b.events, b.dropped, b.badCount, b.bad, b.window, b.forms, bStages)
		if got != want {
			t.Fatalf("read where it starts:\n%s\nframed:\n%s", got, want)
		}
	})
}
