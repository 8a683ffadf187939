package audit

import (
	"time"
)

// This file reads a request or response body, or a responseStatus, down
// to what Event keeps: Meta, DeleteOptions, a Status's code and reason.
// Every other field is skipped unread: the reader never copies a byte of
// a Secret's data, a token or an annotation's value.

// body is what readBody found; which parts count depends on the kind.
type body struct {
	kind string
	// meta is what the body says of its object, when hasMeta: a
	// request's is kept only when it adds to the response's (see
	// settle), so it is copied to the heap only then (object).
	meta    Meta
	hasMeta bool
	delete  *DeleteOptions
	status  bool // a Status: code and reason say how the request ended
	code    int
	reason  string
}

func readBody(s *scanner, in *interner) (body, error) { return readBodyTyped(s, in, nil) }

// readBodyTyped is readBody of a GKE body when t is set: its @type gives
// the kind and apiVersion when the body has no kind (see bodyType).
func readBodyTyped(s *scanner, in *interner, t *bodyType) (body, error) {
	var b body
	switch s.Peek() {
	case '{':
	case '[': // a JSON patch: its operations are not read
		return b, s.Skip()
	default: // null, or a value that is not an object
		return b, s.Skip()
	}
	// m and d are filled on the stack and copied to the heap only when
	// kept: most bodies are neither DeleteOptions nor kept objects.
	var m Meta
	var d DeleteOptions
	var reason, message []byte
	var reasonBuf, messageBuf [256]byte
	seen := false
	err := s.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case "kind", "apiVersion", "@type":
			err = b.typeKey(s, string(key), &m, in, t)
		case "metadata":
			seen = true
			err = readMetadata(s, &m, in)
		case "items":
			seen = true
			err = readItems(s, &m, in)
		case "code":
			var n int64
			n, _, err = s.int()
			b.code = int(n)
		case "reason":
			reason, err = s.strIn(reasonBuf[:0])
		case "message":
			message, err = s.strIn(messageBuf[:0])
		default:
			var known bool
			known, err = readDeleteOption(s, key, &d, in)
			if !known {
				err = s.Skip()
			}
		}
		return err
	})
	if err != nil {
		return b, err
	}
	if err := t.apply(&b, &m, in); err != nil {
		return b, err
	}
	switch b.kind {
	case "DeleteOptions":
		b.delete = heapCopy(d)
	case "Status", "":
		b.status = b.kind == "Status"
		b.reason = short(reason, in)
		if len(reason) == 0 {
			b.reason = short(message, in)
		}
		if b.kind == "" && seen { // a patch body: no kind, but metadata
			b.meta, b.hasMeta = m, true
		}
	default:
		m.Kind = b.kind
		b.meta, b.hasMeta = m, true
	}
	return b, nil
}

// object is the body's Meta on the heap, nil when it has none.
func (b *body) object() *Meta {
	if !b.hasMeta {
		return nil
	}
	return heapCopy(b.meta)
}

// typeKey reads a body's kind, apiVersion, or (GKE's, when t is set)
// @type.
func (b *body) typeKey(s *scanner, key string, m *Meta, in *interner, t *bodyType) error {
	switch key {
	case "kind":
		if t != nil {
			t.hasKind = true
		}
		return s.internStr(&b.kind, in)
	case "apiVersion":
		err := s.internStr(&m.APIVersion, in)
		if err != nil && t != nil {
			t.apiErr = err // an error unless @type replaces it
			return s.Skip()
		}
		return err
	}
	if t != nil && s.Peek() == '"' {
		var err error
		t.typ, err = s.str()
		return err
	}
	return s.Skip() // not a string: no type, as encoding/json left it
}

// heapCopy moves v to the heap.
func heapCopy[T any](v T) *T { return &v }

