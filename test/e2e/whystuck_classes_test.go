package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// classDiagnosis is the part of a Diagnosis the class tests read.
type classDiagnosis struct {
	RootCauses []struct {
		Object      framework.ObjectRef `json:"object"`
		Finalizer   string              `json:"finalizer"`
		Reason      string              `json:"reason"`
		RemovedBy   string              `json:"removedBy"`
		Controller  string              `json:"controller"`
		Message     string              `json:"message"`
		Attribution *struct {
			Evidence string                `json:"evidence"`
			Detail   string                `json:"detail"`
			Objects  []framework.ObjectRef `json:"objects"`
		} `json:"attribution"`
	} `json:"rootCauses"`
}

// requireClassCause requires the one root cause on finalizer f to name
// controller as its remover on class-object evidence, for reason, its
// detail and message saying says.
func requireClassCause(t *testing.T, out []byte, f, controller, reason string, says ...string) {
	t.Helper()
	var d classDiagnosis
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("why-stuck output: %v\n%s", err, out)
	}
	for _, rc := range d.RootCauses {
		if rc.Finalizer != f {
			continue
		}
		if rc.Reason != reason || rc.Controller != controller || rc.RemovedBy != controller || rc.Attribution == nil || rc.Attribution.Evidence != "class-object" {
			t.Errorf("root cause on %s: %s, removed by %s, controller %s, attribution %+v; want %s by %s on class-object evidence", f, rc.Reason, rc.RemovedBy, rc.Controller, rc.Attribution, reason, controller)
			return
		}
		for _, s := range says {
			if !strings.Contains(rc.Attribution.Detail+" "+rc.Message, s) {
				t.Errorf("root cause on %s does not say %q: %s / %s", f, s, rc.Attribution.Detail, rc.Message)
			}
		}
		return
	}
	t.Fatalf("no root cause on %s:\n%s", f, out)
}

// TestWhyStuckClassObjectNamesTheController: on the real plane, an
// Ingress of an IngressClass, held by its controller's finalizer once
// deleted, is explained by the controller the IngressClass names
// (class-object evidence): absent when no workload named like it runs,
// installed but with no available pod when its Deployment is scaled to
// zero. A GatewayClass (served by a minimal CRD of the Gateway API's
// group) held by gateway-exists-finalizer names its own controller
// (https://github.com/envoyproxy/gateway/issues/7287: uninstalling Envoy
// Gateway first leaves it so).
func TestWhyStuckClassObjectNamesTheController(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "classes")
	const fin = "example.com/ingress-cleanup"
	for _, c := range []struct{ class, controller string }{{ns + "-absent", "example.com/absent-ingress"}, {ns + "-pending", "example.com/pending-ingress"}} {
		ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: c.class}, Spec: networkingv1.IngressClassSpec{Controller: c.controller}}
		if _, err := env.Client.NetworkingV1().IngressClasses().Create(ctx, ic, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = env.Client.NetworkingV1().IngressClasses().Delete(context.Background(), c.class, metav1.DeleteOptions{})
		})
		class := c.class
		ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: c.class, Finalizers: []string{fin}},
			Spec: networkingv1.IngressSpec{IngressClassName: &class, DefaultBackend: &networkingv1.IngressBackend{
				Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}
		if _, err := env.Client.NetworkingV1().Ingresses(ns).Create(ctx, ing, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unfinalizeIngress(env, ns, class) })
		if err := env.Client.NetworkingV1().Ingresses(ns).Delete(ctx, c.class, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The pending class's controller is installed, scaled to zero.
	zero := int32(0)
	labels := map[string]string{"app": "pending-ingress-controller"}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "pending-ingress-controller", Namespace: ns},
		Spec: appsv1.DeploymentSpec{Replicas: &zero, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.com/ingress:1"}}}}}}
	if _, err := env.Client.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ns + "-absent", ns + "-pending"} {
		got, err := env.Client.NetworkingV1().Ingresses(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil || got.DeletionTimestamp == nil {
			t.Fatalf("real control plane: Ingress %s is not held by its finalizer (%v)", name, err)
		}
	}
	out := env.KGC(t, "why-stuck", "ingress/"+ns+"-absent", "-n", ns, "-o", "json")
	requireClassCause(t, out, fin, "example.com/absent-ingress", "controller-absent",
		"class object: IngressClass/"+ns+"-absent names controller example.com/absent-ingress", "named like it (absent-ingress)")
	out = env.KGC(t, "why-stuck", "ingress/"+ns+"-pending", "-n", ns, "-o", "json")
	requireClassCause(t, out, fin, "example.com/pending-ingress", "controller-pending",
		"class object: IngressClass/"+ns+"-pending names controller example.com/pending-ingress", "Deployment/pending-ingress-controller -n "+ns)

	gatewayClassHeld(t, env, ns)
}

