package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

var (
	admissionPolicies       = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"}
	admissionPolicyBindings = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings"}
	lateFinalizer           = "kgc.dev/e2e-late"
	holdLabel               = "kgc-e2e-hold"
)

// TestApplyDependentGainsFinalizerAfterDelete: the plan deletes a Secret
// with its owner, but after apply's DELETE someone adds a finalizer to
// the Secret before the garbage collector reaches it. The report must
// show the Secret still terminating, with why-stuck's verdict naming the
// finalizer, and the exit code must say the cascade did not finish.
//
// To give the test a window between apply's DELETE and the collector's,
// a ValidatingAdmissionPolicy (in the API server, no webhook) denies the
// DELETE of Secrets labelled kgc-e2e-hold in this namespace: the
// collector retries until the test removes the label, in the same patch
// that adds the finalizer.
func TestApplyDependentGainsFinalizerAfterDelete(t *testing.T) {
	c := newApplyCase(t, "apply-late")
	env, ctx := c.env, context.Background()
	holdDeletes(t, env, c.ns)
	if _, err := env.Client.CoreV1().Secrets(c.ns).Patch(ctx, "dep-a", types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"`+holdLabel+`":"true"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	path := c.plan(t)

	// kgc runs in the background, as a user's terminal would, while the
	// test plays the one who adds the finalizer.
	run := env.StartKGC(t, "apply", path, "--yes", "--timeout", "20s", "-o", "json")
	// Once the owner is gone apply has sent its DELETE; the collector's
	// DELETE of dep-a is being denied.
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := env.Client.CoreV1().ConfigMaps(c.ns).Get(ctx, "owner", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("real control plane: the owner was never deleted: %v", err)
	}
	patch := `{"metadata":{"finalizers":["` + lateFinalizer + `"],"labels":{"` + holdLabel + `":null}}}`
	if _, err := env.Client.CoreV1().Secrets(c.ns).Patch(ctx, "dep-a", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("adding the finalizer: %v", err)
	}
	t.Cleanup(func() { releaseFinalizer(t, env, c.ns, "dep-a") })

	rep := decodeApplyReport(t, run.Wait(t), applyExitTimedOut)
	var dep *struct{ result, why string }
	for _, o := range rep.Objects {
		if o.Object.Name == "dep-a" {
			dep = &struct{ result, why string }{o.Result, o.WhyStuck}
		}
	}
	if dep == nil || dep.result != "in-progress" || !strings.Contains(dep.why, lateFinalizer) {
		t.Errorf("report on dep-a: %+v; want in progress, with why-stuck naming finalizer %s", dep, lateFinalizer)
	}
	s, err := env.Client.CoreV1().Secrets(c.ns).Get(ctx, "dep-a", metav1.GetOptions{})
	if err != nil || s.DeletionTimestamp == nil {
		t.Errorf("real control plane: dep-a should be terminating, held by %s: %v", lateFinalizer, err)
	}
}

// holdDeletes makes the API server deny the DELETE of Secrets labelled
// holdLabel in ns, and waits until it does.
func holdDeletes(t *testing.T, env *framework.Env, ns string) {
	t.Helper()
	ctx := context.Background()
	name := "kgc-e2e-hold-" + ns
	policy := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{"failurePolicy": "Fail",
			"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{
				"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"DELETE"}, "resources": []any{"secrets"}}}},
			"validations": []any{map[string]any{
				"expression": "!has(oldObject.metadata.labels) || !('" + holdLabel + "' in oldObject.metadata.labels)",
				"message":    "held by the e2e test"}}},
	}}
	binding := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{"policyName": name, "validationActions": []any{"Deny"},
			"matchResources": map[string]any{"namespaceSelector": map[string]any{
				"matchLabels": map[string]any{"kubernetes.io/metadata.name": ns}}}},
	}}
	for _, o := range []struct {
		gvr schema.GroupVersionResource
		obj *unstructured.Unstructured
	}{{admissionPolicies, policy}, {admissionPolicyBindings, binding}} {
		if _, err := env.Dynamic.Resource(o.gvr).Create(ctx, o.obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Dynamic.Resource(o.gvr).Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	probe := framework.Obj("v1", "Secret", ns, "hold-probe")
	probe.SetLabels(map[string]string{holdLabel: "true"})
	env.MustCreate(t, ctx, framework.Secrets, probe)
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		err := env.Client.CoreV1().Secrets(ns).Delete(ctx, "hold-probe", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
		return err != nil && strings.Contains(err.Error(), "held by the e2e test"), nil
	})
	if err != nil {
		t.Fatalf("real control plane: the admission policy never denied a delete: %v", err)
	}
}

// releaseFinalizer removes lateFinalizer so that the namespace can go.
func releaseFinalizer(t *testing.T, env *framework.Env, ns, name string) {
	_, err := env.Client.CoreV1().Secrets(ns).Patch(context.Background(), name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("releasing %s/%s: %v", ns, name, err)
	}
}
