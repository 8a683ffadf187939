package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// These tests build, on control planes of their own (each blocks every
// namespace deletion, or every write, it touches), the situations where a
// deletion waits on something the API server calls out to, and require
// kgc why-stuck to name it from the evidence the real controllers wrote.

var apiServices = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// evidenceDiagnosis is the part of a Diagnosis the tests read.
type evidenceDiagnosis struct {
	RootCauses []struct {
		Object framework.ObjectRef `json:"object"`
		Reason string              `json:"reason"`
	} `json:"rootCauses"`
	Remedies []struct {
		Action string `json:"action"`
		ID     string `json:"id"`
	} `json:"remedies"`
}

// evidenceWhyStuck runs kgc why-stuck -o json on args and writes the document to
// a file for kgc apply --remedy.
func evidenceWhyStuck(t *testing.T, env *framework.Env, args ...string) (evidenceDiagnosis, string) {
	t.Helper()
	out := env.KGC(t, append(append([]string{"why-stuck"}, args...), "-o", "json")...)
	var d evidenceDiagnosis
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("why-stuck output: %v\n%s", err, out)
	}
	path := filepath.Join(t.TempDir(), "why.json")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return d, path
}

// requireCause requires a root cause of reason on an object of kind, and
// the first remedy to be action.
func requireCause(t *testing.T, d evidenceDiagnosis, reason, kind, action string) {
	t.Helper()
	found := false
	for _, rc := range d.RootCauses {
		found = found || rc.Reason == reason && rc.Object.Kind == kind
	}
	if !found {
		t.Fatalf("no root cause %s on a %s: %+v", reason, kind, d.RootCauses)
	}
	if len(d.Remedies) == 0 || d.Remedies[0].Action != action {
		t.Errorf("remedies %+v, want %s first", d.Remedies, action)
	}
}

// deleteNamespaceAndWaitFor deletes ns and waits until the namespace
// controller reports the condition with status True.
func deleteNamespaceAndWaitFor(t *testing.T, env *framework.Env, ns string, condition corev1.NamespaceConditionType) {
	t.Helper()
	ctx := context.Background()
	if err := env.Client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		n, err := env.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range n.Status.Conditions {
			if c.Type == condition && c.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("real control plane: namespace %s never reported %s: %v", ns, condition, err)
	}
}

// TestWhyStuckAPIServiceBlocksItsNamespace: an APIService served from a
// namespace that is being deleted can never become available again, so
// the namespace controller's discovery fails for ever. why-stuck says the
// namespace blocks itself and offers deleting the APIService first; kgc
// apply carries that remedy out and the namespace finishes.
func TestWhyStuckAPIServiceBlocksItsNamespace(t *testing.T) {
	shared := framework.Setup(t)
	t.Parallel()
	env := shared.Dedicated(t)
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "metrics")
	api := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": "v1beta1.metrics.e2e.kgc.dev"},
		"spec": map[string]any{"group": "metrics.e2e.kgc.dev", "version": "v1beta1", "insecureSkipTLSVerify": true,
			"groupPriorityMinimum": 100, "versionPriority": 100,
			"service": map[string]any{"namespace": ns, "name": "metrics-server", "port": 443}},
	}}
	if _, err := env.Dynamic.Resource(apiServices).Create(ctx, api, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	app := planBlockedByDiscovery(t, env, "v1beta1.metrics.e2e.kgc.dev")
	deleteNamespaceAndWaitFor(t, env, ns, corev1.NamespaceDeletionDiscoveryFailure)

	d, path := evidenceWhyStuck(t, env, "ns/"+ns)
	requireCause(t, d, "namespace-blocks-itself", "Namespace", "delete-apiservice")
	id := "delete-apiservice:apiservice:v1beta1.metrics.e2e.kgc.dev"
	if d.Remedies[0].ID != id {
		t.Fatalf("first remedy id %q, want %q", d.Remedies[0].ID, id)
	}
	c := &applyCase{env: env, ns: ns}
	rep := c.apply(t, 0, path, "--remedy", id, "--yes", "--timeout", "2m")
	if rep.Outcome != "as-planned" || len(rep.Requests) != 1 || rep.Requests[0].Verb != "DELETE" || rep.Requests[0].Preconditions.UID == "" {
		t.Fatalf("outcome %s, requests %+v; want as-planned after one guarded DELETE", rep.Outcome, rep.Requests)
	}
	// The namespace controller retries with a backoff: the namespace goes
	// on its next pass.
	err := wait.PollUntilContextTimeout(ctx, time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := env.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Errorf("real control plane: namespace %s still exists after its APIService was deleted", ns)
	}
	err = wait.PollUntilContextTimeout(ctx, time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := env.Client.CoreV1().Namespaces().Get(ctx, app, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Errorf("real control plane: namespace %s, which waited for the same discovery, still exists", app)
	}
}

// planBlockedByDiscovery waits until APIService name is not Available,
// then plans the delete of another namespace holding a ConfigMap: kgc
// must say the ConfigMap goes and the namespace stays terminating, and
// the real namespace controller must do just that. It returns the
// namespace, left terminating.
func planBlockedByDiscovery(t *testing.T, env *framework.Env, name string) string {
	t.Helper()
	ctx := context.Background()
	err := env.WaitForCondition(ctx, apiServices, name, "Available", "False")
	if err != nil {
		t.Fatalf("real control plane: APIService %s never became unavailable: %v", name, err)
	}
	app := env.Namespace(t, ctx, "app")
	env.MustCreate(t, ctx, framework.ConfigMaps, framework.Obj("v1", "ConfigMap", app, "settings"))
	var p framework.Plan
	env.KGCJSON(t, &p, "plan", "delete", "ns/"+app, "-o", "json")
	fates := map[string]string{}
	for _, o := range p.Objects {
		fates[o.Object.Kind+"/"+o.Object.Name] = o.Fate
	}
	if fates["Namespace/"+app] != "blocked" || fates["ConfigMap/settings"] != "deleted" {
		t.Fatalf("plan: %v; want the ConfigMap deleted and the namespace blocked by discovery", fates)
	}
	deleteNamespaceAndWaitFor(t, env, app, corev1.NamespaceDeletionDiscoveryFailure)
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := env.Client.CoreV1().ConfigMaps(app).Get(ctx, "settings", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Errorf("real control plane: the namespace controller did not delete ConfigMap %s/settings", app)
	}
	if _, err := env.Client.CoreV1().Namespaces().Get(ctx, app, metav1.GetOptions{}); err != nil {
		t.Errorf("real control plane: namespace %s should wait for discovery: %v", app, err)
	}
	return app
}

// TestWhyStuckConversionWebhookServiceGone: a custom resource whose CRD
// converts through a webhook Service that does not exist cannot be listed
// at its preferred version, so the namespace controller cannot delete the
// namespace's content. why-stuck names the CRD's conversion webhook, and
// fixing its Service comes first.
func TestWhyStuckConversionWebhookServiceGone(t *testing.T) {
	shared := framework.Setup(t)
	t.Parallel()
	env := shared.Dedicated(t)
	ctx := context.Background()
	const group = "conv.e2e.kgc.dev"
	crd := gadgetCRD(group, "v1")
	if _, err := env.Dynamic.Resource(framework.CRDResource).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ns := env.Namespace(t, ctx, "gadgets")
	v1 := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "gadgets"}
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": group + "/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": "g", "namespace": ns}}}
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := env.Dynamic.Resource(v1).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("creating a v1 Gadget: %v", err)
	}
	deleteNamespaceAndWaitFor(t, env, ns, corev1.NamespaceDeletionContentFailure)

	d, _ := evidenceWhyStuck(t, env, "ns/"+ns)
	requireCause(t, d, "conversion-webhook-unavailable", "CustomResourceDefinition", "fix-service")
}

