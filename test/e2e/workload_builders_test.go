package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// The workload scenarios run on the workload control plane (every
// controller, kube-scheduler, kwok nodes), where the objects are alive:
// controllers create and adopt them, pods are scheduled and run.

var (
	statefulSets        = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
	daemonSets          = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}
	controllerRevisions = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "controllerrevisions"}
	pvcs                = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}
	pvs                 = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}
	serviceAccounts     = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	events              = schema.GroupVersionResource{Version: "v1", Resource: "events"}
	nodes               = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
)

const (
	// workloadQuiet is how long a workload case's objects must not change
	// to count as settled: kwok confirms a pod's termination and the
	// controllers react within a second or two on a busy machine.
	workloadQuiet = 8 * time.Second
	// workloadReplicas is every workload's size: two pods show a policy
	// applied to each dependent, not to one by chance.
	workloadReplicas = 2
	// jobRunsFor keeps Job pods running (kwok's pod-complete stage reads
	// the delay from this annotation), so they hold the Job tracking
	// finalizer while the scenario runs.
	jobRunsFor = "24h"
	// caseLabel marks the cluster-scoped objects of a workload case (its
	// PersistentVolumes, its Namespace) with the case's namespace.
	caseLabel = "kgc.dev/case"
)

// workloadScope is every namespaced type the workload controllers create or
// own, in ns.
func workloadScope(ns string) framework.Scope {
	return nsScope(ns, deployments, replicaSets, framework.Pods, framework.RCs, jobs, cronJobs,
		statefulSets, daemonSets, controllerRevisions, pvcs)
}

// workloadNamespace creates a namespace on the workload plane and waits for
// its default ServiceAccount: until the serviceaccount controller creates
// it, the ServiceAccount admission plugin refuses the controllers' pods.
func workloadNamespace(t testing.TB, ctx context.Context, env *framework.Env, prefix string) string {
	t.Helper()
	ns := env.Namespace(t, ctx, prefix)
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := env.Client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("namespace %s has no default ServiceAccount: %v", ns, err)
	}
	return ns
}

// podTemplate is a pod template that runs on the shared kwok nodes only
// (never on a node a test takes down).
func podTemplate(app string, annotations map[string]any) map[string]any {
	meta := map[string]any{"labels": map[string]any{"app": app}}
	if annotations != nil {
		meta["annotations"] = annotations
	}
	return map[string]any{
		"metadata": meta,
		"spec": map[string]any{
			"containers":   []any{map[string]any{"name": "c", "image": "registry.invalid/none"}},
			"nodeSelector": map[string]any{framework.SharedNodeGroupLabel: "shared"},
		},
	}
}

// jobTemplate is a pod template for Jobs: Never restarts, pods that keep
// running for jobRunsFor. Both annotations are needed: kwok's stage delay
// is the jitter when the jitter is not longer than the delay
// (lifecycle.Stage.Delay), and the stage's default jitter is 5 s.
func jobTemplate(app string) map[string]any {
	tpl := podTemplate(app, map[string]any{
		"pod-complete.stage.kwok.x-k8s.io/delay":        jobRunsFor,
		"pod-complete.stage.kwok.x-k8s.io/jitter-delay": jobRunsFor,
	})
	tpl["spec"].(map[string]any)["restartPolicy"] = "Never"
	return tpl
}

func matchApp(app string) map[string]any {
	return map[string]any{"matchLabels": map[string]any{"app": app}}
}

// mkWorkload creates a live workload of workloadReplicas pods: a
// Deployment, ReplicaSet, ReplicationController, Job, DaemonSet (one pod
// per shared node) or StatefulSet (see mkStatefulSet).
func mkWorkload(t testing.TB, ctx context.Context, env *framework.Env, kind, ns, name string, opts ...objOpt) *unstructured.Unstructured {
	t.Helper()
	var gvr schema.GroupVersionResource
	var u *unstructured.Unstructured
	switch kind {
	case "Deployment":
		gvr, u = deployments, framework.Obj("apps/v1", kind, ns, name)
		u.Object["spec"] = map[string]any{"replicas": int64(workloadReplicas), "selector": matchApp(name), "template": podTemplate(name, nil)}
	case "ReplicaSet":
		gvr, u = replicaSets, framework.Obj("apps/v1", kind, ns, name)
		u.Object["spec"] = map[string]any{"replicas": int64(workloadReplicas), "selector": matchApp(name), "template": podTemplate(name, nil)}
	case "ReplicationController":
		gvr, u = framework.RCs, framework.Obj("v1", kind, ns, name)
		u.Object["spec"] = map[string]any{"replicas": int64(workloadReplicas), "selector": map[string]any{"app": name}, "template": podTemplate(name, nil)}
	case "Job":
		gvr, u = jobs, framework.Obj("batch/v1", kind, ns, name)
		u.Object["spec"] = map[string]any{"parallelism": int64(workloadReplicas), "completions": int64(workloadReplicas), "template": jobTemplate(name)}
	case "DaemonSet":
		gvr, u = daemonSets, framework.Obj("apps/v1", kind, ns, name)
		u.Object["spec"] = map[string]any{"selector": matchApp(name), "template": podTemplate(name, nil)}
	default:
		t.Fatalf("mkWorkload: unsupported kind %s", kind)
	}
	for _, o := range opts {
		o(u)
	}
	return env.MustCreate(t, ctx, gvr, u)
}

