package snapshotio

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// protoBody encodes list as the API server serves it to
// Accept: application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList.
func protoBody(t testing.TB, list *metav1.PartialObjectMetadataList) []byte {
	t.Helper()
	raw, err := list.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	u := runtime.Unknown{
		TypeMeta:    runtime.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
		Raw:         raw,
		ContentType: "application/vnd.kubernetes.protobuf",
	}
	env, err := u.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte(protoMagic), env...)
}

func jsonBody(t testing.TB, list *metav1.PartialObjectMetadataList) []byte {
	t.Helper()
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// randomMetaList makes objects with every ObjectMeta field kgc reads or
// skips, from small pools so that labels, times and strings repeat.
func randomMetaList(r *rand.Rand, n int) *metav1.PartialObjectMetadataList {
	list := &metav1.PartialObjectMetadataList{
		TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "42"},
	}
	if r.IntN(2) == 0 {
		list.Continue = fmt.Sprintf("token-%d", r.IntN(1000))
	}
	pick := func(p ...string) string { return p[r.IntN(len(p))] }
	bools := []*bool{nil, new(bool), func() *bool { v := true; return &v }()}
	for i := range n {
		m := metav1.ObjectMeta{
			Name: fmt.Sprintf("obj-%d", i), GenerateName: pick("", "obj-"), Namespace: pick("", "a", "b"),
			UID: types.UID(fmt.Sprintf("uid-%d", r.IntN(n+1))), ResourceVersion: fmt.Sprint(r.IntN(1e6)),
			Generation: int64(r.IntN(3)),
		}
		if r.IntN(4) > 0 {
			m.CreationTimestamp = metav1.NewTime(time.Unix(1.7e9+int64(r.IntN(3)), int64(r.IntN(1e9))))
		}
		if r.IntN(4) == 0 {
			d := metav1.NewTime(time.Unix(1.8e9+int64(r.IntN(3)), 0))
			m.DeletionTimestamp = &d
			g := int64(r.IntN(40))
			m.DeletionGracePeriodSeconds = &g
		}
		if k := r.IntN(4); k > 0 {
			m.Labels = map[string]string{}
			for j := range k {
				m.Labels[pick("app", "tier", "é")+fmt.Sprint(j)] = pick("", "web", "db\x00", "\xff")
			}
		}
		if r.IntN(2) == 0 {
			m.Annotations = map[string]string{"note": "secret", pick("helm.sh/resource-policy", "kustomize.toolkit.fluxcd.io/prune", "argocd.argoproj.io/sync-options", "x"): pick("keep", "disabled", "Prune=false,Delete=false", "no")}
		}
		for range r.IntN(3) {
			m.Finalizers = append(m.Finalizers, pick("kubernetes", "foregroundDeletion", "orphan", "example.com/f"))
		}
		for range r.IntN(3) {
			m.OwnerReferences = append(m.OwnerReferences, metav1.OwnerReference{
				APIVersion: pick("v1", "apps/v1"), Kind: pick("ConfigMap", "ReplicaSet"), Name: pick("o1", "o2", ""),
				UID: types.UID(pick("u1", "u2", "")), Controller: bools[r.IntN(3)], BlockOwnerDeletion: bools[r.IntN(3)],
			})
		}
		for range r.IntN(4) {
			// Several managers, in any order, some without a time: the
			// oldest is kept, alike from protobuf and JSON.
			e := metav1.ManagedFieldsEntry{Manager: pick("kubectl", "widget-operator", "kube-controller-manager", ""), Operation: metav1.ManagedFieldsOperationApply,
				FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{}}`)}
			if r.IntN(4) > 0 {
				at := metav1.NewTime(time.Unix(1.7e9+int64(r.IntN(3)), 0))
				e.Time = &at
			}
			e.Subresource = pick("", "", "status")
			m.ManagedFields = append(m.ManagedFields, e)
		}
		list.Items = append(list.Items, metav1.PartialObjectMetadata{ObjectMeta: m})
	}
	return list
}

// TestReadMetaListProtoMatchesJSON reads the same random lists served as
// protobuf and as JSON: the objects and continue token must be the same,
// so that a capture's snapshot does not depend on what the server spoke.
func TestReadMetaListProtoMatchesJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		list := randomMetaList(r, r.IntN(30))
		x1, x2 := NewExtractor(), NewExtractor()
		got, gotCont, err := x1.ReadMetaListProto(protoBody(t, list), "v1", "ConfigMap")
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		want, wantCont, err := x2.ReadListPage(jsonBody(t, list), "v1", "ConfigMap")
		if err != nil {
			t.Fatalf("round %d: json: %v", round, err)
		}
		if gotCont != wantCont || len(got) != len(want) {
			t.Fatalf("round %d: continue %q, %d objects; JSON gives %q, %d", round, gotCont, len(got), wantCont, len(want))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				g, _ := json.Marshal(got[i])
				w, _ := json.Marshal(want[i])
				t.Fatalf("round %d, item %d:\nproto %s\njson  %s", round, i, g, w)
			}
		}
	}
}

// TestReadMetaListProtoSharesLabels checks that neighbours with the same
// labels share one map, as the JSON reader's objects do.
func TestReadMetaListProtoSharesLabels(t *testing.T) {
	list := &metav1.PartialObjectMetadataList{}
	for i := range 3 {
		list.Items = append(list.Items, metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprint(i), UID: types.UID(fmt.Sprint(i)), Labels: map[string]string{"app": "web", "tier": "front"}}})
	}
	objs, _, err := NewExtractor().ReadMetaListProto(protoBody(t, list), "v1", "Pod")
	if err != nil {
		t.Fatal(err)
	}
	if reflect.ValueOf(objs[0].Metadata.Labels).UnsafePointer() != reflect.ValueOf(objs[2].Metadata.Labels).UnsafePointer() {
		t.Error("identical labels were read into separate maps")
	}
}

// TestReadMetaListProtoErrors feeds malformed bodies: each must fail,
// saying what it could not read, never panic or return a short page.
func TestReadMetaListProtoErrors(t *testing.T) {
	good := protoBody(t, randomMetaList(rand.New(rand.NewPCG(3, 4)), 5))
	cases := map[string][]byte{
		"json":      []byte(`{"items":[]}`),
		"truncated": good[:len(good)-7],
		"bad tag":   append([]byte(protoMagic), 0x00),
		"wire type": append([]byte(protoMagic), 0x12, 0x02, 0x10, 0x01), // items as a varint
		"group":     append([]byte(protoMagic), 0x12, 0x01, 0x0b),       // start-group wire type
	}
	for name, body := range cases {
		objs, _, err := NewExtractor().ReadMetaListProto(body, "v1", "ConfigMap")
		if err == nil || !strings.Contains(err.Error(), "cannot parse the list response") {
			t.Errorf("%s: got %d objects, error %v; want a parse error", name, len(objs), err)
		}
	}
}

// TestReadMetaListProtoNamesTheItem: an item that cannot be read is named
// by its position and name, for the capture's error.
func TestReadMetaListProtoNamesTheItem(t *testing.T) {
	list := randomMetaList(rand.New(rand.NewPCG(7, 8)), 2)
	raw, err := list.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// A third item, ConfigMap "bad", whose uid comes as a varint.
	meta := []byte{0x0a, 3, 'b', 'a', 'd', 0x28, 0x01}
	item := append([]byte{0x0a, byte(len(meta))}, meta...)
	raw = append(raw, append([]byte{0x12, byte(len(item))}, item...)...)
	u := runtime.Unknown{Raw: raw}
	env, err := u.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = NewExtractor().ReadMetaListProto(append([]byte(protoMagic), env...), "v1", "ConfigMap")
	if err == nil || !strings.Contains(err.Error(), "item 2: ConfigMap bad: metadata field 5: wire type 0, want 2") {
		t.Fatalf("error %v, want it to name item 2, ConfigMap bad, and its uid field", err)
	}
}

func FuzzReadMetaListProto(f *testing.F) {
	f.Add(protoBody(f, randomMetaList(rand.New(rand.NewPCG(5, 6)), 3)))
	f.Add([]byte(protoMagic))
	f.Fuzz(func(t *testing.T, body []byte) {
		objs, _, err := NewExtractor().ReadMetaListProto(body, "v1", "ConfigMap")
		if err != nil && objs != nil {
			t.Fatalf("an error (%v) came with %d objects", err, len(objs))
		}
		if err != nil && !strings.Contains(err.Error(), "cannot parse the list response") {
			t.Fatalf("error does not say what failed: %v", err)
		}
	})
}

// BenchmarkReadMetaListProto reads a page of 10,000 objects' metadata in
// protobuf, the body of every list of a capture's kinds without facts.
func BenchmarkReadMetaListProto(b *testing.B) {
	body := protoBody(b, randomMetaList(rand.New(rand.NewPCG(9, 10)), 10000))
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, _, err := NewExtractor().ReadMetaListProto(body, "v1", "ConfigMap"); err != nil {
			b.Fatal(err)
		}
	}
}