// TestWhyStuckAdmissionWebhookRejectsFinalizerRemoval: a validating
// webhook with failurePolicy Fail intercepts UPDATEs of ConfigMaps in one
// namespace, and its Service does not exist: no finalizer of a ConfigMap
// there can be removed. why-stuck names the webhook, and ranks fixing its
// Service before any finalizer removal (which the webhook would refuse
// too).
func TestWhyStuckAdmissionWebhookRejectsFinalizerRemoval(t *testing.T) {
	shared := framework.Setup(t)
	t.Parallel()
	env := shared.Dedicated(t)
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "guarded")
	cm := framework.Obj("v1", "ConfigMap", ns, "held")
	cm.SetFinalizers([]string{"kgc.dev/hold"})
	env.MustCreate(t, ctx, framework.ConfigMaps, cm)

	fail, none := admissionv1.Fail, admissionv1.SideEffectClassNone
	port := int32(443)
	hook := &admissionv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "guard"},
		Webhooks: []admissionv1.ValidatingWebhook{{
			Name:                    "validate.guard.e2e.kgc.dev",
			FailurePolicy:           &fail,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
			ClientConfig:            admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: "guard-system", Name: "guard", Port: &port}},
			Rules: []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{admissionv1.Update},
				Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
		}},
	}
	if _, err := env.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, hook, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.CoreV1().ConfigMaps(ns).Delete(ctx, "held", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The webhook really refuses the finalizer's removal (it may take a
	// moment to be in force).
	remove := []byte(`[{"op":"remove","path":"/metadata/finalizers/0"}]`)
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := env.Client.CoreV1().ConfigMaps(ns).Patch(ctx, "held", types.JSONPatchType, []byte(`[{"op":"test","path":"/metadata/name","value":"held"}]`), metav1.PatchOptions{})
		return err != nil, nil
	})
	if err != nil {
		t.Fatalf("setup: the webhook never refused an UPDATE: %v", err)
	}
	if _, err := env.Client.CoreV1().ConfigMaps(ns).Patch(ctx, "held", types.JSONPatchType, remove, metav1.PatchOptions{}); err == nil {
		t.Fatalf("setup: the finalizer's removal went through the webhook")
	}

	d, _ := evidenceWhyStuck(t, env, "cm/held", "-n", ns)
	requireCause(t, d, "webhook-rejects", "ValidatingWebhookConfiguration", "fix-service")
}

// gadgetCRD is the CRD of Gadgets in group, served at v1 and v2 and
// stored at storage, converting through a webhook whose Service
// (gadget-system/gadget-conversion) does not exist.
func gadgetCRD(group, storage string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gadgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names":    map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
			"versions": gadgetVersions(storage),
			"conversion": map[string]any{"strategy": "Webhook", "webhook": map[string]any{
				"conversionReviewVersions": []any{"v1"},
				"clientConfig":             map[string]any{"service": map[string]any{"namespace": "gadget-system", "name": "gadget-conversion", "port": int64(443)}},
			}},
		},
	}}
}

// gadgetVersions are v1 and v2, both served, storage the one stored.
func gadgetVersions(storage string) []any {
	schemaAny := map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
	return []any{
		map[string]any{"name": "v1", "served": true, "storage": storage == "v1", "schema": schemaAny},
		map[string]any{"name": "v2", "served": true, "storage": storage == "v2", "schema": schemaAny},
	}
}
