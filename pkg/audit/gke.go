package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/kgc-dev/kgc/internal/jsonscan"
	"github.com/kgc-dev/kgc/pkg/rules"
)

// This file reads a GKE Cloud Audit Logs entry, as `gcloud logging read
// --format=json|yaml` prints it and a Cloud Storage sink writes it (a
// LogEntry a line), into the stage of a native Event: protoPayload.methodName
// is io.k8s.GROUP.VERSION.RESOURCE[.SUB].VERB, resourceName is
// GROUP/VERSION/namespaces/NS/RESOURCE/NAME[/SUB] (the core group spelled
// "core"), authenticationInfo.principalEmail the user, status a
// google.rpc code, operation.id (else insertId) the audit ID.
//
// What it loses (see loss.go): the user's groups, uid and extra, and whom
// a request impersonated; the stages (one entry per request, read as
// ResponseComplete); the HTTP status code (rebuilt from the google.rpc
// code, so 200 and 201 are one); the time the request was received (the
// entry's timestamp is when it was written).
//
// As a native line is, an entry is read only as far as the prefilter's
// verdict needs (methodName, resourceName, for an Event's create the
// principal), and a dropped one's timestamp is looked for from its end,
// where gcloud writes it: most entries are reads, dropped at their
// methodName, and a dropped write's request is only skipped to reach its
// resourceName. Nothing else of a dropped entry is checked, as of a
// native line. Keys are matched as Cloud Logging writes them (exactly,
// as the native reader matches an event's); gke_ref_test.go keeps the
// encoding/json reading it replaced, which the fuzzer holds it to.

// passOver is the verdict on an entry of another service than
// Kubernetes: counted as passed over, not as an audit event.
const passOver = keep + 1

// gkeSeen are the keys of an entry read so far that a verdict needs.
type gkeSeen uint8

const (
	seenMethod gkeSeen = 1 << iota
	seenName
	seenPrincipal
	seenTime
)

// gkeEntry is what is read of a LogEntry: its strings decoded, its
// bodies and labels as written (nil when absent).
type gkeEntry struct {
	insertID, opID, timestamp []byte
	method, name, principal   []byte
	ip, agent, message        []byte
	code                      int64
	request, response, labels []byte
	seen                      gkeSeen
}

// gkeRead reads an entry whose first protoPayload's value is at v[at:]:
// its verdict, its stage when kept, its timestamp when dropped. The keys
// before protoPayload (classify walked them) are read only to keep it.
func gkeRead(v []byte, at int, in *interner) (verdict, stage, []byte, error) {
	var e gkeEntry
	err := e.read(v, at)
	if err != nil && !errors.Is(err, errDecided) {
		return undecided, stage{}, nil, gkeInvalid(err)
	}
	verd := e.verdict(err == nil)
	switch {
	case verd == keep:
		if err := e.head(v, at); err != nil {
			return undecided, stage{}, nil, gkeInvalid(err)
		}
		st, err := e.stage(in)
		return verd, st, nil, err
	case verd == drop && e.seen&seenTime == 0:
		t, err := gkeTimeAtEnd(v)
		return drop, stage{}, t, err
	case verd == drop:
		return drop, stage{}, e.timestamp, nil
	}
	return verd, stage{}, nil, nil
}

// gkeInvalid is a notAnEvent naming what of the entry is not as Cloud
// Logging writes it, unless the entry is no JSON at all.
func gkeInvalid(err error) error {
	if isNotEvent(err) || errors.Is(err, errIncomplete) {
		return err
	}
	return notEvent("its protoPayload is not a Cloud Audit Log: " + err.Error())
}

// read walks the keys of an entry into e: all of them (from 0), or
// those from the value of its first protoPayload at from, stopping with
// errDecided once the entry is known to be dropped or passed over.
func (e *gkeEntry) read(v []byte, from int) error {
	s := scanner{jsonscan.Cursor{Data: v}}
	field := func(key []byte) error { return e.top(&s, key, from > 0) }
	if from == 0 {
		return s.Object(field)
	}
	s.Pos = from
	if err := field([]byte("protoPayload")); err != nil {
		return err
	}
	switch s.Peek() {
	case '}':
		return nil
	case ',':
		s.Pos++
		return s.Members(field)
	}
	return s.Unexpected(jsonscan.WantMemberEnd)
}

