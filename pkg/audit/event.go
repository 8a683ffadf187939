package audit

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/kgc-dev/kgc/internal/jsonscan"
	"github.com/kgc-dev/kgc/internal/jsonskip"
	"github.com/kgc-dev/kgc/pkg/rules"
)

// This file reads one audit event line into a stage record: the whole
// line for the few lines kept, and for the rest only the keys that decide
// to drop them.

// stage is one audit event as read: one stage of one request.
type stage struct {
	ev      Event
	rank    int8 // position of ev.Stage in a request's life
	file    int  // index of the input file, for a stable merge
	v1beta1 bool
	// v1alpha1: an audit.k8s.io/v1alpha1 event (v1beta1 is set too).
	v1alpha1 bool
	skipped  int8 // bodies AKS replaced by skippedBody
}

func stageRank(s string) int8 {
	switch s {
	case StageRequestReceived:
		return 0
	case StageResponseStarted:
		return 1
	case StageResponseComplete:
		return 2
	case StagePanic:
		return 3
	}
	return -1
}

// verdict is the prefilter's decision on a line.
type verdict int8

const (
	undecided verdict = iota
	drop
	keep
)

// head is what the prefilter reads of a line: the top-level keys that
// decide whether a post-mortem needs it.
type head struct {
	verb, stageTime []byte
	// user is the user value as written, for the one noise line kept
	// (gcEvent); nil until seen.
	user     []byte
	ref      Ref
	refSeen  bool
	v1beta1  bool
	v1alpha1 bool
	// passed are the members walked before a keep verdict, in order, and
	// resume the offset just past the value that decided it: a kept line
	// is read on from there (parseKept), not walked from its start again.
	// A line with more than maxPassed members before its verdict is read
	// whole (crowded).
	passed  []member
	crowded bool
	resume  int
}

// member is one top-level member of a line: its key, as written, and
// the offset of its value.
type member struct {
	key   []byte
	value int
}

// maxPassed is how many members the prefilter notes before its verdict:
// the kube-apiserver writes nine or ten.
const maxPassed = 16

var errDecided = errors.New("decided")

// notAnEvent is a line that is JSON but not an audit event.
type notAnEvent struct{ why string }

func (e *notAnEvent) Error() string { return "not an audit event: " + e.why }

func notEvent(why string) error { return &notAnEvent{why} }

// isNotEvent: err says a line is JSON but no audit event. A function of
// its own, so that the target errors.As needs is made only for an error,
// not for every line read.
func isNotEvent(err error) bool { return errors.As(err, new(*notAnEvent)) }

// eventPrefix is how the kube-apiserver starts every line of a v1 log.
const eventPrefix = `{"kind":"Event","apiVersion":"audit.k8s.io/v1",`

// prefilter walks the line's top-level keys, skipping every value but
// apiVersion, verb, objectRef and stageTimestamp, and stops as soon as the
// verdict is known. The kube-apiserver writes verb seventh and objectRef
// before the bodies, so a dropped line costs a few string skips; another
// key order is read correctly, only slower.
func prefilter(l []byte, h *head) (verdict, error) {
	h.reset()
	s := scanner{jsonscan.Cursor{Data: l}}
	v := undecided
	field := func(key []byte) error {
		h.pass(key, s.Pos)
		var err error
		switch string(key) {
		case "apiVersion":
			var b []byte
			b, err = s.str()
			h.v1beta1, h.v1alpha1 = olderVersion(b)
		case "verb":
			h.verb, err = s.str()
		case "user":
			from := s.Pos
			err = s.Skip()
			h.user = l[from:s.Pos]
		case "objectRef":
			h.refSeen = true
			err = readRef(&s, &h.ref, nil, nil)
		case "stageTimestamp":
			h.stageTime, err = s.str()
		default:
			err = s.Skip()
		}
		if err != nil {
			return err
		}
		if v = h.decide(); v != undecided {
			h.resume = s.Pos
			return errDecided
		}
		return nil
	}
	var err error
	if bytes.HasPrefix(l, []byte(eventPrefix)) {
		s.Pos = len(eventPrefix) // kind and apiVersion decide nothing, and v1 is not v1beta1
		err = s.Members(field)
	} else {
		err = s.Object(field)
	}
	if err != nil && !errors.Is(err, errDecided) {
		return undecided, err
	}
	err = nil
	if v == undecided {
		if h.verb == nil {
			return undecided, notEvent("it has no verb")
		}
		v = drop // a create, update or patch of a non-resource URL
	}
	if v == drop && h.stageTime == nil {
		h.stageTime, err = stageTimeAtEnd(l)
	}
	return v, err
}

