package e2e

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// Workload scenarios: live workloads on the workload control plane, deleted
// with each propagation policy. The plan (live and from a snapshot file)
// must match, object by object, what the garbage collector, the workload
// controllers and kwok's kubelets then really do.

// cascades are the three propagation policies, by their --cascade name.
func cascades() map[string]metav1.DeletionPropagation {
	return map[string]metav1.DeletionPropagation{"background": bg, "foreground": fg, "orphan": or}
}

// workloadCase is a planCase on a workload: every workload type in scope,
// the workload quiet period.
func workloadCase(ns string, gvr schema.GroupVersionResource, name string, policy metav1.DeletionPropagation) planCase {
	return planCase{
		Scope: workloadScope(ns), GVR: gvr, TypeArg: gvr.Resource + "." + gvr.Group,
		Namespace: ns, Name: name, Policy: policy, Quiet: workloadQuiet,
	}
}

func workloadEnv(t *testing.T) (context.Context, *framework.Env) {
	t.Helper()
	shared := framework.Setup(t)
	t.Parallel()
	return context.Background(), shared.Workloads(t)
}

// TestWorkloadDeployment: Deployment → ReplicaSet → Pods, deleted with each
// policy. Background and foreground take the ReplicaSet and its pods (kwok
// confirms each pod's termination); orphan leaves the ReplicaSet without
// owners and its pods running.
func TestWorkloadDeployment(t *testing.T) {
	for name, policy := range cascades() {
		t.Run(name, func(t *testing.T) {
			ctx, env := workloadEnv(t)
			ns := workloadNamespace(t, ctx, env, "deploy-"+name)
			mkWorkload(t, ctx, env, "Deployment", ns, "web")
			waitRunningPods(t, ctx, env, ns, "web", workloadReplicas)
			r := checkPlan(t, ctx, env, workloadCase(ns, deployments, "web", policy))
			want := map[string]string{"Deployment": kinds(0, 0), "ReplicaSet": kinds(0, 0), "Pod": kinds(0, 0)}
			if policy == or {
				want["ReplicaSet"], want["Pod"] = kinds(1, 1), kinds(workloadReplicas, workloadReplicas)
			}
			expectKinds(t, r, want)
		})
	}
}