// head reads the keys of an entry before its protoPayload at at, under
// those read after it: of a key written twice, the last is read.
func (e *gkeEntry) head(v []byte, at int) error {
	var h gkeEntry
	s := scanner{jsonscan.Cursor{Data: v}}
	err := s.Object(func(key []byte) error {
		if s.Pos == at {
			return errDecided
		}
		return h.top(&s, key, false)
	})
	if err != nil && !errors.Is(err, errDecided) {
		return err
	}
	for _, f := range []struct{ after, before *[]byte }{
		{&e.insertID, &h.insertID}, {&e.opID, &h.opID}, {&e.labels, &h.labels}, {&e.timestamp, &h.timestamp},
	} {
		if *f.after == nil {
			*f.after = *f.before
		}
	}
	return nil
}

// top reads one top-level key of an entry; early, it stops with
// errDecided once the entry is known to be dropped or passed over.
func (e *gkeEntry) top(s *scanner, key []byte, early bool) error {
	switch string(key) {
	case "insertId":
		return gkeStr(s, &e.insertID, nil, 0)
	case "timestamp":
		return gkeStr(s, &e.timestamp, &e.seen, seenTime)
	case "labels":
		var err error
		e.labels, err = s.Raw()
		return err
	case "operation":
		return gkeObject(s, func(key []byte) error {
			if string(key) == "id" {
				return gkeStr(s, &e.opID, nil, 0)
			}
			return s.Skip()
		})
	case "protoPayload":
		return gkeObject(s, func(key []byte) error {
			seen := e.seen
			if err := e.payload(s, key); err != nil || !early || e.seen == seen {
				return err
			}
			// A kept entry is read on: all of it is needed.
			if v := e.verdict(false); v == drop || v == passOver {
				return errDecided
			}
			return nil
		})
	}
	return s.Skip()
}

// payload reads one key of an entry's protoPayload.
func (e *gkeEntry) payload(s *scanner, key []byte) error {
	var err error
	switch string(key) {
	case "methodName":
		return gkeStr(s, &e.method, &e.seen, seenMethod)
	case "resourceName":
		return gkeStr(s, &e.name, &e.seen, seenName)
	case "@type":
		return gkeStr(s, new([]byte), nil, 0)
	case "request":
		e.request, err = s.Raw()
	case "response":
		e.response, err = s.Raw()
	case "authenticationInfo":
		err = gkeObject(s, func(key []byte) error {
			if string(key) == "principalEmail" {
				return gkeStr(s, &e.principal, &e.seen, seenPrincipal)
			}
			return s.Skip()
		})
	case "requestMetadata":
		err = gkeObject(s, func(key []byte) error {
			switch string(key) {
			case "callerIp":
				return gkeStr(s, &e.ip, nil, 0)
			case "callerSuppliedUserAgent":
				return gkeStr(s, &e.agent, nil, 0)
			}
			return s.Skip()
		})
	case "status":
		err = gkeObject(s, func(key []byte) error {
			switch string(key) {
			case "code":
				if s.Peek() == 'n' {
					return s.Skip()
				}
				var err error
				e.code, _, err = s.int()
				return err
			case "message":
				return gkeStr(s, &e.message, nil, 0)
			}
			return s.Skip()
		})
	default:
		err = s.Skip()
	}
	return err
}

// gkeObject reads an object of an entry, or null.
func gkeObject(s *scanner, field func(key []byte) error) error {
	if s.Peek() == 'n' {
		return s.Skip()
	}
	return s.Object(field)
}

// gkeStr reads a string of an entry into dst, marking it seen; null
// leaves dst as it was, as a LogEntry decoded would.
func gkeStr(s *scanner, dst *[]byte, seen *gkeSeen, bit gkeSeen) error {
	if s.Peek() == 'n' {
		return s.Skip()
	}
	b, err := s.str()
	if err != nil {
		return err
	}
	*dst = b
	if seen != nil {
		*seen |= bit
	}
	return nil
}

// verdict is the prefilter's decision on the entry as read so far; at
// its end what was not seen is absent.
func (e *gkeEntry) verdict(end bool) verdict {
	if e.seen&seenMethod == 0 && !end {
		return undecided
	}
	if !bytes.HasPrefix(e.method, []byte("io.k8s.")) {
		return passOver // another service's audit entry, or not one at all
	}
	h := head{verb: e.method[bytes.LastIndexByte(e.method, '.')+1:]}
	if e.seen&seenName != 0 || end {
		h.ref, h.refSeen = gkeRef(unsafeString(e.name))
	}
	if gcEvent(string(h.verb), &h.ref) && (e.seen&seenPrincipal != 0 || end) {
		// The username as the native event would have it written
		// (byCollector looks for the collector's, quoted, in it).
		h.user, _ = json.Marshal(string(e.principal))
	}
	v := h.decide()
	if v == undecided && end {
		v = drop // a write of no resource
	}
	return v
}