// gatewayClassHeld creates the GatewayClass type (a minimal CRD of the
// Gateway API's group, approved as the project's are), a GatewayClass held
// by gateway-exists-finalizer, deletes it, and requires why-stuck to name
// the controller it names.
func gatewayClassHeld(t *testing.T, env *framework.Env, ns string) {
	t.Helper()
	ctx := context.Background()
	const group = "gateway.networking.k8s.io"
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gatewayclasses." + group,
			"annotations": map[string]any{"api-approved.kubernetes.io": "https://github.com/kubernetes-sigs/gateway-api/pull/2466"}},
		"spec": map[string]any{"group": group, "scope": "Cluster",
			"names": map[string]any{"plural": "gatewayclasses", "singular": "gatewayclass", "kind": "GatewayClass", "listKind": "GatewayClassList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}},
	}}
	if _, err := env.Dynamic.Resource(framework.CRDResource).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if err := env.WaitForCondition(ctx, framework.CRDResource, crd.GetName(), "Established", "True"); err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "gatewayclasses"}
	const fin, ctl = "gateway-exists-finalizer.gateway.networking.k8s.io", "gateway.envoyproxy.io/gatewayclass-controller"
	gc := &unstructured.Unstructured{Object: map[string]any{"apiVersion": group + "/v1", "kind": "GatewayClass",
		"metadata": map[string]any{"name": ns + "-eg", "finalizers": []any{fin}}, "spec": map[string]any{"controllerName": ctl}}}
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := env.Dynamic.Resource(gvr).Create(ctx, gc, metav1.CreateOptions{})
		return err == nil || apierrors.IsAlreadyExists(err), nil
	})
	if err != nil {
		t.Fatalf("creating GatewayClass %s: %v", gc.GetName(), err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_, _ = env.Dynamic.Resource(gvr).Patch(ctx, gc.GetName(), types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		_ = env.Dynamic.Resource(framework.CRDResource).Delete(ctx, crd.GetName(), metav1.DeleteOptions{})
	})
	if err := env.Dynamic.Resource(gvr).Delete(ctx, gc.GetName(), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, err := env.Dynamic.Resource(gvr).Get(ctx, gc.GetName(), metav1.GetOptions{}); err != nil || got.GetDeletionTimestamp() == nil {
		t.Fatalf("real control plane: GatewayClass %s is not held by its finalizer (%v)", gc.GetName(), err)
	}
	out := env.KGC(t, "why-stuck", "gatewayclasses."+group+"/"+gc.GetName(), "-o", "json")
	requireClassCause(t, out, fin, ctl, "controller-absent", "GatewayClass/"+gc.GetName()+" names controller "+ctl+" (its spec.controllerName)")
}

// unfinalizeIngress removes every finalizer of an Ingress so that a test
// leaves nothing held behind.
func unfinalizeIngress(env *framework.Env, ns, name string) {
	_, _ = env.Client.NetworkingV1().Ingresses(ns).Patch(context.Background(), name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
}
