package snapshotio

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// The API server's protobuf encoding of a metadata-only list: the
// "k8s\x00" magic, then a runtime.Unknown envelope whose raw field holds
// a meta.k8s.io/v1 PartialObjectMetadataList. Field numbers are those of
// k8s.io/apimachinery's generated.proto files.
const protoMagic = "k8s\x00"

const (
	unknownRaw protowire.Number = 2 // runtime.Unknown.raw

	listMeta  = 1 // PartialObjectMetadataList.metadata (ListMeta)
	listItems = 2 // PartialObjectMetadataList.items
	listCont  = 3 // ListMeta.continue
	itemMeta  = 1 // PartialObjectMetadata.metadata (ObjectMeta)

	metaName        = 1
	metaNamespace   = 3
	metaUID         = 5
	metaRV          = 6
	metaGeneration  = 7
	metaCreated     = 8
	metaDeleted     = 9
	metaGrace       = 10
	metaLabels      = 11
	metaAnnotations = 12
	metaOwners      = 13
	metaFinalizers  = 14
	metaManaged     = 17

	managedManager     = 1 // ManagedFieldsEntry.manager
	managedTime        = 4 // ManagedFieldsEntry.time
	managedSubresource = 8 // ManagedFieldsEntry.subresource

	refKind       = 1
	refName       = 3
	refUID        = 4
	refAPIVersion = 5
	refController = 6
	refBlock      = 7

	timeSeconds = 1
	mapKey      = 1
	mapValue    = 2
)

// IsProtobuf reports whether body is in the API server's protobuf
// encoding rather than JSON.
func IsProtobuf(body []byte) bool { return bytes.HasPrefix(body, []byte(protoMagic)) }

