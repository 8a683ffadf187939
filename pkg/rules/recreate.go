package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// The reconcile step of the controllers that create what a delete removes:
// when an object is gone and the owner that made it survives, its
// controller makes a replacement. Each case follows the upstream sync
// function it cites (k8s.io/kubernetes v1.36.3, pkg/controller/...).

// Well-known names the controllers keep in every namespace.
const (
	// RootCAConfigMap is what the root-ca-cert-publisher keeps in every
	// namespace (pkg/controller/certificates/rootcacertpublisher).
	RootCAConfigMap = "kube-root-ca.crt"
	// DefaultServiceAccount is what the serviceaccount controller keeps
	// in every namespace (pkg/controller/serviceaccount).
	DefaultServiceAccount = "default"
	// LabelPodTemplateHash names a Deployment's ReplicaSet and labels its
	// pods.
	LabelPodTemplateHash = "pod-template-hash"
	// LabelManagedBy / ManagedByEndpointSlice mark the EndpointSlices the
	// endpointslice controller manages.
	LabelManagedBy         = "endpointslice.kubernetes.io/managed-by"
	ManagedByEndpointSlice = "endpointslice-controller.k8s.io"
)

// Recreation is a replacement a controller makes for a deleted object.
type Recreation struct {
	// Controller is the actor (an Actor* constant).
	Controller string
	// Owner is the surviving object whose reconcile makes the
	// replacement: the controller owner, or the namespace for the
	// per-namespace objects.
	Owner snapshot.ObjectRef
	// Name is the replacement's name when known ("" when generated).
	Name     string
	SameName bool
	NewUID   bool
	// Certain is false when kgc cannot tell from the input whether the
	// controller acts (its facts are missing, or it is not simulated).
	Certain bool
	// Why says what the controller does, or why kgc is unsure.
	Why string
}

// RecreateLookup is the state at quiescence the decision reads.
type RecreateLookup struct {
	// Object returns the live object with uid, nil when it is gone.
	Object func(uid string) *snapshot.Object
	// Namespace returns the live Namespace of that name; known is false
	// when namespaces are not in the input.
	Namespace func(name string) (ns *snapshot.Object, known bool)
	// Node finds a Node by name.
	Node NodeLookup
}

// Recreate decides whether a controller replaces o, deleted: rec is set
// when one does or may (rec.Certain false); otherwise not says why not
// when an owner survives whose controller does not act ("" when nothing
// would make o again).
func Recreate(o *snapshot.Object, look RecreateLookup) (rec *Recreation, not string) {
	ns := o.Metadata.Namespace
	if ns != "" {
		if nsObj, known := look.Namespace(ns); known && (nsObj == nil || nsObj.Terminating()) {
			// NamespaceLifecycle admission refuses creations in a
			// namespace being deleted.
			return nil, ""
		}
	}
	group, _ := snapshot.SplitAPIVersion(o.APIVersion)
	switch {
	case group == "" && o.Kind == "ConfigMap" && o.Metadata.Name == RootCAConfigMap:
		return perNamespace(o, look, ActorRootCAPublisher), ""
	case group == "" && o.Kind == "ServiceAccount" && o.Metadata.Name == DefaultServiceAccount:
		return perNamespace(o, look, ActorServiceAccount), ""
	}
	ctrl := controllerRef(o)
	if ctrl == nil {
		return nil, ""
	}
	owner := look.Object(ctrl.UID)
	if owner == nil || owner.Terminating() || owner.Kind != ctrl.Kind {
		return nil, ""
	}
	ownerGroup, _ := snapshot.SplitAPIVersion(owner.APIVersion)
	switch {
	case group == "" && o.Kind == "Pod":
		return recreatePod(o, owner, ownerGroup, look)
	case group == "apps" && o.Kind == "ReplicaSet" && ownerGroup == "apps" && owner.Kind == "Deployment":
		return recreateReplicaSet(o, owner)
	case group == "batch" && o.Kind == "Job" && ownerGroup == "batch" && owner.Kind == "CronJob":
		return nil, fmt.Sprintf("%s does not recreate past Jobs: %s creates Jobs only on its schedule", named(owner), ActorCronJob)
	case group == "discovery.k8s.io" && o.Kind == "EndpointSlice" && ownerGroup == "" && owner.Kind == "Service" &&
		o.Metadata.Labels[LabelManagedBy] == ManagedByEndpointSlice:
		return recreateEndpointSlice(owner)
	}
	return nil, ""
}

