package snapshot

import (
	"path/filepath"
	"strings"
	"testing"
)

func readString(t *testing.T, content string) *Snapshot {
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
		if got := KeepMarker(tc.key, tc.value); got != tc.want {
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
