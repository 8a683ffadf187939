package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// TestScenarioT12CascadingDeleteOnCRDConversionFailure: a CRD whose
// preferred version can only be listed through a conversion webhook that is
// down. The GC's monitor for it never syncs, yet the GC still collects a pod
// after its RC is deleted (§6 T12). kgc must plan the same, and say that
// its plan is incomplete because a type could not be listed (dependents of
// the RC could hide there).
//
// It runs on a control plane of its own: an unlistable type would make every
// other test's snapshot incomplete.
func TestScenarioT12CascadingDeleteOnCRDConversionFailure(t *testing.T) {
	shared := framework.Setup(t)
	t.Parallel()
	env := shared.Dedicated(t)
	ctx := context.Background()

	const group = "t12.e2e.kgc.dev"
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "brokens." + group},
		"spec": map[string]any{
			"group": group,
			"scope": "Namespaced",
			"names": map[string]any{"plural": "brokens", "singular": "broken", "kind": "Broken", "listKind": "BrokenList"},
			"versions": []any{
				map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
				map[string]any{"name": "v2", "served": true, "storage": false, "schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
			},
			// Nothing listens on port 9 (discard) of the loopback address:
			// every conversion fails at once.
			"conversion": map[string]any{
				"strategy": "Webhook",
				"webhook": map[string]any{
					"conversionReviewVersions": []any{"v1"},
					"clientConfig":             map[string]any{"url": "https://127.0.0.1:9/convert"},
				},
			},
		},
	}}
	if _, err := env.Dynamic.Resource(framework.CRDResource).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating CRD: %v", err)
	}
	v1 := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "brokens"}
	v2 := schema.GroupVersionResource{Group: group, Version: "v2", Resource: "brokens"}
	ns := env.Namespace(t, ctx, "t12")
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion(group + "/v1")
	obj.SetKind("Broken")
	obj.SetName("stored-as-v1")
	obj.SetNamespace(ns)
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := env.Dynamic.Resource(v1).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("creating a v1 object: %v", err)
	}
	if _, err := env.Dynamic.Resource(v2).Namespace("").List(ctx, metav1.ListOptions{}); err == nil {
		t.Fatalf("setup: listing the preferred version v2 should fail through the broken webhook")
	}

	rc := mk(t, ctx, env, "ReplicationController", ns, "rc")
	mk(t, ctx, env, "Pod", ns, "pod", owners(ref(rc, nil, nil)))
	// Give the GC a discovery resync, so that its broken monitor exists
	// while the delete happens, as in upstream's test.
	time.Sleep(35 * time.Second)

	r := checkPlan(t, ctx, env, planCase{
		Scope: nsScope(ns, framework.RCs, framework.Pods), GVR: framework.RCs, TypeArg: "replicationcontrollers",
		Namespace: ns, Name: "rc", Policy: bg,
	})
	expectReal(t, r, map[string]string{"ReplicationController/rc": gone, "Pod/pod": gone})
	if r.Plan != nil && r.Plan.Complete {
		t.Errorf("plan says complete=true, but brokens.%s could not be listed and could hold dependents of the RC", group)
	}

	// The snapshot must record the type as not listed, with the error.
	snap := filepath.Join(t.TempDir(), "snap.json")
	env.KGC(t, "snapshot", "--output-file", snap)
	raw, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	var doc snapshotDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, res := range doc.Resources {
		if res.Group == group && res.Resource == "brokens" {
			found = true
			if res.Listed || res.Error == "" {
				t.Errorf("snapshot resources[] for brokens: listed=%v error=%q; want listed=false with the error", res.Listed, res.Error)
			}
		}
	}
	if !found {
		t.Errorf("snapshot resources[] does not mention brokens.%s", group)
	}
}
