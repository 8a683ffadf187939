package snapshotio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// defaultYAMLStreamAt is the document size from which a `kubectl get -o
// yaml` List is read item by item. Smaller documents are parsed whole,
// with full YAML semantics; a bigger one would need its whole text and a
// generic tree of it in memory at once.
const defaultYAMLStreamAt = 32 << 20

// yamlLines reads lines, counting them, each bounded by the size limit.
type yamlLines struct {
	br   *bufio.Reader
	line int
	max  int
	long []byte
}

// next returns the next line with its newline (none at the end of input),
// valid until the next call, or io.EOF.
func (y *yamlLines) next() ([]byte, error) {
	line, err := y.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		y.long = append(y.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(y.long) > y.max {
				return nil, fmt.Errorf("line %d is longer than the limit of %d bytes", y.line+1, y.max)
			}
			line, err = y.br.ReadSlice('\n')
			y.long = append(y.long, line...)
		}
		line = y.long
	}
	if len(line) == 0 && err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, err
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	y.line++
	return line, nil
}

// isDocBoundary reports a "---" separator or "..." end marker line.
func isDocBoundary(line []byte) bool {
	for _, m := range []string{"---", "..."} {
		if bytes.HasPrefix(line, []byte(m)) && (len(line) == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\n' || line[3] == '\r' || line[3] == '#') {
			return true
		}
	}
	return false
}

// docLineError carries the line where a document starts.
type docLineError struct {
	start int
	err   error
}

func (e *docLineError) Error() string { return e.err.Error() }
func (e *docLineError) Unwrap() error { return e.err }

// yamlDoc accumulates one YAML document. It also follows the shape of
// kubectl's List output, "items:" at column 0 followed by "- " items, so
// that a document too big to hold can switch to reading item by item.
type yamlDoc struct {
	buf       []byte // the whole text, until streaming starts
	startLine int

	inItems  bool
	sawItems bool
	// started and flush: the first content line is at column 0, as in
	// kubectl's output; only then does the items shape mean anything.
	started, flush bool
	itemStart      int // offset in buf of the current item, -1 if none
	itemLine       int
	done           [][2]int // completed items (offsets in buf)
	doneLines      []int
	top            []byte // text outside items, once streaming
	streaming      bool
	item           []byte // current item's text, once streaming
}

// readYAML reads a multi-document YAML stream; each document becomes
// JSON and goes through the same reader as JSON input.
func (rd *reader) readYAML(r io.Reader, file string, hint typeHint) error {
	y := &yamlLines{br: bufio.NewReaderSize(r, 64<<10), max: rd.max}
	for doc := 1; ; doc++ {
		more, err := rd.yamlDocument(y, file, hint, doc)
		var dl *docLineError
		if errors.As(err, &dl) && dl.start > 1 {
			// The YAML parser counts lines from the document's start.
			return fmt.Errorf("document %d (from line %d): %w", doc, dl.start, dl.err)
		}
		if err != nil {
			return fmt.Errorf("document %d: %w", doc, err)
		}
		if !more {
			return nil
		}
	}
}

