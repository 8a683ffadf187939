// Package jsonscan is the cursor kgc's hand-written JSON readers (dumps
// and snapshots in pkg/snapshotio, audit logs in pkg/audit) walk a
// document held in memory with: whitespace, values skipped or taken raw
// with internal/jsonskip, objects and arrays walked member by member,
// strings taken between their quotes. Each reader decodes only the
// fields it keeps, on top of it.
//
// Where the two readers answer JSON differently, the cursor leaves the
// choice to them: null is not an empty object here (snapshotio checks
// Null first), keys stay escaped unless UnescapeKeys is set, and a byte
// the grammar does not allow is an *Unexpected that says what was
// wanted, which a reader may word its own way.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kgc-dev/kgc/internal/jsonskip"
)

// Cursor walks the values of one JSON document held in memory:
// Data[Pos:] is unread.
type Cursor struct {
	Data []byte
	Pos  int
	// UnescapeKeys decodes an object key holding escapes before it is
	// handed over: "na\u006de" is "name" to the API server too.
	UnescapeKeys bool
}

// Want is what the grammar allows where a cursor found something else.
type Want uint8

// The places a cursor checks.
const (
	WantObject     Want = iota // an object's opening brace
	WantKey                    // an object's key
	WantColon                  // the colon after a key
	WantMemberEnd              // the comma or brace after a member
	WantArray                  // an array's opening bracket
	WantElementEnd             // the comma or bracket after an element
	WantString                 // a string value
)

// wanted says each Want as the default message words it.
var wanted = [...]string{
	WantObject:     "'{'",
	WantKey:        "a string",
	WantColon:      "':'",
	WantMemberEnd:  "',' or '}'",
	WantArray:      "'['",
	WantElementEnd: "',' or ']'",
	WantString:     "a string",
}

// opens is the byte each Want a cursor can Expect stands for.
var opens = [...]byte{WantObject: '{', WantColon: ':', WantArray: '['}

// Unexpected is a byte the grammar does not allow at Off (from 0).
type Unexpected struct {
	Off   int
	Found byte
	Want  Want
}

func (e *Unexpected) Error() string { return expected(wanted[e.Want], e.Off, e.Found) }

// expected words an unexpected byte at off, counting bytes from 1.
func expected(what string, off int, found byte) string {
	return fmt.Sprintf("expected %s at byte %d, found %q", what, off+1, found)
}

// Space moves the cursor past whitespace.
func (c *Cursor) Space() { c.Pos = jsonskip.Space(c.Data, c.Pos) }

// Peek returns the next byte that is not whitespace, 0 at the end.
func (c *Cursor) Peek() byte {
	c.Space()
	if c.Pos >= len(c.Data) {
		return 0
	}
	return c.Data[c.Pos]
}

// Null consumes a null at the cursor, if one is there.
func (c *Cursor) Null() bool {
	c.Space()
	if c.Pos+4 <= len(c.Data) && string(c.Data[c.Pos:c.Pos+4]) == "null" {
		c.Pos += 4
		return true
	}
	return false
}

// Skip moves the cursor past the next value.
func (c *Cursor) Skip() error {
	j, err := jsonskip.Value(c.Data, c.Pos)
	if err != nil {
		return err
	}
	c.Pos = j
	return nil
}

// Raw returns the next value's bytes.
func (c *Cursor) Raw() ([]byte, error) {
	c.Space()
	start := c.Pos
	if err := c.Skip(); err != nil {
		return nil, err
	}
	return c.Data[start:c.Pos], nil
}

// Unexpected reports the byte at the cursor as not what w wants, or
// jsonskip.ErrIncomplete when the data ended: a streaming reader then
// reads more.
func (c *Cursor) Unexpected(w Want) error {
	if c.Pos >= len(c.Data) {
		return jsonskip.ErrIncomplete
	}
	return &Unexpected{Off: c.Pos, Found: c.Data[c.Pos], Want: w}
}

// Expected is Unexpected for what a reader wants beyond the grammar,
// worded as the default message words a Want.
func (c *Cursor) Expected(what string) error {
	if c.Pos >= len(c.Data) {
		return jsonskip.ErrIncomplete
	}
	return errors.New(expected(what, c.Pos, c.Data[c.Pos]))
}

