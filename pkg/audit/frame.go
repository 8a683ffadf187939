package audit

import (
	"bytes"

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
		if n, ok := acc.cv.logEvent(d[i:], line); ok {
			p.values++
			q = i + n
			continue
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

// valueStarts are the bytes a list's value or comma starts with.
const valueStarts = "{[\",0123456789-tfn"

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

// listOnCores reads the values of a list on every core: windows framed
// in parts by the workers, and by the stream itself where a part cannot
// be (up to until, an offset in the whole stream).
func (s *stream) listOnCores(p *pool) error {
	until := 0
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

// parts reads a window of the list in parts on the workers, and returns
// up to where the stream is to frame the values itself (an offset in the
// whole stream): a part that could not be framed, or the whole window
// when it holds no cut. While the workers frame, the stream reads the
// next window past the end of this one.
func (s *stream) parts(p *pool) int {
	if s.fill(p.window) != nil {
		p.oneFramer = true // the stream meets the error again where it would have
		return 0
	}
	cs := cuts(s.buf, s.pos, p.size, p.indent)
	if len(cs) == 0 {
		return s.dropped + len(s.buf) + 1 // a value at least, or the list's end
	}
	parts := make([]*part, len(cs))
	line, counted, start := s.lineAt(s.pos), s.pos, s.pos
	for k, cut := range cs {
		line += bytes.Count(s.buf[counted:start], []byte{'\n'})
		counted = start
		parts[k] = &part{d: s.buf, start: start, cut: cut, line: line, done: make(chan struct{})}
		start = cut
	}
	go func() {
		for _, pt := range parts {
			p.jobs <- valueBatch{part: pt}
		}
	}()
	s.readAhead(p.window)
	return s.take(p, parts)
}

// take takes the parts framed in order, as far as each starts where the
// one before it left off, and returns up to where the stream is to frame
// the values itself.
func (s *stream) take(p *pool, parts []*part) int {
	until := 0
	for k, pt := range parts {
		<-pt.done // every part is waited for: they read the window
		switch {
		case until > 0:
		case pt.odd:
			s.pos, until = pt.start, s.dropped+pt.cut
		case !pt.synced:
			p.commit(pt)
			s.pos, until = pt.exit, s.dropped+pt.exit
		default:
			p.commit(pt)
			s.pos = pt.cut
			if k > 0 && p.indent < 0 {
				p.indent = lineIndent(s.buf, jsonskip.Space(s.buf, pt.start))
			}
		}
	}
	return max(until, s.dropped+s.pos)
}
