package audit

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// This file encodes a stage into bytes and back, exactly, for spilling the
// requests of a log too big to hold to a temporary file. The encoding is
// written by hand: reflection-based encoders are slow on millions of
// stages, and encoding/gob and JSON do not tell a nil slice from an empty
// one, which Meta.Finalizers depends on ("the body did not say" against
// "none").
//
// A stage is its body's length (4 bytes, little-endian) and its body, each
// field written in declaration order, with no names or tags:
//   - a string is its uvarint length and its bytes;
//   - an int is a varint;
//   - a bool is one byte, 0 or 1;
//   - a pointer is a presence byte, 0 (nil) or 1, then its value (a *bool
//     is one byte: 0 nil, 1 false, 2 true);
//   - a slice is a uvarint tag, 0 for nil and n+1 for n elements, then
//     the elements;
//   - a time.Time is its Unix seconds (varint), nanoseconds (uvarint) and
//     location: 0 UTC, 1 Local, else 2 and the zone's name and offset in
//     seconds, read back as a fixed zone (what time.Parse makes of an RFC
//     3339 offset). As with MarshalBinary, a monotonic clock reading is
//     dropped, and a tz-database location comes back as the fixed zone in
//     effect at that instant (the reader makes UTC times only).
//
// The file is read back by the process that wrote it, so the encoding has
// no version: adding a field to a type means encoding it here, which
// TestSpillFieldCounts insists on.

// errSpillCorrupt is what decodeStage wraps: a spill file was cut short or
// changed after kgc wrote it.
var errSpillCorrupt = errors.New("the spill file is corrupt")

func spillCorrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s (a temporary file kgc wrote was changed or cut short: run again)", errSpillCorrupt, fmt.Sprintf(format, args...))
}

// Tags of a time's location.
const (
	spillUTC byte = iota
	spillLocal
	spillFixed
)

// appendStage appends st's encoding to b.
func appendStage(b []byte, st *stage) []byte {
	start := len(b)
	// The body's length, set below: a stage's metadata is far below 4 GiB.
	b = append(b, 0, 0, 0, 0)
	b = append(b, byte(st.rank))
	b = binary.AppendVarint(b, int64(st.file))
	b = appendFlag(b, st.v1beta1)
	b = appendFlag(b, st.v1alpha1)
	b = append(b, byte(st.skipped))
	b = appendEvent(b, &st.ev)
	binary.LittleEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b
}

// decodeStage decodes one stage from the front of b into st (overwriting
// it) and returns the rest of b. A truncated or corrupt encoding is an
// error wrapping errSpillCorrupt, never a panic; st is then partly
// decoded. The stage's strings share one copy of its encoding, made
// once: b may be reused.
func decodeStage(b []byte, st *stage) ([]byte, error) {
	*st = stage{}
	if len(b) < 4 {
		return nil, spillCorrupt("a stage cut short in its length")
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, spillCorrupt("a stage of %d bytes cut short at %d", n, len(b)-4)
	}
	body := b[4 : 4+n]
	d := spillDecoder{b: body, s: string(body)}
	st.rank = int8(d.next())
	st.file = d.intv()
	st.v1beta1 = d.flag()
	st.v1alpha1 = d.flag()
	st.skipped = int8(d.next())
	d.event(&st.ev)
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d bytes beyond the stage's end", len(d.b))
	}
	if d.err != nil {
		return nil, spillCorrupt("%s at byte %d of a stage", d.err, d.at)
	}
	return b[4+n:], nil
}

func appendEvent(b []byte, e *Event) []byte {
	for _, s := range [...]string{e.AuditID, e.Level, e.Stage, e.Verb, e.RequestURI} {
		b = appendStr(b, s)
	}
	b = appendUser(b, &e.User)
	b = appendFlag(b, e.ImpersonatedUser != nil)
	if e.ImpersonatedUser != nil {
		b = appendUser(b, e.ImpersonatedUser)
	}
	b = appendStrs(b, e.SourceIPs)
	b = appendStr(b, e.UserAgent)
	b = appendRef(b, &e.Object)
	b = binary.AppendVarint(b, int64(e.Code))
	b = appendStr(b, e.Reason)
	b = appendTime(b, e.Received)
	b = appendTime(b, e.Time)
	b = appendStr(b, e.Decision)
	b = appendStr(b, e.AuthzReason)
	b = appendFlag(b, e.Delete != nil)
	if e.Delete != nil {
		b = appendDeleteOptions(b, e.Delete)
	}
	b = appendMetaPtr(b, e.Request)
	b = appendMetaPtr(b, e.Response)
	b = appendStr(b, e.Source.File)
	return binary.AppendVarint(b, int64(e.Source.Line))
}

func appendUser(b []byte, u *User) []byte {
	b = appendStr(b, u.Username)
	b = appendStr(b, u.UID)
	return appendStrs(b, u.Groups)
}