// UndoAdvice is what to do instead of deleting what the controller actor
// recreates (a Recreation's Controller): change the owner whose reconcile
// makes the replacement, or delete that owner.
func UndoAdvice(actor string) string {
	switch actor {
	case ActorDeployment, ActorReplicaSet, ActorReplicationController, ActorStatefulSet:
		return "scale it or delete it instead"
	case ActorDaemonSet:
		return "change its node selector or delete it instead"
	case ActorJob, ActorCronJob:
		return "suspend it or delete it instead"
	case ActorEndpointSlice:
		return "remove its selector or delete it instead"
	case ActorRootCAPublisher, ActorServiceAccount:
		return "its controller keeps one in every namespace"
	}
	return "change or delete it instead"
}

func controllerRef(o *snapshot.Object) *snapshot.OwnerReference {
	for k := range o.Metadata.OwnerReferences {
		if o.Metadata.OwnerReferences[k].IsController() {
			return &o.Metadata.OwnerReferences[k]
		}
	}
	return nil
}

// named is how a sentence names an object: snapshot.KubectlName's form.
func named(o *snapshot.Object) string { return o.Ref().String() }

// perNamespace is the root-ca-cert-publisher's and the serviceaccount
// controller's sync of a namespace: the object is created again, same
// name, in every namespace that is not being deleted.
func perNamespace(o *snapshot.Object, look RecreateLookup, actor string) *Recreation {
	nsObj, known := look.Namespace(o.Metadata.Namespace)
	rec := &Recreation{Controller: actor, Name: o.Metadata.Name, SameName: true, NewUID: true, Certain: true,
		Owner: snapshot.ObjectRef{APIVersion: "v1", Kind: "Namespace", Name: o.Metadata.Namespace}}
	if nsObj != nil {
		rec.Owner = nsObj.Ref()
	}
	rec.Why = fmt.Sprintf("%s creates it again, same name, new UID: it keeps %s %s in every namespace that is not being deleted", actor, o.Kind, o.Metadata.Name)
	if !known {
		rec.Certain = false
		rec.Why = fmt.Sprintf("%s keeps %s %s in every namespace that is not being deleted, and the input does not show whether namespace %s is", actor, o.Kind, o.Metadata.Name, o.Metadata.Namespace)
	}
	return rec
}

// workload returns an owner's workload facts, or nil.
func workload(owner *snapshot.Object) *snapshot.WorkloadFacts {
	if owner.Facts == nil {
		return nil
	}
	return owner.Facts.Workload
}

func uncertain(actor string, owner *snapshot.Object, name string, same bool, why string) *Recreation {
	return &Recreation{Controller: actor, Owner: owner.Ref(), Name: name, SameName: same, NewUID: true, Why: why}
}

func noSpec(owner *snapshot.Object) string {
	return fmt.Sprintf("the input has no spec for %s", named(owner))
}