// reset readies h for another line, keeping passed's array.
func (h *head) reset() { *h = head{passed: h.passed[:0]} }

// pass notes a member the prefilter walks, when passed has room.
func (h *head) pass(key []byte, value int) {
	switch {
	case h.crowded:
	case len(h.passed) == maxPassed:
		h.crowded = true
	default:
		if h.passed == nil {
			h.passed = make([]member, 0, maxPassed)
		}
		h.passed = append(h.passed, member{key, value})
	}
}

// decide is the verdict once the verb (and, for writes, the objectRef)
// is known.
func (h *head) decide() verdict {
	switch string(h.verb) {
	case "":
		return undecided
	case "delete", "deletecollection", "create", "update", "patch":
		if !h.refSeen {
			return undecided
		}
		if gcEvent(string(h.verb), &h.ref) {
			return h.byCollector()
		}
		return keepWrite(string(h.verb), &h.ref)
	}
	return drop // get, list, watch and every other read
}

// gcEvent: the create of an Event, which a post-mortem keeps when the
// garbage collector sent it: the only event it records is
// OwnerRefInvalidNamespace, on the dependent it then deletes on its own.
func gcEvent(verb string, ref *Ref) bool {
	return verb == "create" && ref.Resource == "events" && ref.Subresource == "" && (ref.APIGroup == "" || ref.APIGroup == "events.k8s.io")
}

// byCollector keeps a line the garbage collector sent, once its user is
// read.
func (h *head) byCollector() verdict {
	switch {
	case h.user == nil:
		return undecided
	case bytes.Contains(h.user, []byte(`"`+GarbageCollectorUser+`"`)):
		return keep
	}
	return drop
}

// olderVersion says whether an event's apiVersion is audit.k8s.io
// v1beta1 or older (the first), and whether it is v1alpha1.
func olderVersion(apiVersion []byte) (bool, bool) {
	alpha := string(apiVersion) == "audit.k8s.io/v1alpha1"
	return alpha || string(apiVersion) == "audit.k8s.io/v1beta1", alpha
}

// keepWrite says whether a write on ref can be part of a chain.
func keepWrite(verb string, ref *Ref) verdict {
	if noise(ref.Resource) {
		return drop
	}
	switch verb {
	case "create":
		if ref.Subresource != "" && ref.Subresource != "eviction" {
			return drop // exec, attach, token, binding: nothing a chain needs
		}
	case "update", "patch":
		// A status update changes no deletion, but for a CRD's: the API
		// server's CRD finalizer removes its finalizer through status.
		if ref.Subresource == "status" && ref.Resource != "customresourcedefinitions" {
			return drop
		}
	}
	return keep
}

// noise are resources whose requests never explain a deletion: a busy
// cluster's event, lease and review traffic.
func noise(resource string) bool {
	switch resource {
	case "events", "leases", "tokenreviews", "subjectaccessreviews", "localsubjectaccessreviews":
		return true
	}
	return len(resource) > 11 && resource[:11] == "selfsubject"
}

// stageTimeAtEnd finds a dropped line's stageTimestamp from its end, where
// the kube-apiserver writes it (only annotations follow), without
// walking the bodies before it. The key found is checked to be top-level:
// the rest of the line must parse as its object's remaining keys and
// close it at the very end. Otherwise the line is walked from the start.
func stageTimeAtEnd(l []byte) ([]byte, error) {
	if t, ok := topStringAtEnd(l, `"stageTimestamp"`); ok {
		return t, nil
	}
	var t, legacy []byte
	s := scanner{jsonscan.Cursor{Data: l}}
	err := s.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case "stageTimestamp":
			t, err = s.str()
		case "timestamp": // audit.k8s.io v1alpha1 and v1beta1
			legacy, err = s.str()
		default:
			err = s.Skip()
		}
		return err
	})
	if t == nil {
		t = legacy
	}
	if err == nil && t == nil {
		err = notEvent("it has no stageTimestamp")
	}
	return t, err
}

// topStringAtEnd is the string value of key, a quoted top-level key of
// the object l, found from l's end: the tail first (what follows the
// key is short), then the whole of l. False when it is not found so.
func topStringAtEnd(l []byte, key string) ([]byte, bool) {
	i := lastKey(l, key, max(0, len(l)-tailSize))
	if i < 0 {
		i = lastKey(l, key, 0)
	}
	if i <= 0 {
		return nil, false
	}
	s := scanner{jsonscan.Cursor{Data: l, Pos: i + len(key)}}
	return restOfTopObject(&s, l[i-1])
}

