package diagnose

import (
	"fmt"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// kubelet explains a pod in graceful termination, as
// rules.PodTermination decides who ends it. A pod whose grace period is
// already 0 is held only by its finalizers.
func (r *run) kubelet(pod *snapshot.Object) (Blocker, bool) {
	if f := rules.PodFacts(pod); f != nil && f.Mirror {
		return Blocker{}, false
	}
	end := rules.PodTermination(pod, r.node)
	b := Blocker{Object: pod.Ref(), RemovedBy: rules.ActorKubelet}
	if end.NodeObject != nil {
		b.Objects = []snapshot.ObjectRef{end.NodeObject.Ref()}
	}
	switch end.Finisher {
	case rules.NotGraceful:
		return Blocker{}, false
	case rules.Kubelet:
		r.kubeletConfirms(pod, end, &b)
	case rules.PodGCUnscheduled:
		b.RemovedBy = rules.ActorPodGC
		b.WaitingFor = "the pod garbage collector to delete the unscheduled pod"
		b.RootCause = r.progress(pod, pod, "", rules.ActorPodGC, "the pod was never scheduled: the pod garbage collector deletes it with grace 0 on its next pass (every 20s)", pod, nil)
	case rules.PodGCOrphaned:
		r.nodeMissing(pod, end, &b)
	case rules.PodGCOutOfService:
		b.RemovedBy = rules.ActorPodGC
		b.WaitingFor = "the pod garbage collector to force-delete it: node " + end.Node + " is NotReady and out-of-service"
		b.RootCause = r.inProgress(pod, "", rules.ActorPodGC, "node "+end.Node+" is NotReady and tainted out-of-service: the pod garbage collector force-deletes its terminating pods", pod)
	default:
		b.WaitingFor = "the kubelet on node " + end.Node + " (Ready=" + end.Ready + ") to confirm that its containers stopped"
		b.RootCause = r.addLeaf(leaf{obj: pod, rc: RootCause{Object: pod.Ref(), Reason: ReasonNodeNotReady, RemovedBy: rules.ActorKubelet, Related: []snapshot.ObjectRef{end.NodeObject.Ref()},
			Message: "its node " + end.Node + " is not Ready (Ready=" + end.Ready + "), so no kubelet confirms that its containers stopped; the pod garbage collector only force-deletes such pods once the node is tainted " + rules.TaintOutOfService}}, pod, nil)
	}
	return b, true
}

// node is a rules.NodeLookup over the snapshot.
func (r *run) node(name string) (*snapshot.Object, bool) {
	return r.ix.byName("", "Node", "", name), r.ix.listed("", "Node")
}

// kubeletConfirms explains a pod whose kubelet ends its termination: in its
// grace period, past it on a Ready node (something hangs), or on a node
// whose state the input does not show.
// finishingFor is how long past its grace period a pod on a Ready node is
// still finishing (the kubelet kills what is left and confirms on its
// next sync) rather than stuck.
const finishingFor = time.Minute

func (r *run) kubeletConfirms(pod *snapshot.Object, end rules.PodEnd, b *Blocker) {
	at, deadline := r.ix.snap.CapturedAt, *pod.Metadata.DeletionTimestamp
	switch {
	case end.Node == "":
		r.note("the snapshot holds no spec for %s: its node is unknown", pod.Ref())
		b.WaitingFor = "its kubelet to confirm that its containers stopped"
		b.RootCause = r.inProgress(pod, "", rules.ActorKubelet, "the kubelet of its node (unknown: the snapshot has no spec for the pod) confirms termination once its containers stop", pod)
	case end.NodeObject == nil:
		r.note("nodes could not be listed: whether node %s is Ready is unknown", end.Node)
		b.WaitingFor = "the kubelet on node " + end.Node + " to confirm that its containers stopped"
		b.RootCause = r.inProgress(pod, "", rules.ActorKubelet, "the kubelet on node "+end.Node+" confirms termination once its containers stop (the node's state is unknown)", pod)
	case end.Ready == "":
		r.note("the snapshot holds no status for %s: whether it is Ready is unknown", end.NodeObject.Ref())
		b.WaitingFor = "the kubelet on node " + end.Node + " to confirm that its containers stopped"
		b.RootCause = r.inProgress(pod, "", rules.ActorKubelet, "the kubelet on node "+end.Node+" confirms termination once its containers stop (the node's Ready condition is unknown)", pod)
	case at.Before(deadline):
		b.WaitingFor = "the kubelet on node " + end.Node + " to stop its containers (grace period ends in " + Age(deadline.Sub(at)) + ")"
		b.RootCause = r.addLeaf(leaf{obj: pod, rc: RootCause{Object: pod.Ref(), Reason: ReasonInProgress, RemovedBy: rules.ActorKubelet, Related: []snapshot.ObjectRef{end.NodeObject.Ref()},
			Message: "it is within its grace period, which ends in " + Age(deadline.Sub(at)) + "; the kubelet on node " + end.Node + " then confirms termination"}}, pod, nil)
	case at.Sub(deadline) < finishingFor:
		// The kubelet stops containers as the grace period ends and
		// confirms on its next sync: a pod seconds past it is finishing.
		b.WaitingFor = "the kubelet on node " + end.Node + " to confirm that its containers stopped"
		b.RootCause = r.addLeaf(leaf{obj: pod, rc: RootCause{Object: pod.Ref(), Reason: ReasonInProgress, RemovedBy: rules.ActorKubelet, Related: []snapshot.ObjectRef{end.NodeObject.Ref()},
			Message: "it is finishing: its grace period ended " + Age(at.Sub(deadline)) + " ago, and the kubelet on node " + end.Node + " confirms termination once its containers have stopped"}}, pod, nil)
	default:
		b.WaitingFor = "the kubelet on node " + end.Node + " to confirm that its containers stopped"
		if r.kubeletRefused(pod, end.Node, b) {
			return
		}
		r.hungVolumes(pod, end.NodeObject, Age(at.Sub(deadline)), b)
	}
}

// kubeletRefused reports a pod past its grace period on a Ready node whose
// kubelet cannot confirm termination because admission refuses it: the
// kubelet writes the pod's final status (an UPDATE of pods/status) and
// then deletes it with grace 0 (a DELETE); a webhook with failurePolicy
// Fail intercepting either, whose backend cannot answer, refuses every
// one, and the pod stays terminating with its containers long stopped.
func (r *run) kubeletRefused(pod *snapshot.Object, node string, b *Blocker) bool {
	var out []Blocker
	for _, w := range r.rejectingWebhooksOn(pod, "", "DELETE") {
		out = append(out, r.webhookBlocker(pod, "DELETE", "the kubelet on node "+node+"'s final DELETE of the pod (grace 0, how it confirms termination)", w, pod))
	}
	for _, w := range r.rejectingWebhooksOn(pod, "status", "UPDATE") {
		out = append(out, r.webhookBlocker(pod, "UPDATE of pods/status", "the kubelet on node "+node+"'s status update of the pod (its final phase, written before it deletes the pod)", w, pod))
	}
	for _, d := range r.denyingPolicies(pod, "DELETE") {
		out = append(out, r.policyBlocker(pod, "DELETE", "the kubelet on node "+node+"'s final DELETE of the pod (grace 0, how it confirms termination)", d, pod, -1))
	}
	if len(out) == 0 {
		return false
	}
	b.WaitingFor = "the kubelet on node " + node + " to confirm termination: admission refuses its requests"
	b.Blockers = append(b.Blockers, out...)
	return true
}

// nodeMissing explains a pod whose node no longer exists: the pod garbage
// collector deletes it after its quarantine, unless it is not running.
func (r *run) nodeMissing(pod *snapshot.Object, end rules.PodEnd, b *Blocker) {
	at, deadline := r.ix.snap.CapturedAt, *pod.Metadata.DeletionTimestamp
	nodeRef := snapshot.ObjectRef{APIVersion: "v1", Kind: "Node", Name: end.Node}
	b.RemovedBy = rules.ActorPodGC
	b.WaitingFor = "the pod garbage collector to delete it: node " + end.Node + " no longer exists"
	msg := "its node " + end.Node + " no longer exists, so no kubelet will confirm termination; the pod garbage collector deletes pods of missing nodes after a 40s quarantine"
	reason := ReasonInProgress
	if at.Sub(deadline) > staleAfter {
		reason = ReasonNodeMissing
		msg += fmt.Sprintf(", yet it is still here %s past its grace period: the pod garbage collector (kube-controller-manager) is probably not running", Age(at.Sub(deadline)))
	}
	b.RootCause = r.addLeaf(leaf{obj: pod, rc: RootCause{Object: pod.Ref(), Reason: reason, RemovedBy: rules.ActorPodGC, Message: msg, Related: []snapshot.ObjectRef{nodeRef}}}, pod, nil)
}

// pvc explains kubernetes.io/pvc-protection: removed once no scheduled pod
// (any phase) references the claim and no scheduled pod that is not shut
// down uses it as a generic ephemeral volume (podUsesPVCForDeletion in
// pkg/controller/volume/pvcprotection).
func (r *run) pvc(claim *snapshot.Object, b *Blocker) {
	var users []*snapshot.Object
	for _, o := range r.ix.inNamespace(claim.Metadata.Namespace) {
		if !isKind(o, "", "Pod") {
			continue
		}
		uses, known := rules.PodUsesClaim(o, claim.Metadata.Name)
		if !known {
			r.note("the snapshot holds no spec for %s: whether it uses %s is unknown", o.Ref(), claim.Ref())
		}
		if uses {
			users = append(users, o)
		}
	}
	if !r.ix.listed("", "Pod") {
		r.note("pods could not be listed: pods using %s are unknown", claim.Ref())
	}
	if len(users) == 0 {
		b.WaitingFor = "the pvc-protection controller to see that no pod uses the claim"
		b.RootCause = r.inProgress(claim, rules.FinalizerPVC, rules.ActorPVCProtection, "no scheduled pod uses the claim: the pvc-protection controller removes the finalizer on its next pass", claim)
		return
	}
	b.WaitingFor = plural(len(users), "pod") + " that " + words.Agree(len(users), "uses", "use") + " the claim to be gone (a scheduled pod counts whatever its phase)"
	b.Objects = refsOf(users)
	for _, p := range users {
		if p.Terminating() {
			b.Blockers = append(b.Blockers, r.explainHeld(p, claim, nil)...)
			continue
		}
		phase := ""
		if f := rules.PodFacts(p); f != nil && f.Phase != "" {
			phase = " (phase " + f.Phase + ")"
		}
		nb := Blocker{Object: p.Ref(), WaitingFor: "someone to delete it: it still uses " + claim.Ref().String()}
		nb.RootCause = r.addLeaf(leaf{obj: p, rc: RootCause{Object: p.Ref(), Reason: ReasonClaimInUse, Related: []snapshot.ObjectRef{claim.Ref()},
			Message: "pod " + p.Metadata.Name + phase + " still uses claim " + claim.Metadata.Name + " and is not being deleted; the pvc-protection controller keeps the claim while any scheduled pod references it"}}, claim, nil)
		b.Blockers = append(b.Blockers, nb)
	}
}

// pv explains kubernetes.io/pv-protection: removed once the volume is no
// longer Bound.
func (r *run) pv(vol *snapshot.Object, b *Blocker) {
	var facts *snapshot.PVFacts
	if vol.Facts != nil {
		facts = vol.Facts.PV
	}
	b.RemovedBy = rules.ActorPVProtection
	if facts == nil || facts.Phase != "Bound" {
		if facts == nil {
			r.note("the snapshot holds no status for %s: its phase is unknown", vol.Ref())
		}
		b.WaitingFor = "the pv-protection controller to see that the volume is not Bound"
		b.RootCause = r.inProgress(vol, rules.FinalizerPV, rules.ActorPVProtection, "the volume is not Bound: the pv-protection controller removes the finalizer on its next pass", vol)
		return
	}
	b.WaitingFor = "the volume to be released by its claim"
	claim := rules.PVBoundClaim(vol, func(ns, name string) *snapshot.Object {
		return r.ix.byName("", "PersistentVolumeClaim", ns, name)
	})
	if claim == nil {
		b.RootCause = r.inProgress(vol, rules.FinalizerPV, rules.ActorPVController,
			"the volume is Bound to a claim that no longer exists: the persistentvolume controller releases it, then the pv-protection controller removes the finalizer", vol)

		return
	}
	b.Objects = []snapshot.ObjectRef{claim.Ref()}
	if claim.Terminating() {
		b.Blockers = append(b.Blockers, r.explainHeld(claim, vol, nil)...)
		return
	}
	nb := Blocker{Object: claim.Ref(), WaitingFor: "someone to delete it: it keeps " + vol.Ref().String() + " Bound"}
	nb.RootCause = r.addLeaf(leaf{obj: claim, rc: RootCause{Object: claim.Ref(), Reason: ReasonVolumeBound, Related: []snapshot.ObjectRef{vol.Ref()},
		Message: "claim " + claim.Metadata.Name + " is not being deleted and keeps volume " + vol.Metadata.Name + " Bound; the pv-protection controller keeps a Bound volume"}}, vol, nil)
	b.Blockers = append(b.Blockers, nb)
}

// workloadKinds are where a controller runs.
var workloadKinds = [][2]string{{"apps", "Deployment"}, {"apps", "StatefulSet"}, {"apps", "DaemonSet"}, {"", "Pod"}}

// matchingWorkloads returns the workloads matching a domain's tokens, and
// pods only when no workload matches (a matching workload already names
// the controller). A cluster-wide diagnosis asks for the same domain for
// every object carrying its finalizer, so answers are kept.
func (d *Diagnoser) matchingWorkloads(domain string, tokens []string) []*snapshot.Object {
	if m, ok := d.workloads[domain]; ok {
		return m
	}
	var out []*snapshot.Object
	for _, gk := range workloadKinds {
		if gk[1] == "Pod" && len(out) > 0 {
			break
		}
		for _, w := range d.ix.ofKind(gk[0], gk[1]) {
			if matchesTokens(w, tokens) {
				out = append(out, w)
			}
		}
	}
	d.workloads[domain] = out
	return out
}

func matchesTokens(w *snapshot.Object, tokens []string) bool {
	hay := []string{strings.ToLower(w.Metadata.Name), strings.ToLower(w.Metadata.Namespace)}
	for _, v := range w.Metadata.Labels {
		hay = append(hay, strings.ToLower(v))
	}
	for _, t := range tokens {
		for _, h := range hay {
			if strings.Contains(h, t) {
				return true
			}
		}
	}
	return false
}

func logsTarget(w *snapshot.Object) string {
	t := strings.ToLower(w.Kind) + "/" + w.Metadata.Name
	if w.Kind == "Pod" {
		t = w.Metadata.Name
	}
	return t + " -n " + w.Metadata.Namespace
}

// loadBalancer explains service.kubernetes.io/load-balancer-cleanup: only
// the cloud provider's service controller removes it, after deleting the
// cloud load balancer. Clusters without a cloud-controller-manager (kind,
// bare metal, a removed cloud provider) never do.
func (r *run) loadBalancer(o *snapshot.Object, info rules.FinalizerInfo, b *Blocker) {
	b.WaitingFor = info.Condition
	b.Attribution = &Attribution{Evidence: EvidenceWellKnown, Confidence: ConfidenceHigh, Controller: info.RemovedBy, Detail: wellKnownDetail(rules.FinalizerLB, info)}
	rc := RootCause{Object: o.Ref(), Finalizer: rules.FinalizerLB, RemovedBy: info.RemovedBy, Attribution: b.Attribution}
	var extra []Remedy
	var live []*snapshot.Object
	for _, w := range r.d.matchingWorkloads("cloud-controller-manager", []string{"cloud-controller-manager"}) {
		if !w.Terminating() {
			live = append(live, w)
		}
	}
	if len(live) > 0 {
		rc.Reason = ReasonControllerPending
		rc.Related = refsOf(live)
		rc.Message = r.staleMsg(o, "the cloud-controller-manager ("+live[0].Ref().String()+") removes it once the cloud load balancer is deleted; its logs say whether the cloud API refuses", info.RemovedBy)
		extra = append(extra, Remedy{Action: ActionFixController, Description: "Read the logs of " + live[0].Ref().String() + " about this Service",
			Command: "kubectl logs " + logsTarget(live[0]) + " --tail=200 | grep -i " + o.Metadata.Name})
	} else {
		rc.Reason = ReasonControllerUnknown
		rc.Message = "no cloud-controller-manager runs in the cluster as far as the snapshot shows: on managed clusters it runs outside it and will remove the finalizer; on clusters without a cloud provider (kind, bare metal, a removed provider) nothing ever will"
		extra = append(extra, Remedy{Action: ActionFixController, Description: "Check whether a cloud provider manages this cluster's load balancers, and whether the load balancer still exists in the cloud console",
			Command: "kubectl get events -n " + o.Metadata.Namespace + " --field-selector involvedObject.name=" + o.Metadata.Name})
	}
	b.RootCause = r.addLeaf(leaf{obj: o, rc: rc, extra: extra}, o, nil)
}

// staleMsg appends, once o has waited past staleAfter, that its actor is
// probably not running or failing.
func (r *run) staleMsg(o *snapshot.Object, msg, actor string) string {
	if age, stale := r.staleFor(o); stale {
		msg += fmt.Sprintf("; it has been %s since %s was deleted, so the %s is probably not running or failing: check its logs", Age(age), o.Ref(), actor)
	}
	return msg
}
