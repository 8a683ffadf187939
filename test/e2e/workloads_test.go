package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

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
	typeArg := gvr.Resource
	if gvr.Group != "" {
		typeArg += "." + gvr.Group
	}
	return planCase{
		Scope: workloadScope(ns), GVR: gvr, TypeArg: typeArg,
		Namespace: ns, Name: name, Policy: policy, Quiet: workloadQuiet,
		Dump: workloadDumpTypes(),
	}
}

// workloadDumpTypes are the types a user would dump to plan a workload
// delete offline: the workloads, their pods and claims, the namespaces'
// own objects, and the nodes and volumes the controllers decide from.
func workloadDumpTypes() []schema.GroupVersionResource {
	return append(workloadScope("").Namespaced, framework.ConfigMaps, serviceAccounts, framework.Namespaces, nodes, pvs)
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

// TestWorkloadReplicaSetAlone: a ReplicaSet no Deployment owns, deleted in
// the background, takes its pods.
func TestWorkloadReplicaSetAlone(t *testing.T) {
	ctx, env := workloadEnv(t)
	ns := workloadNamespace(t, ctx, env, "rs")
	mkWorkload(t, ctx, env, "ReplicaSet", ns, "web")
	waitRunningPods(t, ctx, env, ns, "web", workloadReplicas)
	r := checkPlan(t, ctx, env, workloadCase(ns, replicaSets, "web", bg))
	expectKinds(t, r, map[string]string{"ReplicaSet": kinds(0, 0), "Pod": kinds(0, 0)})
}

// TestWorkloadReplicationController: the core/v1 workload, deleted in the
// background, takes its pods.
func TestWorkloadReplicationController(t *testing.T) {
	ctx, env := workloadEnv(t)
	ns := workloadNamespace(t, ctx, env, "rc")
	mkWorkload(t, ctx, env, "ReplicationController", ns, "web")
	waitRunningPods(t, ctx, env, ns, "web", workloadReplicas)
	r := checkPlan(t, ctx, env, workloadCase(ns, framework.RCs, "web", bg))
	expectKinds(t, r, map[string]string{"ReplicationController": kinds(0, 0), "Pod": kinds(0, 0)})
}

// TestWorkloadJob: a Job whose pods are running and hold the Job tracking
// finalizer (batch.kubernetes.io/job-tracking), deleted with each policy.
// The job controller removes the finalizer from pods being deleted and from
// pods it no longer owns (orphaned), so the pods go or stay without it.
func TestWorkloadJob(t *testing.T) {
	for name, policy := range cascades() {
		t.Run(name, func(t *testing.T) {
			ctx, env := workloadEnv(t)
			ns := workloadNamespace(t, ctx, env, "job-"+name)
			mkWorkload(t, ctx, env, "Job", ns, "batch")
			waitRunningPods(t, ctx, env, ns, "batch", workloadReplicas)
			r := checkPlan(t, ctx, env, workloadCase(ns, jobs, "batch", policy))
			requireTrackedPods(t, r)
			want := map[string]string{"Job": kinds(0, 0), "Pod": kinds(0, 0)}
			if policy == or {
				want["Pod"] = kinds(workloadReplicas, workloadReplicas)
			}
			expectKinds(t, r, want)
		})
	}
}

const jobTrackingFinalizer = "batch.kubernetes.io/job-tracking"

// requireTrackedPods fails unless every pod of the case, as planned, still
// held the Job tracking finalizer: the scenario is about running Job pods.
func requireTrackedPods(t *testing.T, r planResult) {
	t.Helper()
	for _, s := range r.Before {
		if s.Kind == "Pod" && !slices.Contains(s.Finalizers, jobTrackingFinalizer) {
			t.Errorf("setup: pod %s had no %s finalizer when planned (did it complete?): %s", s.Name, jobTrackingFinalizer, s)
		}
	}
}

// TestWorkloadCronJob: a suspended CronJob with one Job of its own, deleted
// in the background, takes the Job and the Job's pods.
func TestWorkloadCronJob(t *testing.T) {
	ctx, env := workloadEnv(t)
	ns := workloadNamespace(t, ctx, env, "cronjob")
	mkCronJobWithJob(t, ctx, env, ns, "nightly")
	waitRunningPods(t, ctx, env, ns, "nightly", workloadReplicas)
	r := checkPlan(t, ctx, env, workloadCase(ns, cronJobs, "nightly", bg))
	expectKinds(t, r, map[string]string{"CronJob": kinds(0, 0), "Job": kinds(0, 0), "Pod": kinds(0, 0)})
}

// TestWorkloadStatefulSet: a StatefulSet whose pods use claims from its
// volumeClaimTemplates, deleted in the background, with each claim
// retention policy. whenDeleted: Delete makes the StatefulSet controller
// give the claims an owner reference to the StatefulSet, so the garbage
// collector deletes them once the pods are gone (pvc-protection); Retain
// leaves them.
func TestWorkloadStatefulSet(t *testing.T) {
	for _, whenDeleted := range []string{"Delete", "Retain"} {
		t.Run(whenDeleted, func(t *testing.T) {
			ctx, env := workloadEnv(t)
			ns := workloadNamespace(t, ctx, env, "sts-"+strings.ToLower(whenDeleted))
			mkStatefulSet(t, ctx, env, ns, "db", whenDeleted)
			waitRunningPods(t, ctx, env, ns, "db", workloadReplicas)
			pc := workloadCase(ns, statefulSets, "db", bg)
			pc.Scope.Cluster, pc.Scope.ClusterSelector = []schema.GroupVersionResource{pvs}, caseLabel+"="+ns
			r := checkPlan(t, ctx, env, pc)
			want := map[string]string{"StatefulSet": kinds(0, 0), "Pod": kinds(0, 0), "ControllerRevision": kinds(0, 0),
				"PersistentVolumeClaim": kinds(0, 0), "PersistentVolume": kinds(workloadReplicas, workloadReplicas)}
			if whenDeleted == "Retain" {
				want["PersistentVolumeClaim"] = kinds(workloadReplicas, workloadReplicas)
			}
			expectKinds(t, r, want)
		})
	}
}

// TestWorkloadDaemonSet: a DaemonSet (one pod per shared node), deleted in
// the background, takes its pods and its ControllerRevision.
func TestWorkloadDaemonSet(t *testing.T) {
	ctx, env := workloadEnv(t)
	ns := workloadNamespace(t, ctx, env, "ds")
	mkWorkload(t, ctx, env, "DaemonSet", ns, "agent")
	waitRunningPods(t, ctx, env, ns, "agent", workloadReplicas)
	r := checkPlan(t, ctx, env, workloadCase(ns, daemonSets, "agent", bg))
	expectKinds(t, r, map[string]string{"DaemonSet": kinds(0, 0), "Pod": kinds(0, 0), "ControllerRevision": kinds(0, 0)})
}

// TestWorkloadPVCProtection: a claim a running pod uses, deleted, stays
// terminating with kubernetes.io/pvc-protection until the pod goes.
func TestWorkloadPVCProtection(t *testing.T) {
	ctx, env := workloadEnv(t)
	ns := workloadNamespace(t, ctx, env, "pvc")
	mkBoundPV(t, ctx, env, ns, "data")
	claim := framework.Obj("v1", "PersistentVolumeClaim", ns, "data")
	claim.Object["spec"] = map[string]any{
		"accessModes": []any{"ReadWriteOnce"}, "storageClassName": "",
		"resources": map[string]any{"requests": map[string]any{"storage": "1Mi"}},
	}
	env.MustCreate(t, ctx, pvcs, claim)
	pod := framework.Obj("v1", "Pod", ns, "user")
	tpl := podTemplate("user", nil)
	pod.SetLabels(map[string]string{"app": "user"})
	spec := tpl["spec"].(map[string]any)
	spec["volumes"] = []any{map[string]any{"name": "data", "persistentVolumeClaim": map[string]any{"claimName": "data"}}}
	pod.Object["spec"] = spec
	env.MustCreate(t, ctx, framework.Pods, pod)
	waitRunningPods(t, ctx, env, ns, "user", 1)
	pc := workloadCase(ns, pvcs, "data", bg)
	pc.Scope.Cluster, pc.Scope.ClusterSelector = []schema.GroupVersionResource{pvs}, caseLabel+"="+ns
	r := checkPlan(t, ctx, env, pc)
	expectReal(t, r, map[string]string{
		"PersistentVolumeClaim/data": terminating([]string{"kubernetes.io/pvc-protection"}),
		"Pod/user":                   alive(),
	})
}

// TestWorkloadNamespace: a namespace holding a Deployment, a Job, a
// StatefulSet with claims it deletes and a DaemonSet, deleted: the
// namespace controller deletes pods first, then everything else (the
// controllers' ConfigMap, ServiceAccount and Events too), and the namespace
// goes last.
func TestWorkloadNamespace(t *testing.T) {
	ctx, env := workloadEnv(t)
	ns := workloadNamespace(t, ctx, env, "ns")
	labelNamespace(t, ctx, env, ns)
	mkWorkload(t, ctx, env, "Deployment", ns, "web")
	mkWorkload(t, ctx, env, "Job", ns, "batch")
	mkStatefulSet(t, ctx, env, ns, "db", "Delete")
	mkWorkload(t, ctx, env, "DaemonSet", ns, "agent")
	for _, app := range []string{"web", "batch", "db", "agent"} {
		waitRunningPods(t, ctx, env, ns, app, workloadReplicas)
	}
	pc := workloadCase(ns, framework.Namespaces, ns, bg)
	pc.Namespace = ""
	pc.Scope.Namespaced = append(pc.Scope.Namespaced, framework.ConfigMaps, framework.Secrets, serviceAccounts, events)
	// The namespace controller deletes everything in it: the dump must
	// hold the Events and Secrets too.
	pc.Dump = append(pc.Dump, framework.Secrets, events)
	pc.Scope.Cluster = []schema.GroupVersionResource{framework.Namespaces, pvs}
	pc.Scope.ClusterSelector = caseLabel + "=" + ns
	r := checkPlan(t, ctx, env, pc)
	expectKinds(t, r, map[string]string{"Namespace": kinds(0, 0), "Deployment": kinds(0, 0), "Pod": kinds(0, 0),
		"PersistentVolumeClaim": kinds(0, 0), "ConfigMap": kinds(0, 0), "ServiceAccount": kinds(0, 0)})
}

// labelNamespace labels the namespace with caseLabel, so that a case can
// list it among its cluster-scoped objects.
func labelNamespace(t testing.TB, ctx context.Context, env *framework.Env, ns string) {
	t.Helper()
	patch := []byte(`{"metadata":{"labels":{"` + caseLabel + `":"` + ns + `"}}}`)
	if _, err := env.Client.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("labelling namespace %s: %v", ns, err)
	}
}