// gkeTimeAtEnd is a dropped entry's timestamp, found from its end where
// gcloud writes it; else the entry is walked for it.
func gkeTimeAtEnd(v []byte) ([]byte, error) {
	if t, ok := topStringAtEnd(v, `"timestamp"`); ok {
		return t, nil
	}
	var e gkeEntry
	if err := e.read(v, 0); err != nil {
		return nil, gkeInvalid(err)
	}
	return e.timestamp, nil
}

// gkeRef reads a resourceName into an objectRef, when it names a
// resource (a name of no group and version, "readyz", is a non-resource
// URL). The strings alias name.
func gkeRef(name string) (Ref, bool) {
	// GROUP/VERSION[/namespaces/NS]/RESOURCE[/NAME[/SUB]]: seven parts
	// at most are read, n counts them all.
	var parts [7]string
	n := 0
	for rest, more := strings.Trim(name, "/"), true; more; n++ {
		var part string
		part, rest, more = strings.Cut(rest, "/")
		if n < len(parts) {
			parts[n] = part
		}
	}
	var ref Ref
	if n < 3 {
		return ref, false
	}
	if parts[0] != "core" {
		ref.APIGroup = parts[0]
	}
	rest, nrest := parts[2:], n-2
	// As the API server reads a path: namespaces/NS/status and
	// namespaces/NS/finalize are a Namespace's subresources, not a
	// resource in NS.
	nsSub := nrest == 3 && (rest[2] == "status" || rest[2] == "finalize")
	if nrest >= 3 && rest[0] == "namespaces" && !nsSub {
		ref.Namespace, rest, nrest = rest[1], rest[2:], nrest-2
	}
	ref.Resource = rest[0]
	if nrest > 1 {
		ref.Name = rest[1]
	}
	if nrest > 2 {
		ref.Subresource = rest[2]
	}
	if ref.Resource == "namespaces" && ref.Name != "" {
		ref.Namespace = ref.Name
	}
	return ref, true
}

// gkeURI is the request URI a resourceName was requested at.
func gkeURI(name string) string {
	path := strings.Trim(name, "/")
	switch {
	case strings.Count(path, "/") < 2:
		return "/" + name
	case strings.HasPrefix(path, "core/"):
		return "/api/" + path[len("core/"):]
	}
	return "/apis/" + path
}

// stage is the stage of a kept entry, as the native event it stands for
// would be read (parseStage): the response status first, then the
// request and response bodies, then the labels as annotations.
func (e *gkeEntry) stage(in *interner) (stage, error) {
	var st stage
	in.newEvent()
	ev := &st.ev
	ev.AuditID = in.plain(e.insertID)
	if len(e.opID) > 0 {
		ev.AuditID = in.plain(e.opID)
	}
	ev.Stage = in.str([]byte(StageResponseComplete))
	ev.Verb = in.str(e.method[bytes.LastIndexByte(e.method, '.')+1:])
	ev.RequestURI = in.plain([]byte(gkeURI(string(e.name))))
	ev.User.Username = in.str(e.principal)
	if len(e.ip) > 0 {
		ev.SourceIPs = in.list([]string{in.str(e.ip)})
	}
	ev.UserAgent = in.str(e.agent)
	ref, _ := gkeRef(string(e.name))
	ev.Object = Ref{Resource: in.str([]byte(ref.Resource)), Namespace: in.str([]byte(ref.Namespace)),
		Name: in.plain([]byte(ref.Name)), APIGroup: in.str([]byte(ref.APIGroup)), Subresource: in.str([]byte(ref.Subresource))}
	ev.Object.APIGroup = rules.MovedGroup(ev.Object.APIGroup, ev.Object.Resource)
	ev.Code = rpcToHTTP(e.code)
	ev.Reason = short(e.message, in)
	request, response := gkeBodyOf(e.request), gkeBodyOf(e.response)
	ev.Level = in.str([]byte(levelOf(request != nil, response != nil)))
	p := pending{stage: e.timestamp}
	if err := e.bodies(&st, request, response, in, &p); err != nil {
		return st, err
	}
	if err := gkeLabels(e.labels, ev, in); err != nil {
		return st, err
	}
	return st, st.settle(&p)
}

