package audit

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/kgc-dev/kgc/internal/jsonscan"
	"github.com/kgc-dev/kgc/internal/jsonskip"
)

// This file is a small JSON scanner for one audit event held in memory.
// The reader drops most lines after looking at a few keys, and of the
// lines it keeps it reads a few dozen fields out of bodies that can be
// megabytes long: the scanner (internal/jsonscan's cursor, shared with
// the snapshot reader) finds value boundaries with byte loops (strings
// with bytes.IndexByte) and decodes only the fields Event holds.

// errIncomplete means the data ended inside a value.
var errIncomplete = jsonskip.ErrIncomplete

// scanner walks the values of one JSON document in memory: the shared
// cursor, with audit's decoding of strings (unescaped into buffers,
// interned) and scalars on top.
type scanner struct{ jsonscan.Cursor }

// str decodes the next value as a string; null is "". The bytes are
// returned unescaped, possibly aliasing the input.
func (s *scanner) str() ([]byte, error) { return s.strIn(nil) }

// strIn is str, unescaping simple escapes into buf when it is large
// enough: for a string that is let go (or copied) at once, such as a
// Status's message, which most failed requests quote names in.
func (s *scanner) strIn(buf []byte) ([]byte, error) {
	if s.Peek() == 'n' {
		return nil, s.Skip()
	}
	start := s.Pos
	b, err := s.RawString()
	if err != nil || bytes.IndexByte(b, '\\') < 0 {
		return b, err
	}
	if v, ok := unescapeSimple(buf, b); ok {
		return v, nil
	}
	var v string
	if err := json.Unmarshal(s.Data[start:s.Pos], &v); err != nil {
		return nil, fmt.Errorf("invalid string at byte %d: %w", start+1, err)
	}
	return []byte(v), nil
}

// text unescapes the string at the cursor into buf as strIn does, in
// one pass that finds its end and copies it: a cloud export's event is a
// string of kilobytes with an escape every few bytes, scanned a word at
// a time. An escape other than those unescapeWords decodes leaves the
// string to strIn, so that the result is always strIn's.
func (s *scanner) text(buf []byte) ([]byte, error) {
	if s.Peek() == '"' {
		if out, end, ok := unescapeWords(buf[:0], s.Data, s.Pos+1); ok {
			s.Pos = end
			return out, nil
		}
	}
	return s.strIn(buf)
}

// unescapeWords appends to out the text of the string continuing at
// d[i] and returns the index after its closing quote. It reads 64 bytes
// at a time as masks of quotes and escapes (jsonskip.Block) and copies
// the runs between escapes, then the last bytes a word at a time. It
// declines (false) a string holding an escape other than \" \\ \/ \n
// \t, which are decoded the same whatever the text around them, or
// ending early.
func unescapeWords(out, d []byte, i int) ([]byte, int, bool) {
	from := i // the start of the run not yet copied
	var carry uint64
	for ; i+64 <= len(d); i += 64 {
		out = slices.Grow(out, 64+32)
		quotes, escapes, others := jsonskip.BlockEscapes(d, i, &carry)
		n := 64 // the block's bytes of text
		if quotes != 0 {
			n = bits.TrailingZeros64(quotes)
			escapes &= quotes&-quotes - 1 // those before the closing quote
		}
		// Each escape of the text escapes a quote, a backslash or a
		// slash, a byte of the block: the text is the block's bytes
		// but the backslashes.
		if from == i && escapes&others == 0 {
			o := len(out)
			k := jsonskip.Compact(out[o:cap(out)], (*[64]byte)(d[i:i+64]), ^escapes&lowBits(n))
			out, from = out[:o+k], i+n
		} else {
			var ok bool
			if out, from, ok = appendEscapes(out, d, i, from, escapes); !ok {
				return out, 0, false
			}
			if quotes == 0 && from < i+64 { // the next block can start a run
				out, from = appendRun(out, d, from, i+64), i+64
			}
		}
		if quotes != 0 {
			end := i + n
			return appendRun(out, d, from, end), end + 1, true
		}
	}
	out = appendRun(out, d, from, i+int(carry))
	return unescapeTail(out, d, i+int(carry))
}

// lowBits has the n lowest bits set, n ≤ 64.
func lowBits(n int) uint64 { return ^uint64(0) >> (64 - n) }

// appendEscapes appends the runs and escapes of a block from the run
// starting at from, and returns where the next run starts.
func appendEscapes(out, d []byte, i, from int, escapes uint64) ([]byte, int, bool) {
	for ; escapes != 0; escapes &= escapes - 1 {
		e := i + bits.TrailingZeros64(escapes)
		if e+1 == len(d) {
			return out, 0, false
		}
		out = appendRun(out, d, from, e)
		var ok bool
		if out, from, ok = appendSimpleEscape(out, d[e+1], e); !ok {
			return out, 0, false
		}
	}
	return out, from, true
}

