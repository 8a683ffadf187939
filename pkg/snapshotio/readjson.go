package snapshotio

// This file reads the structure of JSON inputs: streams of values,
// Lists and arrays whose items are streamed, and kgc snapshot headers.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/internal/jsonscan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// readJSON reads a stream of JSON values: objects, Lists (items streamed
// one by one), kgc Snapshots (objects streamed) or arrays of objects.
func (rd *reader) readJSON(r io.Reader, file string, hint typeHint, where string) error {
	st := newStream(r, rd.max)
	for n := 1; ; n++ {
		c, err := st.peek()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return st.wrap(err)
		}
		w := where
		if w == "" && n > 1 {
			w = fmt.Sprintf("value %d", n)
		}
		switch c {
		case '=':
			// kubectl cluster-info dump to stdout interleaves container
			// logs with the JSON lists.
			if !st.hasPrefix(logsStart) {
				return st.errorf("expected an object or a list, found %q", c)
			}
			err = st.skipLinePast(logsEnd)
			n--
		case '{':
			err = rd.topObject(st, file, hint, w)
		case '[':
			err = rd.topArray(st, file, hint, w)
		default:
			err = st.errorf("expected an object or a list, found %q", c)
		}
		if err != nil {
			return err
		}
	}
}

// Container logs in `kubectl cluster-info dump` output written to stdout.
var (
	logsStart = []byte("==== START logs for container ")
	logsEnd   = []byte("==== END logs for container ")
)

func (rd *reader) topArray(st *stream, file string, hint typeHint, where string) error {
	rd.plainDocs++
	if err := st.expect('['); err != nil {
		return err
	}
	return rd.items(st, file, hint, where, "[%d]")
}

// topObject reads one top-level object. Its "items" (a List) or "objects"
// (a kgc Snapshot) are streamed; other fields are kept until the object
// ends, when it is known what the object was.
func (rd *reader) topObject(st *stream, file string, hint typeHint, where string) error {
	if err := st.expect('{'); err != nil {
		return err
	}
	start := rd.objs.Len()
	rd.listHinted = rd.listHinted[:0]
	if empty, err := st.closes('}'); empty || err != nil {
		return err
	}
	fields, streamed, err := rd.objectFields(st, file, hint, where)
	if err != nil {
		return err
	}
	return rd.endTopObject(fields, streamed, start, file, hint, where)
}

// objectFields reads the fields of a non-empty object whose '{' was
// consumed, up to its '}'. It streams the items of "items" or "objects"
// and reports whether it did; it returns the other fields.
func (rd *reader) objectFields(st *stream, file string, hint typeHint, where string) (map[string][]byte, bool, error) {
	fields := map[string][]byte{}
	streamed := false
	for {
		key, err := objectKey(st)
		if err != nil {
			return nil, false, err
		}
		c, err := st.peek()
		if err != nil {
			return nil, false, st.wrap(err)
		}
		if (key == "items" || key == "objects") && c == '[' {
			st.pos++
			rd.reserve(fields["resources"])
			if err := rd.items(st, file, listHint(fields, hint), where, key+"[%d]"); err != nil {
				return nil, false, err
			}
			streamed = true
		} else {
			v, err := st.value()
			if err != nil {
				return nil, false, err
			}
			fields[key] = bytes.Clone(v)
		}
		c, err = st.peek()
		if err != nil {
			return nil, false, st.wrap(err)
		}
		st.pos++
		if c == '}' {
			return fields, streamed, nil
		}
		if c != ',' {
			st.pos--
			return nil, false, st.errorf("expected ',' or '}' after an object field, found %q", c)
		}
	}
}

// objectKey reads an object's key and the ':' after it.
func objectKey(st *stream) (string, error) {
	kraw, err := st.value()
	if err != nil {
		return "", err
	}
	if len(kraw) == 0 || kraw[0] != '"' {
		return "", st.errorf("expected a string key")
	}
	key, err := jsonscan.Unquote(kraw)
	if err != nil {
		return "", st.errorf("invalid key")
	}
	if err := st.expect(':'); err != nil {
		return "", err
	}
	return key, nil
}