// recreateReplicaSet is the deployment controller's sync
// (pkg/controller/deployment: getNewReplicaSet): a Deployment that is not
// paused creates its new ReplicaSet again when none matches its template,
// named after the template hash, so with the same name; an old
// ReplicaSet is not recreated, the new one is scaled instead.
func recreateReplicaSet(o, owner *snapshot.Object) (*Recreation, string) {
	name, same := "", false
	if h := o.Metadata.Labels[LabelPodTemplateHash]; h != "" && o.Metadata.Name == owner.Metadata.Name+"-"+h {
		name, same = o.Metadata.Name, true
	}
	w := workload(owner)
	if w == nil {
		return uncertain(ActorDeployment, owner, name, same, noSpec(owner)), ""
	}
	if w.Paused {
		return nil, fmt.Sprintf("%s is paused: %s creates no ReplicaSet until it is resumed", named(owner), ActorDeployment)
	}
	rw := workload(o)
	switch {
	case rw == nil || rw.Revision == "" || w.Revision == "":
		return uncertain(ActorDeployment, owner, name, same, fmt.Sprintf("the input does not say whether %s is the new ReplicaSet of %s (its revision)", o.Metadata.Name, named(owner))), ""
	case rw.Revision != w.Revision:
		return nil, fmt.Sprintf("an old ReplicaSet of %s (revision %s, the Deployment is at %s): %s scales the new one instead of recreating it", named(owner), rw.Revision, w.Revision, ActorDeployment)
	}
	what := "with the same name (the pod-template hash)"
	if !same {
		what = "named after the pod-template hash"
	}
	pods := "new pods"
	if w.Replicas != nil && *w.Replicas == 0 {
		// Scaled to 0, a Deployment still keeps its new ReplicaSet, empty.
		pods = "no pods (the Deployment is scaled to 0)"
	}
	rec := &Recreation{Controller: ActorDeployment, Owner: owner.Ref(), Name: name, SameName: same, NewUID: true, Certain: true,
		Why: fmt.Sprintf("%s creates the new ReplicaSet of %s again, %s, a new UID and %s", ActorDeployment, named(owner), what, pods)}
	return rec, ""
}

// recreatePod is the reconcile of the pod's controller.
func recreatePod(o, owner *snapshot.Object, ownerGroup string, look RecreateLookup) (*Recreation, string) {
	pf := PodFacts(o)
	if o.Terminating() && owner.Kind != "StatefulSet" {
		// A pod already terminating in the input was replaced when its
		// deletion started (the controllers count only active pods).
		return nil, ""
	}
	switch {
	case ownerGroup == "apps" && owner.Kind == "ReplicaSet":
		return recreateReplica(owner, pf, ActorReplicaSet)
	case ownerGroup == "" && owner.Kind == "ReplicationController":
		return recreateReplica(owner, pf, ActorReplicationController)
	case ownerGroup == "apps" && owner.Kind == "StatefulSet":
		return recreateOrdinal(o, owner, pf)
	case ownerGroup == "apps" && owner.Kind == "DaemonSet":
		return recreateDaemonPod(o, owner, pf, look)
	case ownerGroup == "batch" && owner.Kind == "Job":
		return recreateJobPod(owner, pf)
	}
	return nil, ""
}

func finished(pf *snapshot.PodFacts) bool {
	return pf != nil && (pf.Phase == "Succeeded" || pf.Phase == "Failed")
}

// recreateReplica is the ReplicaSet (and ReplicationController)
// controller's manageReplicas: fewer active pods than spec.replicas, so
// it creates one, with a generated name.
func recreateReplica(owner *snapshot.Object, pf *snapshot.PodFacts, actor string) (*Recreation, string) {
	w := workload(owner)
	switch {
	case finished(pf):
		return nil, fmt.Sprintf("it had already %s: %s replaced it then", strings.ToLower(pf.Phase), named(owner))
	case w == nil:
		return uncertain(actor, owner, "", false, noSpec(owner)), ""
	case w.Replicas != nil && *w.Replicas == 0:
		return nil, fmt.Sprintf("%s is scaled to 0", named(owner))
	case !w.SelectorMatchesTemplate:
		return uncertain(actor, owner, "", false, fmt.Sprintf("the selector of %s does not select its pod template's labels", named(owner))), ""
	}
	return &Recreation{Controller: actor, Owner: owner.Ref(), NewUID: true, Certain: true,
		Why: fmt.Sprintf("%s creates a replacement pod for %s (%s), with a new name", actor, named(owner), replicas(w))}, ""
}

func replicas(w *snapshot.WorkloadFacts) string {
	n := int32(1)
	if w.Replicas != nil {
		n = *w.Replicas
	}
	return words.Count(int(n), "replica")
}

