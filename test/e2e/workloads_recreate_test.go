package e2e

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// Deletes the workload controllers undo: while an owner that reconciles
// survives, its controller creates a replacement for what was deleted. The
// plan marks such objects fate "recreated" with recreatedBy; after the real
// delete, each must have a replacement (same kind, a new UID, controlled by
// recreatedBy.owner, named recreatedBy.name when sameName), and every other
// deletion of the plan must stay gone.

// recreateCase is a reconcile scenario: what to delete, and the objects the
// plan must call recreated (kind/name as before the delete, with the kind
// of the owner that reconciles them).
type recreateCase struct {
	planCase
	want []wantRecreated
}

type wantRecreated struct {
	kind, name string // the deleted object
	ownerKind  string // the surviving owner that reconciles it
	sameName   bool
}

// checkRecreated runs the case and checks the plan's recreated objects
// against reality.
func checkRecreated(t *testing.T, ctx context.Context, env *framework.Env, rc recreateCase) planResult {
	t.Helper()
	r := checkPlan(t, ctx, env, rc.planCase)
	if r.Plan == nil || r.After == nil {
		return r
	}
	requirePlannedRecreations(t, r, rc.want)
	for _, po := range r.Plan.Objects {
		switch {
		case po.Fate == framework.FateRecreated:
			if err := replacementExists(ctx, env, r, po); err != nil {
				t.Errorf("plan says %s is recreated by %s (owner %s): %v", po.Object, po.RecreatedBy.Controller, po.RecreatedBy.Owner, err)
			}
		case !po.Final.Exists:
			if s, ok := r.After[po.Object.UID]; ok && s.Exists {
				t.Errorf("plan says %s (fate %s) is gone, but it is there after the delete settled: %s", po.Object, po.Fate, s)
			}
		}
	}
	return r
}

// requirePlannedRecreations fails unless every wanted object is in the plan
// with fate recreated, a certain recreatedBy naming an owner of the wanted
// kind, and the wanted sameName.
func requirePlannedRecreations(t *testing.T, r planResult, want []wantRecreated) {
	t.Helper()
	for _, w := range want {
		po, ok := planObjectByName(r.Plan, w.kind, w.name)
		switch {
		case !ok:
			t.Errorf("plan does not list %s %s; it is deleted and recreated\n%s", w.kind, w.name, r.report())
		case po.Fate != framework.FateRecreated || po.RecreatedBy == nil:
			t.Errorf("plan: %s %s has fate %q (recreatedBy %+v, reason %q), want %q: its %s survives and recreates it\n%s", w.kind, w.name, po.Fate, po.RecreatedBy, po.Reason, framework.FateRecreated, w.ownerKind, r.report())
		case po.RecreatedBy.Owner.Kind != w.ownerKind || !po.RecreatedBy.Certain || !po.RecreatedBy.NewUID || po.RecreatedBy.SameName != w.sameName:
			t.Errorf("plan: %s %s recreatedBy %+v; want a certain recreation with a new UID by its %s, sameName=%v", w.kind, w.name, *po.RecreatedBy, w.ownerKind, w.sameName)
		}
	}
}

func planObjectByName(p *framework.Plan, kind, name string) (framework.PlanObject, bool) {
	for _, po := range p.Objects {
		if po.Object.Kind == kind && po.Object.Name == name {
			return po, true
		}
	}
	return framework.PlanObject{}, false
}

// replacementExists looks, after the delete settled, for the replacement
// the plan promises for po: an object of the same kind with another UID,
// controlled by recreatedBy.owner (for a namespace's own objects, which
// have no owner reference: in that namespace), named recreatedBy.name when
// sameName.
func replacementExists(ctx context.Context, env *framework.Env, r planResult, po framework.PlanObject) error {
	rb := po.RecreatedBy
	before, ok := r.Before[po.Object.UID]
	if !ok {
		return fmt.Errorf("not one of the case's objects")
	}
	list, err := env.Dynamic.Resource(before.GVR).Namespace(po.Object.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing %s: %w", before.GVR.Resource, err)
	}
	var seen []string
	for _, u := range list.Items {
		if string(u.GetUID()) == po.Object.UID || (rb.SameName && u.GetName() != rb.Name) {
			continue
		}
		if rb.Owner.Kind == "Namespace" || controlledBy(u.GetOwnerReferences(), rb.Owner.UID) {
			return nil
		}
		seen = append(seen, u.GetName())
	}
	return fmt.Errorf("no replacement after the delete settled (other %s objects: %v)", before.Kind, seen)
}

func controlledBy(refs []metav1.OwnerReference, uid string) bool {
	for _, ref := range refs {
		if string(ref.UID) == uid && ref.Controller != nil && *ref.Controller {
			return true
		}
	}
	return false
}

// TestRecreatePodOfReplicaSet: a pod of a live ReplicaSet, deleted: the
// ReplicaSet controller creates another (a generated name).
func TestRecreatePodOfReplicaSet(t *testing.T) {
	ctx, env := workloadEnv(t)
	ns := workloadNamespace(t, ctx, env, "re-pod")
	mkWorkload(t, ctx, env, "ReplicaSet", ns, "web")
	pod := waitRunningPods(t, ctx, env, ns, "web", workloadReplicas)[0]
	checkRecreated(t, ctx, env, recreateCase{
		planCase: workloadCase(ns, framework.Pods, pod.Name, bg),
		want:     []wantRecreated{{kind: "Pod", name: pod.Name, ownerKind: "ReplicaSet"}},
	})
}

