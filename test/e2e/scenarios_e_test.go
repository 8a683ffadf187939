package e2e

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// Upstream e2e scenarios (§6 E).

// E4 "orphan pods created by rc if deleteOptions.OrphanDependents is nil": a
// DELETE of a v1 ReplicationController with only a UID precondition uses
// the type's default policy, orphan (`kgc plan --cascade=default`).
func TestScenarioE4DefaultPolicyOrphansRCPods(t *testing.T) {
	if p := rcWithPods(t, "e4", 3, "", alive()); p != nil && p.Summary["orphaned"] != 3 {
		t.Errorf("plan summary %v: want 3 orphaned pods", p.Summary)
	}
}

func TestScenarioE1DependencyCircle(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "e1")
	pod1 := mk(t, ctx, env, "Pod", ns, "pod1")
	pod2 := mk(t, ctx, env, "Pod", ns, "pod2", owners(ref(pod1, tr(), tr())))
	pod3 := mk(t, ctx, env, "Pod", ns, "pod3", owners(ref(pod2, tr(), tr())))
	setOwners(t, ctx, env, framework.Pods, pod1, ref(pod3, tr(), tr()))
	r := checkPlan(t, ctx, env, planCase{
		Scope: nsScope(ns, framework.Pods), GVR: framework.Pods, TypeArg: "pods", Namespace: ns, Name: "pod1", Policy: fg,
	})
	expectReal(t, r, map[string]string{"Pod/pod1": gone, "Pod/pod2": gone, "Pod/pod3": gone})
}

func TestScenarioE2ValidOwnerAndWaitingOwner(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "e2")
	rc1 := mk(t, ctx, env, "ReplicationController", ns, "rc1")
	rc2 := mk(t, ctx, env, "ReplicationController", ns, "rc2")
	want := map[string]string{"ReplicationController/rc1": gone, "ReplicationController/rc2": alive()}
	for i := 0; i < 6; i++ {
		name := fmt.Sprintf("pod%d", i)
		refs := []objOpt{owners(ref(rc1, tr(), tr()))}
		want["Pod/"+name] = gone
		if i%2 == 0 {
			refs = []objOpt{owners(ref(rc1, tr(), tr()), ref(rc2, nil, nil))}
			want["Pod/"+name] = alive("rc2")
		}
		mk(t, ctx, env, "Pod", ns, name, refs...)
	}
	r := checkPlan(t, ctx, env, planCase{
		Scope: nsScope(ns, framework.RCs, framework.Pods), GVR: framework.RCs, TypeArg: "replicationcontrollers",
		Namespace: ns, Name: "rc1", Policy: fg,
	})
	expectReal(t, r, want)
}

func TestScenarioE3ForegroundKeepsOwnerUntilDependentsGone(t *testing.T) {
	rcWithPods(t, "e3", 4, fg, gone)
}

func TestScenarioE5OrphanReplicaSetOfDeployment(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "e5")
	d := mk(t, ctx, env, "Deployment", ns, "web")
	rs := mk(t, ctx, env, "ReplicaSet", ns, "web-1", owners(ref(d, tr(), tr())))
	mk(t, ctx, env, "Pod", ns, "web-1-a", owners(ref(rs, tr(), tr())))
	mk(t, ctx, env, "Pod", ns, "web-1-b", owners(ref(rs, tr(), tr())))
	r := checkPlan(t, ctx, env, planCase{
		Scope: nsScope(ns, deployments, replicaSets, framework.Pods), GVR: deployments, TypeArg: "deployments.apps",
		Namespace: ns, Name: "web", Policy: or,
	})
	expectReal(t, r, map[string]string{"Deployment/web": gone, "ReplicaSet/web-1": alive(), "Pod/web-1-a": alive("web-1"), "Pod/web-1-b": alive("web-1")})
}

func TestScenarioE6CronJobBackground(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "e6")
	cj := mk(t, ctx, env, "CronJob", ns, "nightly")
	want := map[string]string{"CronJob/nightly": gone}
	for i := 0; i < 2; i++ {
		job := mk(t, ctx, env, "Job", ns, fmt.Sprintf("nightly-%d", i), owners(ref(cj, tr(), tr())))
		want["Job/"+job.GetName()] = gone
		pod := mk(t, ctx, env, "Pod", ns, job.GetName()+"-pod", owners(ref(job, tr(), tr())))
		want["Pod/"+pod.GetName()] = gone
	}
	r := checkPlan(t, ctx, env, planCase{
		Scope: nsScope(ns, cronJobs, jobs, framework.Pods), GVR: cronJobs, TypeArg: "cronjobs.batch",
		Namespace: ns, Name: "nightly", Policy: bg,
	})
	expectReal(t, r, want)
}

func TestScenarioE7OrphanClusterScopedCustomResources(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	crd := framework.CRD{Group: "e7.e2e.kgc.dev", Kind: "Cluster", Plural: "clusters", Namespace: false}
	env.CreateCRD(t, ctx, crd)
	label := func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"kgc-e2e/case": "e7"}) }
	owner := mkCR(t, ctx, env, crd, "", "e7-owner", label)
	mkCR(t, ctx, env, crd, "", "e7-dependent", label, owners(ref(owner, nil, nil)))
	r := checkPlan(t, ctx, env, planCase{
		Scope: framework.Scope{Cluster: []schema.GroupVersionResource{crd.GVR()}, ClusterSelector: "kgc-e2e/case=e7"},
		GVR:   crd.GVR(), TypeArg: crd.TypeArg(), Name: "e7-owner", Policy: or,
	})
	expectReal(t, r, map[string]string{"Cluster/e7-owner": gone, "Cluster/e7-dependent": alive()})
}
