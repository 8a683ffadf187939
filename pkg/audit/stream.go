package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/kgc-dev/kgc/internal/jsonskip"
)

// This file reads a file that is not one event per line: an EventList
// (what the webhook backend sends, often pretty-printed), a pretty-printed
// Event, or several of them one after the other. It holds one item at a
// time, never the whole document.

// stream is a growing window on a reader: buf[pos:] is unread.
type stream struct {
	src  io.Reader
	buf  []byte
	pos  int
	eof  bool
	line int // the line number at buf[counted]
	// counted is how far buf has been scanned for newlines.
	counted int
	// dropped is how many bytes of the stream were consumed and dropped
	// from buf.
	dropped int
	// err is an error met reading ahead, for more to return.
	err error
}

// more reads at least as much again as is buffered, dropping what was
// consumed.
func (s *stream) more() error {
	if s.eof {
		return errIncomplete
	}
	if err := s.err; err != nil {
		s.err = nil // met where the stream would have met it
		return err
	}
	if s.pos > 0 {
		s.lineAt(s.pos)
		n := copy(s.buf, s.buf[s.pos:])
		s.dropped += s.pos
		s.buf, s.counted, s.pos = s.buf[:n], s.counted-s.pos, 0
	}
	want := max(len(s.buf), 1<<16)
	if cap(s.buf)-len(s.buf) < want {
		nb := make([]byte, len(s.buf), len(s.buf)+want)
		copy(nb, s.buf)
		s.buf = nb
	}
	n, err := io.ReadFull(s.src, s.buf[len(s.buf):len(s.buf)+want])
	s.buf = s.buf[:len(s.buf)+n]
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		s.eof = true
		return nil
	}
	return err
}

// lineAt is the line number of buf[off], off ≥ counted.
func (s *stream) lineAt(off int) int {
	s.line += bytes.Count(s.buf[s.counted:off], []byte{'\n'})
	s.counted = off
	return s.line
}

// do runs f on the unread bytes until it needs no more data; f returns
// how much it consumed.
func (s *stream) do(f func(d []byte) (int, error)) error {
	for {
		n, err := f(s.buf[s.pos:])
		if err == nil {
			s.pos += n
			return nil
		}
		if !errors.Is(err, errIncomplete) {
			return err
		}
		if err := s.more(); err != nil {
			return err
		}
	}
}

// token consumes whitespace and one expected byte among want; it
// returns the byte, or 0 at the end of the data.
func (s *stream) token(want string) (byte, error) {
	var c byte
	err := s.do(func(d []byte) (int, error) {
		i := jsonskip.Space(d, 0)
		if i == len(d) {
			if s.eof {
				return i, nil
			}
			return 0, errIncomplete
		}
		if bytes.IndexByte([]byte(want), d[i]) < 0 {
			return 0, fmt.Errorf("expected one of %q, found %q", want, d[i])
		}
		c = d[i]
		return i + 1, nil
	})
	return c, err
}

// value consumes the next value and returns it with its line.
func (s *stream) value() ([]byte, int, error) {
	var v []byte
	line := 0
	err := s.do(func(d []byte) (int, error) {
		i := jsonskip.Space(d, 0)
		end, err := jsonskip.Value(d, i)
		if err != nil {
			return 0, err
		}
		v = d[i:end]
		line = s.lineAt(s.pos + i)
		return end, nil
	})
	return v, line, err
}

// readStream reads the JSON values of src: Events, EventLists' items,
// and any platform's records (see convert.go). A wrapper listing many
// events (an EventList, filter-log-events' events, an Event Hubs
// message's records) and a top-level array are read an element at a
// time; any other value whole.
func readStream(src io.Reader, cv *converter, firstLine int) error {
	s := &stream{src: src, line: firstLine}
	for first := true; ; first = false {
		c, err := s.token("{[")
		if err != nil || c == 0 {
			cv.closePool()
			return s.fail(cv.acc, err, first)
		}
		s.pos-- // the value is read whole or element by element below
		if c == '[' {
			err = s.list(cv)
		} else {
			err = s.document(cv, first)
		}
		if err != nil {
			cv.closePool()
			return s.fail(cv.acc, err, first)
		}
	}
}