// lastKey is the index of the last occurrence of key, a quoted key, in
// l[from:]. The key is near the end: it looks back from there with
// Horspool's search turned around (the window's first byte says how far
// back the key can next start), by up to its length; bytes.LastIndex
// hashes every byte.
func lastKey(l []byte, key string, from int) int {
	var back [256]uint8 // 0: the key holds the byte only at its start, or not at all
	for k := len(key) - 1; k >= 1; k-- {
		back[key[k]] = uint8(k)
	}
	for i := len(l) - len(key); i >= from; {
		c := l[i]
		if c == key[0] && string(l[i:i+len(key)]) == key {
			return i
		}
		if k := back[c]; k != 0 {
			i -= int(k)
		} else {
			i -= len(key)
		}
	}
	return -1
}

// tailSize is how much of a line's end is searched first.
const tailSize = 640

// restOfTopObject reads the value after a key found by search, then the
// keys that follow, and reports whether the object they are in closes at
// the line's last byte: then the key was top-level.
func restOfTopObject(s *scanner, before byte) ([]byte, bool) {
	if before != ',' && before != '{' && !jsonskip.IsSpace(before) {
		return nil, false
	}
	if s.Expect(jsonscan.WantColon) != nil {
		return nil, false
	}
	t, err := s.str()
	if err != nil {
		return nil, false
	}
	for {
		switch s.Peek() {
		case '}':
			return t, s.Pos == len(s.Data)-1
		case ',':
			s.Pos++
			if _, err := s.RawString(); err != nil || s.Expect(jsonscan.WantColon) != nil || s.Skip() != nil {
				return nil, false
			}
		default:
			return nil, false
		}
	}
}

// parseKept reads a line the prefilter kept, whose head h says what the
// prefilter walked: the members before its verdict are read from where
// it found their values, and the rest from where it stopped. The
// prefilter checked the line's syntax that far as the whole walk would,
// so the stage and any error are the whole walk's. A nil h, or one whose
// members did not all fit, reads the line whole.
func parseKept(l []byte, h *head, in *interner) (stage, error) {
	var st stage
	var p pending
	in.newEvent()
	s := scanner{jsonscan.Cursor{Data: l}}
	field := func(key []byte) error { return st.field(&s, string(key), in, &p) }
	var err error
	if h == nil || h.crowded || h.resume == 0 {
		err = s.Object(field)
	} else {
		err = h.readOn(&s, field)
	}
	// A request body left unread comes before whatever the walk met
	// after it: its error is the line's, as a walk reading it would say.
	if rerr := p.readRequest(&s, &st.ev, in, err != nil); rerr != nil {
		return st, rerr
	}
	if err != nil {
		return st, err
	}
	if p.stage == nil {
		p.stage = p.legacy
	}
	return st, st.settle(&p)
}

// readOn reads the members the prefilter passed, then those after the
// value that decided it.
func (h *head) readOn(s *scanner, field func([]byte) error) error {
	for _, m := range h.passed {
		s.Pos = m.value
		if err := field(m.key); err != nil {
			return err
		}
	}
	s.Pos = h.resume
	return s.After(field)
}

// settle completes a stage read with what was pending: it checks and
// parses its times, and keeps its request's object only when it says
// something the response does not.
func (st *stage) settle(p *pending) error {
	if err := st.complete(p.stage, p.received); err != nil {
		return err
	}
	ev := &st.ev
	if !deleteVerb(ev.Verb) {
		ev.Delete = nil // DeleteOptions only mean something on a delete
	}
	if p.request.hasMeta && !requestAddsNothing(ev, &p.request.meta) {
		ev.Request = p.request.object()
	}
	return nil
}

// pending is what an event's reader holds until the whole event is read
// (settle): its timestamps as written, and its request body, whose
// object most often repeats the response's and is then not kept.
// legacy is the timestamp field audit.k8s.io v1alpha1 and v1beta1
// wrote, read when an event has no stageTimestamp.
type pending struct {
	stage, received, legacy []byte
	request                 body
	// requestAt and requestEnd are where a request object was skipped
	// rather than read (requestAt 0: none was): readRequest reads it
	// only when it can count.
	requestAt, requestEnd int
}

// deleteVerb: the verb deletes, and its request body is DeleteOptions.
func deleteVerb(verb string) bool { return verb == "delete" || verb == "deletecollection" }

