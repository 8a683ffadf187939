package audit

import (
	"bytes"
	"io"
	"slices"

	"github.com/kgc-dev/kgc/internal/jsonskip"
)

// This file frames the values of a document's list (filter-log-events'
// events, gcloud's array, an EventList's items) on every core, where the
// stream framed them one after the other (stream.list) and the framing
// took a fifth of the CPU on one goroutine. A window of the document is
// cut into parts at newlines, which JSON allows only between tokens; each
// worker frames and converts the values of a part from its cut as the
// stream would from there, holding what it read. The parts are then
// taken in order: a part is the stream's reading when the part before it
// left off exactly at its cut, between the list's values. Any other part
// (a cut inside a value, as in a pretty-printed value's lines) is read
// again from where the part before it left off, and a part that meets
// anything else (the list's end, bad JSON, a value running past the
// window) is read again by the stream itself: what is read never depends
// on where the cuts fell.

// part is a range of a window framed by a worker.
type part struct {
	d          []byte // the window
	start, cut int    // frame from start; the next part starts at cut (a newline)
	line       int    // the line at d[start]
	acc        *accumulator
	values     int
	exit       int  // the position between values where framing stopped
	synced     bool // exit ≤ cut and the space after exit holds the cut
	odd        bool // stopped at something else: the list's end, bad JSON, the window's end
	done       chan struct{}
}

// frame frames and converts the values of p into acc.
func (p *part) frame(acc *accumulator) {
	p.acc = acc
	d, q, line, counted := p.d, p.start, p.line, p.start
	events := true // the values may be log events (see logEvent) until one is not
	for {
		if q > p.cut {
			p.exit = q
			return
		}
		i := jsonskip.Space(d, q)
		if i > p.cut {
			p.exit, p.synced = q, true
			return
		}
		if i == len(d) || bytes.IndexByte([]byte(valueStarts), d[i]) < 0 {
			p.odd = true
			return
		}
		if d[i] == ',' {
			q = i + 1
			continue
		}
		line += bytes.Count(d[counted:i], []byte{'\n'})
		counted = i
		if events {
			if n, ok := acc.cv.logEvent(d[i:], line); ok {
				p.values++
				q = i + n
				continue
			}
			events = false
		}
		end, err := jsonskip.Value(d, i)
		if err != nil {
			p.odd = true
			return
		}
		acc.cv.value(d[i:end], line)
		p.values++
		q = end
	}
}

// valueStarts are the bytes a list's value or comma starts with, and
// listTokens those or its end (named in errors, in this order).
const (
	valueStarts = `{[",` + scalarStarts
	listTokens  = `{[",]` + scalarStarts
)

// scalarStarts are the bytes a number or a literal starts with.
const scalarStarts = "0123456789-tfn"

// cuts returns where the window d[from:] is cut into parts of about size
// bytes: at newlines after which a list's value or a comma comes, as
// indented as indent says when it is known (≥ 0). The last part ends at
// the last cut: what follows is left for the next window.
func cuts(d []byte, from, size, indent int) []int {
	var out []int
	for at := from + size; at < len(d); {
		n := bytes.IndexByte(d[at:], '\n')
		if n < 0 {
			break
		}
		nl := at + n
		j := jsonskip.Space(d, nl)
		if j < len(d) && (d[j] == '{' || d[j] == ',') && (indent < 0 || lineIndent(d, j) == indent) {
			out = append(out, nl)
			at = nl + size
			continue
		}
		at = nl + 1
	}
	return out
}

// lineIndent is how many bytes of space precede d[j] on its line.
func lineIndent(d []byte, j int) int {
	k := j
	for k > 0 && (d[k-1] == ' ' || d[k-1] == '\t') {
		k--
	}
	return j - k
}

// maxMisses is how many windows of a list may end in a part not taken
// before the stream frames the rest of it alone.
const maxMisses = 16

// listOnCores reads the values of a list on every core: windows framed
// in parts by the workers, and by the stream itself where a part cannot
// be (up to until, an offset in the whole stream).
func (s *stream) listOnCores(p *pool) error {
	// The first values are framed by the stream: a short list (one of
	// an Event Hubs file's many messages) is not worth a window.
	until := s.dropped + s.pos + 2*p.size
	p.learn(s.buf, s.pos)
	for {
		if s.dropped+s.pos >= until && !p.oneFramer {
			until = s.parts(p)
			continue
		}
		v, line, done, err := s.next(listTokens, ']')
		if done {
			return err
		}
		p.add(v, line)
	}
}

// listWindow is data of a list framed in parts: d[0] is at offset base of
// the stream; its first part starts at d[start], on line line.
type listWindow struct {
	d                 []byte
	base, start, line int
	parts             []*part
}

