package audit

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/internal/jsonscan"
	"github.com/kgc-dev/kgc/internal/jsonskip"
)

// unescapedByJSON is what encoding/json makes of a string's raw text.
func unescapedByJSON(raw []byte) (string, bool) {
	var v string
	err := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &v)
	return v, err == nil
}

// TestUnescapeSimpleIsEncodingJSON: whatever the fast unescaper decodes,
// it decodes as encoding/json does; what it declines goes to it.
func TestUnescapeSimpleIsEncodingJSON(t *testing.T) {
	cases := []string{
		`plain`, `a\"b\\c\/d\ne\tf`, `\r\b\f`, `amp\u0026lt\u003cgt\u003e`, `\u00e9\u4e2d`, `\u0000`,
		`{\"kind\":\"Event\",\"requestURI\":\"/api?a=1\u0026b=2\"}`, `trailing\`, `\x`, `\u12`, `\u12zz`,
		`\ud83d\ude00`, `\udc00`, "bad\xffutf8\\u0041", "bad\xffutf8\\n", "ctl\x01\\u0041", "ctl\x01\\n", `é\u00e9`,
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab\\\"/ntrbfu0123456789abcdefABCDEF\x01\xff\xc3\xa9 ")
	for range 20000 {
		b := make([]byte, rnd.IntN(24))
		for i := range b {
			b[i] = alphabet[rnd.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, c := range cases {
		quoted := []byte(`"` + c + `"`)
		if end, err := jsonskip.String(quoted, 0); err != nil || end != len(quoted) {
			continue // no string's text: it would end at its first bare quote
		}
		got, ok := unescapeSimple(nil, []byte(c))
		if want, simple := simplyUnescaped(c); simple {
			if !ok || string(got) != want {
				t.Errorf("%q: decoded to %q (%v), want %q as always", c, got, ok, want)
			}
			continue
		}
		if !ok {
			continue
		}
		if want, valid := unescapedByJSON([]byte(c)); !valid || string(got) != want {
			t.Errorf("%q: decoded to %q, encoding/json to %q (valid %v)", c, got, want, valid)
		}
	}
	for _, c := range []string{`a\"b`, `\u0026`, `\r\n`} {
		if _, ok := unescapeSimple(nil, []byte(c)); !ok {
			t.Errorf("%q declined: it is the common case", c)
		}
	}
}

// simplyUnescaped is text whose only escapes are \" \\ \/ \n \t
// decoded as the reader always did, byte for byte (control characters
// and invalid UTF-8 too); false for other text.
func simplyUnescaped(s string) (string, bool) {
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out = append(out, s[i])
			continue
		}
		if i+1 == len(s) {
			return "", false
		}
		i++
		switch s[i] {
		case '"', '\\', '/':
			out = append(out, s[i])
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		default:
			return "", false
		}
	}
	return string(out), true
}

// textIsStrIn checks that the one-pass unescaper reads the value at the
// start of d as strIn does: the same text, error and end.
func textIsStrIn(t *testing.T, d []byte) {
	t.Helper()
	want := scanner{jsonscan.Cursor{Data: d}}
	wantText, wantErr := want.strIn(nil)
	got := scanner{jsonscan.Cursor{Data: d}}
	gotText, gotErr := got.text(make([]byte, 0, 3))
	if string(gotText) != string(wantText) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || got.Pos != want.Pos {
		t.Fatalf("%q: read %q, %v, up to %d; strIn %q, %v, up to %d", d, gotText, gotErr, got.Pos, wantText, wantErr, want.Pos)
	}
}

// escapedEvent is the text of a string holding JSON, as exports write
// an event: runs of letters between escapes, with the escapes encoding/json
// and other writers use (\u0026, surrogate pairs, lone surrogates, control
// characters, invalid UTF-8), long enough to cross several blocks of 64
// bytes.
func escapedEvent(r *rand.Rand, n int) []byte {
	tokens := []string{`\"`, `\\`, `\/`, `\n`, `\t`, `kind`, `:`, `audit.k8s.io/v1`, `a`,
		`\u0026`, `\ud83d\ude00`, `\udc00`, `\r`, `\b`, `\f`, `\x`, `\u12`, "\x01", "\xff", "é", `"`, `\`}
	var d []byte
	for len(d) < n {
		k := r.IntN(len(tokens))
		if k >= 9 && r.IntN(8) != 0 {
			k = r.IntN(9) // the rarer tokens rarely
		}
		d = append(d, tokens[k]...)
	}
	return d
}

// TestTextIsStrIn: unescaping a string in one pass a block at a time
// gives what finding its end and then unescaping it gave, on strings of
// simple and other escapes, ending anywhere in a block, closed or not.
func TestTextIsStrIn(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 30000 {
		d := append([]byte{'"'}, escapedEvent(r, r.IntN(300))...)
		switch r.IntN(3) {
		case 0:
			d = append(d, `","next":1}`...)
		case 1:
			d = append(d, '"')
		}
		textIsStrIn(t, d)
	}
	for _, d := range []string{`null`, `"`, `"\`, `"\"`, `""`, `"\\"`, `1`} {
		textIsStrIn(t, []byte(d))
	}
	// An escape whose backslash ends a block of 64 bytes, and the byte it
	// escapes starts the next.
	for _, c := range []string{`"`, `\`, `/`, `n`, `t`, `u0041`, `x`} {
		for _, at := range []int{62, 63, 64, 126, 127} {
			d := `"` + strings.Repeat("a", at) + `\` + c + strings.Repeat(`b\"`, 30) + `"`
			textIsStrIn(t, []byte(d))
		}
	}
}

// FuzzTextIsStrIn: the one-pass unescaper agrees with strIn on any
// input.
func FuzzTextIsStrIn(f *testing.F) {
	f.Add([]byte(`"{\"kind\":\"Event\",\"a\":\"x\u0026y\\\\\"}"`))
	f.Add(append([]byte{'"'}, escapedEvent(rand.New(rand.NewPCG(7, 8)), 200)...))
	f.Fuzz(func(t *testing.T, d []byte) {
		textIsStrIn(t, d)
	})
}