// field reads the value of one top-level key of an event into st.
func (st *stage) field(s *scanner, key string, in *interner, p *pending) error {
	ev := &st.ev
	switch key {
	case "kind":
		b, err := s.str()
		if err == nil && string(b) != "Event" {
			return notEvent(fmt.Sprintf("its kind is %.40q", b))
		}
		return err
	case "apiVersion":
		b, err := s.str()
		st.v1beta1, st.v1alpha1 = olderVersion(b)
		return err
	case "level":
		return s.internStr(&ev.Level, in)
	case "auditID":
		return s.plainStr(&ev.AuditID, in)
	case "stage":
		return s.internStr(&ev.Stage, in)
	case "requestURI":
		return s.plainStr(&ev.RequestURI, in)
	case "verb":
		return s.internStr(&ev.Verb, in)
	case "user":
		return readUser(s, &ev.User, in)
	case "impersonatedUser":
		if s.Peek() == 'n' {
			return s.Skip()
		}
		ev.ImpersonatedUser = &User{}
		return readUser(s, ev.ImpersonatedUser, in)
	case "sourceIPs":
		var err error
		ev.SourceIPs, err = s.strings(in)
		return err
	case "userAgent":
		return s.internStr(&ev.UserAgent, in)
	case "objectRef":
		return readObjectRef(s, &ev.Object, in)
	case "requestReceivedTimestamp":
		var err error
		p.received, err = s.str()
		return err
	case "stageTimestamp":
		var err error
		p.stage, err = s.str()
		return err
	case "timestamp":
		var err error
		p.legacy, err = s.str()
		return err
	}
	if (key == "requestObject" || key == "responseObject") && s.Peek() == '"' {
		return st.skippedBody(s)
	}
	return bodyField(s, key, ev, in, p)
}

// skippedBody reads a body that is a string: AKS's skippedBody counts.
func (st *stage) skippedBody(s *scanner) error {
	b, err := s.str()
	if string(b) == skippedBody {
		st.skipped++
	}
	return err
}

// bodyField reads what kgc keeps of an event's bodies and annotations,
// and skips every other key.
func bodyField(s *scanner, key string, ev *Event, in *interner, p *pending) error {
	switch key {
	case "responseStatus":
		b, err := readBody(s, in)
		ev.Code = b.code
		if b.reason != "" {
			ev.Reason = b.reason
		}
		return err
	case "requestObject":
		// A request object is most often the response's object again,
		// as large, and then not kept (requestAddsNothing): it is
		// skipped here, and read once the whole event is (readRequest).
		if at := s.Pos; s.Peek() == '{' {
			if s.Skip() == nil {
				p.requestAt, p.requestEnd = at, s.Pos
				return nil
			}
			s.Pos = at // the error as reading it words it
		}
		b, err := readBody(s, in)
		p.request, ev.Delete, p.requestAt = b, b.delete, 0
		return err
	case "responseObject":
		b, err := readBody(s, in)
		ev.Response = b.object()
		if b.status && b.reason != "" {
			ev.Reason = b.reason
		}
		return err
	case "annotations":
		return readAnnotations(s, ev, in)
	}
	return s.Skip()
}

// requestAddsNothing reports whether an event's request object q says
// nothing its response object does not: the response names the same
// object, with its kind and UID, and the request removes no owner
// reference or finalizer. A create's or an update's request object is
// then dropped: most kept events are those, and their objects are large.
func requestAddsNothing(ev *Event, q *Meta) bool {
	return responseNamesObject(ev) && !q.Removes()
}

// responseNamesObject: the event's response object names the object
// the event is about, with its kind and UID.
func responseNamesObject(ev *Event) bool {
	r := ev.Response
	return r != nil && r.Kind != "" && r.UID != "" && r.Name == ev.Object.Name
}

// readRequest reads the request object the walk of an event skipped,
// when the walk failed (its error comes first) or the object can count:
// it is left unread only when reading it could change nothing, on an
// event that deletes nothing (whose DeleteOptions would count), whose
// response names its object (requestAddsNothing would drop it), and
// where it holds no '$', so no patch directive that removes an owner
// reference or a finalizer (readMetadata reads keys as written).
func (p *pending) readRequest(s *scanner, ev *Event, in *interner, failed bool) error {
	if p.requestAt == 0 {
		return nil
	}
	raw := s.Data[p.requestAt:p.requestEnd]
	if !failed && !deleteVerb(ev.Verb) && responseNamesObject(ev) && bytes.IndexByte(raw, '$') < 0 {
		return nil
	}
	r := scanner{jsonscan.Cursor{Data: s.Data, Pos: p.requestAt}}
	b, err := readBody(&r, in)
	p.request, ev.Delete = b, b.delete
	return err
}

