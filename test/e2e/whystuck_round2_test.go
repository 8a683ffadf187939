package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// The second round of why-stuck evidence, made real: a CRD whose instances
// cannot be converted, namespace conditions that lie, a controller that
// runs and does not finish, a chain of held custom resources. Each test
// requires kgc's root cause and the real control plane's verdict (the
// object stays) to agree.

// round2Diagnosis is the part of a Diagnosis these tests read.
type round2Diagnosis struct {
	Blockers   []round2Blocker `json:"blockers"`
	RootCauses []struct {
		Object     framework.ObjectRef   `json:"object"`
		Finalizer  string                `json:"finalizer"`
		Reason     string                `json:"reason"`
		Message    string                `json:"message"`
		Related    []framework.ObjectRef `json:"related"`
		Controller string                `json:"controller"`
	} `json:"rootCauses"`
	Remedies []struct {
		Action      string `json:"action"`
		Description string `json:"description"`
	} `json:"remedies"`
}

type round2Blocker struct {
	Finalizer       string `json:"finalizer"`
	StaleConditions []struct {
		Type           string `json:"type"`
		Status         string `json:"status"`
		ContradictedBy string `json:"contradictedBy"`
	} `json:"staleConditions"`
	Blockers []round2Blocker `json:"blockers"`
}

func round2WhyStuck(t *testing.T, env *framework.Env, args ...string) round2Diagnosis {
	t.Helper()
	out := env.KGC(t, append(append([]string{"why-stuck"}, args...), "-o", "json")...)
	var d round2Diagnosis
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("why-stuck output: %v\n%s", err, out)
	}
	t.Logf("kgc why-stuck %s:\n%s", strings.Join(args, " "), out)
	return d
}

// TestWhyStuckCRDConversionWebhookHoldsItsDeletion: Gadgets stored at v1,
// the CRD's storage version then moved to v2, its conversion webhook's
// Service absent. Deleting the CRD, the CRD finalizer cannot list the
// instances at v2 (every read converts them through the webhook) and
// reports InstanceDeletionFailed for ever. kgc names the webhook's
// Service on the CRD's cleanup finalizer, fixing it first; the real CRD
// stays.
func TestWhyStuckCRDConversionWebhookHoldsItsDeletion(t *testing.T) {
	shared := framework.Setup(t)
	t.Parallel()
	env := shared.Dedicated(t)
	ctx := context.Background()
	const group = "conv2.e2e.kgc.dev"
	name := "gadgets." + group
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
	// Move the storage version to v2: the Gadget stays stored at v1.
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		cur, err := env.Dynamic.Resource(framework.CRDResource).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		if err := unstructured.SetNestedSlice(cur.Object, gadgetVersions("v2"), "spec", "versions"); err != nil {
			return false, err
		}
		_, err = env.Dynamic.Resource(framework.CRDResource).Update(ctx, cur, metav1.UpdateOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("moving the storage version to v2: %v", err)
	}
	if err := env.Dynamic.Resource(framework.CRDResource).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var reason string
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		cur, err := env.Dynamic.Resource(framework.CRDResource).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		conds, _, _ := unstructured.NestedSlice(cur.Object, "status", "conditions")
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok && m["type"] == "Terminating" {
				reason, _ = m["reason"].(string)
			}
		}
		return reason == "InstanceDeletionFailed", nil
	})
	if err != nil {
		t.Fatalf("real control plane: the CRD finalizer never reported InstanceDeletionFailed (last reason %q): %v", reason, err)
	}

	d := round2WhyStuck(t, env, "customresourcedefinition/"+name)
	if len(d.RootCauses) == 0 {
		t.Fatal("no root cause")
	}
	rc := d.RootCauses[0]
	if rc.Reason != "conversion-webhook-unavailable" || rc.Object.Name != name || rc.Finalizer != "customresourcecleanup.apiextensions.k8s.io" {
		t.Errorf("root cause %s %s (%s), want the CRD's cleanup finalizer held by its conversion webhook", rc.Object, rc.Finalizer, rc.Reason)
	}
	for _, want := range []string{"stored at v1", "Service/gadget-conversion -n gadget-system does not exist"} {
		if !strings.Contains(rc.Message, want) {
			t.Errorf("message %q lacks %q", rc.Message, want)
		}
	}
	if len(d.Remedies) == 0 || d.Remedies[0].Action != "fix-service" {
		t.Errorf("remedies %+v, want the webhook's Service fixed first", d.Remedies)
	}
	// The real API server agrees: the CRD is still there, still held.
	cur, err := env.Dynamic.Resource(framework.CRDResource).Get(ctx, name, metav1.GetOptions{})
	if err != nil || !slices.Contains(cur.GetFinalizers(), "customresourcecleanup.apiextensions.k8s.io") {
		t.Errorf("real control plane: CRD %s should stay with its cleanup finalizer: %v", name, err)
	}
}

