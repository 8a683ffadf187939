package framework

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"
)

// CRD describes a minimal custom resource type for a test.
type CRD struct {
	Group     string // e.g. "t1.e2e.kgc.dev": make it unique per test
	Kind      string // e.g. "Widget"
	Plural    string // e.g. "widgets"
	Namespace bool   // namespaced (true) or cluster-scoped
}

// GVR of the served version v1.
func (c CRD) GVR() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: c.Group, Version: "v1", Resource: c.Plural}
}

// APIVersion for ownerReferences and objects.
func (c CRD) APIVersion() string { return c.Group + "/v1" }

// TypeArg is the TYPE argument kgc and kubectl take: resource.group.
func (c CRD) TypeArg() string { return c.Plural + "." + c.Group }

// New returns an empty object of this kind.
func (c CRD) New(namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(c.APIVersion())
	u.SetKind(c.Kind)
	u.SetName(name)
	if c.Namespace {
		u.SetNamespace(namespace)
	}
	return u
}

// CreateCRD creates the CRD, waits until it is Established, and then until
// the garbage collector monitors it. The GC discovers new resources only on
// its periodic resync (every 30 s), and until then it neither sees objects of
// the new kind nor collects them, so a test that deletes before that would
// measure the resync, not the GC.
func (e *Env) CreateCRD(t testing.TB, ctx context.Context, c CRD) {
	t.Helper()
	e.CreateCRDs(t, ctx, c)
}

// CreateCRDs is CreateCRD for several types at once: they all wait for the
// same GC resync.
func (e *Env) CreateCRDs(t testing.TB, ctx context.Context, crds ...CRD) {
	t.Helper()
	for _, c := range crds {
		e.createCRD(t, ctx, c)
	}
	for _, c := range crds {
		e.waitGCMonitors(t, ctx, c)
	}
}

// CreateCRDServed creates the CRD and waits until it is Established, not
// until the garbage collector monitors it: for a test whose objects of the
// kind need no collection (the post-mortem's CRD deletes), and that should
// not wait for the collector's resync.
func (e *Env) CreateCRDServed(t testing.TB, ctx context.Context, c CRD) {
	t.Helper()
	e.createCRD(t, ctx, c)
}

func (e *Env) createCRD(t testing.TB, ctx context.Context, c CRD) {
	t.Helper()
	scope := "Cluster"
	if c.Namespace {
		scope = "Namespaced"
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": c.Plural + "." + c.Group},
		"spec": map[string]any{
			"group": c.Group,
			"scope": scope,
			"names": map[string]any{
				"plural": c.Plural, "singular": strings.ToLower(c.Kind), "kind": c.Kind, "listKind": c.Kind + "List",
			},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "x-kubernetes-preserve-unknown-fields": true,
				}},
			}},
		},
	}}
	// Tests that share a CRD (TestRandom and TestRandomCrossNamespace)
	// both create it; the second one just waits for it like the first.
	if _, err := e.Dynamic.Resource(CRDResource).Create(ctx, obj, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating CRD %s: %v", obj.GetName(), err)
	}
	err := e.WaitForCondition(ctx, CRDResource, obj.GetName(), "Established", "True")
	if err != nil {
		t.Fatalf("CRD %s not established: %v", obj.GetName(), err)
	}
}

// WaitForCondition waits, up to a minute, until the cluster-scoped object
// name of gvr reports condition typ with status.
func (e *Env) WaitForCondition(ctx context.Context, gvr schema.GroupVersionResource, name, typ, status string) error {
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := e.Dynamic.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == typ && m["status"] == status {
				return true, nil
			}
		}
		return false, nil
	})
}

// waitGCMonitors creates an object of the kind whose only owner is a
// ConfigMap that never existed, and waits until the GC deletes it: proof that
// the GC watches the kind and can map it.
func (e *Env) waitGCMonitors(t testing.TB, ctx context.Context, c CRD) {
	t.Helper()
	start := time.Now()
	ns := ""
	if c.Namespace {
		ns = e.probeNamespace(t, ctx)
	}
	probe := c.New(ns, "gc-probe-"+string(uuid.NewUUID())[:8])
	probe.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "never-existed", UID: uuid.NewUUID()}})
	if !c.Namespace {
		// A cluster-scoped object with a namespaced owner kind is never
		// collected (§2.9); a cluster-scoped owner kind is needed.
		probe.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "Namespace", Name: "never-existed-" + string(uuid.NewUUID())[:8], UID: uuid.NewUUID()}})
	}
	ri := e.Dynamic.Resource(c.GVR()).Namespace(ns)
	// The apiserver may need a moment after Established before it serves
	// the new resource.
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := ri.Create(ctx, probe, metav1.CreateOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("creating GC probe %s: %v", c.Kind, err)
	}
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := ri.Get(ctx, probe.GetName(), metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("garbage collector does not collect %s objects 2m after the CRD was established: %v", c.Kind, err)
	}
	t.Logf("GC monitors %s after %s", c.GVR(), time.Since(start).Round(100*time.Millisecond))
}

func (e *Env) probeNamespace(t testing.TB, ctx context.Context) string {
	const ns = "kgc-e2e-probes"
	_, err := e.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating %s: %v", ns, err)
	}
	return ns
}

// Namespace creates a fresh namespace for a test, named after it.
func (e *Env) Namespace(t testing.TB, ctx context.Context, prefix string) string {
	t.Helper()
	ns, err := e.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	return ns.Name
}

// MustCreate creates obj (namespace taken from obj) and returns the stored object.
func (e *Env) MustCreate(t testing.TB, ctx context.Context, gvr schema.GroupVersionResource, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	out, err := e.Dynamic.Resource(gvr).Namespace(obj.GetNamespace()).Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating %s %s/%s: %v", gvr.Resource, obj.GetNamespace(), obj.GetName(), err)
	}
	return out
}

// Ref builds an ownerReference to obj.
func Ref(obj *unstructured.Unstructured, block, controller *bool) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Name: obj.GetName(), UID: obj.GetUID(),
		BlockOwnerDeletion: block, Controller: controller,
	}
}

// Obj builds an unstructured object of a built-in kind.
func Obj(apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}
