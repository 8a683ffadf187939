package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/internal/jsonscan"
)

// readRecordLine reads one line of a file as the native reader does,
// and says what it read: counts, warnings, window and the events filed.
func readRecordLine(l []byte, read func(cv *converter)) string {
	c := startRequestTable(Options{})
	acc := newAccumulator(0, "PT1H.json", Options{}, c)
	acc.cv = &converter{acc: acc}
	read(acc.cv)
	acc.flush()
	c.wait()
	lo, hi := acc.window.bounds()
	out := fmt.Sprintf("events %d dropped %d bad %d %v fatal %v forms %b lost %b passed %d skipped %d bodiless %d window %v %v v1beta1 %v\n",
		acc.events, acc.dropped, acc.badCount, acc.bad, acc.fatal, acc.forms, acc.lost, acc.passed, acc.skippedBodies,
		acc.bodilessDeletes, lo, hi, acc.v1beta1)
	for i := range int32(c.n) {
		e, _ := c.at(i)
		b, _ := json.Marshal(e)
		out += string(b) + "\n"
	}
	return out
}

// aksLineIsTwoPasses checks that a record or a message read without the
// prefilter's walk (aksLine, messageLine) reads as the prefilter's walk
// then the converter's read it, and that a line the prefilter reads
// otherwise is left to it.
func aksLineIsTwoPasses(t *testing.T, l []byte) {
	t.Helper()
	l = bytes.TrimSpace(l)
	if len(l) == 0 || l[0] != '{' || bytes.HasPrefix(l, []byte(eventPrefix)) {
		return
	}
	read := false
	once := readRecordLine(l, func(cv *converter) { read = cv.aksLine(l, 1) || cv.messageLine(l, 1) })
	_, err := prefilter(l, new(head))
	if !errors.As(err, new(*notAnEvent)) {
		if read {
			t.Fatalf("%q: read as a record, but the prefilter reads it (%v)", l, err)
		}
		return
	}
	if !read {
		if fresh := readRecordLine(l, func(*converter) {}); once != fresh {
			t.Fatalf("%q: declined, having read\n%s", l, once)
		}
		return
	}
	if twice := readRecordLine(l, func(cv *converter) { cv.value(l, 1) }); once != twice {
		t.Fatalf("%q: read in one walk as\n%s\nin two as\n%s", l, once, twice)
	}
}

// TestAKSLineIsTwoPasses: a storage blob's records, kept, dropped, of
// other categories, malformed or with a native event's keys, read in one
// walk as in the prefilter's and then the converter's.
func TestAKSLineIsTwoPasses(t *testing.T) {
	lines := formEvents()
	cases := [][]byte{
		[]byte(`{"category":"kube-audit","properties":{"log":"{\"verb\":\"get\"}"},"verb":"delete"}`),
		[]byte(`{"category":"kube-audit","properties":{"log":"{}"},"verb":"get","stageTimestamp":"2026-11-27T10:00:00.000001Z"}`),
		[]byte(`{"category":"kube-audit","properties":{"log":"{}"},"verb":"get","timestamp":"2026-11-27T10:00:00.000001Z"}`),
		[]byte(`{"category":"kube-audit","properties":{"log":"{}"}`),
		[]byte(`{"category":"guard","properties":{"log":"x"}}`),
		[]byte(`{"category":"kube-audit","properties":{"pod":"p"}}`),
		[]byte(`{"category":1,"properties":{"log":"{}"}}`),
		[]byte(`{"properties":{"log":{"kind":"Event"}},"category":"kube-audit-admin","user":{}}`),
		[]byte(`{"category":"kube-audit","properties":{"log":"\u0041"}}`),
		// Event Hubs messages, whole and broken after a record.
		[]byte(`{"records":[{"category":"kube-audit","properties":{"log":"{}"}}]}`),
		[]byte(`{"records":[{"category":"kube-audit","properties":{"log":"{}"}},{"category":}]}`),
		[]byte(`{"records":[{"category":"kube-audit"]}`),
		[]byte(`{"records":[],"verb":"get","stageTimestamp":"2026-11-27T10:00:00.000001Z"}`),
		[]byte(`{"records":[]}`),
		[]byte(`{"records":[ {"category":"guard","properties":{"log":"x"}} , {"category":"kube-audit","properties":{"log":""}} ] }`),
		[]byte(`{"records":[{"category":"kube-audit","properties":{"log":"{}"}}],"x":1}`),
		[]byte(`{"records":[{"category":"kube-audit","properties":{"log":"{}"}}]}}`),
		[]byte(`{"records":[{"category":"kube-audit","properties":{"log":"{}"}},{"kind":"Event","verb":"get"}]}`),
		[]byte(`{"records":[{"category":"kube-audit","properties":{"log":"{}"}},{"records":[]}]}`),
	}
	for _, l := range append(append(cases, aksRecords(lines)...), ehMessages(lines)...) {
		aksLineIsTwoPasses(t, l)
	}
}

