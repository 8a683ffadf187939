package jsonscan

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/internal/jsonskip"
)

// walk reads the document at the start of d into a line of text: each
// key with its value raw, each array element, nested objects and arrays
// in brackets, so that a test compares what the cursor handed over.
func walk(c *Cursor) (string, error) {
	var out strings.Builder
	var value func() error
	value = func() error {
		switch c.Peek() {
		case '{':
			out.WriteString("{")
			err := c.Object(func(key []byte) error {
				fmt.Fprintf(&out, "%s=", key)
				err := value()
				out.WriteString(";")
				return err
			})
			out.WriteString("}")
			return err
		case '[':
			out.WriteString("[")
			err := c.Array(func(n int) error {
				fmt.Fprintf(&out, "%d:", n)
				err := value()
				out.WriteString(";")
				return err
			})
			out.WriteString("]")
			return err
		}
		raw, err := c.Raw()
		out.Write(raw)
		return err
	}
	err := value()
	return out.String(), err
}

// TestCursorWalks: objects and arrays are walked member by member
// through whitespace, keys raw unless the cursor unescapes them.
func TestCursorWalks(t *testing.T) {
	for _, tc := range []struct {
		in       string
		unescape bool
		want     string
	}{
		{in: ` { "a" : 1 , "b":[ true ,{"c":null} ] ,"d":{}} `, want: `{a=1;b=[0:true;1:{c=null;};];d={};}`},
		{in: `[]`, want: `[]`},
		{in: `{"na\u006de":"x\"y"}`, want: `{na\u006de="x\"y";}`},
		{in: `{"na\u006de":"x\"y"}`, unescape: true, want: `{name="x\"y";}`},
		// Keys short and long, an escape after a few bytes, a quote escaped.
		{in: `{"a-key-of-twenty-four-by":1,"a-key-of-twenty-five-byte":2}`, want: `{a-key-of-twenty-four-by=1;a-key-of-twenty-five-byte=2;}`},
		{in: `{"ab\ncd":1,"k:{\"uid\":\"u\"}":{}}`, unescape: true, want: "{ab\ncd=1;k:{\"uid\":\"u\"}={};}"},
		{in: `{"ab\ncd":1,"k:{\"uid\":\"u\"}":{}}`, want: `{ab\ncd=1;k:{\"uid\":\"u\"}={};}`},
	} {
		c := &Cursor{Data: []byte(tc.in), UnescapeKeys: tc.unescape}
		got, err := walk(c)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

// TestCursorErrors: a byte the grammar does not allow is an
// *Unexpected saying what was wanted where; data that ends inside a
// value is incomplete, so that a streaming reader reads more.
func TestCursorErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		off  int
		w    Want
	}{
		{in: `{"a":{"b":[{"c":1 x}]}}`, want: `expected ',' or '}' at byte 19, found 'x'`, off: 18, w: WantMemberEnd},
		{in: `{1:2}`, want: `expected a string at byte 2, found '1'`, off: 1, w: WantKey},
		{in: `{"a" 2}`, want: `expected ':' at byte 6, found '2'`, off: 5, w: WantColon},
		{in: `{"a":2 "b"}`, want: `expected ',' or '}' at byte 8, found '"'`, off: 7, w: WantMemberEnd},
		{in: `{"a":[1 2]}`, want: `expected ',' or ']' at byte 9, found '2'`, off: 8, w: WantElementEnd},
		{in: `{"a\u00zz":1}`, want: "invalid string escape"},
		{in: `{"a":1,"bc`, want: "unexpected end of JSON input"},
	} {
		c := &Cursor{Data: []byte(tc.in), UnescapeKeys: strings.Contains(tc.in, `\u`)}
		_, err := walk(c)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v, want %s", tc.in, err, tc.want)
			continue
		}
		var u *Unexpected
		if errors.As(err, &u) && (u.Off != tc.off || u.Want != tc.w) {
			t.Errorf("%s: at %d wanting %d, want at %d wanting %d", tc.in, u.Off, u.Want, tc.off, tc.w)
		}
	}
	c := &Cursor{Data: []byte(` null`)}
	if err := c.Object(func([]byte) error { return nil }); err == nil || err.Error() != `expected '{' at byte 2, found 'n'` {
		t.Errorf("null read as an object: %v", err)
	}
	for _, in := range []string{`{`, `{"a"`, `{"a":1`, `[1,`, `{"a":"b`} {
		c := &Cursor{Data: []byte(in)}
		if _, err := walk(c); !errors.Is(err, jsonskip.ErrIncomplete) {
			t.Errorf("%s: got %v, want incomplete", in, err)
		}
	}
}

// TestCursorStrings: a string value's bytes between its quotes, null
// read as such, and a reader's own wording of what it expected.
func TestCursorStrings(t *testing.T) {
	c := &Cursor{Data: []byte(` "a\"b" null 5`)}
	b, err := c.RawString()
	if string(b) != `a\"b` || err != nil {
		t.Fatalf("got %q, %v; want a\\\"b", b, err)
	}
	if !c.Null() || c.Null() {
		t.Fatalf("null at %d not read once", c.Pos)
	}
	if _, err := c.RawString(); err == nil || err.Error() != `expected a string at byte 14, found '5'` {
		t.Errorf("number read as a string: %v", err)
	}
	if err := c.Expected("an event"); err == nil || err.Error() != `expected an event at byte 14, found '5'` {
		t.Errorf("own wording: %v", err)
	}
	if v, err := Unquote([]byte(`"x\u0041\n"`)); v != "xA\n" || err != nil {
		t.Errorf("unquoted %q, %v", v, err)
	}
}