func appendRef(b []byte, r *Ref) []byte {
	for _, s := range [...]string{r.Resource, r.Namespace, r.Name, r.UID, r.APIGroup, r.Subresource} {
		b = appendStr(b, s)
	}
	return b
}

func appendDeleteOptions(b []byte, o *DeleteOptions) []byte {
	b = appendStr(b, o.PropagationPolicy)
	b = appendOptBool(b, o.OrphanDependents)
	b = appendFlag(b, o.GracePeriodSeconds != nil)
	if o.GracePeriodSeconds != nil {
		b = binary.AppendVarint(b, *o.GracePeriodSeconds)
	}
	b = appendStrs(b, o.DryRun)
	b = appendStr(b, o.PreconditionUID)
	return appendStr(b, o.PreconditionRV)
}

func appendMetaPtr(b []byte, m *Meta) []byte {
	b = appendFlag(b, m != nil)
	if m != nil {
		b = appendMeta(b, m)
	}
	return b
}

func appendMeta(b []byte, m *Meta) []byte {
	for _, s := range [...]string{m.APIVersion, m.Kind, m.Namespace, m.Name, m.UID} {
		b = appendStr(b, s)
	}
	b = appendFlag(b, m.DeletionTimestamp != nil)
	if m.DeletionTimestamp != nil {
		b = appendTime(b, *m.DeletionTimestamp)
	}
	b = appendStrs(b, m.Finalizers)
	b = appendLen(b, m.OwnerReferences == nil, len(m.OwnerReferences))
	for i := range m.OwnerReferences {
		b = appendOwnerRef(b, &m.OwnerReferences[i])
	}
	b = appendFlag(b, m.MetaExtras != nil)
	if x := m.MetaExtras; x != nil {
		b = appendStrs(b, x.RemovedFinalizers)
		b = appendStrs(b, x.RemovedOwnerUIDs)
		b = appendLen(b, x.Items == nil, len(x.Items))
		for i := range x.Items {
			b = appendMeta(b, &x.Items[i])
		}
	}
	return b
}