// TestWhyStuckStaleNamespaceConditions: a pod held by a finalizer in a
// namespace being deleted. Under ordered namespace deletion the real
// namespace controller stops at the pods and writes its all-clear
// NamespaceContentRemaining / NamespaceFinalizersRemaining
// (kubernetes/kubernetes#138208); kgc says those conditions are stale and
// names the pod's finalizer.
func TestWhyStuckStaleNamespaceConditions(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "stale")
	pod := mk(t, ctx, env, "Pod", ns, "worker", finalizers(holdFinalizer))
	mk(t, ctx, env, "ConfigMap", ns, "settings")
	if err := env.Client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var seen []corev1.NamespaceCondition
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		n, err := env.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		seen = n.Status.Conditions
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NamespaceContentRemaining && c.Status == corev1.ConditionFalse {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("real control plane: the namespace controller never wrote NamespaceContentRemaining=False with the pod held (conditions %+v): %v", seen, err)
	}
	if _, err := env.Client.CoreV1().Pods(ns).Get(ctx, "worker", metav1.GetOptions{}); err != nil {
		t.Fatalf("real control plane: the held pod is gone: %v", err)
	}
	if _, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, "settings", metav1.GetOptions{}); err != nil {
		t.Fatalf("real control plane: the ConfigMap should wait for the pods (ordered deletion): %v", err)
	}

	d := round2WhyStuck(t, env, "namespace/"+ns)
	var stale []string
	for _, b := range d.Blockers {
		for _, c := range b.StaleConditions {
			stale = append(stale, c.Type+"="+c.Status)
			if !strings.Contains(c.ContradictedBy, "Pod/worker -n "+ns) {
				t.Errorf("stale %s contradicted by %q, want the held pod named", c.Type, c.ContradictedBy)
			}
		}
	}
	if !slices.Contains(stale, "NamespaceContentRemaining=False") {
		t.Errorf("stale conditions %v, want NamespaceContentRemaining=False called stale", stale)
	}
	found := false
	for _, rc := range d.RootCauses {
		found = found || rc.Object.UID == string(pod.GetUID()) && rc.Finalizer == holdFinalizer
	}
	if !found {
		t.Errorf("root causes %+v do not name the pod's finalizer", d.RootCauses)
	}
}

// runningController installs a controller the way evidence sees one: a
// ClusterRole letting update resource of group, bound to ServiceAccount
// opsNS/name, and a Deployment running as it whose status says one pod is
// available (nothing runs pods on this plane, so the status is written
// through its subresource).
func runningController(t *testing.T, ctx context.Context, env *framework.Env, opsNS, name, group, resource string) {
	t.Helper()
	installController(t, ctx, env, opsNS, name, rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource, resource + "/finalizers"},
		Verbs: []string{"get", "list", "watch", "update", "patch"}}, nil)
}

