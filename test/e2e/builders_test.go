package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

var (
	deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	replicaSets = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	jobs        = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
	cronJobs    = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "cronjobs"}
)

// holdFinalizer is a finalizer no controller in the harness removes: the
// plan's default --assume-finalizers=hang must predict it stays.
const holdFinalizer = "kgc.dev/hold"

func tr() *bool { b := true; return &b }
func fa() *bool { b := false; return &b }

// ref is an ownerReference with optional blockOwnerDeletion/controller.
func ref(owner *unstructured.Unstructured, block, controller *bool) metav1.OwnerReference {
	return framework.Ref(owner, block, controller)
}

// objOpt customizes an object before creation.
type objOpt func(*unstructured.Unstructured)

func owners(refs ...metav1.OwnerReference) objOpt {
	return func(u *unstructured.Unstructured) { u.SetOwnerReferences(refs) }
}

func finalizers(f ...string) objOpt {
	return func(u *unstructured.Unstructured) { u.SetFinalizers(f) }
}

// podSpec is the smallest valid pod spec. The pods are never scheduled
// (no scheduler or kubelet runs), so their grace period on delete is 0.
func podSpec() map[string]any {
	return map[string]any{"containers": []any{map[string]any{"name": "c", "image": "registry.invalid/none"}}}
}

// mk creates an object of a built-in kind with a valid minimal body.
func mk(t testing.TB, ctx context.Context, env *framework.Env, kind, ns, name string, opts ...objOpt) *unstructured.Unstructured {
	t.Helper()
	var gvr schema.GroupVersionResource
	var u *unstructured.Unstructured
	labels := map[string]any{"app": name}
	template := map[string]any{"metadata": map[string]any{"labels": labels}, "spec": podSpec()}
	switch kind {
	case "ConfigMap":
		gvr, u = framework.ConfigMaps, framework.Obj("v1", kind, ns, name)
	case "Secret":
		gvr, u = framework.Secrets, framework.Obj("v1", kind, ns, name)
	case "Pod":
		gvr, u = framework.Pods, framework.Obj("v1", kind, ns, name)
		u.Object["spec"] = podSpec()
	case "ReplicationController":
		gvr, u = framework.RCs, framework.Obj("v1", kind, ns, name)
		u.Object["spec"] = map[string]any{"replicas": int64(0), "selector": labels, "template": template}
	case "Deployment":
		gvr, u = deployments, framework.Obj("apps/v1", kind, ns, name)
		u.Object["spec"] = map[string]any{"replicas": int64(0), "selector": map[string]any{"matchLabels": labels}, "template": template}
	case "ReplicaSet":
		gvr, u = replicaSets, framework.Obj("apps/v1", kind, ns, name)
		u.Object["spec"] = map[string]any{"replicas": int64(0), "selector": map[string]any{"matchLabels": labels}, "template": template}
	case "CronJob":
		gvr, u = cronJobs, framework.Obj("batch/v1", kind, ns, name)
		jt := map[string]any{"metadata": map[string]any{"labels": labels}, "spec": map[string]any{"containers": podSpec()["containers"], "restartPolicy": "Never"}}
		u.Object["spec"] = map[string]any{"schedule": "0 0 1 1 *", "suspend": true, "jobTemplate": map[string]any{"spec": map[string]any{"template": jt}}}
	case "Job":
		gvr, u = jobs, framework.Obj("batch/v1", kind, ns, name)
		jt := map[string]any{"metadata": map[string]any{"labels": labels}, "spec": map[string]any{"containers": podSpec()["containers"], "restartPolicy": "Never"}}
		u.Object["spec"] = map[string]any{"suspend": true, "template": jt}
	default:
		t.Fatalf("mk: unsupported kind %s", kind)
	}
	for _, o := range opts {
		o(u)
	}
	return env.MustCreate(t, ctx, gvr, u)
}

// mkCR creates a custom resource.
func mkCR(t testing.TB, ctx context.Context, env *framework.Env, c framework.CRD, ns, name string, opts ...objOpt) *unstructured.Unstructured {
	t.Helper()
	u := c.New(ns, name)
	for _, o := range opts {
		o(u)
	}
	return env.MustCreate(t, ctx, c.GVR(), u)
}

// setOwners replaces an existing object's ownerReferences (used to close
// cycles, which cannot be created in one step).
func setOwners(t testing.TB, ctx context.Context, env *framework.Env, gvr schema.GroupVersionResource, obj *unstructured.Unstructured, refs ...metav1.OwnerReference) {
	t.Helper()
	cur, err := env.Dynamic.Resource(gvr).Namespace(obj.GetNamespace()).Get(ctx, obj.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting %s: %v", obj.GetName(), err)
	}
	cur.SetOwnerReferences(refs)
	if _, err := env.Dynamic.Resource(gvr).Namespace(obj.GetNamespace()).Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("setting owners of %s: %v", obj.GetName(), err)
	}
}

// deleteNow deletes with a policy, outside any plan comparison.
func deleteNow(t testing.TB, ctx context.Context, env *framework.Env, gvr schema.GroupVersionResource, ns, name string, policy metav1.DeletionPropagation) {
	t.Helper()
	if err := env.Dynamic.Resource(gvr).Namespace(ns).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
		t.Fatalf("deleting %s %s/%s: %v", gvr.Resource, ns, name, err)
	}
}

func nsScope(ns string, gvrs ...schema.GroupVersionResource) framework.Scope {
	return framework.Scope{Namespace: ns, Namespaced: gvrs}
}

// alive and terminating build expectReal descriptions.
func alive(ownerNames ...string) string { return describe(false, nil, ownerNames) }

func terminating(fins []string, ownerNames ...string) string {
	return describe(true, fins, ownerNames)
}

func describe(term bool, fins []string, ownerNames []string) string {
	f := append([]string(nil), fins...)
	sort.Strings(f)
	o := append([]string(nil), ownerNames...)
	sort.Strings(o)
	return fmt.Sprintf("exists terminating=%v finalizers=%s owners=%s", term, strings.Join(f, ","), strings.Join(o, ","))
}

const gone = "gone"