// mkCronJobWithJob creates a suspended CronJob and one Job of it, owned the
// way the CronJob controller (and `kubectl create job --from=cronjob/NAME`)
// owns its Jobs: a controller reference. Suspended, the CronJob starts no
// other Job while the scenario runs.
func mkCronJobWithJob(t testing.TB, ctx context.Context, env *framework.Env, ns, name string) (cronJob, job *unstructured.Unstructured) {
	t.Helper()
	cj := framework.Obj("batch/v1", "CronJob", ns, name)
	cj.Object["spec"] = map[string]any{
		"schedule": "0 0 1 1 *", "suspend": true,
		"jobTemplate": map[string]any{"spec": map[string]any{"template": jobTemplate(name)}},
	}
	cronJob = env.MustCreate(t, ctx, cronJobs, cj)
	j := framework.Obj("batch/v1", "Job", ns, name+"-manual")
	j.Object["spec"] = map[string]any{"parallelism": int64(workloadReplicas), "completions": int64(workloadReplicas), "template": jobTemplate(name)}
	j.SetOwnerReferences([]metav1.OwnerReference{ref(cronJob, tr(), tr())})
	return cronJob, env.MustCreate(t, ctx, jobs, j)
}

// mkStatefulSet creates a StatefulSet of workloadReplicas pods, each with a
// claim from its volumeClaimTemplate, with the given claim retention when
// the StatefulSet is deleted (Retain or Delete). There is no provisioner:
// the test binds each claim to a PersistentVolume it creates by hand,
// pre-bound by claimRef (and labelled with the namespace, so that the case
// can list them), so the pods are scheduled as with real storage.
func mkStatefulSet(t testing.TB, ctx context.Context, env *framework.Env, ns, name, whenDeleted string) *unstructured.Unstructured {
	t.Helper()
	for i := range workloadReplicas {
		mkBoundPV(t, ctx, env, ns, fmt.Sprintf("data-%s-%d", name, i))
	}
	u := framework.Obj("apps/v1", "StatefulSet", ns, name)
	u.Object["spec"] = map[string]any{
		"replicas": int64(workloadReplicas), "selector": matchApp(name), "template": podTemplate(name, nil),
		"serviceName": name, "podManagementPolicy": "Parallel",
		"persistentVolumeClaimRetentionPolicy": map[string]any{"whenDeleted": whenDeleted, "whenScaled": "Retain"},
		"volumeClaimTemplates": []any{map[string]any{
			"metadata": map[string]any{"name": "data"},
			"spec": map[string]any{
				"accessModes": []any{"ReadWriteOnce"}, "storageClassName": "",
				"resources": map[string]any{"requests": map[string]any{"storage": "1Mi"}},
			},
		}},
	}
	tpl := u.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	tpl["containers"].([]any)[0].(map[string]any)["volumeMounts"] = []any{map[string]any{"name": "data", "mountPath": "/data"}}
	return env.MustCreate(t, ctx, statefulSets, u)
}

// mkBoundPV creates a hostPath PersistentVolume reserved for claim ns/claim
// (Retain: nothing tries to delete the volume behind it when it is
// released).
func mkBoundPV(t testing.TB, ctx context.Context, env *framework.Env, ns, claim string) *unstructured.Unstructured {
	t.Helper()
	return mkPolicyPV(t, ctx, env, ns, claim, "Retain")
}

// waitRunningPods waits until ns holds exactly want pods labelled app=app,
// each scheduled and Running (kwok's pod-ready stage), none terminating.
func waitRunningPods(t testing.TB, ctx context.Context, env *framework.Env, ns, app string, want int) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	var last string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
		if err != nil {
			return false, nil // a transient error: poll again
		}
		pods = list.Items
		var states []string
		running := 0
		for _, p := range pods {
			states = append(states, fmt.Sprintf("%s node=%q phase=%s terminating=%v", p.Name, p.Spec.NodeName, p.Status.Phase, p.DeletionTimestamp != nil))
			if p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				running++
			}
		}
		sort.Strings(states)
		last = strings.Join(states, "; ")
		return running == want && len(pods) == want, nil
	})
	if err != nil {
		t.Fatalf("waiting for %d running pods app=%s in %s: %v; last seen: [%s]", want, app, ns, err, last)
	}
	return pods
}

// expectKinds asserts the real control plane's outcome independently of
// kgc: how many objects of each kind exist after the delete, and which of
// them were there before (survivors) rather than created since.
func expectKinds(t *testing.T, r planResult, want map[string]string) {
	t.Helper()
	if r.After == nil {
		return
	}
	got := map[string]string{}
	for kind := range want {
		total, kept := 0, 0
		for uid, s := range r.After {
			if s.Kind != kind || !s.Exists {
				continue
			}
			total++
			if _, ok := r.Before[uid]; ok {
				kept++
			}
		}
		got[kind] = fmt.Sprintf("%d (%d kept)", total, kept)
	}
	for kind, w := range want {
		if got[kind] != w {
			t.Errorf("real control plane: %s objects after the delete: want %s, got %s (harness or spec problem, not kgc)", kind, w, got[kind])
		}
	}
}

// kinds formats an expectKinds value: n objects of which kept were there
// before the delete.
func kinds(n, kept int) string { return fmt.Sprintf("%d (%d kept)", n, kept) }
