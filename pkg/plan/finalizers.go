// Package plan simulates deletions the way the Kubernetes API server and
// the kube-controller-manager garbage collector carry them out, and
// diagnoses why a deletion is stuck. It is a pure function of a snapshot:
// no cluster access, no clock, no randomness, so a plan is the same every
// time for the same input. The rules it follows are traced to upstream in
// docs/gc-semantics.md (and docs/architecture.md).
package plan

import "strings"

// Finalizer names the garbage collector and the API server use.
const (
	FinalizerOrphan     = "orphan"             // metav1.FinalizerOrphanDependents
	FinalizerForeground = "foregroundDeletion" // metav1.FinalizerDeleteDependents
	// FinalizerNamespace is the Namespace spec.finalizers entry the
	// namespace controller removes through /finalize.
	FinalizerNamespace = "kubernetes"
	FinalizerCRD       = "customresourcecleanup.apiextensions.k8s.io"
	FinalizerPVC       = "kubernetes.io/pvc-protection"
	FinalizerPV        = "kubernetes.io/pv-protection"
	FinalizerVAC       = "kubernetes.io/vac-protection"
	FinalizerJob       = "batch.kubernetes.io/job-tracking"
	FinalizerLB        = "service.kubernetes.io/load-balancer-cleanup"
	FinalizerPVCtrl    = "kubernetes.io/pv-controller"
	FinalizerExtProv   = "external-provisioner.volume.kubernetes.io/finalizer"
	FinalizerDRA       = "resource.kubernetes.io/delete-protection"
	FinalizerSvcCIDR   = "networking.k8s.io/service-cidr-finalizer"
)

// Actor names used in plan steps and diagnoses.
const (
	ActorAPIServer = "apiserver"
	ActorGC        = "garbagecollector"
	ActorNamespace = "namespace-controller"
	ActorKubelet   = "kubelet"
	ActorUnknown   = "unknown"
)

// FinalizerInfo says who removes a finalizer and when (spec section 5).
type FinalizerInfo struct {
	Name string
	// RemovedBy is the controller that removes it: an Actor* constant or a
	// well-known controller name.
	RemovedBy string
	// Condition is the removal condition in words, for people.
	Condition string
	// Risk says what removing the finalizer by hand skips.
	Risk string
	// WellKnown is false for finalizers kgc only guesses about.
	WellKnown bool
}

var wellKnownFinalizers = map[string]FinalizerInfo{
	FinalizerOrphan: {RemovedBy: ActorGC, WellKnown: true,
		Condition: "the garbage collector has removed this object's owner reference from every dependent it has observed",
		Risk:      "dependents keep an owner reference to a deleted object and are then garbage collected as dangling instead of orphaned"},
	FinalizerForeground: {RemovedBy: ActorGC, WellKnown: true,
		Condition: "no dependent has an owner reference to it with blockOwnerDeletion=true (terminating dependents still count)",
		Risk:      "the owner disappears before its dependents; the garbage collector then deletes them in the background"},
	FinalizerNamespace: {RemovedBy: ActorNamespace, WellKnown: true,
		Condition: "every namespaced object in the namespace is gone",
		Risk:      "objects left in the namespace become invisible orphans in etcd and reappear if a namespace of the same name is created"},
	FinalizerCRD: {RemovedBy: "apiextensions-apiserver crd-finalizer", WellKnown: true,
		Condition: "every instance of the custom resource is gone",
		Risk:      "instances stay in etcd and reappear if the CRD is recreated; their controllers' cleanup never runs"},
	FinalizerPVC: {RemovedBy: "pvc-protection-controller", WellKnown: true,
		Condition: "no scheduled pod uses the claim (any phase) and no running pod owns it as an ephemeral volume",
		Risk:      "a pod still mounting the volume can lose its data or fail"},
	FinalizerPV: {RemovedBy: "pv-protection-controller", WellKnown: true,
		Condition: "the volume is no longer Bound to a claim",
		Risk:      "the claim bound to it is left pointing at a deleted volume"},
	FinalizerVAC: {RemovedBy: "vac-protection-controller", WellKnown: true,
		Condition: "no PersistentVolume or PersistentVolumeClaim references the VolumeAttributesClass",
		Risk:      "volumes referencing the class can no longer be modified"},
	FinalizerJob: {RemovedBy: "job-controller", WellKnown: true,
		Condition: "the Job is deleted or finished, or the pod succeeded or failed, or the pod is an orphan",
		Risk:      "the Job's success and failure counts miss this pod"},
	FinalizerLB: {RemovedBy: "service-controller (cloud-controller-manager)", WellKnown: true,
		Condition: "the cloud load balancer has been deleted",
		Risk:      "the cloud load balancer leaks and keeps costing money"},
	FinalizerPVCtrl: {RemovedBy: "persistentvolume-controller", WellKnown: true,
		Condition: "the backing volume has been deleted (reclaimPolicy Delete), or the reclaim policy changed to Retain",
		Risk:      "the backing storage volume leaks"},
	FinalizerExtProv: {RemovedBy: "external CSI provisioner", WellKnown: true,
		Condition: "the CSI driver has deleted the backing volume",
		Risk:      "the backing storage volume leaks"},
	FinalizerDRA: {RemovedBy: "resourceclaim-controller", WellKnown: true,
		Condition: "the claim is deallocated (no pod uses it any more)",
		Risk:      "a device still in use by a pod may be handed to another"},
	FinalizerSvcCIDR: {RemovedBy: "servicecidrs-controller", WellKnown: true,
		Condition: "no Service IP depends only on this ServiceCIDR",
		Risk:      "Services keep IPs from a range that no longer exists"},
}

// LookupFinalizer describes a finalizer. Unknown finalizers get the
// controller guessed from the finalizer's domain (for example
// "example.com/cleanup" → "the example.com controller"), marked not well known.
func LookupFinalizer(name string) FinalizerInfo {
	if fi, ok := wellKnownFinalizers[name]; ok {
		fi.Name = name
		return fi
	}
	domain := name
	if i := strings.Index(name, "/"); i >= 0 {
		domain = name[:i]
	}
	by := ActorUnknown
	if domain != name || strings.Contains(domain, ".") {
		by = "the " + domain + " controller"
	}
	return FinalizerInfo{
		Name:      name,
		RemovedBy: by,
		Condition: "its controller has finished its cleanup",
		Risk:      "the cleanup the " + domain + " controller does for this object (external resources, dependent state) is skipped",
	}
}

// FinalizerDomain returns the part of a finalizer before "/" ("" when none):
// the usual way a third-party controller namespaces its finalizers.
func FinalizerDomain(name string) string {
	if i := strings.Index(name, "/"); i >= 0 {
		return name[:i]
	}
	return ""
}
