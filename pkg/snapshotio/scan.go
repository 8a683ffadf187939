package snapshotio

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/kgc-dev/kgc/internal/hugepages"
	"github.com/kgc-dev/kgc/internal/jsonscan"
	"github.com/kgc-dev/kgc/internal/jsonskip"
)

// This file is a small hand-written JSON scanner. Reading a dump of a
// million objects is dominated by skipping what kgc does not keep (spec,
// status, annotations, managedFields); encoding/json would allocate and
// validate all of it. The scanner (internal/jsonscan's cursor, shared
// with the audit reader) finds value boundaries with byte loops and
// decodes only the few fields Object and Facts hold.

// errIncomplete means the data ended inside a value: the streaming reader
// reads more and tries again.
var errIncomplete = jsonskip.ErrIncomplete

// syntaxError is a malformed-JSON error at a byte offset of the scanned slice.
type syntaxError = jsonskip.SyntaxError

// scanner walks one complete JSON value held in memory: the shared
// cursor, which decodes escaped keys here, with the decoding of the
// values Object and Facts hold on top.
type scanner struct{ jsonscan.Cursor }

// newScanner is a scanner at the start of d.
func newScanner(d []byte) scanner {
	return scanner{jsonscan.Cursor{Data: d, UnescapeKeys: true}}
}

func (s *scanner) fail(msg string) error { return &syntaxError{Off: s.Pos, Msg: msg} }

// expected words what the cursor wanted as this reader's messages do.
var expected = [...]string{
	jsonscan.WantObject:     "expected an object",
	jsonscan.WantKey:        "expected a string key",
	jsonscan.WantColon:      "expected ':' after object key",
	jsonscan.WantMemberEnd:  "expected ',' or '}' after object value",
	jsonscan.WantArray:      "expected an array",
	jsonscan.WantElementEnd: "expected ',' or ']' after array element",
	jsonscan.WantString:     "expected a string",
}

// syntax turns the cursor's unexpected byte into this reader's syntax
// error at the same offset. The test for nil comes first: u is on the
// heap, and a read of a million objects returns nil tens of millions of
// times.
func syntax(err error) error {
	if err == nil {
		return nil
	}
	var u *jsonscan.Unexpected
	if errors.As(err, &u) {
		return &syntaxError{Off: u.Off, Msg: expected[u.Want]}
	}
	return err
}

// object calls fn for each key; fn must consume the value. null is an
// empty object.
func (s *scanner) object(fn func(key []byte) error) error {
	if s.Null() {
		return nil
	}
	return syntax(s.Object(fn))
}

// array calls fn for each element; fn must consume it. null is empty.
func (s *scanner) array(fn func(i int) error) error {
	if s.Null() {
		return nil
	}
	return syntax(s.Array(fn))
}

// strBytes returns the raw content of a string value (null → nil) and
// whether it holds escapes that need decoding.
func (s *scanner) strBytes() (b []byte, escaped bool, err error) {
	if s.Null() {
		return nil, false, nil
	}
	b, err = s.RawString()
	if err != nil {
		return nil, false, syntax(err)
	}
	return b, bytes.IndexByte(b, '\\') >= 0, nil
}

// validUTF8 replaces invalid UTF-8 as encoding/json does when it writes,
// so that what kgc reads survives being written and read again unchanged.
func validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return []byte(strings.ToValidUTF8(string(b), "\uFFFD"))
}

// str decodes a string value (null → "").
func (s *scanner) str() (string, error) {
	start := s.Pos
	b, esc, err := s.strBytes()
	if err != nil || !esc {
		return string(validUTF8(b)), err
	}
	return s.unquoteFrom(start)
}

// internStr decodes a string through the intern table.
func (s *scanner) internStr(t *interner) (string, error) {
	var none string
	return s.internRecent(t, &none)
}

// internRecent is internStr through interner.recent: for a field whose
// value mostly repeats the one read before it, which *recent holds.
func (s *scanner) internRecent(t *interner, recent *string) (string, error) {
	start := s.Pos
	b, esc, err := s.strBytes()
	switch {
	case err != nil:
		return "", err
	case esc:
		v, err := s.unquoteFrom(start)
		if err != nil {
			return "", err
		}
		*recent = t.str(v)
	default:
		t.recent(b, recent)
	}
	return *recent, nil
}

// unquoteFrom decodes the string value the cursor read from start on.
func (s *scanner) unquoteFrom(start int) (string, error) {
	return jsonscan.Unquote(s.Data[jsonskip.Space(s.Data, start):s.Pos])
}

func (s *scanner) int64p() (*int64, error) {
	v, ok, err := s.int64v()
	if !ok || err != nil {
		return nil, err
	}
	return &v, nil
}

