package audit

import (
	"bytes"
	"errors"

	"github.com/kgc-dev/kgc/internal/jsonscan"
)

// This file reads the files an Event Hubs consumer writes: a message
// ({"records":[...]}, AKS's diagnostic records, see aks.go) a line.

// messageLines: a file of Event Hubs messages ({"records":[...]}) a
// line, as a consumer writes each message's body, is read a line at a
// time on every core, each line's records converted by its worker. The
// lines sniffed must each be a message whole: a message written over
// several lines is read as a stream of JSON values.
func messageLines(f form, list string, sniffed []byte) bool {
	if f != formAKSDiagnostics || list != "records" {
		return false
	}
	lines := 0
	for len(sniffed) > 0 {
		i := indexNewline(sniffed)
		if i < 0 {
			break // the last line sniffed may be cut short
		}
		if l := bytes.TrimSpace(sniffed[:i]); len(l) > 0 {
			if l[0] != '{' || !wholeValue(l) {
				return false
			}
			lines++
		}
		sniffed = sniffed[i+1:]
	}
	return lines > 0
}

// messagePrefix is how a message line starts as a consumer writes it.
const messagePrefix = `{"records":[`

// messageLine reads a line that is one message and nothing else, every
// record a diagnostic record, as the prefilter and then value would,
// without the prefilter's walk: it would skip the whole message only to
// find it has no verb, and value walk it again. The records are walked
// first (prewalk) and filed by value once the whole line proved well
// formed, so that a line broken after its first records files none, as
// the prefilter refused it. It declines (false, nothing read) any other
// line, which takes the longer way.
func (c *converter) messageLine(l []byte, n int) bool {
	if c.depth != 0 || !bytes.HasPrefix(l, []byte(messagePrefix)) || !c.prewalk(l) {
		return false
	}
	c.value(l, n)
	c.walked.reset()
	return true
}

// prewalk walks the records of message line l into c.walked; false, and
// nothing kept, when l is anything but a whole message of diagnostic
// records.
func (c *converter) prewalk(l []byte) bool {
	w := &c.walked
	w.reset()
	w.line = l
	s := scanner{jsonscan.Cursor{Data: l, Pos: len(messagePrefix) - 1}}
	err := s.Array(func(int) error {
		start := s.Pos
		r, ok := c.aksWalkRecord(&s, false)
		if !ok {
			return errDeclined
		}
		w.add(start, s.Pos, r)
		return nil
	})
	if err != nil || s.Peek() != '}' || s.Pos+1 != len(l) {
		w.reset()
		return false
	}
	return true
}

// errDeclined stops a walk of a line another way reads.
var errDeclined = errors.New("declined")

// walkedRecords are the records of one message line walked, in order,
// each event's text copied out of the converter's buffer, which the
// next record's walk reuses.
type walkedRecords struct {
	line    []byte // the message line walked
	records []walkedRecord
	// taken counts the records next took: records keeps its array for
	// the next line, where taking them off its front left it none and
	// every message line made one.
	taken int
	text  []byte
}

// walkedRecord is a record walked: where it starts and ends in the line,
// what its walk found, and where its event's text is.
type walkedRecord struct {
	start, end int
	fields     aksFields
	// from and to are where its event's text is; hasLog says the walk
	// found one, empty or not.
	from, to int
	hasLog   bool
}

func (w *walkedRecords) add(start, end int, r aksFields) {
	from, log := len(w.text), r.log != nil
	w.text = append(w.text, r.log...)
	r.log = nil
	w.records = append(w.records, walkedRecord{start: start, end: end, fields: r, from: from, to: len(w.text), hasLog: log})
}

// next takes the record walked that starts at s's cursor, moving s past
// it, when s walks the line walked.
func (w *walkedRecords) next(s *scanner) (walkedRecord, bool) {
	if w.taken == len(w.records) || len(s.Data) == 0 || &s.Data[0] != &w.line[0] || w.records[w.taken].start != s.Pos {
		return walkedRecord{}, false
	}
	r := w.records[w.taken]
	w.taken++
	if r.hasLog {
		r.fields.log = w.text[r.from:r.to:r.to]
	}
	s.Pos = r.end
	return r, true
}

// reset forgets the records walked, keeping the buffers unless a long
// message grew them past what is worth keeping.
func (w *walkedRecords) reset() {
	w.line = nil
	w.records, w.taken = w.records[:0], 0
	if cap(w.text) > maxKeptBuffer {
		w.text = nil
	}
	w.text = w.text[:0]
}
