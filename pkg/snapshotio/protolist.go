package snapshotio

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// The API server's protobuf encoding of a metadata-only list: the
// "k8s\x00" magic, then a runtime.Unknown envelope whose raw field holds
// a meta.k8s.io/v1 PartialObjectMetadataList. Field numbers are those of
// k8s.io/apimachinery's generated.proto files.
const (
	protoMagic = "k8s\x00"

	unknownRaw = 2 // runtime.Unknown.raw

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

// Protobuf wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
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
// spec or status, so it is for kinds without facts (HasFacts).
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
	err = eachField(raw, func(p *pbuf, field, wire int) error {
		switch field {
		case listMeta:
			b, err := p.want(wire, wireBytes).bytes()
			if err == nil {
				b, err = protoField(b, listCont)
				cont = string(b)
			}
			return err
		case listItems:
			o, err := x.protoItem(p.want(wire, wireBytes), apiVersion, kind)
			if err != nil {
				return fmt.Errorf("item %d: %w", len(out), err)
			}
			out = append(out, o)
			return nil
		}
		return p.skip(wire)
	})
	if err != nil {
		return nil, "", fmt.Errorf("cannot parse the list response: %w", err)
	}
	return out, cont, nil
}

// protoItem reads the PartialObjectMetadata at p's position.
func (x *Extractor) protoItem(p *pbuf, apiVersion, kind string) (snapshot.Object, error) {
	o := snapshot.Object{APIVersion: apiVersion, Kind: kind}
	item, err := p.bytes()
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
	var keeps map[string]string
	err = eachField(raw, func(p *pbuf, field, wire int) error {
		if err := x.protoMetaField(p, field, wire, m, &keeps); err != nil {
			return fmt.Errorf("metadata field %d: %w", field, err)
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

func (x *Extractor) protoMetaField(p *pbuf, field, wire int, m *snapshot.ObjectMeta, keeps *map[string]string) error {
	want, known := protoWireOf(field)
	if !known {
		return p.skip(wire)
	}
	p = p.want(wire, want)
	var err error
	switch field {
	case metaGeneration:
		var v uint64
		v, err = p.varint()
		m.Generation = int64(v)
		return err
	case metaGrace:
		var v uint64
		v, err = p.varint()
		grace := int64(v)
		m.DeletionGracePeriodSeconds = &grace
		return err
	}
	b, err := p.bytes()
	if err != nil {
		return err
	}
	switch field {
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
	}
	return err
}

// protoWireOf returns the wire type of an ObjectMeta field kgc reads;
// known is false for the others, which are skipped.
func protoWireOf(field int) (wire int, known bool) {
	switch field {
	case metaGeneration, metaGrace:
		return wireVarint, true
	case metaName, metaNamespace, metaUID, metaRV, metaCreated, metaDeleted, metaLabels, metaAnnotations, metaOwners, metaFinalizers:
		return wireBytes, true
	}
	return 0, false
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
	err := eachField(b, func(p *pbuf, field, wire int) error {
		if field != timeSeconds {
			return p.skip(wire)
		}
		v, err := p.want(wire, wireVarint).varint()
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
	err := eachField(b, func(p *pbuf, field, wire int) error {
		switch field {
		case refController, refBlock:
			v, err := p.want(wire, wireVarint).varint()
			bp := sharedFalse
			if v != 0 {
				bp = sharedTrue
			}
			if field == refController {
				r.Controller = bp
			} else {
				r.BlockOwnerDeletion = bp
			}
			return err
		case refKind, refName, refUID, refAPIVersion:
			s, err := p.want(wire, wireBytes).bytes()
			switch field {
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
		return p.skip(wire)
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
	key := append(x.protoLabelKey[:0], 0)
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
	err = eachField(b, func(p *pbuf, field, wire int) error {
		if field != mapKey && field != mapValue {
			return p.skip(wire)
		}
		s, err := p.want(wire, wireBytes).bytes()
		if field == mapKey {
			k = s
		} else {
			v = s
		}
		return err
	})
	return k, v, err
}

// protoField returns the last occurrence of the length-delimited field in
// message b (protobuf's rule for a singular field), or nil.
func protoField(b []byte, field int) (out []byte, err error) {
	err = eachField(b, func(p *pbuf, f, wire int) error {
		if f != field {
			return p.skip(wire)
		}
		var err error
		out, err = p.want(wire, wireBytes).bytes()
		return err
	})
	return out, err
}

// eachField calls read for every field of message b, in order; read
// reads the field's value from p, or skips it.
func eachField(b []byte, read func(p *pbuf, field, wire int) error) error {
	p := pbuf{d: b}
	for !p.done() {
		field, wire, err := p.tag()
		if err == nil {
			err = read(&p, field, wire)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pbuf reads protobuf's wire format; errors say at which byte.
type pbuf struct {
	d   []byte
	i   int
	err error // set by want: every read fails with it
}

func (p *pbuf) done() bool { return p.i >= len(p.d) }

// want checks that a field of a known type came with wire type want; a
// mismatch is a malformed message, not an unknown field. It returns p, or
// a reader whose next read fails, to chain with that read.
func (p *pbuf) want(wire, want int) *pbuf {
	if wire == want {
		return p
	}
	return &pbuf{err: fmt.Errorf("wire type %d, want %d at byte %d", wire, want, p.i)}
}

func (p *pbuf) fail(msg string) error { return fmt.Errorf("%s at byte %d", msg, p.i) }

func (p *pbuf) varint() (uint64, error) {
	if p.err != nil {
		return 0, p.err
	}
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if p.i >= len(p.d) {
			return 0, p.fail("truncated varint")
		}
		c := p.d[p.i]
		p.i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, p.fail("varint longer than 10 bytes")
}

// tag reads a field's key.
func (p *pbuf) tag() (field, wire int, err error) {
	v, err := p.varint()
	if err != nil {
		return 0, 0, err
	}
	if v>>3 == 0 || v>>3 > 1<<29 {
		return 0, 0, p.fail("invalid field number")
	}
	return int(v >> 3), int(v & 7), nil
}

// bytes reads a length-delimited value; it points into p's buffer.
func (p *pbuf) bytes() ([]byte, error) {
	if p.err != nil {
		return nil, p.err
	}
	n, err := p.varint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(p.d)-p.i) {
		return nil, p.fail("length beyond the end of the message")
	}
	b := p.d[p.i : p.i+int(n)]
	p.i += int(n)
	return b, nil
}

// skip skips a value of the wire type.
func (p *pbuf) skip(wire int) error {
	switch wire {
	case wireVarint:
		_, err := p.varint()
		return err
	case wireBytes:
		_, err := p.bytes()
		return err
	case wireFixed64, wireFixed32:
		n := 8
		if wire == wireFixed32 {
			n = 4
		}
		if len(p.d)-p.i < n {
			return p.fail("truncated fixed-size value")
		}
		p.i += n
		return nil
	}
	return p.fail(fmt.Sprintf("unsupported wire type %d", wire))
}