// readDeleteOption reads key if it is a field of DeleteOptions.
func readDeleteOption(s *scanner, key []byte, d *DeleteOptions, in *interner) (bool, error) {
	var err error
	switch string(key) {
	case "propagationPolicy":
		err = s.internStr(&d.PropagationPolicy, in)
	case "orphanDependents":
		d.OrphanDependents, err = s.bool(in)
	case "gracePeriodSeconds":
		var n int64
		var ok bool
		if n, ok, err = s.int(); ok {
			d.GracePeriodSeconds = &n
		}
	case "dryRun":
		d.DryRun, err = s.strings(in)
	case "preconditions":
		if s.Peek() == 'n' {
			return true, s.Skip()
		}
		err = s.Object(func(key []byte) error {
			switch string(key) {
			case "uid":
				return s.plainStr(&d.PreconditionUID, in)
			case "resourceVersion":
				return s.plainStr(&d.PreconditionRV, in)
			}
			return s.Skip()
		})
	default:
		return false, nil
	}
	return true, err
}

// readMetadata reads the identity, deletion state, finalizers and owner
// references of an object's metadata, and what a strategic merge patch
// says about finalizers and owner references. Annotations, labels and
// managedFields are skipped.
func readMetadata(s *scanner, m *Meta, in *interner) error {
	if s.Peek() == 'n' {
		return s.Skip()
	}
	return s.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case "namespace":
			err = s.internStr(&m.Namespace, in)
		case "name":
			err = s.plainStr(&m.Name, in)
		case "uid":
			err = s.plainStr(&m.UID, in)
		case "deletionTimestamp":
			err = readTimePtr(s, &m.DeletionTimestamp)
		case "finalizers", "$setElementOrder/finalizers":
			// $setElementOrder lists the finalizers the patch leaves,
			// in order: the list after the patch.
			m.Finalizers, err = s.strings(in)
			if m.Finalizers == nil {
				m.Finalizers = in.list(nil) // null: there are none
			}
		case "$deleteFromPrimitiveList/finalizers":
			m.extras().RemovedFinalizers, err = s.strings(in)
		case "ownerReferences":
			err = readOwners(s, m, in)
		default:
			err = s.Skip()
		}
		return err
	})
}

func readTimePtr(s *scanner, dst **time.Time) error {
	b, err := s.str()
	if err != nil || len(b) == 0 {
		return err
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return nil // a patch may hold anything here; the time is unknown
	}
	t = t.UTC()
	*dst = &t
	return nil
}

// readOwners reads owner references; a strategic merge patch's
// {"$patch":"delete","uid":U} entries are owner references it removes.
func readOwners(s *scanner, m *Meta, in *interner) error {
	if s.Peek() == 'n' {
		return s.Skip()
	}
	return s.Array(func(int) error {
		if s.Peek() != '{' {
			return s.Skip()
		}
		var o OwnerRef
		var patch []byte
		err := s.Object(func(key []byte) error {
			var err error
			switch string(key) {
			case "apiVersion":
				err = s.internStr(&o.APIVersion, in)
			case "kind":
				err = s.internStr(&o.Kind, in)
			case "name":
				err = s.plainStr(&o.Name, in)
			case "uid":
				err = s.plainStr(&o.UID, in)
			case "controller":
				o.Controller, err = s.bool(in)
			case "blockOwnerDeletion":
				o.BlockOwnerDeletion, err = s.bool(in)
			case "$patch":
				patch, err = s.str()
			default:
				err = s.Skip()
			}
			return err
		})
		if string(patch) == "delete" {
			m.extras().RemovedOwnerUIDs = append(m.extras().RemovedOwnerUIDs, o.UID)
		} else {
			m.OwnerReferences = append(m.OwnerReferences, o)
		}
		return err
	})
}

// readItems reads a List's items down to their Meta.
func readItems(s *scanner, m *Meta, in *interner) error {
	if s.Peek() == 'n' {
		return s.Skip()
	}
	x := m.extras()
	x.Items = []Meta{}
	return s.Array(func(int) error {
		b, err := readBody(s, in)
		if b.hasMeta {
			x.Items = append(x.Items, b.meta)
		}
		return err
	})
}