// complete checks the fields every audit event has and parses its times.
func (st *stage) complete(stageTime, received []byte) error {
	ev := &st.ev
	for _, f := range []struct{ name, v string }{{"auditID", ev.AuditID}, {"stage", ev.Stage}, {"verb", ev.Verb}} {
		if f.v == "" {
			return notEvent("it has no " + f.name)
		}
	}
	if st.rank = stageRank(ev.Stage); st.rank < 0 {
		return notEvent(fmt.Sprintf("unknown stage %.40q", ev.Stage))
	}
	var err error
	if ev.Time, err = parseTime(stageTime, "stageTimestamp"); err != nil {
		return err
	}
	if len(received) > 0 {
		ev.Received, err = parseTime(received, "requestReceivedTimestamp")
	}
	return err
}

func parseTime(b []byte, field string) (time.Time, error) {
	if len(b) == 0 {
		return time.Time{}, notEvent("it has no " + field)
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return t, notEvent(fmt.Sprintf("invalid %s %.40q", field, b))
	}
	return t.UTC(), nil
}

func (s *scanner) plainStr(dst *string, in *interner) error {
	b, err := s.str()
	*dst = in.plain(b)
	return err
}

func (s *scanner) internStr(dst *string, in *interner) error {
	b, err := s.str()
	*dst = in.str(b)
	return err
}

func readUser(s *scanner, u *User, in *interner) error {
	return s.Object(func(key []byte) error {
		switch string(key) {
		case "username":
			return s.internStr(&u.Username, in)
		case "uid":
			return s.internStr(&u.UID, in)
		case "groups":
			var err error
			u.Groups, err = s.strings(in)
			return err
		}
		return s.Skip() // extra: may hold credentials' identifiers
	})
}

// readRef reads an objectRef. in is nil for the prefilter, which
// only compares the strings: they alias the line.
func readRef(s *scanner, r *Ref, in *interner, legacy *[]byte) error {
	str := func(dst *string, low bool) error {
		b, err := s.str()
		switch {
		case in == nil:
			*dst = unsafeString(b)
		case low:
			*dst = in.str(b)
		default:
			*dst = in.plain(b)
		}
		return err
	}
	return s.Object(func(key []byte) error {
		switch string(key) {
		case "resource":
			return str(&r.Resource, true)
		case "apiGroup":
			return str(&r.APIGroup, true)
		case "subresource":
			return str(&r.Subresource, true)
		}
		if in == nil {
			return s.Skip()
		}
		switch string(key) {
		case "namespace":
			return str(&r.Namespace, true)
		case "name":
			return str(&r.Name, false)
		case "uid":
			return str(&r.UID, false)
		case "apiVersion":
			// v1alpha1's apiVersion is GROUP/VERSION: keep the group.
			b, err := s.str()
			if g, _, ok := bytes.Cut(b, []byte{'/'}); ok && legacy != nil {
				*legacy = g
			}
			return err
		}
		return s.Skip()
	})
}

// readObjectRef reads an event's objectRef as today's API server would
// name it: audit.k8s.io/v1alpha1 wrote the group in apiVersion
// ("extensions/v1beta1"), and extensions' types have moved groups.
func readObjectRef(s *scanner, r *Ref, in *interner) error {
	var legacy []byte
	if err := readRef(s, r, in, &legacy); err != nil {
		return err
	}
	if r.APIGroup == "" && len(legacy) > 0 {
		r.APIGroup = in.str(legacy)
	}
	if g := rules.MovedGroup(r.APIGroup, r.Resource); g != r.APIGroup {
		r.APIGroup = g
	}
	return nil
}

// readAnnotations keeps the authorizer's decision and reason, nothing
// else: other annotations can name what a webhook saw in a body.
func readAnnotations(s *scanner, ev *Event, in *interner) error {
	if s.Peek() == 'n' {
		return s.Skip()
	}
	return s.Object(func(key []byte) error {
		switch string(key) {
		case "authorization.k8s.io/decision":
			return s.internStr(&ev.Decision, in)
		case "authorization.k8s.io/reason":
			// RBAC's reasons quote names: unescaped on the stack, as
			// short interns a copy.
			var buf [256]byte
			b, err := s.strIn(buf[:0])
			ev.AuthzReason = short(b, in)
			return err
		}
		return s.Skip()
	})
}

// maxReason bounds a kept reason or message.
const maxReason = 200

// short interns a reason or message cut to maxReason: reasons repeat
// (the same role binding allows the same user again and again).
func short(b []byte, in *interner) string {
	if len(b) > maxReason {
		b = append(b[:maxReason:maxReason], "…"...)
	}
	return in.str(b)
}