// TestWorkloadPodOnLostNode: pods on a node whose kubelet (kwok) stopped.
// Deleted, a pod stays terminating: no kubelet confirms that its containers
// stopped; the plan says so and why-stuck names the node (node-not-ready)
// with the out-of-service taint among the remedies. Once the node is tainted
// node.kubernetes.io/out-of-service, the pod garbage collector force-deletes
// it, and a pod deleted then is planned and really gone.
func TestWorkloadPodOnLostNode(t *testing.T) {
	ctx, env := workloadEnv(t)
	ns := workloadNamespace(t, ctx, env, "lost")
	// Only this test's pods (which tolerate everything) land on the node.
	node := env.AddNode(t, ctx, "kwok-"+ns, corev1.Taint{Key: "kgc.dev/dedicated", Value: ns, Effect: corev1.TaintEffectNoSchedule})
	for _, name := range []string{"first", "second"} {
		mkPodOn(t, ctx, env, ns, name, node.Name)
	}
	waitRunningPods(t, ctx, env, ns, "lost", 2)
	node.StopKubelet()
	node.WaitNotReady(t, ctx)

	pc := workloadCase(ns, framework.Pods, "first", bg)
	pc.Scope.Cluster, pc.Scope.ClusterSelector = []schema.GroupVersionResource{nodes}, "kubernetes.io/hostname="+node.Name
	r := checkPlan(t, ctx, env, pc)
	expectReal(t, r, map[string]string{"Pod/first": terminating(nil), "Pod/second": alive()})
	d := whyStuck(t, env, "pod/first", "-n", ns)
	requireRootCauseReason(t, d, "Pod", "first", "node-not-ready")
	requireRemedyCommand(t, d, "node.kubernetes.io/out-of-service")

	taintOutOfService(t, ctx, env, node.Name)
	waitGone(t, ctx, env, framework.Pods, ns, "first")
	pc.Name = "second"
	// The pod garbage collector looks for such pods every 20 s
	// (gcCheckPeriod, pkg/controller/podgc): settled means quiet for longer.
	pc.Quiet = 30 * time.Second
	r = checkPlan(t, ctx, env, pc)
	expectReal(t, r, map[string]string{"Pod/second": gone})
}