// recreateOrdinal is the StatefulSet controller's sync
// (pkg/controller/statefulset: updateStatefulSet): every ordinal in
// [start, start+replicas) has a pod of that name, created again once
// the old one is gone, with the same claims.
func recreateOrdinal(o, owner *snapshot.Object, pf *snapshot.PodFacts) (*Recreation, string) {
	w := workload(owner)
	prefix := owner.Metadata.Name + "-"
	ord, err := strconv.Atoi(strings.TrimPrefix(o.Metadata.Name, prefix))
	if !strings.HasPrefix(o.Metadata.Name, prefix) || err != nil || ord < 0 {
		return uncertain(ActorStatefulSet, owner, "", false, fmt.Sprintf("pod %s is not named after an ordinal of %s", o.Metadata.Name, named(owner))), ""
	}
	if w == nil {
		return uncertain(ActorStatefulSet, owner, o.Metadata.Name, true, noSpec(owner)), ""
	}
	n := int32(1)
	if w.Replicas != nil {
		n = *w.Replicas
	}
	if int32(ord) < w.OrdinalsStart || int32(ord) >= w.OrdinalsStart+n {
		return nil, fmt.Sprintf("ordinal %d is outside the %s of %s", ord, replicas(w), named(owner))
	}
	why := fmt.Sprintf("%s creates pod %s again for %s, same name and ordinal, new UID", ActorStatefulSet, o.Metadata.Name, named(owner))
	if pf != nil && len(pf.Claims) > 0 {
		why += ", reusing " + words.Count(len(pf.Claims), "claim") + " " + strings.Join(pf.Claims, ", ")
	}
	return &Recreation{Controller: ActorStatefulSet, Owner: owner.Ref(), Name: o.Metadata.Name, SameName: true, NewUID: true, Certain: true, Why: why}, ""
}

// daemonTolerated are the taints every DaemonSet pod tolerates
// (pkg/controller/daemon/util: AddOrUpdateDaemonPodTolerations); the
// network-unavailable one only for host-network pods, which kgc cannot
// tell, so it is left out.
var daemonTolerated = []string{
	"node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/unreachable:NoExecute",
	"node.kubernetes.io/disk-pressure:NoSchedule", "node.kubernetes.io/memory-pressure:NoSchedule",
	"node.kubernetes.io/pid-pressure:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule",
}

// tolerates reports whether tolerations ("key:effect", "" for any)
// tolerate a taint "key:effect" or "key=value:effect". Taint values are
// not in the snapshot: a toleration of the key and effect counts.
func tolerates(tolerations []string, taint string) bool {
	key, effect := taint, ""
	if i := strings.LastIndex(taint, ":"); i >= 0 {
		key, effect = taint[:i], taint[i+1:]
	}
	if i := strings.Index(key, "="); i >= 0 {
		key = key[:i]
	}
	match := func(t string) bool {
		tk, te := t, ""
		if i := strings.LastIndex(t, ":"); i >= 0 {
			tk, te = t[:i], t[i+1:]
		}
		return (tk == "" || tk == key) && (te == "" || te == effect)
	}
	return slices.ContainsFunc(tolerations, match) || slices.ContainsFunc(daemonTolerated, match)
}

