package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// dumpTime is the moment the example dump was taken. Everything in the
// dump is dated relative to it, so ages ("deleted 1h52m ago") stay fixed.
var dumpTime = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

// at parses an RFC 3339 timestamp; the generator's inputs are literals, so
// a bad one is a programming error caught by the tests.
func at(s string) metav1.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(fmt.Sprintf("genexample: bad timestamp %q: %v", s, err))
	}
	return metav1.NewTime(t.UTC())
}

func atp(s string) *metav1.Time { t := at(s); return &t }

// digest is the root of every "random" value in the dump: a hash of a
// stable key, so the file is reproducible byte for byte.
func digest(key string) []byte {
	s := sha256.Sum256([]byte(key))
	return s[:]
}

func hexOf(key string, n int) string { return hex.EncodeToString(digest(key))[:n] }

// uid derives a version-5-shaped UUID from an object's identity. Real UIDs
// are random; deriving them keeps references between objects stable when
// the generator changes.
func uid(kind, namespace, name string) types.UID {
	b := digest("uid:" + kind + "/" + namespace + "/" + name)
	b[6] = (b[6] & 0x0f) | 0x50
	b[8] = (b[8] & 0x3f) | 0x80
	h := hex.EncodeToString(b[:16])
	return types.UID(h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32])
}

// resourceVersion is an etcd-revision-like number, stable per object.
func resourceVersion(kind, namespace, name string) string {
	b := digest("rv:" + kind + "/" + namespace + "/" + name)
	n := (uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2])) % 900000
	return fmt.Sprint(100000 + n)
}

// safeAlphabet is the alphabet the API server and controllers use for
// generated names (k8s.io/apimachinery/pkg/util/rand), without vowels.
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

func safeString(key string, n int) string {
	b := digest("name:" + key)
	var sb strings.Builder
	for i := 0; i < n; i++ {
		sb.WriteByte(safeAlphabet[int(b[i])%len(safeAlphabet)])
	}
	return sb.String()
}

// templateHash imitates pod-template-hash and controller-revision-hash values.
func templateHash(key string) string { return safeString("hash:"+key, 10) }

func objectMeta(kind, namespace, name, created string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:              name,
		Namespace:         namespace,
		UID:               uid(kind, namespace, name),
		ResourceVersion:   resourceVersion(kind, namespace, name),
		CreationTimestamp: at(created),
	}
}

func ptr[T any](v T) *T { return &v }

// controllerRef is the owner reference a built-in controller writes on
// what it creates (metav1.NewControllerRef): controller and
// blockOwnerDeletion both true.
func controllerRef(apiVersion, kind, namespace, name string) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion:         apiVersion,
		Kind:               kind,
		Name:               name,
		UID:                uid(kind, namespace, name),
		Controller:         ptr(true),
		BlockOwnerDeletion: ptr(true),
	}
}

// metadataFields renders the "f:metadata" part of a FieldsV1 set for the
// labels, annotations, owner references and finalizers an object carries.
func metadataFields(m metav1.ObjectMeta) string {
	var parts []string
	if len(m.Annotations) > 0 {
		parts = append(parts, `"f:annotations":{".":{}`+keys(m.Annotations)+`}`)
	}
	if len(m.Finalizers) > 0 {
		f := `"f:finalizers":{".":{}`
		for _, x := range m.Finalizers {
			f += `,"v:\"` + x + `\"":{}`
		}
		parts = append(parts, f+`}`)
	}
	if len(m.Labels) > 0 {
		parts = append(parts, `"f:labels":{".":{}`+keys(m.Labels)+`}`)
	}
	if len(m.OwnerReferences) > 0 {
		o := `"f:ownerReferences":{".":{}`
		for _, r := range m.OwnerReferences {
			o += `,"k:{\"uid\":\"` + string(r.UID) + `\"}":{}`
		}
		parts = append(parts, o+`}`)
	}
	return `"f:metadata":{` + strings.Join(parts, ",") + `}`
}

// fieldSet renders top-level fields and their direct children as FieldsV1.
func fieldSet(fields map[string][]string) string {
	top := make([]string, 0, len(fields))
	for k := range fields {
		top = append(top, k)
	}
	sort.Strings(top)
	var out []string
	for _, k := range top {
		var sub []string
		for _, s := range fields[k] {
			sub = append(sub, `"f:`+s+`":{}`)
		}
		out = append(out, `"f:`+k+`":{`+strings.Join(sub, ",")+`}`)
	}
	return strings.Join(out, ",")
}

// managedFieldsEntry builds one Update entry of managedFields the way the
// API server records it. withMeta includes the object's metadata maps in
// the set.
func managedFieldsEntry(manager, apiVersion, when, subresource string, m *metav1.ObjectMeta, fields map[string][]string) metav1.ManagedFieldsEntry {
	var parts []string
	if m != nil {
		parts = append(parts, metadataFields(*m))
	}
	if fs := fieldSet(fields); fs != "" {
		parts = append(parts, fs)
	}
	return metav1.ManagedFieldsEntry{
		Manager:     manager,
		Operation:   metav1.ManagedFieldsOperationUpdate,
		APIVersion:  apiVersion,
		Time:        atp(when),
		FieldsType:  "FieldsV1",
		FieldsV1:    &metav1.FieldsV1{Raw: []byte("{" + strings.Join(parts, ",") + "}")}, //nolint:staticcheck // kubectl's output holds this very field; the example carries it to prove kgc drops it
		Subresource: subresource,
	}
}

func keys(m map[string]string) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	s := ""
	for _, k := range ks {
		s += `,"f:` + k + `":{}`
	}
	return s
}

func labels(kv ...string) map[string]string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}