// int64v decodes an integer; ok is false for null.
func (s *scanner) int64v() (v int64, ok bool, err error) {
	if s.Null() {
		return 0, false, nil
	}
	start := s.Pos
	if err := s.Skip(); err != nil {
		return 0, false, err
	}
	v, err = strconv.ParseInt(string(s.Data[start:s.Pos]), 10, 64)
	if err != nil {
		return 0, false, &syntaxError{Off: start, Msg: "expected an integer"}
	}
	return v, true, nil
}

func (s *scanner) boolp() (*bool, error) {
	if s.Null() {
		return nil, nil
	}
	switch {
	case s.Pos+4 <= len(s.Data) && string(s.Data[s.Pos:s.Pos+4]) == "true":
		s.Pos += 4
		return sharedTrue, nil
	case s.Pos+5 <= len(s.Data) && string(s.Data[s.Pos:s.Pos+5]) == "false":
		s.Pos += 5
		return sharedFalse, nil
	}
	return nil, s.fail("expected true or false")
}

// parseTime decodes an RFC 3339 timestamp from a string value's bytes
// (esc: with escapes); ok is false for "".
func parseTime(b []byte, esc bool) (t time.Time, ok bool, err error) {
	str := string(validUTF8(b))
	if esc {
		if str, err = jsonscan.Unquote(append(append([]byte{'"'}, b...), '"')); err != nil {
			return t, false, err
		}
	}
	if str == "" {
		return t, false, nil
	}
	t, err = time.Parse(time.RFC3339, str)
	if err != nil {
		return t, false, fmt.Errorf("invalid timestamp %q: want RFC 3339", str)
	}
	return t.UTC(), true, nil
}

// stringList decodes an array of strings through the intern table.
func (s *scanner) stringList(t *interner) ([]string, error) {
	var out []string
	err := s.array(func(int) error {
		v, err := s.internStr(t)
		out = append(out, v)
		return err
	})
	return out, err
}

// interner shares the backing memory of strings that repeat across
// objects (kinds, apiVersions, namespaces, finalizers, label keys). It
// stops growing at a cap so that unique values cannot make it the largest
// thing in memory.
type interner struct {
	m   map[string]string
	max int
}

func newInterner() *interner { return &interner{m: make(map[string]string, 1024), max: 1 << 18} }

func (t *interner) bytes(b []byte) string {
	if v, ok := t.m[string(b)]; ok {
		return v
	}
	b = validUTF8(b)
	s := string(b)
	if len(t.m) < t.max {
		t.m[s] = s
	}
	return s
}

// recent is bytes for a field whose value mostly repeats the one read
// before it, which *last holds (and is updated to): objects side by side
// share a namespace, a kind, an owner's kind. Comparing a few bytes then
// replaces a look-up in the table, which unique label values make large
// enough to miss the cache (a sixth of reading a million objects went to
// those look-ups).
func (t *interner) recent(b []byte, last *string) string {
	if string(b) != *last {
		*last = t.bytes(b)
	}
	return *last
}

func (t *interner) str(s string) string {
	if v, ok := t.m[s]; ok {
		return v
	}
	if len(t.m) < t.max {
		t.m[s] = s
	}
	return s
}

// arena packs many small strings (names, UIDs, resource versions) into
// shared blocks, from 64 KiB, doubling to 8 MiB, backed by huge pages
// once large. A million objects otherwise cost several million
// separate allocations, rounded up to size classes, that the garbage
// collector must trace; the strings are immutable and live as long as the
// snapshot, so sharing their backing memory is safe.
type arena struct {
	buf   []byte
	block int // the next block's size: doubles up to maxArenaBlock
}

const (
	arenaBlock    = 64 << 10
	maxArenaBlock = 8 << 20
)

func (a *arena) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	b = validUTF8(b)
	if len(b) > arenaBlock/16 {
		return string(b)
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		a.block = min(max(arenaBlock, 2*a.block), maxArenaBlock)
		a.buf = make([]byte, 0, a.block)
		hugepages.Advise(a.buf)
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[start], len(b))
}

// arenaStr decodes a string value into the arena (null → "").
func (s *scanner) arenaStr(a *arena) (string, error) {
	start := s.Pos
	b, esc, err := s.strBytes()
	if err != nil {
		return "", err
	}
	if !esc {
		return a.str(b), nil
	}
	return s.unquoteFrom(start)
}

// Shared pointers for booleans (ownerReference controller and
// blockOwnerDeletion): references are read-only
// once read, and a million refs would otherwise hold two million tiny
// allocations.
var (
	sharedTrue  = func() *bool { v := true; return &v }()
	sharedFalse = func() *bool { v := false; return &v }()
)

// timeSlab hands out *time.Time from blocks, for the same reason as arena.
type timeSlab struct{ block []time.Time }

func (t *timeSlab) put(v time.Time) *time.Time {
	if len(t.block) == cap(t.block) {
		t.block = make([]time.Time, 0, 1024)
	}
	t.block = append(t.block, v)
	return &t.block[len(t.block)-1]
}
