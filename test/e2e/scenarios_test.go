package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// The scenarios of docs/gc-semantics.md (its scenario table) (upstream's integration
// and e2e tests), replayed against the real control plane: each builds the
// objects, asks kgc for a plan (live and from a snapshot file), performs the
// delete, waits for the GC to settle and compares. Only the garbage
// collector and namespace controller run, so workload objects (RCs,
// Deployments, Jobs, ...) are inert and their pods are created by hand,
// unscheduled (grace period 0), as in upstream's integration tests.

const (
	fg = metav1.DeletePropagationForeground
	bg = metav1.DeletePropagationBackground
	or = metav1.DeletePropagationOrphan
)

func TestScenarioT1CascadingDeletion(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "t1")
	rc1 := mk(t, ctx, env, "ReplicationController", ns, "rc1")
	rc2 := mk(t, ctx, env, "ReplicationController", ns, "rc2")
	mk(t, ctx, env, "Pod", ns, "pod1", owners(ref(rc1, nil, nil)))
	mk(t, ctx, env, "Pod", ns, "pod2")
	mk(t, ctx, env, "Pod", ns, "pod3", owners(ref(rc1, nil, nil), ref(rc2, nil, nil)))
	r := checkPlan(t, ctx, env, planCase{
		Scope: nsScope(ns, framework.RCs, framework.Pods), GVR: framework.RCs, TypeArg: "replicationcontrollers",
		Namespace: ns, Name: "rc1", Policy: bg,
	})
	expectReal(t, r, map[string]string{
		"ReplicationController/rc1": gone, "Pod/pod1": gone, "Pod/pod2": alive(), "Pod/pod3": alive("rc2"),
	})
}

func TestScenarioT3StressingVariants(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	// Variants of §6 T3 that an explicit --cascade can express: an existing
	// orphan finalizer overridden by Background (pods deleted), kept by
	// Orphan, replaced by Foreground; and a plain Orphan.
	variants := []struct {
		name   string
		fins   []string
		policy metav1.DeletionPropagation
		pods   string
	}{
		{"orphanfin-background", []string{"orphan"}, bg, gone},
		{"orphanfin-orphan", []string{"orphan"}, or, alive()},
		{"orphanfin-foreground", []string{"orphan"}, fg, gone},
		{"nofin-orphan", nil, or, alive()},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			ns := env.Namespace(t, ctx, "t3")
			rc := mk(t, ctx, env, "ReplicationController", ns, "rc", finalizers(v.fins...))
			want := map[string]string{"ReplicationController/rc": gone}
			for i := 0; i < 3; i++ {
				name := fmt.Sprintf("pod%d", i)
				mk(t, ctx, env, "Pod", ns, name, owners(ref(rc, tr(), tr())))
				want["Pod/"+name] = v.pods
			}
			r := checkPlan(t, ctx, env, planCase{
				Scope: nsScope(ns, framework.RCs, framework.Pods), GVR: framework.RCs, TypeArg: "replicationcontrollers",
				Namespace: ns, Name: "rc", Policy: v.policy,
			})
			expectReal(t, r, want)
		})
	}
}

func TestScenarioT4Orphaning(t *testing.T) {
	rcWithPods(t, "t4", 3, or, alive())
}

// rcWithPods deletes an RC with n pods with the given policy ("" sends
// none) and expects the RC gone and every pod in state podWant.
func rcWithPods(t *testing.T, nsPrefix string, n int, policy metav1.DeletionPropagation, podWant string) *framework.Plan {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, nsPrefix)
	rc := mk(t, ctx, env, "ReplicationController", ns, "rc")
	want := map[string]string{"ReplicationController/rc": gone}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("pod%d", i)
		mk(t, ctx, env, "Pod", ns, name, owners(ref(rc, tr(), tr())))
		want["Pod/"+name] = podWant
	}
	r := checkPlan(t, ctx, env, planCase{
		Scope: nsScope(ns, framework.RCs, framework.Pods), GVR: framework.RCs, TypeArg: "replicationcontrollers",
		Namespace: ns, Name: "rc", Policy: policy,
	})
	expectReal(t, r, want)
	return r.Plan
}

func TestScenarioT5SolidOwnerDoesNotBlockWaitingOwner(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "t5")
	rc1 := mk(t, ctx, env, "ReplicationController", ns, "rc1")
	rc2 := mk(t, ctx, env, "ReplicationController", ns, "rc2")
	mk(t, ctx, env, "Pod", ns, "pod", owners(ref(rc1, tr(), nil), ref(rc2, nil, nil)))
	r := checkPlan(t, ctx, env, planCase{
		Scope: nsScope(ns, framework.RCs, framework.Pods), GVR: framework.RCs, TypeArg: "replicationcontrollers",
		Namespace: ns, Name: "rc1", Policy: fg,
	})
	expectReal(t, r, map[string]string{"ReplicationController/rc1": gone, "ReplicationController/rc2": alive(), "Pod/pod": alive("rc2")})
}