// fail ends a stream: an error before the first event means the file is
// not an audit log; after it, a warning at the line reached.
func (s *stream) fail(acc *accumulator, err error, first bool) error {
	var nal *notAuditLogError
	if err == nil || errors.As(err, &nal) {
		return err
	}
	if errors.Is(err, errIncomplete) && !first {
		acc.badLine(nil, s.lineAt(s.pos), errIncomplete, false)
		return nil
	}
	if acc.events == 0 && acc.badCount == 0 {
		return notAuditLog(acc.path, s.lineAt(s.pos), "not valid JSON: "+err.Error())
	}
	acc.badLine(nil, s.lineAt(s.pos), err, false)
	return nil
}

// streamed are the wrappers whose list of events is read an element at a
// time: they can hold a whole log.
var streamed = map[string]bool{"items": true, "events": true, "records": true, "logEvents": true}

// document reads one top-level object: a wrapper element by element, any
// other value whole. The first value of a file that is no audit record
// says the file is not an audit log.
func (s *stream) document(cv *converter, first bool) error {
	f, list, err := s.classifyAt()
	if err != nil && !isNotEvent(err) {
		return err
	}
	if err == nil && streamed[list] && allows(cv.forced, f) {
		cv.acc.forms |= forms(f)
		return s.items(cv, list)
	}
	if err != nil && first {
		return notAuditLog(cv.acc.path, s.lineAt(s.pos), err.Error())
	}
	v, line, err := s.value()
	if err == nil {
		cv.closePool()
		cv.value(v, line)
	}
	return err
}

// classifyAt classifies the object at pos without consuming it.
func (s *stream) classifyAt() (form, string, error) {
	var f form
	var list string
	err := s.do(func(d []byte) (int, error) {
		var err error
		f, list, err = classify(d)
		return 0, err
	})
	return f, list, err
}

// items reads a wrapper key by key, each element of its list as a value.
func (s *stream) items(cv *converter, list string) error {
	if _, err := s.token("{"); err != nil {
		return err
	}
	for {
		key, _, done, err := s.next("\",}", '}')
		if done {
			return err
		}
		if _, err := s.token(":"); err != nil {
			return err
		}
		if string(key) != `"`+list+`"` {
			if _, _, err := s.value(); err != nil {
				return err
			}
			continue
		}
		if err := s.list(cv); err != nil {
			return err
		}
	}
}

// list reads an array (or null), each element as a value.
func (s *stream) list(cv *converter) error {
	c, err := s.token("[n")
	if err != nil || c == 'n' {
		s.pos-- // null: no items
		if err == nil {
			_, _, err = s.value()
		}
		return err
	}
	cv.depth++
	defer func() { cv.depth-- }()
	if cv.forced == FamilyAuto || cv.forced == "" {
		// Unless a format is forced (a value of another form may then
		// say the file is not a log, which only the values before it
		// can tell), the values are framed and converted on every core.
		return s.listOnCores(cv.listPool())
	}
	cv.closePool()
	for {
		v, line, done, err := s.next(listTokens, ']')
		if done {
			return err
		}
		cv.value(v, line)
	}
}

// next reads the next value of a container with its line, passing over
// commas; done at the container's closing byte or an error. want is
// what a value, a comma or the closing byte may start with.
func (s *stream) next(want string, closing byte) (v []byte, line int, done bool, err error) {
	for {
		c, err := s.token(want)
		if err != nil || c == closing {
			return nil, 0, true, err
		}
		if c == 0 {
			// The data ended inside the container, after a value or a
			// comma: it was cut short.
			return nil, 0, true, errIncomplete
		}
		if c != ',' {
			s.pos--
			v, line, err = s.value()
			return v, line, err != nil, err
		}
	}
}