// yamlDocument reads one document; more is false at the end of input.
func (rd *reader) yamlDocument(y *yamlLines, file string, hint typeHint, doc int) (more bool, err error) {
	d := &yamlDoc{itemStart: -1, startLine: y.line + 1}
	start := rd.objs.Len()
	rd.listHinted = rd.listHinted[:0]
	p := newYAMLPipe(func(j *yamlJob) error { return rd.yamlItem(j, file, hint, doc) })
	defer p.close()
	emit := p.emit
	for {
		line, err := y.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return false, err
		}
		if isDocBoundary(line) {
			if len(bytes.TrimSpace(d.buf)) == 0 && !d.streaming {
				d.buf = d.buf[:0] // a leading separator starts the first document
				d.startLine = y.line + 1
				continue
			}
			more = true
			break
		}
		if err := d.add(line, y.line, emit); err != nil {
			return false, err
		}
		if !d.streaming && len(d.buf) > rd.yamlStreamAt && d.flush && d.sawItems && (d.itemStart >= 0 || len(d.done) > 0) {
			if err := d.startStreaming(emit); err != nil {
				return false, err
			}
		}
		if !d.streaming && len(d.buf) > rd.max {
			return false, fmt.Errorf("larger than the limit of %d bytes; use JSON (kubectl get -o json), which kgc streams, or raise the limit", rd.max)
		}
		if d.streaming && (len(d.top) > rd.max || len(d.item) > rd.max) {
			return false, &errTooLarge{rd.max}
		}
	}
	if !d.streaming {
		if err := rd.yamlWhole(d.buf, file, hint, doc); err != nil {
			return false, &docLineError{d.startLine, err}
		}
		return more, nil
	}
	if d.item != nil {
		if err := emit(d.item, d.itemLine); err != nil {
			return false, err
		}
	}
	if err := p.drain(0); err != nil {
		return false, err
	}
	// The List's own fields (kind after items in kubectl's output) type the
	// items that carry no type.
	js, err := yaml.YAMLToJSON(d.top)
	if err != nil {
		return false, fmt.Errorf("invalid YAML outside the items: %w", err)
	}
	var kind, apiVersion string
	if f, err := splitTop(bytes.TrimSpace(js)); err == nil {
		kind, apiVersion = fieldString(f.kind), fieldString(f.apiVersion)
	}
	rd.plainDocs++
	if strings.HasSuffix(kind, "List") {
		rd.listCapturedAt(file, js)
	}
	rd.noteTypedList(apiVersion, kind)
	if len(kind) > 4 && kind[len(kind)-4:] == "List" {
		for _, i := range rd.listHinted {
			if o := rd.objs.At(i); i >= start && o.Kind == "" {
				o.APIVersion, o.Kind = apiVersion, kind[:len(kind)-4]
			}
		}
	}
	return more, nil
}

// add takes one line of the document, following the items shape.
func (d *yamlDoc) add(line []byte, lineNo int, emit func([]byte, int) error) error {
	col0 := len(line) > 0 && line[0] != ' ' && line[0] != '\t' && line[0] != '\n' && line[0] != '\r'
	if !d.started && len(bytes.TrimSpace(line)) > 0 && line[0] != '#' {
		d.started, d.flush = true, col0
	}
	switch {
	case !d.inItems && (string(line) == "items:\n" || string(line) == "items:\r\n" || string(line) == "items:"):
		d.inItems, d.sawItems = true, true
		if !d.streaming {
			d.buf = append(d.buf, line...)
		}
		return nil
	case d.inItems && (bytes.HasPrefix(line, []byte("- ")) || bytes.HasPrefix(line, []byte("-\n"))):
		if err := d.endItem(emit); err != nil {
			return err
		}
		d.itemLine = lineNo
		if d.streaming {
			d.item = append([]byte{}, line[2:]...)
		} else {
			d.itemStart = len(d.buf)
			d.buf = append(d.buf, line...)
		}
		return nil
	case d.inItems && col0 && line[0] != '#':
		if err := d.endItem(emit); err != nil {
			return err
		}
		d.inItems = false
	}
	switch {
	case !d.streaming:
		d.buf = append(d.buf, line...)
	case d.inItems:
		if d.item != nil && line[0] != '#' {
			d.item = append(d.item, unindent2(line)...)
		}
	default:
		d.top = append(d.top, line...)
	}
	return nil
}

// endItem closes the current item: recorded while buffering, emitted
// while streaming.
func (d *yamlDoc) endItem(emit func([]byte, int) error) error {
	if d.streaming {
		if d.item == nil {
			return nil
		}
		text := d.item
		d.item = nil
		return emit(text, d.itemLine)
	}
	if d.itemStart >= 0 {
		d.done = append(d.done, [2]int{d.itemStart, len(d.buf)})
		d.doneLines = append(d.doneLines, d.itemLine)
		d.itemStart = -1
	}
	return nil
}

// startStreaming emits the items buffered so far and keeps only the text
// outside them and the current item.
func (d *yamlDoc) startStreaming(emit func([]byte, int) error) error {
	d.streaming = true
	prev := 0
	for i, r := range d.done {
		d.top = append(d.top, d.buf[prev:r[0]]...)
		prev = r[1]
		if err := emit(itemText(d.buf[r[0]:r[1]]), d.doneLines[i]); err != nil {
			return err
		}
	}
	if d.itemStart >= 0 {
		d.top = append(d.top, d.buf[prev:d.itemStart]...)
		d.item = itemText(d.buf[d.itemStart:])
		d.itemStart = -1
	} else {
		d.top = append(d.top, d.buf[prev:]...)
	}
	d.buf, d.done, d.doneLines = nil, nil, nil
	return nil
}

