// Package jsonskip finds the boundaries of JSON values in memory without
// decoding them: the primitives kgc's hand-written readers (dumps and
// snapshots, audit logs) share to skip what they do not keep. Reading a
// large input is dominated by skipping bodies kgc never looks at, so
// containers and strings are read 64 bytes at a time as bit masks of
// their quotes, backslashes and brackets (masks.go; AVX2 where the CPU
// has it), falling back to byte loops and bytes.IndexByte where the
// blocks cannot decide.
//
// The functions check structure (brackets, strings, literal spelling),
// not number grammar nor the escapes inside skipped strings.
package jsonskip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
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
// opening quote is at d[i]. A quote is first looked for with
// bytes.IndexByte, which is fastest over text without escapes; once a
// quote turns out escaped (a JSON document held in a string, as cloud
// exports carry audit events, has one every few bytes) the rest is
// scanned a word at a time for a quote or a backslash.
func String(d []byte, i int) (int, error) {
	i++
	if i+64 <= len(d) {
		// Most strings end within 64 bytes: one block's masks find the
		// quote, and say whether a backslash comes before it.
		q, b, _ := textMasks((*[64]byte)(d[i : i+64]))
		if k := bits.TrailingZeros64(q); q != 0 && b&(1<<k-1) == 0 {
			return i + k + 1, nil
		}
	}
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
	return escapedString(d, i+1)
}

// escapedString returns the index after the closing quote of a string
// whose text continues at d[i], not inside an escape. It reads 64 bytes
// at a time (see Block), without a branch per escape.
func escapedString(d []byte, i int) (int, error) {
	var carry uint64
	for ; i+64 <= len(d); i += 64 {
		if q, _ := Block(d, i, &carry); q != 0 {
			return i + bits.TrailingZeros64(q) + 1, nil
		}
	}
	i += int(carry)
	for {
		i = Special(d, i)
		switch {
		case i >= len(d):
			return 0, ErrIncomplete
		case d[i] == '"':
			return i + 1, nil
		}
		i += 2 // a backslash and the byte it escapes
	}
}

// Block reads the 64 bytes of string text at d[i:] as bit masks (bit k
// for byte i+k): the quotes not escaped, and the backslashes that escape
// the byte after them. carry says whether the block's first byte is
// escaped by the previous block's last backslash, and is set for the
// next block.
func Block(d []byte, i int, carry *uint64) (quotes, escapes uint64) {
	quotes, escapes, _ = BlockEscapes(d, i, carry)
	return quotes, escapes
}

// BlockEscapes is Block, and of its escapes those that are not of a
// quote, a backslash or a slash (which decode by dropping the
// backslash): others, the last byte's escape among them, since the byte
// it escapes is the next block's.
func BlockEscapes(d []byte, i int, carry *uint64) (quotes, escapes, others uint64) {
	q, b, s := textMasks((*[64]byte)(d[i : i+64]))
	escaped, escapes := escapedBits(b, carry)
	return q &^ escaped, escapes, escapes &^ ((q | b | s) >> 1)
}

// escapedBits returns the bytes of a block escaped by a backslash and
// the backslashes escaping them, given the block's backslashes b and
// whether its first byte is escaped by the previous block (carry,
// updated for the next). simdjson's way: a run of backslashes starting
// on an even byte escapes the byte after it when the run is odd;
// subtracting the runs' starts from the odd bits makes their parities
// show (Langdale and Lemire, "Parsing Gigabytes of JSON per Second",
// 2019).
func escapedBits(b uint64, carry *uint64) (escaped, escapes uint64) {
	const odd = 0xaaaaaaaaaaaaaaaa
	if b == 0 {
		escaped, *carry = *carry, 0
		return escaped, 0
	}
	starts := b &^ *carry
	code := ((starts<<1 | odd) - starts) ^ odd
	escaped, escapes = code^(b|*carry), code&b
	*carry = escapes >> 63
	return escaped, escapes
}

// Special returns the index of the first quote or backslash at or after
// d[i], or len(d). It reads eight bytes at a time (see SpecialMask).
func Special(d []byte, i int) int {
	for ; i+8 <= len(d); i += 8 {
		if m := SpecialMask(binary.LittleEndian.Uint64(d[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(d); i++ {
		if d[i] == '"' || d[i] == '\\' {
			return i
		}
	}
	return len(d)
}

// SpecialMask says where a little-endian word of eight bytes holds a
// quote or a backslash: its lowest set bit is the high bit of the first
// such byte (bits above it can be false positives, never bits below),
// zero when there is none. A byte equal to c is a zero byte of the word
// xor c repeated, and the lowest zero byte of x is the lowest set bit of
// (x - 0x01…01) &^ x & 0x80…80.
func SpecialMask(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, b := w^('"'*ones), w^('\\'*ones)
	return ((q-ones)&^q | (b-ones)&^b) & highs
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
// iteratively, tracking the expected closers on a small stack. It reads
// 64 bytes at a time (containerBlocks); what that cannot decide as the
// byte loop would is read again by the byte loop, from the start.
func Container(d []byte, i int) (int, error) {
	if end, ok := containerBlocks(d, i); ok {
		return end, nil
	}
	return containerBytes(d, i)
}

// containerBlocks skips the container at d[i] a block of 64 bytes at a
// time: the masks of a block's quotes, backslashes and brackets say
// where its strings are, and only the brackets outside them are looked
// at. It declines (false) what it could read otherwise than the byte
// loop: a backslash outside a string (the byte loop reads the byte after
// it, the masks take it as escaped), a mismatched bracket, nesting past
// MaxDepth, and data that ends first. The last bytes are read as a block
// padded with spaces.
func containerBlocks(d []byte, i int) (int, bool) {
	var stackArr [64]byte
	stack := stackArr[:0]
	var carry, inString uint64 // inString: all ones when the block starts in a string
	var last [64]byte
	for ; i < len(d); i += 64 {
		b, n := blockAt(d, i, &last)
		q, bs, opens, closes := containerMasks(b)
		escaped, _ := escapedBits(bs, &carry)
		strs := prefixXor(q&^escaped) ^ inString
		if bs&^strs != 0 {
			return 0, false
		}
		inString = uint64(int64(strs) >> 63)
		for m := (opens | closes) &^ strs; m != 0; m &= m - 1 {
			k := bits.TrailingZeros64(m)
			if k >= n {
				return 0, false
			}
			switch c := b[k]; c {
			case '{':
				stack = append(stack, '}')
			case '[':
				stack = append(stack, ']')
			default:
				if len(stack) == 0 || stack[len(stack)-1] != c {
					return 0, false
				}
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return i + k + 1, true
				}
			}
			if len(stack) > MaxDepth {
				return 0, false
			}
		}
	}
	return 0, false
}

// blockAt is the block of 64 bytes at d[i], and how many of them are
// d's: the last bytes are copied into last, padded with spaces.
func blockAt(d []byte, i int, last *[64]byte) (*[64]byte, int) {
	if i+64 <= len(d) {
		return (*[64]byte)(d[i : i+64]), 64
	}
	n := copy(last[:], d[i:])
	for k := n; k < 64; k++ {
		last[k] = ' '
	}
	return last, n
}

// containerBytes is Container a byte at a time.
func containerBytes(d []byte, i int) (int, error) {
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