// ReadMetaListProto reads one page of a metadata-only list served as
// protobuf (Accept: application/vnd.kubernetes.protobuf;
// as=PartialObjectMetadataList;g=meta.k8s.io;v=v1) and returns its
// objects, typed apiVersion and kind, and the continue token. It keeps what
// ReadListPage keeps of the same objects served as JSON: annotations and
// managedFields are skipped, but for keep markers. Metadata lists carry no
// spec or status, so it is for kinds without facts (rules.HasFacts).
func (x *Extractor) ReadMetaListProto(body []byte, apiVersion, kind string) ([]snapshot.Object, string, error) {
	if !IsProtobuf(body) {
		return nil, "", errors.New("cannot parse the list response: not the API server's protobuf encoding")
	}
	raw, err := protoField(body[len(protoMagic):], unknownRaw)
	if err != nil {
		return nil, "", fmt.Errorf("cannot parse the list response: %w", err)
	}
	var out []snapshot.Object
	var cont string
	err = eachField(raw, func(f field) error {
		switch f.num {
		case listMeta:
			b, err := f.bytes()
			if err == nil {
				b, err = protoField(b, listCont)
				cont = string(b)
			}
			return err
		case listItems:
			o, err := x.protoItem(f, apiVersion, kind)
			if err != nil {
				return fmt.Errorf("item %d: %w", len(out), err)
			}
			out = append(out, o)
		}
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("cannot parse the list response: %w", err)
	}
	return out, cont, nil
}

// protoItem reads the PartialObjectMetadata of a list's items field.
func (x *Extractor) protoItem(f field, apiVersion, kind string) (snapshot.Object, error) {
	o := snapshot.Object{APIVersion: apiVersion, Kind: kind}
	item, err := f.bytes()
	if err != nil {
		return o, err
	}
	meta, err := protoField(item, itemMeta)
	if err != nil {
		return o, err
	}
	keep, err := x.protoMeta(meta, &o.Metadata)
	if err != nil {
		return o, fmt.Errorf("%s %s: %w", kind, o.Metadata.Name, err)
	}
	snapshot.SetKeepMarker(&o, keep)
	return o, nil
}

// protoMeta decodes an ObjectMeta into m as meta does its JSON, and
// returns the keep markers among its annotations.
func (x *Extractor) protoMeta(raw []byte, m *snapshot.ObjectMeta) (keep string, err error) {
	x.protoLabels = x.protoLabels[:0]
	x.managerSec = math.MaxInt64
	var keeps map[string]string
	err = eachField(raw, func(f field) error {
		if err := x.protoMetaField(f, m, &keeps); err != nil {
			return fmt.Errorf("metadata field %d: %w", f.num, err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(x.protoLabels) > 0 {
		m.Labels = x.protoLabelMap()
	}
	return snapshot.KeepMarkers(keeps), nil
}

// protoMetaField decodes one ObjectMeta field into m; the fields kgc
// does not read are left undecoded.
func (x *Extractor) protoMetaField(f field, m *snapshot.ObjectMeta, keeps *map[string]string) error {
	switch f.num {
	case metaGeneration:
		v, err := f.varint()
		m.Generation = int64(v)
		return err
	case metaGrace:
		v, err := f.varint()
		grace := int64(v)
		m.DeletionGracePeriodSeconds = &grace
		return err
	case metaName, metaNamespace, metaUID, metaRV, metaCreated, metaDeleted, metaLabels, metaAnnotations, metaOwners, metaFinalizers, metaManaged:
		b, err := f.bytes()
		if err != nil {
			return err
		}
		return x.protoMetaBytes(f.num, b, m, keeps)
	}
	return nil
}

// protoMetaBytes decodes the value b of the length-delimited ObjectMeta
// field num into m.
func (x *Extractor) protoMetaBytes(num protowire.Number, b []byte, m *snapshot.ObjectMeta, keeps *map[string]string) error {
	var err error
	switch num {
	case metaName:
		m.Name = x.ar.str(b)
	case metaNamespace:
		m.Namespace = x.in.recent(b, &x.recent.namespace)
	case metaUID:
		m.UID = x.ar.str(b)
	case metaRV:
		m.ResourceVersion = x.ar.str(b)
	case metaCreated:
		m.CreationTimestamp, err = x.protoTime(b)
	case metaDeleted:
		m.DeletionTimestamp, err = x.protoTime(b)
	case metaFinalizers:
		m.Finalizers = append(m.Finalizers, x.in.bytes(b))
	case metaOwners:
		var r snapshot.OwnerReference
		r, err = x.protoOwnerRef(b)
		m.OwnerReferences = append(m.OwnerReferences, r)
	case metaLabels:
		var k, v []byte
		if k, v, err = protoEntry(b); err == nil {
			x.protoLabels = append(x.protoLabels, labelPair{k, v})
		}
	case metaAnnotations:
		err = protoKeepAnnotation(b, keeps)
	case metaManaged:
		err = x.protoManager(b, m)
	}
	return err
}

// protoManager reads one managedFields entry and keeps its manager in m
// when it is the oldest entry of the object itself so far (x.managerSec;
// an entry without a time counts as oldest, one of a subresource never,
// as oldestManager has it).
func (x *Extractor) protoManager(b []byte, m *snapshot.ObjectMeta) error {
	var manager, sub []byte
	sec := int64(math.MinInt64)
	err := eachField(b, func(f field) error {
		switch f.num {
		case managedManager:
			v, err := f.bytes()
			manager = v
			return err
		case managedSubresource:
			v, err := f.bytes()
			sub = v
			return err
		case managedTime:
			v, err := f.bytes()
			if err != nil {
				return err
			}
			sec = 0
			return eachField(v, func(f field) error {
				if f.num == timeSeconds {
					s, err := f.varint()
					sec = int64(s)
					return err
				}
				return nil
			})
		}
		return nil
	})
	if err != nil || len(manager) == 0 || len(sub) > 0 {
		return err
	}
	if m.Manager == "" || sec < x.managerSec {
		m.Manager, x.managerSec = x.in.bytes(manager), sec
	}
	return nil
}

// protoKeepAnnotation records the annotation entry b in keeps if its key
// can carry a keep marker; every other annotation is left unread.
func protoKeepAnnotation(b []byte, keeps *map[string]string) error {
	k, v, err := protoEntry(b)
	if err != nil || !snapshot.IsKeepAnnotation(string(k)) {
		return err
	}
	if *keeps == nil {
		*keeps = map[string]string{}
	}
	(*keeps)[string(k)] = string(v)
	return nil
}

// protoTime decodes a metav1.Time. As apimachinery does, an empty message
// is the zero time (no timestamp) and nanoseconds are dropped: the JSON
// encoding holds whole seconds only.
func (x *Extractor) protoTime(b []byte) (*time.Time, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var sec int64
	err := eachField(b, func(f field) error {
		if f.num != timeSeconds {
			return nil
		}
		v, err := f.varint()
		sec = int64(v)
		return err
	})
	if err != nil {
		return nil, err
	}
	if last := &x.lastProtoTime; last.t != nil && last.sec == sec {
		return last.t, nil
	}
	t := x.times.put(time.Unix(sec, 0).UTC())
	x.lastProtoTime.sec, x.lastProtoTime.t = sec, t
	return t, nil
}

func (x *Extractor) protoOwnerRef(b []byte) (snapshot.OwnerReference, error) {
	var r snapshot.OwnerReference
	err := eachField(b, func(f field) error {
		switch f.num {
		case refController, refBlock:
			v, err := f.varint()
			bp := sharedFalse
			if v != 0 {
				bp = sharedTrue
			}
			if f.num == refController {
				r.Controller = bp
			} else {
				r.BlockOwnerDeletion = bp
			}
			return err
		case refKind, refName, refUID, refAPIVersion:
			s, err := f.bytes()
			switch f.num {
			case refKind:
				r.Kind = x.in.recent(s, &x.recent.ownerKind)
			case refName:
				r.Name = x.ar.str(s)
			case refUID:
				r.UID = x.ar.str(s)
			case refAPIVersion:
				r.APIVersion = x.in.recent(s, &x.recent.ownerAPIVersion)
			}
			return err
		}
		return nil
	})
	if err != nil {
		return r, fmt.Errorf("ownerReferences: %w", err)
	}
	return r, nil
}

// protoLabelMap turns the labels collected in x.protoLabels into a map,
// shared with the objects read before with the same labels in the same
// order, as labelMap shares the maps of JSON labels. The key is the
// entries, length-prefixed, after a 0 byte that no JSON key starts with.
func (x *Extractor) protoLabelMap() map[string]string {
	// The key reuses the last one's buffer.
	key := x.protoLabelKey[:0]
	key = append(key, 0)
	for _, l := range x.protoLabels {
		key = append(key, byte(len(l.k)), byte(len(l.k)>>8), byte(len(l.k)>>16))
		key = append(key, l.k...)
		key = append(key, byte(len(l.v)), byte(len(l.v)>>8), byte(len(l.v)>>16))
		key = append(key, l.v...)
	}
	x.protoLabelKey = key
	if x.lastLabels.m != nil && bytes.Equal(key, x.lastLabels.raw) {
		return x.lastLabels.m
	}
	if same, ok := x.labels.m[string(key)]; ok {
		x.rememberLabels(key, same)
		return same
	}
	m := make(map[string]string, len(x.protoLabels))
	for _, l := range x.protoLabels {
		m[x.in.bytes(l.k)] = x.in.bytes(l.v)
	}
	x.labels.put(string(key), m)
	x.rememberLabels(key, m)
	return m
}

// protoEntry decodes one map entry's key and value.
func protoEntry(b []byte) (k, v []byte, err error) {
	err = eachField(b, func(f field) error {
		if f.num != mapKey && f.num != mapValue {
			return nil
		}
		s, err := f.bytes()
		if f.num == mapKey {
			k = s
		} else {
			v = s
		}
		return err
	})
	return k, v, err
}

// protoField returns the last occurrence of the length-delimited field num
// in message b (protobuf's rule for a singular field), or nil.
func protoField(b []byte, num protowire.Number) (out []byte, err error) {
	err = eachField(b, func(f field) error {
		if f.num != num {
			return nil
		}
		var err error
		out, err = f.bytes()
		return err
	})
	return out, err
}

// field is one field of a message as eachField found it: its number, its
// wire type and its value's encoding, whole (protowire checked its length).
type field struct {
	num protowire.Number
	typ protowire.Type
	val []byte
	at  int // where val starts in its message, for errors
}

// eachField calls read for every field of message b, in order; read
// decodes the fields it knows and leaves the others. Groups, which no
// Kubernetes message has, are malformed input.
func eachField(b []byte, read func(f field) error) error {
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 {
			return parseError(n, i)
		}
		if typ == protowire.StartGroupType || typ == protowire.EndGroupType {
			return fmt.Errorf("unsupported wire type %d at byte %d", typ, i+n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[i+n:])
		if m < 0 {
			return parseError(m, i+n)
		}
		if err := read(field{num: num, typ: typ, val: b[i+n : i+n+m], at: i + n}); err != nil {
			return err
		}
		i += n + m
	}
	return nil
}

// parseError is protowire's error for code n, at byte at of a message.
func parseError(n, at int) error { return fmt.Errorf("%w at byte %d", protowire.ParseError(n), at) }

// want checks that a field of a known type came with wire type typ; a
// mismatch is a malformed message, not an unknown field.
func (f field) want(typ protowire.Type) error {
	if f.typ != typ {
		return fmt.Errorf("wire type %d, want %d at byte %d", f.typ, typ, f.at)
	}
	return nil
}

// bytes returns a length-delimited field's value; it points into the
// message.
func (f field) bytes() ([]byte, error) {
	if err := f.want(protowire.BytesType); err != nil {
		return nil, err
	}
	b, _ := protowire.ConsumeBytes(f.val)
	return b, nil
}

// varint returns a varint field's value.
func (f field) varint() (uint64, error) {
	if err := f.want(protowire.VarintType); err != nil {
		return 0, err
	}
	v, _ := protowire.ConsumeVarint(f.val)
	return v, nil
}