// TestWhyStuckControllerRunningButNotFinishing: a Bucket held by its
// operator's finalizer while the operator (RBAC-bound to update buckets,
// one pod available) runs and does nothing. kgc says
// controller-not-finishing and names the Deployment, reading its logs
// first; the real API server keeps the Bucket.
func TestWhyStuckControllerRunningButNotFinishing(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	crd := framework.CRD{Group: "run1.e2e.kgc.dev", Kind: "Bucket", Plural: "buckets", Namespace: true}
	env.CreateCRD(t, ctx, crd)
	ns := env.Namespace(t, ctx, "run1")
	ops := env.Namespace(t, ctx, "run1-ops")
	runningController(t, ctx, env, ops, "bucket-operator", crd.Group, crd.Plural)
	const fin = "buckets.run1.e2e.kgc.dev/cleanup"
	mkCR(t, ctx, env, crd, ns, "logs", finalizers(fin))
	deleteNow(t, ctx, env, crd.GVR(), ns, "logs", bg)

	d := round2WhyStuck(t, env, crd.TypeArg()+"/logs", "-n", ns)
	if len(d.RootCauses) != 1 {
		t.Fatalf("root causes %+v, want one", d.RootCauses)
	}
	rc := d.RootCauses[0]
	if rc.Reason != "controller-not-finishing" || rc.Finalizer != fin || rc.Controller != "Deployment/bucket-operator -n "+ops {
		t.Errorf("root cause %s %s (%s), controller %q; want controller-not-finishing naming Deployment/bucket-operator -n %s", rc.Object, rc.Finalizer, rc.Reason, rc.Controller, ops)
	}
	if len(d.Remedies) == 0 || d.Remedies[0].Action != "fix-controller" || !strings.Contains(d.Remedies[0].Description, "logs of Deployment/bucket-operator -n "+ops) {
		t.Errorf("remedies %+v, want the operator's logs first", d.Remedies)
	}
	if _, err := env.Dynamic.Resource(crd.GVR()).Namespace(ns).Get(ctx, "logs", metav1.GetOptions{}); err != nil {
		t.Errorf("real control plane: the Bucket should stay held: %v", err)
	}
}

// TestWhyStuckChainBelowHeldObject: a Cluster held by its running
// controller's finalizer owns an Infra held by a finalizer nothing
// removes. The root cause is the Infra's finalizer, the deepest blocker;
// the Cluster's blocker names the chain.
func TestWhyStuckChainBelowHeldObject(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	top := framework.CRD{Group: "core.chain2.e2e.kgc.dev", Kind: "Cluster", Plural: "clusters", Namespace: true}
	infra := framework.CRD{Group: "infra.chain2.e2e.kgc.dev", Kind: "Infra", Plural: "infras", Namespace: true}
	env.CreateCRDs(t, ctx, top, infra)
	ns := env.Namespace(t, ctx, "chain2")
	ops := env.Namespace(t, ctx, "chain2-ops")
	runningController(t, ctx, env, ops, "cluster-manager", top.Group, top.Plural)
	const topFin, infraFin = "clusters.core.chain2.e2e.kgc.dev/cleanup", "infras.infra.chain2.e2e.kgc.dev/cleanup"
	cl := mkCR(t, ctx, env, top, ns, "prod", finalizers(topFin))
	in := mkCR(t, ctx, env, infra, ns, "prod", finalizers(infraFin), owners(ref(cl, nil, tr())))
	deleteNow(t, ctx, env, top.GVR(), ns, "prod", bg)
	deleteNow(t, ctx, env, infra.GVR(), ns, "prod", bg)

	d := round2WhyStuck(t, env, top.TypeArg()+"/prod", "-n", ns)
	if len(d.RootCauses) != 1 || d.RootCauses[0].Object.UID != string(in.GetUID()) || d.RootCauses[0].Finalizer != infraFin {
		t.Fatalf("root causes %+v, want only the Infra's finalizer", d.RootCauses)
	}
	out := string(env.KGC(t, "why-stuck", top.TypeArg()+"/prod", "-n", ns))
	if want := "which waits for Infra/prod -n " + ns + ", held by finalizer " + infraFin; !strings.Contains(out, want) {
		t.Errorf("why-stuck does not name the chain %q:\n%s", want, out)
	}
	for _, x := range []struct {
		gvr  schema.GroupVersionResource
		what string
	}{{top.GVR(), "Cluster"}, {infra.GVR(), "Infra"}} {
		if _, err := env.Dynamic.Resource(x.gvr).Namespace(ns).Get(ctx, "prod", metav1.GetOptions{}); err != nil {
			t.Errorf("real control plane: the %s should stay held: %v", x.what, err)
		}
	}
}
