package e2e

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// snapshotDoc is the part of the Snapshot document (output-contract.md) this
// suite checks.
type snapshotDoc struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Source     struct {
		Type          string `json:"type"`
		ServerVersion string `json:"serverVersion"`
	} `json:"source"`
	Resources []struct {
		Group      string `json:"group"`
		Version    string `json:"version"`
		Resource   string `json:"resource"`
		Kind       string `json:"kind"`
		Namespaced bool   `json:"namespaced"`
		Listed     bool   `json:"listed"`
		Error      string `json:"error"`
	} `json:"resources"`
	Objects []struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name              string                  `json:"name"`
			Namespace         string                  `json:"namespace"`
			UID               string                  `json:"uid"`
			DeletionTimestamp *string                 `json:"deletionTimestamp"`
			Finalizers        []string                `json:"finalizers"`
			OwnerReferences   []metav1.OwnerReference `json:"ownerReferences"`
			Annotations       map[string]string       `json:"annotations"`
			ManagedFields     []any                   `json:"managedFields"`
		} `json:"metadata"`
		Data map[string]any `json:"data"`
		Spec map[string]any `json:"spec"`
	} `json:"objects"`
}

// TestSnapshotCapturesLiveState checks that `kgc snapshot` records what
// the plans and graphs are computed from: every object of the case with
// its UID, owners (with their flags), finalizers and deletion state, custom
// resources included, and no Secret data.
func TestSnapshotCapturesLiveState(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	crd := framework.CRD{Group: "snap.e2e.kgc.dev", Kind: "Thing", Plural: "things", Namespace: true}
	env.CreateCRD(t, ctx, crd)
	ns := env.Namespace(t, ctx, "snap")
	owner := mkCR(t, ctx, env, crd, ns, "owner")
	secret := framework.Obj("v1", "Secret", ns, "creds")
	secret.Object["stringData"] = map[string]any{"password": "hunter2-do-not-leak"}
	secret.SetOwnerReferences([]metav1.OwnerReference{ref(owner, tr(), tr())})
	secret.SetAnnotations(map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{\"secret\":\"hunter2-do-not-leak\"}"})
	env.MustCreate(t, ctx, framework.Secrets, secret)
	mk(t, ctx, env, "ConfigMap", ns, "held", finalizers(holdFinalizer), owners(ref(owner, fa(), nil)))
	deleteNow(t, ctx, env, framework.ConfigMaps, ns, "held", bg)
	states, err := env.Settle(ctx, nsScope(ns, crd.GVR(), framework.Secrets, framework.ConfigMaps), quietBefore, settleLimit)
	if err != nil {
		t.Fatal(err)
	}

	for _, name := range []string{"snapshot.json", "snapshot.json.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			env.KGC(t, "snapshot", "--output-file", path)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(name, ".gz") {
				zr, err := gzip.NewReader(strings.NewReader(string(raw)))
				if err != nil {
					t.Fatalf("%s is not gzip: %v", name, err)
				}
				if raw, err = io.ReadAll(zr); err != nil {
					t.Fatalf("gunzip %s: %v", name, err)
				}
			}
			if strings.Contains(string(raw), "hunter2-do-not-leak") || strings.Contains(string(raw), "aHVudGVyMi1kby1ub3QtbGVhaw") {
				t.Errorf("snapshot leaks Secret data or the last-applied annotation")
			}
			var doc snapshotDoc
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatalf("decoding snapshot: %v", err)
			}
			if doc.Kind != "Snapshot" || doc.APIVersion != "kgc.dev/v1alpha1" || doc.Source.Type != "live" || doc.Source.ServerVersion != framework.KubernetesVersion {
				t.Errorf("snapshot header: %s %s source %+v", doc.APIVersion, doc.Kind, doc.Source)
			}
			listed := false
			for _, r := range doc.Resources {
				if r.Group == crd.Group && r.Resource == crd.Plural {
					listed = r.Listed && r.Namespaced && r.Kind == crd.Kind
				}
			}
			if !listed {
				t.Errorf("resources[] does not list %s as a listed namespaced type", crd.GVR())
			}
			byUID := map[string]int{}
			for i, o := range doc.Objects {
				byUID[o.Metadata.UID] = i
			}
			for uid, s := range states {
				i, ok := byUID[uid]
				if !ok {
					t.Errorf("snapshot lacks %s", s)
					continue
				}
				o := doc.Objects[i]
				var ownerUIDs []string
				for _, r := range o.Metadata.OwnerReferences {
					ownerUIDs = append(ownerUIDs, string(r.UID))
				}
				got := framework.ObjState{
					GVR: s.GVR, Kind: o.Kind, Namespace: o.Metadata.Namespace, Name: o.Metadata.Name, UID: uid, Exists: true,
					Terminating: o.Metadata.DeletionTimestamp != nil, Finalizers: nonNil(o.Metadata.Finalizers), OwnerUIDs: nonNil(ownerUIDs),
				}
				if got.String() != s.String() {
					t.Errorf("snapshot object differs from the cluster\nsnapshot: %s\ncluster:  %s", got, s)
				}
				if len(o.Metadata.ManagedFields) > 0 || len(o.Data) > 0 {
					t.Errorf("snapshot keeps more than metadata for %s", s)
				}
				if s.Name == "creds" {
					if len(o.Metadata.OwnerReferences) != 1 || !isTrue(o.Metadata.OwnerReferences[0].BlockOwnerDeletion) || !isTrue(o.Metadata.OwnerReferences[0].Controller) {
						t.Errorf("owner reference flags lost: %+v", o.Metadata.OwnerReferences)
					}
				}
			}
		})
	}
}

func isTrue(b *bool) bool { return b != nil && *b }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
