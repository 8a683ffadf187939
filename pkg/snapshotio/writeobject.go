package snapshotio

import (
	"slices"
	"strconv"
	"time"

	"github.com/kgc-dev/kgc/internal/jsonw"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// objectWriter appends objects as encoding/json encodes them (HTML left
// unescaped), by hand: a million objects through reflection took longer
// than reading them. Facts, of many shapes and shared between objects
// (the reader shares identical ones), go through encoding/json once per
// copy. A test compares the two on random objects.
type objectWriter struct {
	facts map[*snapshot.Facts][]byte
	keys  []string
}

// maxFactsEncoded bounds the encoded facts kept for reuse.
const maxFactsEncoded = 1 << 16

func (w *objectWriter) appendObject(b []byte, o *snapshot.Object) ([]byte, error) {
	b = append(b, `{"apiVersion":`...)
	b = jsonw.AppendString(b, o.APIVersion)
	b = append(b, `,"kind":`...)
	b = jsonw.AppendString(b, o.Kind)
	b = append(b, `,"metadata":`...)
	b, err := w.appendMeta(b, &o.Metadata)
	if err != nil {
		return b, err
	}
	if o.Facts != nil {
		f, err := w.encodedFacts(o.Facts)
		if err != nil {
			return b, err
		}
		b = append(b, `,"facts":`...)
		b = append(b, f...)
	}
	return append(b, '}'), nil
}

func (w *objectWriter) encodedFacts(f *snapshot.Facts) ([]byte, error) {
	if enc, ok := w.facts[f]; ok {
		return enc, nil
	}
	enc, err := jsonw.Marshal(f)
	if err != nil {
		return nil, err
	}
	if w.facts == nil || len(w.facts) >= maxFactsEncoded {
		w.facts = make(map[*snapshot.Facts][]byte, 1024)
	}
	w.facts[f] = enc
	return enc, nil
}

func (w *objectWriter) appendMeta(b []byte, m *snapshot.ObjectMeta) ([]byte, error) {
	b = append(b, `{"name":`...)
	b = jsonw.AppendString(b, m.Name)
	if m.Namespace != "" {
		b = append(b, `,"namespace":`...)
		b = jsonw.AppendString(b, m.Namespace)
	}
	b = append(b, `,"uid":`...)
	b = jsonw.AppendString(b, m.UID)
	if m.ResourceVersion != "" {
		b = append(b, `,"resourceVersion":`...)
		b = jsonw.AppendString(b, m.ResourceVersion)
	}
	if m.Generation != 0 {
		b = append(b, `,"generation":`...)
		b = strconv.AppendInt(b, m.Generation, 10)
	}
	var err error
	for _, t := range []struct {
		name string
		at   *time.Time
	}{{`,"creationTimestamp":`, m.CreationTimestamp}, {`,"deletionTimestamp":`, m.DeletionTimestamp}} {
		if t.at != nil {
			b = append(b, t.name...)
			if b, err = appendTime(b, *t.at); err != nil {
				return b, err
			}
		}
	}
	if m.DeletionGracePeriodSeconds != nil {
		b = append(b, `,"deletionGracePeriodSeconds":`...)
		b = strconv.AppendInt(b, *m.DeletionGracePeriodSeconds, 10)
	}
	if len(m.Finalizers) > 0 {
		b = append(b, `,"finalizers":[`...)
		for i, f := range m.Finalizers {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.AppendString(b, f)
		}
		b = append(b, ']')
	}
	if len(m.OwnerReferences) > 0 {
		b = append(b, `,"ownerReferences":[`...)
		for i := range m.OwnerReferences {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendOwnerReference(b, &m.OwnerReferences[i])
		}
		b = append(b, ']')
	}
	if len(m.Labels) > 0 {
		b = append(b, `,"labels":`...)
		b = w.appendLabels(b, m.Labels)
	}
	if m.Manager != "" {
		b = append(b, `,"manager":`...)
		b = jsonw.AppendString(b, m.Manager)
	}
	return append(b, '}'), nil
}

// appendTime is time.Time's MarshalJSON, which refuses years it cannot
// write in RFC 3339.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	if y := t.Year(); y < 0 || y > 9999 {
		out, err := jsonw.Marshal(t)
		return append(b, out...), err
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}

func appendOwnerReference(b []byte, r *snapshot.OwnerReference) []byte {
	b = append(b, `{"apiVersion":`...)
	b = jsonw.AppendString(b, r.APIVersion)
	b = append(b, `,"kind":`...)
	b = jsonw.AppendString(b, r.Kind)
	b = append(b, `,"name":`...)
	b = jsonw.AppendString(b, r.Name)
	b = append(b, `,"uid":`...)
	b = jsonw.AppendString(b, r.UID)
	if r.Controller != nil {
		b = append(b, `,"controller":`...)
		b = strconv.AppendBool(b, *r.Controller)
	}
	if r.BlockOwnerDeletion != nil {
		b = append(b, `,"blockOwnerDeletion":`...)
		b = strconv.AppendBool(b, *r.BlockOwnerDeletion)
	}
	return append(b, '}')
}

// appendLabels writes a map as encoding/json does: keys sorted.
func (w *objectWriter) appendLabels(b []byte, labels map[string]string) []byte {
	w.keys = w.keys[:0]
	for k := range labels {
		w.keys = append(w.keys, k)
	}
	slices.Sort(w.keys)
	b = append(b, '{')
	for i, k := range w.keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(b, k)
		b = append(b, ':')
		b = jsonw.AppendString(b, labels[k])
	}
	return append(b, '}')
}
