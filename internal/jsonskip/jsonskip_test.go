package jsonskip

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestValue: where a value ends, what is incomplete (a streaming reader
// reads more) and what is malformed (at which byte).
func TestValue(t *testing.T) {
	for _, c := range []struct {
		in   string
		end  int
		err  string
		more bool
	}{
		{in: `"a\"b" ,`, end: 6},
		{in: `"a\\" ,`, end: 5},
		{in: ` {"a":[1,{"b":"}"}],"c":null} x`, end: 29},
		{in: `[true,false]`, end: 12},
		{in: `-12.5e3,`, end: 7},
		{in: `-12.5e3`, more: true},
		{in: `{"a":[1,2}`, err: `invalid character '}': mismatched bracket`},
		{in: `{"a":"b`, more: true},
		{in: `[tru`, more: true},
		{in: `nul,`, err: "invalid literal, expected null"},
		{in: `?`, err: "invalid character '?' looking for a value"},
	} {
		end, err := Value([]byte(c.in), 0)
		switch {
		case c.more:
			if !errors.Is(err, ErrIncomplete) {
				t.Errorf("%s: got %d, %v; want incomplete", c.in, end, err)
			}
		case c.err != "":
			var se *SyntaxError
			if !errors.As(err, &se) || se.Msg != c.err {
				t.Errorf("%s: got %v, want %q", c.in, err, c.err)
			}
		case err != nil || end != c.end:
			t.Errorf("%s: got %d, %v; want %d", c.in, end, err, c.end)
		}
	}
}

// TestDepth: nesting deeper than MaxDepth is an error, not a stack that
// grows without limit.
func TestDepth(t *testing.T) {
	deep := make([]byte, 0, 2*(MaxDepth+1))
	for range MaxDepth + 1 {
		deep = append(deep, '[')
	}
	for range MaxDepth + 1 {
		deep = append(deep, ']')
	}
	var se *SyntaxError
	if _, err := Value(deep, 0); !errors.As(err, &se) || se.Off != MaxDepth {
		t.Errorf("got %v, want too deep at byte %d", err, MaxDepth)
	}
	if end, err := Value(deep[1:len(deep)-1], 0); err != nil || end != len(deep)-2 {
		t.Errorf("at the limit: %d, %v", end, err)
	}
}

// stringByQuotes is how String found a string's end before it read
// words: each quote in turn, escaped when an odd run of backslashes
// precedes it.
func stringByQuotes(d []byte, i int) (int, error) {
	for i++; i < len(d); i++ {
		if d[i] != '"' {
			continue
		}
		k := i - 1
		for k >= 0 && d[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 0 {
			return i + 1, nil
		}
	}
	return 0, ErrIncomplete
}

// escapeHeavy is a string's text of escapes and letters, long enough
// to cross several blocks of 64 bytes, a quote or a backslash put
// anywhere.
func escapeHeavy(r *rand.Rand, n int) []byte {
	d := []byte{'"'}
	for len(d) < n {
		d = append(d, []string{`\"`, `\\`, `a`, `\n`, `\\\"`}[r.IntN(5)]...)
	}
	d[1+r.IntN(len(d)-1)] = `"\`[r.IntN(2)]
	return d
}

// TestStringEscapes: String ends a string where looking at each quote
// does, on text with escapes every few bytes, wherever the blocks of
// 64 bytes fall.
func TestStringEscapes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		d := escapeHeavy(r, 2+r.IntN(400))
		want, wantErr := stringByQuotes(d, 0)
		got, err := String(d, 0)
		if got != want || !errors.Is(err, wantErr) {
			t.Fatalf("%q: got %d, %v; want %d, %v", d, got, err, want, wantErr)
		}
	}
}

// FuzzString: String agrees with looking at each quote.
func FuzzString(f *testing.F) {
	f.Add([]byte(`"a\"b\\\\\"c"`))
	f.Add(escapeHeavy(rand.New(rand.NewPCG(3, 4)), 300))
	f.Fuzz(func(t *testing.T, d []byte) {
		if len(d) == 0 || d[0] != '"' {
			return
		}
		want, wantErr := stringByQuotes(d, 0)
		got, err := String(d, 0)
		if got != want || !errors.Is(err, wantErr) {
			t.Fatalf("%q: got %d, %v; want %d, %v", d, got, err, want, wantErr)
		}
	})
}

// blockByBytes is Block a byte at a time: each backslash not escaped
// escapes the byte after it.
func blockByBytes(d []byte, i int, carry *uint64) (quotes, escapes uint64) {
	esc := *carry != 0
	for k := range 64 {
		switch c := d[i+k]; {
		case esc:
			esc = false
		case c == '\\':
			escapes |= 1 << k
			esc = true
		case c == '"':
			quotes |= 1 << k
		}
	}
	*carry = 0
	if esc {
		*carry = 1
	}
	return quotes, escapes
}

// othersByBytes are the escapes of a block, as blockByBytes finds them,
// of a byte other than a quote, a backslash or a slash, or of the next
// block's first byte.
func othersByBytes(d []byte, i int, escapes uint64) uint64 {
	var others uint64
	for k := range 64 {
		if escapes&(1<<k) != 0 && (k == 63 || !strings.ContainsRune(`"\/`, rune(d[i+k+1]))) {
			others |= 1 << k
		}
	}
	return others
}

// TestBlock: Block's masks of a block of 64 bytes are those read a
// byte at a time, whatever escape the previous block carries into it,
// on text dense with quotes, backslashes and slashes and at any offset.
func TestBlock(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	d := make([]byte, 64*40+7)
	for n := range d {
		d[n] = `"\a\"/n`[r.IntN(7)]
	}
	for i := 0; i+64 <= len(d); i += 1 + r.IntN(40) {
		for c := range uint64(2) {
			gc, wc := c, c
			gq, ge, gothers := BlockEscapes(d, i, &gc)
			wq, we := blockByBytes(d, i, &wc)
			if gq != wq || ge != we || gc != wc {
				t.Fatalf("%q carry %d: got %x %x %d; want %x %x %d", d[i:i+64], c, gq, ge, gc, wq, we, wc)
			}
			if wo := othersByBytes(d, i, we); gothers != wo {
				t.Fatalf("%q carry %d: others %x, want %x", d[i:i+64], c, gothers, wo)
			}
			c2 := c
			if q, e := Block(d, i, &c2); q != gq || e != ge {
				t.Fatalf("%q carry %d: Block differs from BlockEscapes", d[i:i+64], c)
			}
		}
	}
}