func TestScenarioT6NonBlockingOwnerRefDoesNotBlock(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "t6")
	rc := mk(t, ctx, env, "ReplicationController", ns, "rc")
	mk(t, ctx, env, "Pod", ns, "pod1", owners(ref(rc, nil, nil)), finalizers("x/y"))
	mk(t, ctx, env, "Pod", ns, "pod2", owners(ref(rc, fa(), nil)), finalizers("x/y"))
	r := checkPlan(t, ctx, env, planCase{
		Scope: nsScope(ns, framework.RCs, framework.Pods), GVR: framework.RCs, TypeArg: "replicationcontrollers",
		Namespace: ns, Name: "rc", Policy: fg,
	})
	expectReal(t, r, map[string]string{
		"ReplicationController/rc": gone,
		"Pod/pod1":                 terminating([]string{"x/y"}, "rc"),
		"Pod/pod2":                 terminating([]string{"x/y"}, "rc"),
	})
}

func TestScenarioT7DoubleDeletionWithFinalizer(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "t7")
	mk(t, ctx, env, "Pod", ns, "lucy", finalizers("x/y"))
	pc := planCase{Scope: nsScope(ns, framework.Pods), GVR: framework.Pods, TypeArg: "pods", Namespace: ns, Name: "lucy", Policy: fg}
	r := checkPlan(t, ctx, env, pc)
	expectReal(t, r, map[string]string{"Pod/lucy": terminating([]string{"x/y"})})
	// Second Foreground DELETE of the terminating pod: the apiserver re-adds
	// foregroundDeletion and the GC removes it again.
	r = checkPlan(t, ctx, env, pc)
	expectReal(t, r, map[string]string{"Pod/lucy": terminating([]string{"x/y"})})
}

func TestScenarioT8BlockingOwnerRefDoesBlock(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "t8")
	rc := mk(t, ctx, env, "ReplicationController", ns, "rc")
	mk(t, ctx, env, "Pod", ns, "pod", owners(ref(rc, tr(), nil)), finalizers("x/y"))
	r := checkPlan(t, ctx, env, planCase{
		Scope: nsScope(ns, framework.RCs, framework.Pods), GVR: framework.RCs, TypeArg: "replicationcontrollers",
		Namespace: ns, Name: "rc", Policy: fg,
	})
	expectReal(t, r, map[string]string{
		"ReplicationController/rc": terminating([]string{"foregroundDeletion"}),
		"Pod/pod":                  terminating([]string{"x/y"}, "rc"),
	})
}

func TestScenarioT9CustomResourceCascadingDeletion(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	crd := framework.CRD{Group: "t9.e2e.kgc.dev", Kind: "Foo", Plural: "foos", Namespace: true}
	env.CreateCRD(t, ctx, crd)
	ns := env.Namespace(t, ctx, "t9")
	owner := mkCR(t, ctx, env, crd, ns, "owner")
	mkCR(t, ctx, env, crd, ns, "dependent", owners(ref(owner, nil, nil)))
	r := checkPlan(t, ctx, env, planCase{
		Scope: nsScope(ns, crd.GVR()), GVR: crd.GVR(), TypeArg: crd.TypeArg(), Namespace: ns, Name: "owner", Policy: fg,
	})
	expectReal(t, r, map[string]string{"Foo/owner": gone, "Foo/dependent": gone})
}

func TestScenarioT10MixedRelationships(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	crd := framework.CRD{Group: "t10.e2e.kgc.dev", Kind: "Foo", Plural: "foos", Namespace: true}
	env.CreateCRD(t, ctx, crd)
	ns := env.Namespace(t, ctx, "t10")
	crOwner := mkCR(t, ctx, env, crd, ns, "cr-owner")
	mk(t, ctx, env, "ConfigMap", ns, "cm-dependent", owners(ref(crOwner, nil, nil)))
	cmOwner := mk(t, ctx, env, "ConfigMap", ns, "cm-owner")
	mkCR(t, ctx, env, crd, ns, "cr-dependent", owners(ref(cmOwner, nil, nil)))
	scope := nsScope(ns, crd.GVR(), framework.ConfigMaps)
	r := checkPlan(t, ctx, env, planCase{Scope: scope, GVR: crd.GVR(), TypeArg: crd.TypeArg(), Namespace: ns, Name: "cr-owner", Policy: fg})
	expectReal(t, r, map[string]string{"Foo/cr-owner": gone, "ConfigMap/cm-dependent": gone, "ConfigMap/cm-owner": alive(), "Foo/cr-dependent": alive("cm-owner")})
	r = checkPlan(t, ctx, env, planCase{Scope: scope, GVR: framework.ConfigMaps, TypeArg: "configmaps", Namespace: ns, Name: "cm-owner", Policy: fg})
	expectReal(t, r, map[string]string{"ConfigMap/cm-owner": gone, "Foo/cr-dependent": gone})
}

