package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/kgc-dev/kgc/internal/jsonskip"
)

// This file reads a file of one event per line on every core: the calling
// goroutine reads (and decompresses) chunks of whole lines, workers filter
// and parse them, each into its own accumulator, merged at the end. Order
// does not matter until the stages are sorted, so no worker waits for
// another.

// chunkSize is how much the framer reads at once; a longer line grows it.
const chunkSize = 1 << 20

// cores is how a file's reading is split: into chunks of about chunk
// bytes, read by workers side by side.
type cores struct {
	workers, chunk int
	// oneFramer frames a document's list on one goroutine (tests compare
	// it with framing in parts: see frame.go).
	oneFramer bool
}

// split is how opts say to split the reading: by default a worker per
// core (at most 4: the framer and the request table need a core between
// them) and chunks of chunkSize.
func split(opts Options) cores {
	if opts.cores != nil {
		return *opts.cores
	}
	return cores{workers: min(max(runtime.GOMAXPROCS(0), 1), 4), chunk: chunkSize}
}

// maxNamed is how many bad lines of a file are named one by one.
const maxNamed = 3

type chunk struct {
	data      []byte
	firstLine int // the line number of data's first line
	first     bool
}

type badLine struct {
	line int
	msg  string
}

// accumulator is what a worker read of one file.
type accumulator struct {
	path            string
	idx             int
	opts            Options
	in              interner
	c               *requestTable
	batch           []stage // the stages read since the last send
	events, dropped int
	window          window
	bad             []badLine // the first maxNamed, by line
	badCount        int
	v1beta1         bool
	v1alpha1        bool
	fatal           *badLine // the first line is not an audit event
	// forms are the forms the file's records were in; lost, passed,
	// skippedBodies, bodilessDeletes and insightsRows what they lacked
	// (see loss.go).
	forms                                                forms
	lost                                                 lost
	passed, skippedBodies, bodilessDeletes, insightsRows int
	// cv converts the lines of other forms among native ones.
	cv *converter
	// prefixed: each line starts with a word to drop before its event
	// (a node name, a timestamp: see prefix.go).
	prefixed bool
	// hold keeps the batches of stages in held rather than sending them:
	// a part of a document framed ahead of its turn (see frame.go).
	hold bool
	held [][]stage
	// inParts counts the values read in parts taken.
	inParts int
	// head is the prefilter's reading of the line being read, held
	// here rather than copied out of the prefilter at every line. A line
	// converted (a platform's record) reads its events as lines again,
	// and they reuse it: line is done with it by then.
	head head
}

func newAccumulator(idx int, path string, opts Options, c *requestTable) *accumulator {
	return &accumulator{idx: idx, path: path, opts: opts, c: c}
}

// flush sends the stages read to the request table.
func (a *accumulator) flush() {
	if a.hold {
		if len(a.batch) > 0 {
			a.held = append(a.held, a.batch)
		}
	} else {
		a.c.send(a.batch)
	}
	a.batch = nil
}

// readLines frames src into chunks of lines for the workers.
func readLines(src io.Reader, idx int, path string, firstLine int, opts Options, c *requestTable, setup func(*accumulator)) (*accumulator, error) {
	sp := split(opts)
	workers := sp.workers
	jobs := make(chan chunk, workers)
	free := make(chan []byte, 2*workers+2) // more than can be in flight
	accs := make([]*accumulator, workers)
	var wg sync.WaitGroup
	for w := range accs {
		accs[w] = newAccumulator(idx, path, opts, c)
		setup(accs[w])
		wg.Add(1)
		go func(acc *accumulator) {
			defer wg.Done()
			for c := range jobs {
				acc.chunk(c)
				acc.flush()
				select {
				case free <- c.data[:0]:
				default:
				}
			}
		}(accs[w])
	}
	err := frame(src, jobs, free, firstLine, sp.chunk)
	close(jobs)
	wg.Wait()
	if err != nil {
		return nil, fmt.Errorf("reading audit log %s: %w", path, err)
	}
	return mergeAccumulators(accs), nil
}