// TestRecreateReplicaSetOfDeployment: the ReplicaSet of a live Deployment,
// deleted in the background or the foreground: the Deployment controller
// creates it again, with the same name (the pod-template hash) and a new
// UID. With orphan the replacement adopts the orphaned pods (they match
// its selector, pod-template hash included), so they end owned by it: the
// plan names it in their adoptedBy, and the comparison requires their
// owner to be a new ReplicaSet of that name.
func TestRecreateReplicaSetOfDeployment(t *testing.T) {
	for name, policy := range map[string]metav1.DeletionPropagation{"background": bg, "foreground": fg, "orphan": or} {
		t.Run(name, func(t *testing.T) {
			ctx, env := workloadEnv(t)
			ns := workloadNamespace(t, ctx, env, "re-rs-"+name)
			mkWorkload(t, ctx, env, "Deployment", ns, "web")
			pods := waitRunningPods(t, ctx, env, ns, "web", workloadReplicas)
			rs := metav1.GetControllerOf(&pods[0])
			checkRecreated(t, ctx, env, recreateCase{
				planCase: workloadCase(ns, replicaSets, rs.Name, policy),
				want:     []wantRecreated{{kind: "ReplicaSet", name: rs.Name, ownerKind: "Deployment", sameName: true}},
			})
		})
	}
}

// TestRecreatePodOfStatefulSet: a pod of a live StatefulSet, deleted: the
// StatefulSet controller creates it again under the same name.
func TestRecreatePodOfStatefulSet(t *testing.T) {
	ctx, env := workloadEnv(t)
	ns := workloadNamespace(t, ctx, env, "re-sts")
	mkStatefulSet(t, ctx, env, ns, "db", "Retain")
	waitRunningPods(t, ctx, env, ns, "db", workloadReplicas)
	checkRecreated(t, ctx, env, recreateCase{
		planCase: workloadCase(ns, framework.Pods, "db-0", bg),
		want:     []wantRecreated{{kind: "Pod", name: "db-0", ownerKind: "StatefulSet", sameName: true}},
	})
}

// TestRecreateNamespaceDefaults: the namespace's kube-root-ca.crt ConfigMap
// and default ServiceAccount, deleted: the root CA publisher and the
// serviceaccount controller create them again.
func TestRecreateNamespaceDefaults(t *testing.T) {
	for _, c := range []struct {
		kind, typeArg, name string
	}{
		{"ConfigMap", "configmaps", "kube-root-ca.crt"},
		{"ServiceAccount", "serviceaccounts", "default"},
	} {
		t.Run(c.kind, func(t *testing.T) {
			ctx, env := workloadEnv(t)
			ns := workloadNamespace(t, ctx, env, "re-"+c.typeArg)
			gvr := framework.ConfigMaps
			if c.kind == "ServiceAccount" {
				gvr = serviceAccounts
			}
			pc := workloadCase(ns, gvr, c.name, bg)
			pc.Scope.Namespaced = append(pc.Scope.Namespaced, framework.ConfigMaps, serviceAccounts)
			checkRecreated(t, ctx, env, recreateCase{
				planCase: pc,
				want:     []wantRecreated{{kind: c.kind, name: c.name, ownerKind: "Namespace", sameName: true}},
			})
		})
	}
}

// TestRecreatePodOfDaemonSet: a pod of a live DaemonSet, deleted: the
// DaemonSet controller creates another on the same node (a generated name).
func TestRecreatePodOfDaemonSet(t *testing.T) {
	ctx, env := workloadEnv(t)
	ns := workloadNamespace(t, ctx, env, "re-ds")
	mkWorkload(t, ctx, env, "DaemonSet", ns, "agent")
	pod := waitRunningPods(t, ctx, env, ns, "agent", workloadReplicas)[0]
	checkRecreated(t, ctx, env, recreateCase{
		planCase: workloadCase(ns, framework.Pods, pod.Name, bg),
		want:     []wantRecreated{{kind: "Pod", name: pod.Name, ownerKind: "DaemonSet"}},
	})
}

// TestRecreatePodOfJob: a running pod of a live Job, deleted: the Job
// controller removes its tracking finalizer and creates a replacement (a
// generated name), the Job being far from its backoffLimit.
func TestRecreatePodOfJob(t *testing.T) {
	ctx, env := workloadEnv(t)
	ns := workloadNamespace(t, ctx, env, "re-job")
	mkWorkload(t, ctx, env, "Job", ns, "batch")
	pod := waitRunningPods(t, ctx, env, ns, "batch", workloadReplicas)[0]
	r := checkRecreated(t, ctx, env, recreateCase{
		planCase: workloadCase(ns, framework.Pods, pod.Name, bg),
		want:     []wantRecreated{{kind: "Pod", name: pod.Name, ownerKind: "Job"}},
	})
	requireTrackedPods(t, r)
}
