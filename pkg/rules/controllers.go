package rules

import (
	"slices"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// TaintOutOfService marks a node that is shut down: the pod garbage
// collector then force-deletes its terminating pods.
const TaintOutOfService = "node.kubernetes.io/out-of-service"

// PodGCQuarantine is how long the pod garbage collector waits before it
// deletes the pods of a node that no longer exists (gcOrphaned).
const PodGCQuarantine = 40 * time.Second

// Finisher is who ends a pod's graceful termination.
type Finisher int

const (
	// NotGraceful: the pod is not in graceful termination (not being
	// deleted, or its grace period is already 0): only its finalizers
	// hold it.
	NotGraceful Finisher = iota
	// Kubelet: the kubelet of its node confirms termination once the grace
	// period is over (also when the node's state is unknown: a kubelet is
	// assumed there).
	Kubelet
	// PodGCUnscheduled: the pod was never scheduled; the pod garbage
	// collector deletes it at once (gcUnscheduledTerminating).
	PodGCUnscheduled
	// PodGCOrphaned: its node no longer exists; the pod garbage collector
	// deletes it after PodGCQuarantine (gcOrphaned).
	PodGCOrphaned
	// PodGCOutOfService: its node is not Ready and tainted out-of-service;
	// the pod garbage collector force-deletes it (gcTerminating).
	PodGCOutOfService
	// Nobody: its node is not Ready: no kubelet confirms, and the pod
	// garbage collector waits for the out-of-service taint.
	Nobody
)

// PodEnd is how a pod's graceful termination ends.
type PodEnd struct {
	Finisher Finisher
	// Node is the pod's node name ("" when unscheduled or unknown), and
	// NodeObject the Node found, if any.
	Node       string
	NodeObject *snapshot.Object
	// Ready is the node's Ready condition status; "" when unknown.
	Ready string
	// Unknown says what kgc assumed for Kubelet: "" when the pod's node
	// is known Ready, else what was missing from the input.
	Unknown string
}

// NodeLookup finds a Node by name; listed says whether Nodes were listed,
// so that a missing node is known to be gone.
type NodeLookup func(name string) (node *snapshot.Object, listed bool)

// PodTermination decides who ends pod's graceful termination: its kubelet
// on a Ready node (pkg/kubelet), or the pod garbage collector
// (pkg/controller/podgc: gcUnscheduledTerminating, gcOrphaned,
// gcTerminating), or nobody while its node is not Ready.
func PodTermination(pod *snapshot.Object, nodes NodeLookup) PodEnd {
	g := pod.Metadata.DeletionGracePeriodSeconds
	if !pod.Terminating() || g == nil || *g == 0 {
		return PodEnd{Finisher: NotGraceful}
	}
	f := PodFacts(pod)
	if f == nil {
		return PodEnd{Finisher: Kubelet, Unknown: "the input has no spec for the pod: its node is unknown"}
	}
	if f.NodeName == "" {
		return PodEnd{Finisher: PodGCUnscheduled}
	}
	end := PodEnd{Node: f.NodeName}
	node, listed := nodes(f.NodeName)
	switch {
	case node == nil && !listed:
		end.Finisher, end.Unknown = Kubelet, "nodes were not listed: whether node "+f.NodeName+" is Ready is unknown"
		return end
	case node == nil:
		end.Finisher = PodGCOrphaned
		return end
	}
	end.NodeObject = node
	var taints []string
	if node.Facts != nil && node.Facts.Node != nil {
		end.Ready, taints = node.Facts.Node.Ready, node.Facts.Node.Taints
	}
	switch {
	case end.Ready == "":
		end.Finisher, end.Unknown = Kubelet, "the input has no status for node "+f.NodeName+": whether it is Ready is unknown"
	case end.Ready == "True":
		end.Finisher = Kubelet
	case HasTaint(taints, TaintOutOfService):
		end.Finisher = PodGCOutOfService
	default:
		end.Finisher = Nobody
	}
	return end
}

// PodDeleteGrace is the grace period a DELETE of pod gets (the pod
// strategy's CheckGracefulDelete): the requested one, else the pod's
// terminationGracePeriodSeconds (30 by default); 0 for a pod that is not
// scheduled or has finished, since no kubelet has to stop it, and for a pod
// the input has no spec for (treated as unscheduled); a negative one
// becomes 1.
func PodDeleteGrace(pod *snapshot.Object, requested *int64) int64 {
	f := PodFacts(pod)
	var p int64
	switch {
	case requested != nil:
		p = *requested
	case f != nil && f.TerminationGracePeriodSeconds != nil:
		p = *f.TerminationGracePeriodSeconds
	case f != nil:
		p = 30 // defaulted by pkg/apis/core/v1/defaults.go
	}
	if f == nil || f.NodeName == "" || f.Phase == "Succeeded" || f.Phase == "Failed" {
		p = 0
	}
	if p < 0 {
		p = 1
	}
	return p
}

// HasTaint reports whether taints ("key", "key=value:effect" or
// "key:effect", as the snapshot keeps them) include key.
func HasTaint(taints []string, key string) bool {
	for _, t := range taints {
		if t == key || strings.HasPrefix(t, key+":") || strings.HasPrefix(t, key+"=") {
			return true
		}
	}
	return false
}

// PodIsShutDown: the kubelet is done with the pod, or it was
// force-deleted (podIsShutDown in pkg/controller/volume/pvcprotection).
func PodIsShutDown(pod *snapshot.Object) bool {
	g := pod.Metadata.DeletionGracePeriodSeconds
	return pod.Terminating() && g != nil && *g == 0
}

// PodUsesClaim is podUsesPVC of the pvc-protection controller: only a
// scheduled pod counts (the kubelet never starts a pod on a deleting
// claim), through a persistentVolumeClaim volume whatever its phase, or
// through a generic ephemeral volume unless the pod is shut down. known is
// false when the input has no spec for the pod.
func PodUsesClaim(pod *snapshot.Object, claim string) (uses, known bool) {
	f := PodFacts(pod)
	if f == nil {
		return false, false
	}
	if f.NodeName == "" {
		return false, true
	}
	return slices.Contains(f.Claims, claim) || (!PodIsShutDown(pod) && slices.Contains(f.EphemeralClaims, claim)), true
}

// ClaimLookup finds a PersistentVolumeClaim by namespace and name.
type ClaimLookup func(namespace, name string) *snapshot.Object

// PVBoundClaim returns the claim that keeps vol Bound, or nil: the
// pv-protection controller removes its finalizer once the volume is not
// Bound, and a volume Bound to a claim that no longer exists is released
// by the persistentvolume controller.
func PVBoundClaim(vol *snapshot.Object, claims ClaimLookup) *snapshot.Object {
	if vol.Facts == nil || vol.Facts.PV == nil || vol.Facts.PV.Phase != "Bound" || vol.Facts.PV.ClaimRef == nil {
		return nil
	}
	cr := vol.Facts.PV.ClaimRef
	c := claims(cr.Namespace, cr.Name)
	if c == nil || (cr.UID != "" && cr.UID != c.Metadata.UID) {
		return nil
	}
	return c
}

// JobTrackingDone reports whether the Job controller removes the tracking
// finalizer of pod: the pod is terminating or finished, or no running Job
// controls it any more. job finds an object by UID.
func JobTrackingDone(pod *snapshot.Object, job func(uid string) *snapshot.Object) bool {
	if pod.Terminating() {
		return true
	}
	if f := PodFacts(pod); f != nil && (f.Phase == "Succeeded" || f.Phase == "Failed") {
		return true
	}
	ctrl := JobOwner(pod)
	if ctrl == nil {
		return true
	}
	j := job(ctrl.UID)
	return j == nil || j.Terminating() || (j.Facts != nil && j.Facts.Job != nil && j.Facts.Job.Finished)
}

// JobOwner returns pod's controller reference when it names a batch/v1
// Job, else nil: the Job whose controller tracks the pod. A change of
// that Job is what makes the Job controller look at the pod again.
func JobOwner(pod *snapshot.Object) *snapshot.OwnerReference {
	var ctrl *snapshot.OwnerReference
	for k := range pod.Metadata.OwnerReferences {
		if pod.Metadata.OwnerReferences[k].IsController() {
			ctrl = &pod.Metadata.OwnerReferences[k]
		}
	}
	if ctrl == nil || ctrl.Kind != "Job" || ctrl.APIVersion != "batch/v1" {
		return nil
	}
	return ctrl
}

// PodFacts returns a pod's facts, or nil when the input has no spec for it.
func PodFacts(o *snapshot.Object) *snapshot.PodFacts {
	if o.Facts == nil {
		return nil
	}
	return o.Facts.Pod
}
