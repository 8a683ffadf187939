// Package jsonskip finds the boundaries of JSON values in memory without
// decoding them: the primitives kgc's hand-written readers (dumps and
// snapshots, audit logs) share to skip what they do not keep. Reading a
// large input is dominated by skipping bodies kgc never looks at, so the
// loops are byte loops, and strings are skipped with bytes.IndexByte.
//
// The functions check structure (brackets, strings, literal spelling),
// not number grammar nor the escapes inside skipped strings.
package jsonskip

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrIncomplete means the data ended inside a value: a streaming reader
// reads more and tries again; a reader holding a whole document reports
// it truncated.
var ErrIncomplete = errors.New("unexpected end of JSON input")

// SyntaxError is malformed JSON at a byte offset of the scanned slice.
type SyntaxError struct {
	Off int
	Msg string
}

func (e *SyntaxError) Error() string { return e.Msg }

// MaxDepth bounds nesting so that hostile input cannot make the stack of
// expected closers grow without limit.
const MaxDepth = 10000

// IsSpace reports whether c is JSON whitespace.
func IsSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// Space returns the index of the first byte at or after d[i] that is not
// whitespace, or len(d).
func Space(d []byte, i int) int {
	for i < len(d) && IsSpace(d[i]) {
		i++
	}
	return i
}

// String returns the index after the closing quote of the string whose
// opening quote is at d[i].
func String(d []byte, i int) (int, error) {
	i++
	for {
		j := bytes.IndexByte(d[i:], '"')
		if j < 0 {
			return 0, ErrIncomplete
		}
		i += j
		// An odd number of backslashes before the quote escapes it.
		k := i - 1
		for k >= 0 && d[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 0 {
			return i + 1, nil
		}
		i++
	}
}

// Number returns the index after the run of number characters at d[i].
func Number(d []byte, i int) int {
	j := i + 1
	for j < len(d) && (d[j] >= '0' && d[j] <= '9' || d[j] == '.' || d[j] == 'e' || d[j] == 'E' || d[j] == '+' || d[j] == '-') {
		j++
	}
	return j
}

// Value returns the index after the JSON value starting at or after d[i].
// A number that runs to the end of d is incomplete: more data may
// continue it.
func Value(d []byte, i int) (int, error) {
	i = Space(d, i)
	if i >= len(d) {
		return 0, ErrIncomplete
	}
	switch c := d[i]; c {
	case '"':
		return String(d, i)
	case '{', '[':
		return Container(d, i)
	case 't':
		return literal(d, i, "true")
	case 'f':
		return literal(d, i, "false")
	case 'n':
		return literal(d, i, "null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			j := Number(d, i)
			if j == len(d) {
				return 0, ErrIncomplete
			}
			return j, nil
		}
		return 0, &SyntaxError{i, fmt.Sprintf("invalid character %q looking for a value", c)}
	}
}

func literal(d []byte, i int, lit string) (int, error) {
	n := len(lit)
	if len(d)-i < n {
		if bytes.HasPrefix([]byte(lit), d[i:]) {
			return 0, ErrIncomplete
		}
		return 0, &SyntaxError{i, fmt.Sprintf("invalid literal, expected %s", lit)}
	}
	if string(d[i:i+n]) != lit {
		return 0, &SyntaxError{i, fmt.Sprintf("invalid literal, expected %s", lit)}
	}
	return i + n, nil
}

// Container skips the object or array whose opening bracket is at d[i],
// iteratively, tracking the expected closers on a small stack.
func Container(d []byte, i int) (int, error) {
	var stackArr [64]byte
	stack := stackArr[:0]
	for i < len(d) {
		c := d[i]
		switch c {
		case '"':
			j, err := String(d, i)
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
				return 0, &SyntaxError{i, fmt.Sprintf("invalid character %q: mismatched bracket", c)}
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1, nil
			}
		}
		if len(stack) > MaxDepth {
			return 0, &SyntaxError{i, "exceeded max nesting depth"}
		}
		i++
	}
	return 0, ErrIncomplete
}