func appendOwnerRef(b []byte, r *OwnerRef) []byte {
	for _, s := range [...]string{r.APIVersion, r.Kind, r.Name, r.UID} {
		b = appendStr(b, s)
	}
	b = appendOptBool(b, r.Controller)
	return appendOptBool(b, r.BlockOwnerDeletion)
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendLen appends a slice's tag: 0 for nil, n+1 for n elements.
func appendLen(b []byte, isNil bool, n int) []byte {
	if isNil {
		return append(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

func appendStrs(b []byte, ss []string) []byte {
	b = appendLen(b, ss == nil, len(ss))
	for _, s := range ss {
		b = appendStr(b, s)
	}
	return b
}

func appendFlag(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// appendOptBool appends a *bool as one byte: 0 nil, 1 false, 2 true.
func appendOptBool(b []byte, p *bool) []byte {
	switch {
	case p == nil:
		return append(b, 0)
	case *p:
		return append(b, 2)
	default:
		return append(b, 1)
	}
}

func appendTime(b []byte, t time.Time) []byte {
	b = binary.AppendVarint(b, t.Unix())
	b = binary.AppendUvarint(b, uint64(t.Nanosecond()))
	switch t.Location() {
	case time.UTC:
		return append(b, spillUTC)
	case time.Local:
		return append(b, spillLocal)
	}
	name, offset := t.Zone()
	b = append(b, spillFixed)
	b = appendStr(b, name)
	return binary.AppendVarint(b, int64(offset))
}

// spillDecoder reads a stage's encoding from the front of b, and its
// strings from s, a copy of the whole encoding: one allocation for all
// of them rather than one each. Its first error sticks: later reads
// return zero values, so that the decoding functions read straight
// through and decodeStage looks at err once.
type spillDecoder struct {
	b   []byte
	s   string
	err error
	at  int // where err was met
}

func (d *spillDecoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
		d.at = len(d.s) - len(d.b)
	}
	d.b = nil
}

func (d *spillDecoder) event(e *Event) {
	for _, s := range [...]*string{&e.AuditID, &e.Level, &e.Stage, &e.Verb, &e.RequestURI} {
		*s = d.str()
	}
	d.user(&e.User)
	if d.flag() {
		e.ImpersonatedUser = &User{}
		d.user(e.ImpersonatedUser)
	}
	e.SourceIPs = d.strs()
	e.UserAgent = d.str()
	d.ref(&e.Object)
	e.Code = d.intv()
	e.Reason = d.str()
	e.Received = d.time()
	e.Time = d.time()
	e.Decision = d.str()
	e.AuthzReason = d.str()
	if d.flag() {
		e.Delete = &DeleteOptions{}
		d.deleteOptions(e.Delete)
	}
	e.Request = d.metaPtr()
	e.Response = d.metaPtr()
	e.Source.File = d.str()
	e.Source.Line = d.intv()
}

func (d *spillDecoder) user(u *User) {
	u.Username = d.str()
	u.UID = d.str()
	u.Groups = d.strs()
}

func (d *spillDecoder) ref(r *Ref) {
	for _, s := range [...]*string{&r.Resource, &r.Namespace, &r.Name, &r.UID, &r.APIGroup, &r.Subresource} {
		*s = d.str()
	}
}

func (d *spillDecoder) deleteOptions(o *DeleteOptions) {
	o.PropagationPolicy = d.str()
	o.OrphanDependents = d.optBool()
	if d.flag() {
		v := d.varint()
		o.GracePeriodSeconds = &v
	}
	o.DryRun = d.strs()
	o.PreconditionUID = d.str()
	o.PreconditionRV = d.str()
}

func (d *spillDecoder) metaPtr() *Meta {
	if !d.flag() {
		return nil
	}
	m := &Meta{}
	d.meta(m)
	return m
}

func (d *spillDecoder) meta(m *Meta) {
	for _, s := range [...]*string{&m.APIVersion, &m.Kind, &m.Namespace, &m.Name, &m.UID} {
		*s = d.str()
	}
	if d.flag() {
		t := d.time()
		m.DeletionTimestamp = &t
	}
	m.Finalizers = d.strs()
	if n, ok := d.count(); ok {
		m.OwnerReferences = make([]OwnerRef, n)
		for i := range m.OwnerReferences {
			d.ownerRef(&m.OwnerReferences[i])
		}
	}
	if !d.flag() {
		return
	}
	x := &MetaExtras{}
	m.MetaExtras = x
	x.RemovedFinalizers = d.strs()
	x.RemovedOwnerUIDs = d.strs()
	if n, ok := d.count(); ok {
		x.Items = make([]Meta, n)
		for i := range x.Items {
			d.meta(&x.Items[i])
		}
	}
}

func (d *spillDecoder) ownerRef(r *OwnerRef) {
	for _, s := range [...]*string{&r.APIVersion, &r.Kind, &r.Name, &r.UID} {
		*s = d.str()
	}
	r.Controller = d.optBool()
	r.BlockOwnerDeletion = d.optBool()
}

func (d *spillDecoder) next() byte {
	if len(d.b) == 0 {
		d.fail("unexpected end")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *spillDecoder) uvarint() uint64 { return readVarint(d, binary.Uvarint) }

func (d *spillDecoder) varint() int64 { return readVarint(d, binary.Varint) }

// readVarint reads a varint with read (binary.Varint or binary.Uvarint).
func readVarint[T int64 | uint64](d *spillDecoder, read func([]byte) (T, int)) T {
	v, n := read(d.b)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// intv reads a varint that must fit an int.
func (d *spillDecoder) intv() int {
	v := d.varint()
	if int64(int(v)) != v {
		d.fail("integer %d out of range", v)
		return 0
	}
	return int(v)
}

func (d *spillDecoder) flag() bool {
	switch c := d.next(); c {
	case 0, 1:
		return c == 1
	default:
		d.fail("presence byte %d", c)
		return false
	}
}

func (d *spillDecoder) optBool() *bool {
	switch c := d.next(); c {
	case 0:
		return nil
	case 1, 2:
		v := c == 2
		return &v
	default:
		d.fail("optional bool byte %d", c)
		return nil
	}
}

// count reads a slice's tag: ok is false for a nil slice. Every element
// takes at least one byte, so a length beyond what is left is corrupt
// (and is not allocated).
func (d *spillDecoder) count() (n int, ok bool) {
	tag := d.uvarint()
	if tag == 0 {
		return 0, false
	}
	if tag-1 > uint64(len(d.b)) {
		d.fail("slice length %d beyond the %d bytes left", tag-1, len(d.b))
		return 0, false
	}
	return int(tag - 1), true
}

func (d *spillDecoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("string length %d beyond the %d bytes left", n, len(d.b))
		return ""
	}
	at := len(d.s) - len(d.b)
	d.b = d.b[n:]
	return d.s[at : at+int(n)]
}

func (d *spillDecoder) strs() []string {
	n, ok := d.count()
	if !ok {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = d.str()
	}
	return ss
}

func (d *spillDecoder) time() time.Time {
	sec := d.varint()
	nsec := d.uvarint()
	if nsec >= uint64(time.Second) {
		d.fail("nanoseconds %d out of range", nsec)
	}
	loc := time.UTC
	switch c := d.next(); c {
	case spillUTC:
	case spillLocal:
		loc = time.Local
	case spillFixed:
		name := d.str()
		loc = time.FixedZone(name, d.intv())
	default:
		d.fail("time location byte %d", c)
	}
	if d.err != nil {
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).In(loc)
}
