package snapshotio

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/kgc-dev/kgc/internal/jsonskip"
)

// stream reads JSON values one at a time from a reader without holding
// more than the current value in memory, so a List of a million items
// costs one item's worth of buffer.
type stream struct {
	r      io.Reader
	buf    []byte
	pos    int
	end    int
	eof    bool
	rerr   error
	base   int64 // offset in the input of buf[0], for messages
	maxVal int   // largest single value accepted
}

func newStream(r io.Reader, maxVal int) *stream {
	if br, ok := r.(*bytes.Reader); ok && br.Size() == int64(br.Len()) {
		// Data already in memory (a YAML document converted to JSON) is
		// scanned in place.
		data := make([]byte, br.Len())
		_, _ = br.Read(data) // cannot fail: the bytes are in memory
		return &stream{r: br, buf: data, end: len(data), eof: true, maxVal: maxVal}
	}
	size := 256 << 10
	if maxVal < size {
		size = maxVal + 1
	}
	return &stream{r: r, buf: make([]byte, size), maxVal: maxVal}
}

// errTooLarge reports a value over the size limit.
type errTooLarge struct{ limit int }

func (e *errTooLarge) Error() string {
	return fmt.Sprintf("a single object or document is larger than the limit of %d bytes", e.limit)
}

// fill makes room and reads more input.
func (st *stream) fill() error {
	if st.eof {
		return io.ErrUnexpectedEOF
	}
	if st.pos > 0 {
		copy(st.buf, st.buf[st.pos:st.end])
		st.base += int64(st.pos)
		st.end -= st.pos
		st.pos = 0
	}
	if st.end == len(st.buf) {
		if st.end > st.maxVal {
			return &errTooLarge{st.maxVal}
		}
		n := min(2*len(st.buf), st.maxVal+1)
		nb := make([]byte, n)
		copy(nb, st.buf[:st.end])
		st.buf = nb
	}
	for {
		n, err := st.r.Read(st.buf[st.end:])
		st.end += n
		if err != nil {
			if errors.Is(err, io.EOF) {
				st.eof = true
				return nil
			}
			st.rerr = err
			return err
		}
		if n > 0 {
			return nil
		}
	}
}

// peek returns the next non-space byte, or io.EOF at the end of input.
func (st *stream) peek() (byte, error) {
	for {
		st.pos = jsonskip.Space(st.buf[:st.end], st.pos)
		if st.pos < st.end {
			return st.buf[st.pos], nil
		}
		if st.eof {
			return 0, io.EOF
		}
		if err := st.fill(); err != nil {
			return 0, err
		}
	}
}

// closes reports whether the next byte is c, the end of an empty
// container, and consumes it if so.
func (st *stream) closes(c byte) (bool, error) {
	got, err := st.peek()
	if err != nil {
		return false, st.wrap(err)
	}
	if got == c {
		st.pos++
	}
	return got == c, nil
}

// expect consumes byte c.
func (st *stream) expect(c byte) error {
	got, err := st.peek()
	if err != nil {
		return st.wrap(err)
	}
	if got != c {
		return st.errorf("expected %q, found %q", c, got)
	}
	st.pos++
	return nil
}

// value returns the bytes of the next JSON value; they stay valid until
// the next call on st.
func (st *stream) value() ([]byte, error) {
	if _, err := st.peek(); err != nil {
		return nil, st.wrap(err)
	}
	for {
		end, err := jsonskip.Value(st.buf[:st.end], st.pos)
		if err == nil {
			if end-st.pos > st.maxVal {
				return nil, &errTooLarge{st.maxVal}
			}
			v := st.buf[st.pos:end]
			st.pos = end
			return v, nil
		}
		var se *syntaxError
		if errors.As(err, &se) {
			return nil, st.errorfAt(se.Off, "%s", se.Msg)
		}
		if st.eof {
			if len(st.buf[st.pos:st.end]) > 0 && isNumberStart(st.buf[st.pos]) {
				// A bare number ends at the end of input.
				v := st.buf[st.pos:st.end]
				st.pos = st.end
				return v, nil
			}
			return nil, st.errorf("unexpected end of input inside a value")
		}
		if err := st.fill(); err != nil {
			return nil, st.wrap(err)
		}
	}
}

func isNumberStart(c byte) bool { return c == '-' || (c >= '0' && c <= '9') }

func (st *stream) wrap(err error) error {
	var tl *errTooLarge
	if errors.As(err, &tl) || errors.Is(err, st.rerr) && st.rerr != nil {
		return err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return st.errorf("unexpected end of input")
	}
	return err
}

func (st *stream) errorf(format string, a ...any) error { return st.errorfAt(st.pos, format, a...) }

func (st *stream) errorfAt(off int, format string, a ...any) error {
	return fmt.Errorf("invalid JSON at byte %d: %s", st.base+int64(off), fmt.Sprintf(format, a...))
}

// hasPrefix reports whether the unread input starts with p.
func (st *stream) hasPrefix(p []byte) bool {
	for st.end-st.pos < len(p) && !st.eof {
		if err := st.fill(); err != nil {
			return false
		}
	}
	return bytes.HasPrefix(st.buf[st.pos:st.end], p)
}

// skipLinePast consumes input through the end of the line holding the
// next occurrence of marker, or to the end of input.
func (st *stream) skipLinePast(marker []byte) error {
	found := false
	for {
		if !found {
			if i := bytes.Index(st.buf[st.pos:st.end], marker); i >= 0 {
				st.pos += i + len(marker)
				found = true
			} else if keep := len(marker) - 1; st.end-st.pos > keep {
				st.pos = st.end - keep
			}
		}
		if found {
			if i := bytes.IndexByte(st.buf[st.pos:st.end], '\n'); i >= 0 {
				st.pos += i + 1
				return nil
			}
			st.pos = st.end
		}
		if st.eof {
			st.pos = st.end
			return nil
		}
		if err := st.fill(); err != nil {
			return st.wrap(err)
		}
	}
}