// ehMessages are Event Hubs messages of every record aksRecords makes of
// lines: whole, and broken after their first records.
func ehMessages(lines []string) [][]byte {
	records := aksRecords(lines)
	whole := []byte(`{"records":[` + string(bytes.Join(records, []byte(","))) + `]}`)
	broken := []byte(`{"records":[` + string(bytes.Join(records[:3], []byte(","))) + `,{"category":"kube-audit","properties":{"log":"{\"verb\":\"delete\"}"}]}`)
	return [][]byte{whole, broken}
}

// TestMessageLineWalksOnce: a whole message is read without the
// prefilter's walk, and files every event it carries; one broken after
// its first records is left to the prefilter, which refuses it whole.
func TestMessageLineWalksOnce(t *testing.T) {
	ms := ehMessages(formEvents())
	read := false
	got := readRecordLine(ms[0], func(cv *converter) { read = cv.messageLine(ms[0], 1) })
	if !read || !strings.HasPrefix(got, "events 10 dropped 2 bad 0 ") {
		t.Errorf("a whole message: read %v as\n%s", read, got)
	}
	got = readRecordLine(ms[1], func(cv *converter) { read = cv.messageLine(ms[1], 1) })
	if read || !strings.HasPrefix(got, "events 0 dropped 0 bad 0 ") {
		t.Errorf("a broken message: read %v as\n%s", read, got)
	}
}

// aksRecords are a record of each event in each category.
func aksRecords(lines []string) [][]byte {
	var out [][]byte
	for _, l := range lines {
		for _, cat := range []string{"kube-audit", "kube-audit-admin", "guard"} {
			out = append(out, mustJSON(aksRecordOf(l, cat), ""))
		}
	}
	return out
}

// FuzzAKSLineIsTwoPasses: any line reads in one walk as in two.
func FuzzAKSLineIsTwoPasses(f *testing.F) {
	for _, l := range formEvents() {
		f.Add(mustJSON(aksRecordOf(l, "kube-audit"), ""))
	}
	for _, m := range ehMessages(formEvents()) {
		f.Add(bytes.ReplaceAll(m, []byte("\n"), nil))
	}
	f.Add([]byte(`{"category":"kube-audit","properties":{"log":"{}"},"verb":"get"}`))
	f.Fuzz(aksLineIsTwoPasses)
}

// recordAtIsValue checks that a list's element read in one walk
// (aksRecordAt) reads as value reads it, and that the walk leaves the
// cursor after it.
func recordAtIsValue(t *testing.T, v []byte) {
	t.Helper()
	v = bytes.TrimSpace(v)
	if len(v) == 0 || v[0] != '{' {
		return
	}
	end := -1
	once := readRecordLine(v, func(cv *converter) {
		cv.depth = 1 // an element of a list
		s := scanner{jsonscan.Cursor{Data: v}}
		if cv.aksRecordAt(&s, 1) {
			end = s.Pos
		} else {
			cv.value(v, 1)
		}
	})
	twice := readRecordLine(v, func(cv *converter) {
		cv.depth = 1
		cv.value(v, 1)
	})
	if once != twice {
		t.Fatalf("%q: read in one walk as\n%s\nas a value as\n%s", v, once, twice)
	}
	if end >= 0 && end != len(v) && wholeValue(v) {
		t.Fatalf("%q: the walk ended at %d of %d", v, end, len(v))
	}
}

// TestAKSRecordAtIsValue: an Event Hubs message's records, kept,
// dropped, of other categories and malformed, read in one walk as
// value reads them.
func TestAKSRecordAtIsValue(t *testing.T) {
	cases := [][]byte{
		[]byte(`{"category":"kube-audit","properties":{"log":"{}"}`),
		[]byte(`{"category":"guard","properties":{"log":"x"}}`),
		[]byte(`{"category":"kube-audit","properties":{"pod":"p"}}`),
		[]byte(`{"category":1,"properties":{"log":"{}"}}`),
		[]byte(`{"properties":{"log":{"kind":"Event"}},"category":"kube-audit-admin"}`),
		[]byte(`{"category":"kube-audit","properties":{"log":"\u0041"}}`),
		[]byte(`{"category":"kube-audit","properties":{"log":"{}"},"verb":"get"}`),
		[]byte(`{"category":"kube-audit","properties":{"log":"{}"},"x":[}`),
		[]byte(`{"records":[]}`),
	}
	for _, v := range append(cases, aksRecords(formEvents())...) {
		recordAtIsValue(t, v)
	}
}

// FuzzAKSRecordAtIsValue: any element reads in one walk as a value.
func FuzzAKSRecordAtIsValue(f *testing.F) {
	for _, l := range formEvents() {
		f.Add(mustJSON(aksRecordOf(l, "kube-audit"), ""))
	}
	f.Add([]byte(`{"category":"kube-audit","properties":{"log":"{}"},"verb":"get"}`))
	f.Fuzz(recordAtIsValue)
}