// wait waits for the workers to be done with the window's parts.
func (w *listWindow) wait() {
	for _, pt := range w.parts {
		<-pt.done
	}
}

// parts reads the list in windows, each framed in parts on the workers
// while the next is read and cut, and returns up to where the stream is
// to frame the values itself (an offset in the whole stream): a part
// that could not be framed, or what follows the last window cut.
func (s *stream) parts(p *pool) int {
	p.learn(s.buf, s.pos)
	d := s.readMore(s.buf[s.pos:], p.window-(len(s.buf)-s.pos))
	cur := p.cutWindow(d, s.dropped+s.pos, 0, s.lineAt(s.pos))
	var spare []byte
	for {
		if len(cur.parts) == 0 {
			s.resume(cur.d, cur.base, cur.start, cur.line)
			return cur.base + len(cur.d) + 1 // a value at least, or the list's end
		}
		last := cur.parts[len(cur.parts)-1]
		lastLine := last.line + bytes.Count(cur.d[last.start:last.cut], []byte{'\n'})
		var next *listWindow
		if !s.eof && s.err == nil {
			// The next window starts at the last cut.
			nd := s.readMore(append(spare[:0], cur.d[last.cut:]...), p.window)
			next = p.cutWindow(nd, cur.base+last.cut, 0, lastLine)
		}
		at, line, until, ok := p.take(cur)
		switch {
		case !ok:
			if p.misses++; p.misses > maxMisses {
				p.oneFramer = true // cuts that keep falling inside values
			}
			d := cur.d
			if next != nil {
				next.wait()
				d = slices.Concat(cur.d, next.d[len(cur.d)-last.cut:])
			}
			s.resume(d, cur.base, at, line)
			return cur.base + until
		case next == nil:
			s.resume(cur.d, cur.base, last.cut, lastLine)
			return cur.base + len(cur.d) + 1
		}
		spare, cur = cur.d, next
	}
}

// readMore reads up to n bytes more at the end of d; the end of the
// stream, or an error for more to return, is noted.
func (s *stream) readMore(d []byte, n int) []byte {
	if n <= 0 || s.eof || s.err != nil {
		return d
	}
	d = slices.Grow(d, n)
	got, err := io.ReadFull(s.src, d[len(d):len(d)+n])
	d = d[:len(d)+got]
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		s.eof = true
	case err != nil:
		s.err = err
	}
	return d
}

// resume hands the stream d, to go on at d[at], on line line.
func (s *stream) resume(d []byte, base, at, line int) {
	s.buf, s.pos, s.dropped = d[at:], 0, base+at
	s.counted, s.line = 0, line
}

// cutWindow cuts d from start into parts, and has the workers frame
// them.
func (p *pool) cutWindow(d []byte, base, start, line int) *listWindow {
	w := &listWindow{d: d, base: base, start: start, line: line}
	counted := start
	for _, cut := range cuts(d, start, p.size, p.indent) {
		line += bytes.Count(d[counted:start], []byte{'\n'})
		counted = start
		w.parts = append(w.parts, &part{d: d, start: start, cut: cut, line: line, done: make(chan struct{})})
		start = cut
	}
	p.start()
	go func() {
		for _, pt := range w.parts {
			p.jobs <- valueBatch{part: pt}
		}
	}()
	return w
}

// take takes the parts of w framed in order, as far as each starts where
// the one before it left off. Where one does not, it returns where the
// stream is to go on (at, on line), and up to where it frames the values
// itself.
func (p *pool) take(w *listWindow) (at, line, until int, ok bool) {
	ok = true
	for k, pt := range w.parts {
		<-pt.done // every part is waited for: they read the window
		switch {
		case !ok:
		case pt.odd:
			at, line, until, ok = pt.start, pt.line, pt.cut, false
		case !pt.synced:
			p.commit(pt)
			p.learn(w.d, pt.exit)
			at, line, until, ok = pt.exit, pt.line+bytes.Count(w.d[pt.start:pt.exit], []byte{'\n'}), pt.exit, false
		default:
			p.commit(pt)
			if k > 0 {
				p.learn(w.d, pt.start)
			}
		}
	}
	return at, line, until, ok
}

// learn learns how indented the list's values are from a position q
// between them, when the next comes on a line of its own.
func (p *pool) learn(d []byte, q int) {
	j := jsonskip.Space(d, q)
	for j < len(d) && d[j] == ',' {
		j = jsonskip.Space(d, j+1)
	}
	if p.indent < 0 && j < len(d) && bytes.IndexByte(d[q:j], '\n') >= 0 {
		p.indent = lineIndent(d, j)
	}
}
