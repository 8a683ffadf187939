package snapshot

import (
	"bytes"
	"os"
	"testing"
)

// fuzzRead checks what must hold for any input: no panic, bounded work,
// and a snapshot that survives Write and a second read unchanged.
func fuzzRead(t *testing.T, data []byte) {
	s, err := ReadFiles([]string{"-"}, bytes.NewReader(data), ReadOptions{MaxFileBytes: 1 << 20})
	if err != nil {
		return
	}
	uids := map[string]bool{}
	for _, o := range s.Objects {
		if o.Metadata.UID == "" {
			t.Fatalf("object without uid kept: %+v", o)
		}
		if uids[o.Metadata.UID] {
			t.Fatalf("duplicate uid %q kept", o.Metadata.UID)
		}
		uids[o.Metadata.UID] = true
	}
	var out bytes.Buffer
	if err := Write(&out, s); err != nil {
		t.Fatalf("write: %v", err)
	}
	back, err := ReadFiles([]string{"-"}, bytes.NewReader(out.Bytes()), ReadOptions{})
	if err != nil {
		t.Fatalf("reading back what was written: %v\n%s", err, out.Bytes())
	}
	back.CapturedAt, back.Source = s.CapturedAt, s.Source
	var again bytes.Buffer
	Write(&again, back)
	if !bytes.Equal(out.Bytes(), again.Bytes()) {
		t.Fatalf("round trip changed the snapshot:\n%s\n%s", out.Bytes(), again.Bytes())
	}
}

func seed(f *testing.F, files ...string) {
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

func FuzzReadJSON(f *testing.F) {
	seed(f, "testdata/cluster-info-dump/nodes.json", "testdata/cluster-info-dump/shop/pods.json", "testdata/cluster-info-dump/shop/replicasets.json")
	for _, s := range []string{
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"n","uid":"u","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r","uid":"x","controller":true}],"labels":{"a":"b"},"annotations":{"kubernetes.io/config.mirror":"x"}},"spec":{"nodeName":"n1","volumes":[{"name":"v","ephemeral":{}}]},"status":{"phase":"Running"}}`,
		`{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","uid":"1","creationTimestamp":"2025-01-01T00:00:00Z","finalizers":["a\u00e9"]}}],"kind":"List"}`,
		`[{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s\"q","uid":"2","generation":3,"deletionGracePeriodSeconds":0}}]`,
		`{"apiVersion":"kgc.dev/v1alpha1","kind":"Snapshot","capturedAt":"2026-01-02T03:04:05Z","source":{"type":"live"},"resources":[],"objects":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n","uid":"3"},"facts":{"node":{"ready":"True"}}}]}`,
		`{"kind":"List","items":[null,1,"x",{"metadata":null}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(fuzzRead)
}

func FuzzReadYAML(f *testing.F) {
	seed(f, "testdata/kubectl-list.yaml")
	for _, s := range []string{
		"apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: n, uid: u}\n---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret, metadata: {name: s, uid: v}}\n",
		"a: &a [x, x]\nb: [*a, *a]\n",
		"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: w.x, uid: c}\nspec: {group: x, names: {kind: W, plural: w}, scope: Cluster, versions: [{name: v1, served: true}]}\n",
		"--- \n...\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(fuzzRead)
}