// appendRun appends d[from:to], a run of a few bytes most often, copied
// as two words when d and out have room.
func appendRun(out, d []byte, from, to int) []byte {
	n := to - from
	if n > 16 || from+16 > len(d) || cap(out)-len(out) < 16 {
		return append(out, d[from:to]...)
	}
	o := out[len(out) : len(out)+16]
	binary.LittleEndian.PutUint64(o, binary.LittleEndian.Uint64(d[from:]))
	binary.LittleEndian.PutUint64(o[8:], binary.LittleEndian.Uint64(d[from+8:]))
	return out[:len(out)+n]
}

// appendSimpleEscape decodes the escape of c by the backslash at e, and
// returns where the next run starts: an escaped quote, backslash or
// slash starts it.
func appendSimpleEscape(out []byte, c byte, e int) ([]byte, int, bool) {
	switch c {
	case '"', '\\', '/':
		return out, e + 1, true
	case 'n':
		return append(out, '\n'), e + 2, true
	case 't':
		return append(out, '\t'), e + 2, true
	}
	return out, 0, false
}

// unescapeTail is unescapeWords on the last bytes, copied a word at a
// time up to the next quote or backslash.
func unescapeTail(out, d []byte, i int) ([]byte, int, bool) {
	for {
		for i+8 <= len(d) {
			if cap(out)-len(out) < 8 {
				out = slices.Grow(out, max(len(out), 64))
			}
			w := binary.LittleEndian.Uint64(d[i:])
			binary.LittleEndian.PutUint64(out[len(out):len(out)+8], w)
			if m := jsonskip.SpecialMask(w); m != 0 {
				k := bits.TrailingZeros64(m) >> 3
				out, i = out[:len(out)+k], i+k
				break
			}
			out, i = out[:len(out)+8], i+8
		}
		for i < len(d) && d[i] != '"' && d[i] != '\\' {
			out = append(out, d[i])
			i++
		}
		switch {
		case i+1 >= len(d):
			return out, i + 1, i < len(d) && d[i] == '"'
		case d[i] == '"':
			return out, i + 1, true
		}
		next, ok := 0, false
		if out, next, ok = appendSimpleEscape(out, d[i+1], i); !ok {
			return out, 0, false
		}
		if next == i+1 { // the escaped byte starts the next run
			out = append(out, d[next])
			next++
		}
		i = next
	}
}

// unescapeSimple decodes the escapes of a JSON string's text as
// encoding/json does, copying the runs between escapes whole: an
// export's event is a string of megabytes with an escape every few
// bytes. It declines (false) what it could decode differently: a
// malformed escape, a \u escape of a surrogate, and an escape other
// than \" \\ \/ \n \t in text that is not valid UTF-8 or holds a
// control character (encoding/json repairs the one and refuses the
// other).
func unescapeSimple(buf, b []byte) ([]byte, bool) {
	out := slices.Grow(buf[:0], len(b))
	whole, checked := b, false
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\\')
		if i < 0 {
			return append(out, b...), true
		}
		out = append(out, b[:i]...)
		if i+1 == len(b) {
			return nil, false
		}
		c, n := b[i+1], 2
		switch c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		default:
			if !checked && !plainText(whole) {
				return nil, false
			}
			checked = true
			var ok bool
			if out, n, ok = appendEscape(out, b[i+1:]); !ok {
				return nil, false
			}
			n++
		}
		b = b[i+n:]
	}
	return out, true
}

// appendEscape decodes the escape e starts (after its backslash) other
// than the simple ones, and says how long it was.
func appendEscape(out, e []byte) ([]byte, int, bool) {
	switch e[0] {
	case 'r':
		return append(out, '\r'), 1, true
	case 'b':
		return append(out, '\b'), 1, true
	case 'f':
		return append(out, '\f'), 1, true
	case 'u':
		r, ok := hex4(e[1:])
		if !ok || utf16.IsSurrogate(r) {
			return nil, 0, false
		}
		return utf8.AppendRune(out, r), 5, true
	}
	return nil, 0, false
}

// plainText: valid UTF-8 without control characters, which
// encoding/json unquotes byte for byte.
func plainText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return false
		}
	}
	return utf8.Valid(b)
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// strings decodes an array of strings, interned; null is nil.
func (s *scanner) strings(in *interner) ([]string, error) {
	if s.Peek() == 'n' {
		return nil, s.Skip()
	}
	in.scratch = in.scratch[:0]
	err := s.Array(func(int) error {
		b, err := s.str()
		in.scratch = append(in.scratch, in.str(b))
		return err
	})
	return in.list(in.scratch), err
}

// int decodes the next value as an integer; null is 0, false.
func (s *scanner) int() (int64, bool, error) {
	raw, err := s.Raw()
	if err != nil || string(raw) == "null" {
		return 0, false, err
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("invalid integer %.20q", raw)
	}
	return n, true, nil
}

// bool decodes the next value as a boolean, interned; null is nil.
func (s *scanner) bool(in *interner) (*bool, error) {
	raw, err := s.Raw()
	if err != nil {
		return nil, err
	}
	switch string(raw) {
	case "true", "false":
		return in.bool(raw[0] == 't'), nil
	case "null":
		return nil, nil
	}
	return nil, fmt.Errorf("invalid boolean %.20q", raw)
}
