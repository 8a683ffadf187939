package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// TestWorkloadVolumes: a namespace with two claims bound to hostPath
// volumes under /tmp, one with reclaim policy Delete and one with Retain,
// deleted. The persistentvolume controller releases both; it deletes the
// first (the hostPath deleter removes its directory) and keeps the second
// Released. kgc's plan must say which volume goes and which stays, and
// count the storage it destroys.
func TestWorkloadVolumes(t *testing.T) {
	ctx, env := workloadEnv(t)
	ns := workloadNamespace(t, ctx, env, "vol")
	labelNamespace(t, ctx, env, ns)
	for claim, policy := range map[string]string{"scratch": "Delete", "keep": "Retain"} {
		mkPolicyPV(t, ctx, env, ns, claim, policy)
		c := framework.Obj("v1", "PersistentVolumeClaim", ns, claim)
		c.Object["spec"] = map[string]any{
			"accessModes": []any{"ReadWriteOnce"}, "storageClassName": "", "volumeName": ns + "-" + claim,
			"resources": map[string]any{"requests": map[string]any{"storage": "1Mi"}},
		}
		env.MustCreate(t, ctx, pvcs, c)
	}
	waitClaimsBound(t, ctx, env, ns, 2)
	pc := workloadCase(ns, framework.Namespaces, ns, bg)
	pc.Namespace = ""
	pc.Scope.Namespaced = append(pc.Scope.Namespaced, framework.ConfigMaps, serviceAccounts)
	pc.Scope.Cluster = []schema.GroupVersionResource{framework.Namespaces, pvs}
	pc.Scope.ClusterSelector = caseLabel + "=" + ns
	r := checkPlan(t, ctx, env, pc)
	expectReal(t, r, map[string]string{
		"PersistentVolume/" + ns + "-scratch": "gone",
		"PersistentVolume/" + ns + "-keep":    describe(false, []string{"kubernetes.io/pv-protection"}, nil),
	})
	if r.Plan == nil {
		return
	}
	if got := r.Plan.Summary["volumesDestroyed"]; got != 1 {
		t.Errorf("the plan counts %d volumes destroyed, want 1 (%s-scratch)", got, ns)
	}
	if got := r.Plan.Summary["volumesKept"]; got != 1 {
		t.Errorf("the plan counts %d volumes kept, want 1 (%s-keep)", got, ns)
	}
}

// mkPolicyPV creates a hostPath volume under /tmp for claim ns/claim with
// reclaim policy policy, pre-bound to it.
func mkPolicyPV(t testing.TB, ctx context.Context, env *framework.Env, ns, claim, policy string) *unstructured.Unstructured {
	t.Helper()
	pv := framework.Obj("v1", "PersistentVolume", "", ns+"-"+claim)
	pv.SetLabels(map[string]string{caseLabel: ns})
	pv.Object["spec"] = map[string]any{
		"capacity": map[string]any{"storage": "1Mi"}, "accessModes": []any{"ReadWriteOnce"},
		"persistentVolumeReclaimPolicy": policy, "storageClassName": "",
		"hostPath": map[string]any{"path": "/tmp/kgc-e2e/" + ns + "/" + claim},
		"claimRef": map[string]any{"namespace": ns, "name": claim},
	}
	t.Cleanup(func() {
		err := env.Dynamic.Resource(pvs).Delete(context.Background(), pv.GetName(), metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting PersistentVolume %s: %v", pv.GetName(), err)
		}
	})
	return env.MustCreate(t, ctx, pvs, pv)
}

// waitClaimsBound waits until ns holds want claims, each Bound and its
// volume Bound to it: the persistentvolume controller has finished
// binding, so the plan starts from a settled state.
func waitClaimsBound(t testing.TB, ctx context.Context, env *framework.Env, ns string, want int) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		claims, err := env.Client.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil // a transient error: poll again
		}
		bound := 0
		var states []string
		for _, c := range claims.Items {
			pv, err := env.Client.CoreV1().PersistentVolumes().Get(ctx, c.Spec.VolumeName, metav1.GetOptions{})
			pvPhase := "missing"
			if err == nil {
				pvPhase = string(pv.Status.Phase)
			}
			states = append(states, fmt.Sprintf("%s=%s (volume %s)", c.Name, c.Status.Phase, pvPhase))
			if c.Status.Phase == corev1.ClaimBound && pvPhase == string(corev1.VolumeBound) {
				bound++
			}
		}
		last = strings.Join(states, ", ")
		return bound == want && len(claims.Items) == want, nil
	})
	if err != nil {
		t.Fatalf("claims of %s not bound: %v (%s)", ns, err, last)
	}
}
