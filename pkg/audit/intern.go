package audit

import (
	"encoding/binary"
	"strings"
	"unsafe"

	"github.com/kgc-dev/kgc/internal/hugepages"
)

// This file holds what makes a kept event small. A log of a million
// events keeps a few hundred thousand of them, and what they hold mostly
// repeats: a few hundred users, groups, user agents, addresses, resources,
// namespaces and authorization reasons. Those are interned, slices
// included, so that an event points at shared values. The strings that do
// not repeat (audit IDs, URIs, names, UIDs) are copied into large blocks
// rather than allocated one by one.

// unsafeString views b as a string without copying, for comparisons
// made while b is alive and unchanged.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// interner shares the values that repeat across events. Interned slices
// are shared: no reader of an Event may change them.
type interner struct {
	m      map[string]string
	slices map[string][]string
	key    []byte
	// scratch is where a list is read before it is interned.
	scratch []string
	// arena is where plain strings are copied, a block at a time.
	arena []byte
	// recent are the plain strings of the event being read: its name and
	// UID come back in its objectRef, request and response objects.
	recent [4]string
	next   int
	// bools are the targets of every *bool read.
	bools *[2]bool
	// front holds the strings str returned last, by a hash of a few of
	// their bytes: most come back at once (a verb, a stage, a user), and
	// a comparison costs less than a map lookup.
	front [256]string
}

// maxInterned bounds an interner: a log of unique values must not grow it
// without limit.
const maxInterned = 1 << 16

// arenaBlock is the size of the first block of plain strings; blocks
// double up to maxArenaBlock, a size worth backing with huge pages.
const (
	arenaBlock    = 16 << 10
	maxArenaBlock = 8 << 20
)

func (in *interner) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	h := (len(b)*31 + int(b[0])*7 + int(b[len(b)/2])*3 + int(b[len(b)-1])) & (len(in.front) - 1)
	if v := in.front[h]; v == string(b) {
		return v
	}
	if in.m == nil {
		in.m = map[string]string{}
	}
	v, ok := in.m[string(b)]
	if !ok {
		v = strings.Clone(string(b))
		if len(in.m) < maxInterned {
			in.m[v] = v
		}
	}
	in.front[h] = v
	return v
}

// plain copies a string that does not repeat into the current block. The
// block is never written again where a string was copied, so the string
// stays as it was.
func (in *interner) plain(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	for _, r := range in.recent {
		if r == string(b) {
			return r
		}
	}
	if len(b) > arenaBlock/4 {
		return string(b)
	}
	if cap(in.arena)-len(in.arena) < len(b) {
		in.arena = make([]byte, 0, min(max(2*cap(in.arena), arenaBlock), maxArenaBlock))
		hugepages.Advise(in.arena)
	}
	n := len(in.arena)
	in.arena = append(in.arena, b...)
	v := unsafe.String(&in.arena[n], len(b))
	in.recent[in.next%len(in.recent)] = v
	in.next++
	return v
}

// newEvent forgets the recent strings of the event read before.
func (in *interner) newEvent() { in.recent = [len(in.recent)]string{} }

// list interns a list of interned strings: the same list is the same
// slice, never nil (an empty list is empty, not absent).
func (in *interner) list(l []string) []string {
	in.key = in.key[:0]
	for _, s := range l { // each string after its length: no two lists share a key
		in.key = binary.AppendUvarint(in.key, uint64(len(s)))
		in.key = append(in.key, s...)
	}
	if in.slices == nil {
		in.slices = map[string][]string{}
	}
	if v, ok := in.slices[string(in.key)]; ok {
		return v
	}
	v := make([]string, len(l))
	copy(v, l)
	if len(in.slices) < maxInterned {
		in.slices[string(in.key)] = v
	}
	return v
}

// bool is the shared pointer to v.
func (in *interner) bool(v bool) *bool {
	if in.bools == nil {
		in.bools = &[2]bool{false, true}
	}
	if v {
		return &in.bools[1]
	}
	return &in.bools[0]
}