// Expect consumes the byte w stands for: WantObject, WantColon or
// WantArray.
func (c *Cursor) Expect(w Want) error {
	if c.Peek() != opens[w] {
		return c.Unexpected(w)
	}
	c.Pos++
	return nil
}

// RawString returns the next string's bytes between its quotes, escapes
// left as they are.
func (c *Cursor) RawString() ([]byte, error) {
	return c.rawString(WantString)
}

func (c *Cursor) rawString(w Want) ([]byte, error) {
	if c.Peek() != '"' {
		return nil, c.Unexpected(w)
	}
	j, err := jsonskip.String(c.Data, c.Pos)
	if err != nil {
		return nil, err
	}
	b := c.Data[c.Pos+1 : j-1]
	c.Pos = j
	return b, nil
}

// Object calls field for each key of the object at the cursor; field
// must consume the value.
func (c *Cursor) Object(field func(key []byte) error) error {
	if empty, err := c.open(WantObject, '}'); empty || err != nil {
		return err
	}
	return c.Members(field)
}

// Members calls field for each key of an object from the key at the
// cursor to the object's closing brace.
func (c *Cursor) Members(field func(key []byte) error) error {
	for {
		key, err := c.key()
		if err != nil {
			return err
		}
		if err := c.Expect(WantColon); err != nil {
			return err
		}
		c.Space()
		if err := field(key); err != nil {
			return err
		}
		if more, err := c.next('}', WantMemberEnd); !more {
			return err
		}
	}
}

// After calls field for each member after the one whose value the
// cursor has just passed, to the object's closing brace: a walk of
// Members taken up again where it was left.
func (c *Cursor) After(field func(key []byte) error) error {
	if more, err := c.next('}', WantMemberEnd); !more {
		return err
	}
	return c.Members(field)
}

// key reads an object's key, unescaped if the cursor says so.
func (c *Cursor) key() ([]byte, error) {
	// A key is short: a byte loop finds its end before bytes.IndexByte
	// would have set up.
	if d, i := c.Data, c.Pos+1; c.Pos < len(d) && d[c.Pos] == '"' {
		for end := min(i+24, len(d)); i < end && d[i] != '\\'; i++ {
			if d[i] == '"' {
				key := d[c.Pos+1 : i]
				c.Pos = i + 1
				return key, nil
			}
		}
	}
	key, err := c.rawString(WantKey)
	if err != nil || !c.UnescapeKeys || bytes.IndexByte(key, '\\') < 0 {
		return key, err
	}
	k, err := Unquote(c.Data[c.Pos-len(key)-2 : c.Pos])
	return []byte(k), err
}

// Array calls item for each element of the array at the cursor, with
// its index; item must consume the element.
func (c *Cursor) Array(item func(n int) error) error {
	if empty, err := c.open(WantArray, ']'); empty || err != nil {
		return err
	}
	for n := 0; ; n++ {
		c.Space()
		if err := item(n); err != nil {
			return err
		}
		if more, err := c.next(']', WantElementEnd); !more {
			return err
		}
	}
}

// open consumes the opening byte of w and, if the container is empty,
// its closing byte.
func (c *Cursor) open(w Want, closing byte) (empty bool, err error) {
	if err := c.Expect(w); err != nil {
		return false, err
	}
	if c.Peek() == closing {
		c.Pos++
		return true, nil
	}
	return false, nil
}

// next consumes the comma before another member or element (more), or
// the container's closing byte; anything else is not what w wants.
func (c *Cursor) next(closing byte, w Want) (more bool, err error) {
	switch c.Peek() {
	case ',':
		c.Pos++
		return true, nil
	case closing:
		c.Pos++
		return false, nil
	}
	return false, c.Unexpected(w)
}

// Unquote decodes a quoted JSON string as encoding/json does; a
// malformed one is a *jsonskip.SyntaxError at 0 that says the escape is
// invalid.
func Unquote(quoted []byte) (string, error) {
	var v string
	if err := json.Unmarshal(quoted, &v); err != nil {
		return "", &jsonskip.SyntaxError{Off: 0, Msg: "invalid string escape"}
	}
	return v, nil
}
