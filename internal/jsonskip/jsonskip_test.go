package jsonskip

import (
	"errors"
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
