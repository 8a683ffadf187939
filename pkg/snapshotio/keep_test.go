package snapshotio

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

func readString(t *testing.T, content string) *snapshot.Snapshot {
	t.Helper()
	dir := writeFiles(t, map[string]string{"in.yaml": content})
	s, err := ReadFiles([]string{filepath.Join(dir, "in.yaml")}, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestKeepMarker(t *testing.T) {
	for _, tc := range []struct{ key, value, want string }{
		{"helm.sh/resource-policy", "keep", "helm.sh/resource-policy=keep"},
		{"helm.sh/resource-policy", "delete", ""},
		{"argocd.argoproj.io/sync-options", "Prune=false", "argocd.argoproj.io/sync-options=Prune=false"},
		{"argocd.argoproj.io/sync-options", "ServerSideApply=true, Delete=false", "argocd.argoproj.io/sync-options=ServerSideApply=true, Delete=false"},
		{"argocd.argoproj.io/sync-options", "Prune=true", ""},
		{"kustomize.toolkit.fluxcd.io/prune", "disabled", "kustomize.toolkit.fluxcd.io/prune=disabled"},
		{"kustomize.toolkit.fluxcd.io/prune", "enabled", ""},
		{"example.com/keep", "keep", ""},
	} {
		if got := snapshot.KeepMarker(tc.key, tc.value); got != tc.want {
			t.Errorf("KeepMarker(%q, %q) = %q, want %q", tc.key, tc.value, got, tc.want)
		}
	}
}

// A dump's keep markers survive as facts; the annotations themselves,
// which may hold secrets, do not.
func TestReadKeepsKeepMarkersNotAnnotations(t *testing.T) {
	dump := `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
  uid: u1
  annotations:
    helm.sh/resource-policy: keep
    kubectl.kubernetes.io/last-applied-configuration: '{"data":{"password":"hunter2"}}'
`
	snap := readString(t, dump)
	o := snap.Objects[0]
	if o.Facts == nil || o.Facts.Keep != "helm.sh/resource-policy=keep" {
		t.Fatalf("facts %+v, want keep helm.sh/resource-policy=keep", o.Facts)
	}
	var out strings.Builder
	if err := Write(&out, snap); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "hunter2") || strings.Contains(out.String(), "last-applied") {
		t.Errorf("the snapshot keeps an annotation:\n%s", out.String())
	}
	again := readString(t, out.String())
	if again.Objects[0].Facts == nil || again.Objects[0].Facts.Keep != o.Facts.Keep {
		t.Errorf("the keep marker is lost through a kgc snapshot: %+v", again.Objects[0].Facts)
	}
}

// Pods and workloads with the same facts share them, but a keep marker,
// written into the facts, stays on its own object.
func TestKeepMarkerStaysOnItsObject(t *testing.T) {
	pod := func(name, annotations string) string {
		return `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "` + name + `", "namespace": "shop", "uid": "` + name + `"` + annotations + `},
  "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}}`
	}
	rs := func(name, annotations string) string {
		return `{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "` + name + `", "namespace": "shop", "uid": "` + name + `"` + annotations + `},
  "spec": {"replicas": 2}}`
	}
	keepIt := `, "annotations": {"helm.sh/resource-policy": "keep"}`
	list := `{"apiVersion": "v1", "kind": "List", "items": [` + pod("a", "") + `,` + pod("b", keepIt) + `,` + pod("c", "") + `,` +
		rs("d", "") + `,` + rs("e", keepIt) + `,` + rs("f", "") + `]}`
	snap := readString(t, list)
	keep := map[string]string{}
	for _, o := range snap.Objects {
		if o.Facts == nil || (o.Facts.Pod == nil || o.Facts.Pod.NodeName != "n1") && (o.Facts.Workload == nil || *o.Facts.Workload.Replicas != 2) {
			t.Fatalf("%s: facts %+v, want those of its spec", o.Metadata.Name, o.Facts)
		}
		keep[o.Metadata.Name] = o.Facts.Keep
	}
	want := map[string]string{"a": "", "b": "helm.sh/resource-policy=keep", "c": "", "d": "", "e": "helm.sh/resource-policy=keep", "f": ""}
	if !maps.Equal(keep, want) {
		t.Errorf("keep markers %v, want %v", keep, want)
	}
}