func TestScenarioT11CRDDeletionCascading(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	crd := framework.CRD{Group: "t11.e2e.kgc.dev", Kind: "Foo", Plural: "foos", Namespace: true}
	env.CreateCRD(t, ctx, crd)
	ns := env.Namespace(t, ctx, "t11")
	x := mkCR(t, ctx, env, crd, ns, "x")
	mk(t, ctx, env, "ConfigMap", ns, "cm", owners(ref(x, nil, nil)))
	crdName := crd.Plural + "." + crd.Group
	// The CRD is labelled so the case's scope can select it among the
	// cluster-scoped CRDs of concurrently running tests.
	cur, err := env.Dynamic.Resource(framework.CRDResource).Get(ctx, crdName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.SetLabels(map[string]string{"kgc-e2e/case": ns})
	if _, err := env.Dynamic.Resource(framework.CRDResource).Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r := checkPlan(t, ctx, env, planCase{
		Scope: framework.Scope{
			Namespace: ns, Namespaced: []schema.GroupVersionResource{framework.ConfigMaps, crd.GVR()},
			Cluster: []schema.GroupVersionResource{framework.CRDResource}, ClusterSelector: "kgc-e2e/case=" + ns,
		},
		GVR: framework.CRDResource, TypeArg: "customresourcedefinitions", Name: crdName, Policy: bg,
	})
	expectReal(t, r, map[string]string{"ConfigMap/cm": gone, "Foo/x": gone, "CustomResourceDefinition/" + crdName: gone})
}

func TestScenarioT13CrossNamespaceReferences(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	nsB := env.Namespace(t, ctx, "t13b")
	nsA := env.Namespace(t, ctx, "t13a")
	parent := mk(t, ctx, env, "ConfigMap", nsB, "parent")
	want := map[string]string{"ConfigMap/parent": gone}
	for i := 0; i < 3; i++ {
		name := fmt.Sprintf("valid%d", i)
		mk(t, ctx, env, "Secret", nsB, name, owners(ref(parent, nil, fa())))
		want["Secret/"+name] = gone
	}
	// In namespace a, a reference to the parent's UID under a Pod kind: the
	// GC looks it up in a (by name) and finds nothing, so it is dangling.
	bad := metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "invalid", UID: parent.GetUID(), Controller: fa()}
	badSecret := mk(t, ctx, env, "Secret", nsA, "single-bad-reference", owners(bad))
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := env.Client.CoreV1().Secrets(nsA).Get(ctx, badSecret.GetName(), metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Errorf("real control plane: the cross-namespace single-bad-reference Secret was not collected: %v", err)
	}
	r := checkPlan(t, ctx, env, planCase{
		Scope: nsScope(nsB, framework.ConfigMaps, framework.Secrets), GVR: framework.ConfigMaps, TypeArg: "configmaps",
		Namespace: nsB, Name: "parent", Policy: bg,
	})
	expectReal(t, r, want)
}

func TestScenarioT14ClusterScopedOwners(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	// A cluster-scoped custom resource stands in for upstream's PV: a PV gets
	// kubernetes.io/pv-protection, whose controller does not run here.
	crd := framework.CRD{Group: "t14.e2e.kgc.dev", Kind: "Volume", Plural: "volumes", Namespace: false}
	env.CreateCRD(t, ctx, crd)
	ns := env.Namespace(t, ctx, "t14")
	valid := mkCR(t, ctx, env, crd, "", ns+"-valid", func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"kgc-e2e/case": ns}) })
	mk(t, ctx, env, "ConfigMap", ns, "cm-valid", owners(ref(valid, nil, nil)))
	mk(t, ctx, env, "ConfigMap", ns, "cm-missing", owners(metav1.OwnerReference{APIVersion: crd.APIVersion(), Kind: "Volume", Name: "missing-name", UID: uuid.NewUUID()}))
	mk(t, ctx, env, "ConfigMap", ns, "cm-invalid", owners(metav1.OwnerReference{APIVersion: "unknown.group/v1", Kind: "UnknownType", Name: "unknown", UID: uuid.NewUUID()}))
	scope := framework.Scope{
		Namespace: ns, Namespaced: []schema.GroupVersionResource{framework.ConfigMaps},
		Cluster: []schema.GroupVersionResource{crd.GVR()}, ClusterSelector: "kgc-e2e/case=" + ns,
	}
	before, err := env.Settle(ctx, scope, quietBefore, settleLimit)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := stateByName(before, "ConfigMap", "cm-missing"); ok {
		t.Errorf("real control plane: cm-missing (owner missing) was not collected")
	}
	for _, n := range []string{"cm-valid", "cm-invalid"} {
		if _, ok := stateByName(before, "ConfigMap", n); !ok {
			t.Errorf("real control plane: %s was collected", n)
		}
	}
	r := checkPlan(t, ctx, env, planCase{Scope: scope, GVR: crd.GVR(), TypeArg: crd.TypeArg(), Name: valid.GetName(), Policy: bg})
	expectReal(t, r, map[string]string{"ConfigMap/cm-valid": gone, "ConfigMap/cm-invalid": alive("?"), "Volume/" + valid.GetName(): gone})
}
