package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// This file is a small JSON scanner for one audit event held in memory.
// The reader drops most lines after looking at a few keys, and of the
// lines it keeps it reads a few dozen fields out of bodies that can be
// megabytes long: the scanner finds value boundaries with byte loops
// (strings with bytes.IndexByte) and decodes only the fields Event holds.

// errIncomplete means the data ended inside a value.
var errIncomplete = errors.New("unexpected end of data (truncated?)")

// maxDepth bounds nesting: hostile input cannot grow the bracket stack
// without limit.
const maxDepth = 512

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

func skipSpace(d []byte, i int) int {
	for i < len(d) && isSpace(d[i]) {
		i++
	}
	return i
}

// skipString returns the index after the closing quote of the string
// whose opening quote is at d[i].
func skipString(d []byte, i int) (int, error) {
	i++
	for {
		j := bytes.IndexByte(d[i:], '"')
		if j < 0 {
			return 0, errIncomplete
		}
		i += j
		k := i - 1
		for d[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 0 { // an even number of backslashes: not escaped
			return i + 1, nil
		}
		i++
	}
}

// skipValue returns the index after the value starting at or after d[i].
// It checks brackets, strings and literals, not number grammar.
func skipValue(d []byte, i int) (int, error) {
	i = skipSpace(d, i)
	if i >= len(d) {
		return 0, errIncomplete
	}
	switch c := d[i]; {
	case c == '"':
		return skipString(d, i)
	case c == '{' || c == '[':
		return skipContainer(d, i)
	case c == 't':
		return skipLiteral(d, i, "true")
	case c == 'f':
		return skipLiteral(d, i, "false")
	case c == 'n':
		return skipLiteral(d, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		j := i + 1
		for j < len(d) && (d[j] >= '0' && d[j] <= '9' || d[j] == '.' || d[j] == 'e' || d[j] == 'E' || d[j] == '+' || d[j] == '-') {
			j++
		}
		return j, nil
	default:
		return 0, fmt.Errorf("invalid character %q at byte %d", c, i+1)
	}
}

func skipLiteral(d []byte, i int, lit string) (int, error) {
	if len(d)-i < len(lit) {
		return 0, errIncomplete
	}
	if string(d[i:i+len(lit)]) != lit {
		return 0, fmt.Errorf("invalid literal at byte %d, expected %s", i+1, lit)
	}
	return i + len(lit), nil
}

// skipContainer skips an object or array, checking its brackets match.
func skipContainer(d []byte, i int) (int, error) {
	var stackArr [32]byte
	stack := stackArr[:0]
	for i < len(d) {
		switch c := d[i]; c {
		case '"':
			j, err := skipString(d, i)
			if err != nil {
				return 0, err
			}
			i = j
			continue
		case '{':
			stack = append(stack, '}')
		case '[':
			stack = append(stack, ']')
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return 0, fmt.Errorf("mismatched %q at byte %d", c, i+1)
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1, nil
			}
		}
		if len(stack) > maxDepth {
			return 0, fmt.Errorf("nesting deeper than %d at byte %d", maxDepth, i+1)
		}
		i++
	}
	return 0, errIncomplete
}

// scanner walks the values of one JSON document in memory.
type scanner struct {
	d []byte
	i int
}

func (s *scanner) ws() { s.i = skipSpace(s.d, s.i) }

func (s *scanner) peek() byte {
	s.ws()
	if s.i >= len(s.d) {
		return 0
	}
	return s.d[s.i]
}

func (s *scanner) skip() error {
	j, err := skipValue(s.d, s.i)
	if err != nil {
		return err
	}
	s.i = j
	return nil
}

// raw returns the next value's bytes.
func (s *scanner) raw() ([]byte, error) {
	s.ws()
	start := s.i
	if err := s.skip(); err != nil {
		return nil, err
	}
	return s.d[start:s.i], nil
}

func (s *scanner) expect(c byte) error {
	if s.peek() != c {
		if s.i >= len(s.d) {
			return errIncomplete
		}
		return fmt.Errorf("expected %q at byte %d, found %q", c, s.i+1, s.d[s.i])
	}
	s.i++
	return nil
}

// object calls field for each key of the object that starts at the
// cursor; field must consume the value. Keys are raw (still escaped):
// the keys kgc looks for never need escapes.
func (s *scanner) object(field func(key []byte) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		key, err := s.rawString()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		s.ws()
		if err := field(key); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.unexpected("',' or '}'")
		}
	}
}

// array calls item for each element of the array at the cursor; item
// must consume the element.
func (s *scanner) array(item func() error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.i++
		return nil
	}
	for {
		s.ws()
		if err := item(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.unexpected("',' or ']'")
		}
	}
}

func (s *scanner) unexpected(what string) error {
	if s.i >= len(s.d) {
		return errIncomplete
	}
	return fmt.Errorf("expected %s at byte %d, found %q", what, s.i+1, s.d[s.i])
}

// rawString returns the next string's bytes between its quotes, escapes
// left as they are.
func (s *scanner) rawString() ([]byte, error) {
	if s.peek() != '"' {
		return nil, s.unexpected("a string")
	}
	j, err := skipString(s.d, s.i)
	if err != nil {
		return nil, err
	}
	b := s.d[s.i+1 : j-1]
	s.i = j
	return b, nil
}

// str decodes the next value as a string; null is "". The bytes are
// returned unescaped, possibly aliasing the input.
func (s *scanner) str() ([]byte, error) {
	if s.peek() == 'n' {
		return nil, s.skip()
	}
	start := s.i
	b, err := s.rawString()
	if err != nil || bytes.IndexByte(b, '\\') < 0 {
		return b, err
	}
	if v, ok := unescapeSimple(b); ok {
		return v, nil
	}
	var v string
	if err := json.Unmarshal(s.d[start:s.i], &v); err != nil {
		return nil, fmt.Errorf("invalid string at byte %d: %w", start+1, err)
	}
	return []byte(v), nil
}

// unescapeSimple decodes the escapes of ASCII text (\" \\ \/ \n \t);
// the rest (\u, control characters) goes to encoding/json.
func unescapeSimple(b []byte) ([]byte, bool) {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i++; i == len(b) {
			return nil, false
		}
		switch b[i] {
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		default:
			return nil, false
		}
	}
	return out, true
}

// strings decodes an array of strings; null is nil.
func (s *scanner) strings(in *interner) ([]string, error) {
	if s.peek() == 'n' {
		return nil, s.skip()
	}
	out := []string{}
	err := s.array(func() error {
		b, err := s.str()
		out = append(out, in.str(b))
		return err
	})
	return out, err
}

// int decodes the next value as an integer; null is 0, false.
func (s *scanner) int() (int64, bool, error) {
	raw, err := s.raw()
	if err != nil || string(raw) == "null" {
		return 0, false, err
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("invalid integer %.20q", raw)
	}
	return n, true, nil
}

// bool decodes the next value as a boolean; null is nil.
func (s *scanner) bool() (*bool, error) {
	raw, err := s.raw()
	if err != nil {
		return nil, err
	}
	switch string(raw) {
	case "true", "false":
		v := raw[0] == 't'
		return &v, nil
	case "null":
		return nil, nil
	}
	return nil, fmt.Errorf("invalid boolean %.20q", raw)
}