// frame reads src into chunks ending at a line's end.
func frame(src io.Reader, jobs chan<- chunk, free chan []byte, line, size int) error {
	var carry []byte
	first := true
	for {
		var buf []byte
		select {
		case buf = <-free:
		default:
			buf = make([]byte, 0, size)
		}
		if cap(buf) < 2*len(carry) {
			buf = make([]byte, 0, 2*len(carry)+size)
		}
		buf = append(buf[:0], carry...)
		n, err := io.ReadFull(src, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			return err
		}
		end := len(buf)
		if !eof {
			end = bytes.LastIndexByte(buf, '\n') + 1
		}
		carry = append(carry[:0], buf[end:]...)
		if end > 0 {
			jobs <- chunk{data: buf[:end], firstLine: line, first: first}
			line += bytes.Count(buf[:end], []byte{'\n'})
			first = false
		}
		if eof {
			return nil
		}
	}
}

// chunk reads each line of c.
func (a *accumulator) chunk(c chunk) {
	d := c.data
	line := c.firstLine
	for len(d) > 0 {
		i := bytes.IndexByte(d, '\n')
		l := d
		if i >= 0 {
			l, d = d[:i], d[i+1:]
		} else {
			d = nil
		}
		a.line(l, line, c.first && line == c.firstLine)
		line++
	}
}

// line reads one line: blank lines are skipped, dropped lines counted,
// kept ones parsed.
func (a *accumulator) line(l []byte, n int, firstOfFile bool) {
	l = bytes.TrimSpace(l)
	if len(l) == 0 {
		return
	}
	if a.prefixed {
		l = dropPrefix(l)
	}
	if a.cv != nil && a.cv.active == 0 && (!firstOfFile || a.forms == 0) && len(l) > 0 && l[0] == '{' &&
		!bytes.HasPrefix(l, []byte(eventPrefix)) && (a.cv.aksLine(l, n) || a.cv.messageLine(l, n)) {
		return // an AKS storage blob's record, or an Event Hubs message
	}
	h := &a.head
	v, err := prefilter(l, h)
	if err == nil && v == keep {
		err = a.keep(l, h, n)
	}
	if err != nil && a.cv != nil && a.cv.active == 0 && (!firstOfFile || a.forms == 0) && isNotEvent(err) {
		// A line of another form: a platform's record a line, or one
		// among native lines (a collector's mixed file). A native
		// file's first line that is no event says it is no log.
		a.cv.value(l, n)
		return
	}
	if err != nil {
		a.badLine(l, n, err, firstOfFile)
		return
	}
	a.tally(h, v)
}

// tally counts an event read, with the prefilter's verdict on it.
func (a *accumulator) tally(h *head, v verdict) {
	a.events++
	a.v1beta1 = a.v1beta1 || h.v1beta1
	a.v1alpha1 = a.v1alpha1 || h.v1alpha1
	if v == drop {
		a.dropped++
		a.window.add(h.stageTime)
	}
}

// keep parses a kept line, from what the prefilter read of it (h), and
// files its stage.
func (a *accumulator) keep(l []byte, h *head, n int) error {
	st, err := parseKept(l, h, &a.in)
	if err == nil {
		a.file(st, n)
	}
	return err
}

// logEntry reads a GKE LogEntry at line n, its protoPayload at v[at:]
// (see gke.go).
func (a *accumulator) logEntry(v []byte, at, n int) error {
	verd, st, t, err := gkeRead(v, at, &a.in)
	switch {
	case err != nil:
		return err
	case verd == passOver:
		a.passed++
		return nil
	case verd == keep:
		a.file(st, n)
	}
	a.tally(&head{stageTime: t}, verd)
	return nil
}

// file files a kept stage read at line n, when it is in the window.
func (a *accumulator) file(st stage, n int) {
	st.file, st.ev.Source = a.idx, Position{File: a.path, Line: n}
	a.v1beta1 = a.v1beta1 || st.v1beta1
	a.v1alpha1 = a.v1alpha1 || st.v1alpha1
	a.skippedBodies += int(st.skipped)
	if st.ev.Delete == nil && deleteVerb(st.ev.Verb) {
		a.bodilessDeletes++
	}
	a.window.addTime(st.ev.Time)
	if (a.opts.Since.IsZero() || !st.ev.Time.Before(a.opts.Since)) && (a.opts.Until.IsZero() || !st.ev.Time.After(a.opts.Until)) {
		if a.batch == nil {
			a.batch = a.c.batch()
		}
		a.batch = append(a.batch, st)
		if len(a.batch) == cap(a.batch) {
			a.flush()
		}
	}
}