// recreateDaemonPod is the DaemonSet controller's manage
// (pkg/controller/daemon: nodeShouldRunDaemonPod): a node that matches
// the template's nodeSelector and whose NoSchedule and NoExecute taints
// the pods tolerate gets a daemon pod, with a generated name.
func recreateDaemonPod(o, owner *snapshot.Object, pf *snapshot.PodFacts, look RecreateLookup) (*Recreation, string) {
	w := workload(owner)
	if w == nil {
		return uncertain(ActorDaemonSet, owner, "", false, noSpec(owner)), ""
	}
	if pf == nil || pf.NodeName == "" {
		return uncertain(ActorDaemonSet, owner, "", false, fmt.Sprintf("the input does not say which node pod %s ran on", o.Metadata.Name)), ""
	}
	node, listed := look.Node(pf.NodeName)
	switch {
	case node == nil && !listed:
		return uncertain(ActorDaemonSet, owner, "", false, "nodes are not in the input: whether node "+pf.NodeName+" still runs DaemonSet pods is unknown"), ""
	case node == nil || node.Terminating():
		return nil, "node " + pf.NodeName + " is gone: " + named(owner) + " creates no pod for it"
	}
	for k, v := range w.NodeSelector {
		if lv, ok := node.Metadata.Labels[k]; !ok || lv != v {
			return nil, fmt.Sprintf("node %s does not match the nodeSelector of %s (%s=%s)", pf.NodeName, named(owner), k, v)
		}
	}
	if node.Facts != nil && node.Facts.Node != nil {
		for _, t := range node.Facts.Node.Taints {
			if (strings.HasSuffix(t, ":NoSchedule") || strings.HasSuffix(t, ":NoExecute")) && !tolerates(w.Tolerations, t) {
				return nil, fmt.Sprintf("node %s has taint %s, which %s does not tolerate", pf.NodeName, t, named(owner))
			}
		}
	}
	if w.NodeAffinity {
		return uncertain(ActorDaemonSet, owner, "", false, fmt.Sprintf("%s has a node affinity kgc does not evaluate", named(owner))), ""
	}
	return &Recreation{Controller: ActorDaemonSet, Owner: owner.Ref(), NewUID: true, Certain: true,
		Why: fmt.Sprintf("%s creates a replacement pod for %s on node %s, with a new name", ActorDaemonSet, named(owner), pf.NodeName)}, ""
}

// recreateJobPod is the Job controller's syncJob (pkg/controller/job):
// a Job that is not finished or suspended replaces a pod that is deleted
// before it finished, counting it failed, until completions are reached
// or the failures exceed backoffLimit.
func recreateJobPod(owner *snapshot.Object, pf *snapshot.PodFacts) (*Recreation, string) {
	var jf *snapshot.JobFacts
	if owner.Facts != nil {
		jf = owner.Facts.Job
	}
	switch {
	case jf != nil && jf.Finished:
		return nil, fmt.Sprintf("%s is finished: a finished Job recreates nothing", named(owner))
	case finished(pf):
		return nil, fmt.Sprintf("it had already %s and was counted by %s", strings.ToLower(pf.Phase), named(owner))
	case jf == nil || !jf.Spec:
		return uncertain(ActorJob, owner, "", false, noSpec(owner)), ""
	case jf.Suspend:
		return nil, fmt.Sprintf("%s is suspended", named(owner))
	case jf.Completions != nil && jf.Succeeded >= *jf.Completions:
		return nil, fmt.Sprintf("%s has its %d completions", named(owner), *jf.Completions)
	}
	limit := int32(6)
	if jf.BackoffLimit != nil {
		limit = *jf.BackoffLimit
	}
	if jf.Failed+1 > limit {
		return nil, fmt.Sprintf("the deleted pod counts as failure %d of %s, over its backoffLimit %d: the Job fails instead", jf.Failed+1, named(owner), limit)
	}
	return &Recreation{Controller: ActorJob, Owner: owner.Ref(), NewUID: true, Certain: true,
		Why: fmt.Sprintf("%s counts the pod failed (%d of backoffLimit %d) and creates a replacement for %s, with a new name", ActorJob, jf.Failed+1, limit, named(owner))}, ""
}

// recreateEndpointSlice is the endpointslice controller's syncService
// (pkg/controller/endpointslice): a Service with a selector gets its
// slices again, with generated names.
func recreateEndpointSlice(owner *snapshot.Object) (*Recreation, string) {
	var sel *bool
	if owner.Facts != nil && owner.Facts.Service != nil {
		sel = owner.Facts.Service.Selector
	}
	switch {
	case sel == nil:
		return uncertain(ActorEndpointSlice, owner, "", false, "the input does not say whether "+named(owner)+" has a selector"), ""
	case !*sel:
		return nil, named(owner) + " has no selector: " + ActorEndpointSlice + " does not manage its slices"
	}
	return &Recreation{Controller: ActorEndpointSlice, Owner: owner.Ref(), NewUID: true, Certain: true,
		Why: fmt.Sprintf("%s creates the slices of %s again, with new names", ActorEndpointSlice, named(owner))}, ""
}