// itemText turns "- a: 1\n  b: 2\n" into "a: 1\nb: 2\n".
func itemText(s []byte) []byte {
	out := make([]byte, 0, len(s)) // never nil: nil means "no current item"
	first := true
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\n')
		line := s
		if i >= 0 {
			line, s = s[:i+1], s[i+1:]
		} else {
			s = nil
		}
		if first {
			out = append(out, line[min(2, len(line)):]...)
			first = false
			continue
		}
		if len(line) > 0 && line[0] == '#' {
			continue
		}
		out = append(out, unindent2(line)...)
	}
	return out
}

func unindent2(line []byte) []byte {
	if bytes.HasPrefix(line, []byte("  ")) {
		return line[2:]
	}
	return line
}

// yamlJob is one streamed item on its way from YAML to an Object.
type yamlJob struct {
	text []byte
	line int
	n    int
	js   []byte
	err  error
	done chan struct{}
}

// yamlPipe converts streamed items to JSON on every core (the YAML parser
// is the slow part) and hands them back in input order, so that warnings
// and the first-of-duplicates rule do not depend on scheduling.
type yamlPipe struct {
	jobs    chan *yamlJob
	pending []*yamlJob
	next    int
	handle  func(*yamlJob) error
	started bool
	closed  bool
}

const yamlWindow = 256

func newYAMLPipe(handle func(*yamlJob) error) *yamlPipe {
	return &yamlPipe{handle: handle}
}

func (p *yamlPipe) emit(text []byte, line int) error {
	if !p.started {
		p.started = true
		p.jobs = make(chan *yamlJob, yamlWindow)
		for range max(runtime.GOMAXPROCS(0), 1) {
			go func(jobs <-chan *yamlJob) {
				for j := range jobs {
					j.js, j.err = yaml.YAMLToJSON(j.text)
					j.text = nil
					close(j.done)
				}
			}(p.jobs)
		}
	}
	j := &yamlJob{text: text, line: line, n: p.next, done: make(chan struct{})}
	p.next++
	p.pending = append(p.pending, j)
	p.jobs <- j
	return p.drain(yamlWindow)
}

// drain handles finished items in order until at most keep are pending.
func (p *yamlPipe) drain(keep int) error {
	for len(p.pending) > keep {
		j := p.pending[0]
		<-j.done
		p.pending[0] = nil
		p.pending = p.pending[1:]
		if err := p.handle(j); err != nil {
			return err
		}
	}
	return nil
}

// close stops the workers; items still queued are converted and dropped.
func (p *yamlPipe) close() {
	if p.started && !p.closed {
		p.closed = true
		close(p.jobs)
	}
}

// yamlItem reads one streamed List item.
func (rd *reader) yamlItem(j *yamlJob, file string, hint typeHint, doc int) error {
	if j.err != nil {
		return fmt.Errorf("item at line %d: invalid YAML: %w", j.line, j.err)
	}
	js := bytes.TrimSpace(j.js)
	desc := func() string { return fmt.Sprintf("document %d items[%d]", doc, j.n) }
	if len(js) == 0 || js[0] != '{' {
		rd.warnings = append(rd.warnings, snapshot.Warning{File: file, Object: desc(), Message: "skipped: not an object"})
		return nil
	}
	f, err := splitTop(js)
	if err != nil {
		return fmt.Errorf("item at line %d: %w", j.line, err)
	}
	rd.add(file, desc, f, hint)
	return nil
}

// yamlWhole reads a document that was held whole.
func (rd *reader) yamlWhole(data []byte, file string, hint typeHint, doc int) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return fmt.Errorf("invalid YAML: %w", err)
	}
	if t := bytes.TrimSpace(js); len(t) == 0 || string(t) == "null" {
		return nil
	}
	if len(js) > rd.max {
		return fmt.Errorf("expands to more than the limit of %d bytes (YAML aliases?)", rd.max)
	}
	if js[0] != '{' && js[0] != '[' {
		return fmt.Errorf("not a Kubernetes object or list")
	}
	return rd.readJSON(bytes.NewReader(js), file, hint, fmt.Sprintf("document %d", doc))
}