// listHint types the untyped items of a typed List (PodList) whose kind
// came before them; items before their list's kind are typed at its end.
func listHint(fields map[string][]byte, hint typeHint) typeHint {
	if k := fieldString(fields["kind"]); strings.HasSuffix(k, "List") && k != "List" {
		return typeHint{fieldString(fields["apiVersion"]), strings.TrimSuffix(k, "List")}
	}
	return hint
}

// endTopObject files a top-level object once all its fields are read,
// now that it is known what it was: a kgc snapshot's header, a List whose
// items were streamed (typing those that came before the List's kind),
// or a single object. start is where its items began in the store.
func (rd *reader) endTopObject(fields map[string][]byte, streamed bool, start int, file string, hint typeHint, where string) error {
	kind := fieldString(fields["kind"])
	apiVersion := fieldString(fields["apiVersion"])
	if kind == "Snapshot" && apiVersion == snapshot.APIVersion {
		return rd.snapshotHeader(file, fields)
	}
	rd.plainDocs++
	if raw, ok := fields[CapturedAtField]; ok && strings.HasSuffix(kind, "List") {
		rd.declareCapturedAt(file, raw)
	}
	rd.noteTypedList(apiVersion, kind)
	if streamed {
		// Items typed only by their list's kind, which may come after them.
		if strings.HasSuffix(kind, "List") && kind != "List" {
			for _, i := range rd.listHinted {
				if o := rd.objs.At(i); i >= start && o.Kind == "" {
					o.APIVersion, o.Kind = apiVersion, strings.TrimSuffix(kind, "List")
				}
			}
		}
		return nil
	}
	if strings.HasSuffix(kind, "List") {
		return nil // a list without items ("items": null)
	}
	f := topFields{apiVersion: fields["apiVersion"], kind: fields["kind"], metadata: fields["metadata"],
		spec: fields["spec"], status: fields["status"], facts: fields["facts"],
		webhooks: fields["webhooks"], endpoints: fields["endpoints"]}
	desc := where
	if desc == "" {
		desc = "the object"
	}
	rd.add(file, func() string { return desc }, f, hint)
	return nil
}

func fieldString(raw []byte) string {
	if raw == nil {
		return ""
	}
	s := newScanner(raw)
	v, _ := s.str()
	return v
}

func (rd *reader) snapshotHeader(file string, fields map[string][]byte) error {
	var h snapshot.Snapshot
	for key, dst := range map[string]any{"capturedAt": &h.CapturedAt, "source": &h.Source, "resources": &h.Resources, "discoveryErrors": &h.DiscoveryErrors} {
		if raw, ok := fields[key]; ok {
			if err := json.Unmarshal(raw, dst); err != nil {
				return fmt.Errorf("snapshot %s: %w", key, err)
			}
		}
	}
	rd.snapshots = append(rd.snapshots, h)
	if raw, ok := fields["capturedAt"]; ok {
		rd.declareCapturedAt(file, raw)
	}
	return nil
}

// noteTypedList records the type of a typed list (ReplicaSetList, not
// List): the list proves the type was listed, even when it has no items.
func (rd *reader) noteTypedList(apiVersion, kind string) {
	if !strings.HasSuffix(kind, "List") || kind == "List" || apiVersion == "" {
		return
	}
	group, _ := snapshot.SplitAPIVersion(apiVersion)
	gk := groupKind{group, strings.TrimSuffix(kind, "List")}
	if !slices.Contains(rd.typedLists, gk) {
		rd.typedLists = append(rd.typedLists, gk)
	}
}

// maxReserve bounds what a snapshot's counts may make reserve allocate:
// the counts are input, and a larger snapshot merely grows its table.
const maxReserve = 1 << 21

// reserve sizes the object store and the UID hashes for the objects a
// kgc snapshot's catalog counts, before they are streamed: grown one
// object at a time to a million, they would be copied over and over.
func (rd *reader) reserve(resources []byte) {
	if resources == nil || rd.objs.Len() > 0 {
		return
	}
	var res []struct {
		Count int `json:"count"`
	}
	if json.Unmarshal(resources, &res) != nil {
		return
	}
	n := 0
	for _, r := range res {
		n += min(max(r.Count, 0), maxReserve)
	}
	if n > 0 {
		rd.uidHashes = make([]uint64, 0, min(n, maxReserve))
		rd.objs.Reserve(min(n, maxReserve))
	}
}