// bodies reads the request and response of an entry into st, the
// request pending until st is settled.
func (e *gkeEntry) bodies(st *stage, request, response []byte, in *interner, p *pending) error {
	ev := &st.ev
	for _, b := range []struct {
		what string
		raw  []byte
	}{{"request", request}, {"response", response}} {
		if b.raw == nil {
			continue
		}
		if b.raw[0] != '{' {
			return notEvent("its protoPayload's " + b.what + " is not an object")
		}
		s := scanner{jsonscan.Cursor{Data: b.raw}}
		body, err := readBodyTyped(&s, in, &bodyType{})
		if err != nil {
			return err
		}
		if b.what == "request" {
			p.request, ev.Delete = body, body.delete
		} else {
			ev.Response = body.object()
			if body.status && body.reason != "" {
				ev.Reason = body.reason
			}
		}
	}
	return nil
}

// gkeBodyOf is a request or response as written; nil when absent or null.
func gkeBodyOf(raw []byte) []byte {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// gkeLabels reads an entry's labels, the native event's annotations:
// an object of strings.
func gkeLabels(raw []byte, ev *Event, in *interner) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	s := scanner{jsonscan.Cursor{Data: raw}}
	return s.Object(func(key []byte) error {
		if c := s.Peek(); c != '"' && c != 'n' {
			return notEvent("its labels are not strings")
		}
		b, err := s.str()
		switch string(decodedKey(key)) {
		case "authorization.k8s.io/decision":
			ev.Decision = in.str(b)
		case "authorization.k8s.io/reason":
			ev.AuthzReason = short(b, in)
		}
		return err
	})
}

// decodedKey is a raw key unescaped: a label's key is data.
func decodedKey(key []byte) []byte {
	if bytes.IndexByte(key, '\\') < 0 {
		return key
	}
	s := scanner{jsonscan.Cursor{Data: append(append([]byte{'"'}, key...), '"')}}
	b, _ := s.str()
	return b
}

// bodyType is what a GKE body says of its type besides its members:
// its @type (core.k8s.io/v1.Pod, meta.k8s.io/__internal.DeleteOptions,
// k8s.io/Patch) gives the kind and apiVersion the body does not.
type bodyType struct {
	typ     []byte
	hasKind bool
	// apiErr is the body's own apiVersion not being a string: an error
	// unless @type replaces it.
	apiErr error
}

// apply gives a body read the kind and apiVersion t names; nothing when
// t is nil (a native body).
func (t *bodyType) apply(b *body, m *Meta, in *interner) error {
	if t == nil {
		return nil
	}
	if kind, apiVersion := t.kind(); kind != "" {
		b.kind, m.APIVersion = in.str([]byte(kind)), in.str([]byte(apiVersion))
		return nil
	}
	return t.apiErr
}

// kind is the kind and apiVersion @type gives the body; "" when the
// body has its own kind or @type names none.
func (t *bodyType) kind() (string, string) {
	if t.hasKind || len(t.typ) == 0 || string(t.typ) == "k8s.io/Patch" {
		return "", ""
	}
	return gkeKind(string(t.typ))
}

// gkeKind is the kind and apiVersion an @type names. GKE spells every
// group with .k8s.io: apps.k8s.io is apps, but rbac.authorization.k8s.io
// is itself.
func gkeKind(t string) (kind, apiVersion string) {
	slash := max(strings.LastIndexByte(t, '/'), 0)
	gv, kind, _ := strings.Cut(t[slash+1:], ".")
	group := t[:slash]
	if g := strings.TrimSuffix(group, ".k8s.io"); !strings.Contains(g, ".") {
		group = g
	}
	if group == "core" || group == "meta" || group == "" {
		return kind, gv
	}
	return kind, group + "/" + gv
}

// levelOf is the audit level an event's bodies show it was logged at.
func levelOf(request, response bool) string {
	switch {
	case response:
		return LevelRequestResponse
	case request:
		return LevelRequest
	}
	return LevelMetadata
}

// rpcToHTTP maps a google.rpc code to the HTTP status the API server
// answered, as google.rpc's own mapping does (code.proto).
func rpcToHTTP(code int64) int {
	switch code {
	case 0:
		return 200
	case 1:
		return 499
	case 3, 9, 11:
		return 400
	case 4:
		return 504
	case 5:
		return 404
	case 6, 10:
		return 409
	case 7:
		return 403
	case 8:
		return 429
	case 12:
		return 501
	case 14:
		return 503
	case 16:
		return 401
	}
	return 500
}