func (a *accumulator) badLine(l []byte, n int, err error, firstOfFile bool) {
	msg := err.Error()
	switch {
	case isNotEvent(err):
	case len(l) > 0 && l[0] != '{':
		if wholeValue(l) {
			msg = "not an audit event: it is not a JSON object"
		} else {
			msg = "not valid JSON"
		}
	case errors.Is(err, errIncomplete):
		msg = "not valid JSON: the line ends inside a value (a truncated write?)"
	default:
		msg = "not valid JSON: " + msg
		var se *jsonskip.SyntaxError
		if errors.As(err, &se) {
			msg = fmt.Sprintf("%s at byte %d", msg, se.Off+1)
		}
	}
	if firstOfFile && a.fatal == nil {
		a.fatal = &badLine{n, msg}
	}
	a.badCount++
	if len(a.bad) < maxNamed {
		a.bad = append(a.bad, badLine{n, msg})
	}
}

// mergeAccumulators adds the workers' accumulators into the first.
func mergeAccumulators(accs []*accumulator) *accumulator {
	out := accs[0]
	for _, a := range accs[1:] {
		out.add(a)
		out.bad = append(out.bad, a.bad...)
	}
	out.sortBad()
	return out
}

// add adds what o read, but its bad lines, to what a read.
func (a *accumulator) add(o *accumulator) {
	a.events += o.events
	a.dropped += o.dropped
	a.window.merge(&o.window)
	a.badCount += o.badCount
	a.v1beta1 = a.v1beta1 || o.v1beta1
	a.v1alpha1 = a.v1alpha1 || o.v1alpha1
	a.forms |= o.forms
	a.lost |= o.lost
	a.passed += o.passed
	a.skippedBodies += o.skippedBodies
	a.bodilessDeletes += o.bodilessDeletes
	a.insightsRows += o.insightsRows
	a.inParts += o.inParts
	if o.fatal != nil {
		a.fatal = o.fatal
	}
}

// sortBad keeps the first maxNamed bad lines by line; those of one line
// (a document's values on one line) in the order they were added.
func (a *accumulator) sortBad() {
	sort.SliceStable(a.bad, func(i, j int) bool { return a.bad[i].line < a.bad[j].line })
	a.bad = a.bad[:min(len(a.bad), maxNamed)]
}

// window is the earliest and latest stageTimestamp seen. Timestamps as
// the kube-apiserver writes them (UTC, microseconds) compare as bytes, so
// the dropped majority is never parsed.
type window struct {
	lo, hi   []byte    // canonical timestamps
	min, max time.Time // the others, parsed
}

// canonicalTime is len("2006-01-02T15:04:05.000000Z").
const canonicalTime = 27

func (w *window) add(b []byte) {
	if len(b) != canonicalTime || b[canonicalTime-1] != 'Z' || b[10] != 'T' {
		if t, err := time.Parse(time.RFC3339Nano, string(b)); err == nil {
			w.addTime(t.UTC())
		}
		return
	}
	if w.lo == nil || bytes.Compare(b, w.lo) < 0 {
		w.lo = append(w.lo[:0], b...)
	}
	if w.hi == nil || bytes.Compare(b, w.hi) > 0 {
		w.hi = append(w.hi[:0], b...)
	}
}

func (w *window) addTime(t time.Time) {
	if w.min.IsZero() || t.Before(w.min) {
		w.min = t
	}
	if w.max.IsZero() || t.After(w.max) {
		w.max = t
	}
}

func (w *window) merge(o *window) {
	for _, b := range [][]byte{o.lo, o.hi} {
		if b != nil {
			w.add(b)
		}
	}
	for _, t := range []time.Time{o.min, o.max} {
		if !t.IsZero() {
			w.addTime(t)
		}
	}
}

// bounds folds the byte-compared timestamps into the parsed ones.
func (w *window) bounds() (time.Time, time.Time) {
	for _, b := range [][]byte{w.lo, w.hi} {
		if b == nil {
			continue
		}
		if t, err := time.Parse(time.RFC3339Nano, string(b)); err == nil {
			w.addTime(t.UTC())
		}
	}
	return w.min, w.max
}

// wholeValue reports whether a line is one JSON value: a number running
// to its end is whole, the line being complete.
func wholeValue(l []byte) bool {
	if c := l[0]; c == '-' || c >= '0' && c <= '9' {
		return jsonskip.Number(l, 0) == len(l)
	}
	end, err := jsonskip.Value(l, 0)
	return err == nil && end == len(l)
}

func indexNewline(d []byte) int { return bytes.IndexByte(d, '\n') }