// mkPodOn creates a pod bound to node (no scheduling) that tolerates every
// taint: the node's dedicated taint, and the taints the node lifecycle
// controller adds when the node is lost, which would otherwise evict it
// after five minutes.
func mkPodOn(t testing.TB, ctx context.Context, env *framework.Env, ns, name, node string) {
	t.Helper()
	pod := framework.Obj("v1", "Pod", ns, name)
	pod.SetLabels(map[string]string{"app": "lost"})
	pod.Object["spec"] = map[string]any{
		"nodeName":    node,
		"containers":  []any{map[string]any{"name": "c", "image": "registry.invalid/none"}},
		"tolerations": []any{map[string]any{"operator": "Exists"}},
	}
	env.MustCreate(t, ctx, framework.Pods, pod)
}

func taintOutOfService(t testing.TB, ctx context.Context, env *framework.Env, name string) {
	t.Helper()
	n, err := env.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting node %s: %v", name, err)
	}
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "node.kubernetes.io/out-of-service", Value: "nodeshutdown", Effect: corev1.TaintEffectNoExecute})
	if _, err := env.Client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("tainting node %s out-of-service: %v", name, err)
	}
}

// waitGone waits, with a generous deadline, until the object is gone.
func waitGone(t testing.TB, ctx context.Context, env *framework.Env, gvr schema.GroupVersionResource, ns, name string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := env.Dynamic.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("%s %s/%s still there: %v", gvr.Resource, ns, name, err)
	}
}

// requireRootCauseReason fails unless the diagnosis has a root cause of the
// given reason on the object kind/name.
func requireRootCauseReason(t *testing.T, d framework.Diagnosis, kind, name, reason string) {
	t.Helper()
	for _, rc := range d.RootCauses {
		if rc.Object.Kind == kind && rc.Object.Name == name && rc.Reason == reason {
			return
		}
	}
	t.Errorf("why-stuck names no root cause %s on %s %s: %+v", reason, kind, name, d.RootCauses)
}

// requireRemedyCommand fails unless a remedy's command mentions want.
func requireRemedyCommand(t *testing.T, d framework.Diagnosis, want string) {
	t.Helper()
	for _, r := range d.Remedies {
		if strings.Contains(r.Command, want) {
			return
		}
	}
	t.Errorf("why-stuck offers no remedy whose command mentions %q: %+v", want, d.Remedies)
}
