package rules

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
	// The controllers that finish deletions, named alike in plan steps
	// and in diagnoses.
	ActorPodGC         = "pod-garbage-collector"
	ActorPVCProtection = "pvc-protection-controller"
	ActorPVProtection  = "pv-protection-controller"
	ActorPVController  = "persistentvolume-controller"
	ActorJob           = "job-controller"
	// ActorCRDFinalizer runs in the API server (apiextensions-apiserver),
	// not in kube-controller-manager.
	ActorCRDFinalizer = "apiextensions-apiserver crd-finalizer"
	// The controllers that create what a delete removes again, when its
	// owner survives (recreate.go).
	ActorDeployment            = "deployment-controller"
	ActorReplicaSet            = "replicaset-controller"
	ActorReplicationController = "replicationcontroller-controller"
	ActorStatefulSet           = "statefulset-controller"
	ActorDaemonSet             = "daemonset-controller"
	ActorCronJob               = "cronjob-controller"
	ActorRootCAPublisher       = "root-ca-cert-publisher"
	ActorServiceAccount        = "serviceaccount-controller"
	ActorEndpointSlice         = "endpointslice-controller"
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
	// Ecosystem is true for a well-known finalizer of a project installed
	// into clusters (Argo CD, Flux, ...), whose controller runs as a
	// workload kgc can look for; false for Kubernetes' own.
	Ecosystem bool
	// Workloads are the names under which the controller is published
	// (its Deployment or StatefulSet, its app.kubernetes.io/name label),
	// for an ecosystem finalizer; empty when they vary with the install
	// (a Crossplane provider is found through its CRDs' owner instead).
	Workloads []string
	// Source is where kgc's knowledge of the finalizer comes from.
	Source string
	// Project is the well-known project whose domain the finalizer
	// carries (Projects), nil when none.
	Project *Project
	// ByDomain is true when only the project table's domain names the
	// finalizer's controller (not kgc's knowledge of the exact name):
	// evidence in the input (the CRD's owner, RBAC, labels) comes first.
	ByDomain bool
}

// wellKnownFinalizer describes the finalizers whose controller kgc knows.
func wellKnownFinalizer(name string) (FinalizerInfo, bool) {
	switch name {
	case FinalizerOrphan:
		return FinalizerInfo{RemovedBy: ActorGC, WellKnown: true,
			Condition: "the garbage collector has removed this object's owner reference from every dependent it has observed",
			Risk:      "dependents keep an owner reference to a deleted object and are then garbage collected as dangling instead of orphaned"}, true
	case FinalizerForeground:
		return FinalizerInfo{RemovedBy: ActorGC, WellKnown: true,
			Condition: "no dependent has an owner reference to it with blockOwnerDeletion=true (terminating dependents still count)",
			Risk:      "the owner disappears before its dependents; the garbage collector then deletes them in the background"}, true
	case FinalizerNamespace:
		return FinalizerInfo{RemovedBy: ActorNamespace, WellKnown: true,
			Condition: "every namespaced object in the namespace is gone",
			Risk:      "objects left in the namespace become invisible orphans in etcd and reappear if a namespace of the same name is created"}, true
	case FinalizerCRD:
		return FinalizerInfo{RemovedBy: ActorCRDFinalizer, WellKnown: true,
			Condition: "every instance of the custom resource is gone",
			Risk:      "instances stay in etcd and reappear if the CRD is recreated; their controllers' cleanup never runs"}, true
	case FinalizerPVC:
		return FinalizerInfo{RemovedBy: ActorPVCProtection, WellKnown: true,
			Condition: "no scheduled pod uses the claim (any phase) and no running pod owns it as an ephemeral volume",
			Risk:      "a pod still mounting the volume can lose its data or fail"}, true
	case FinalizerPV:
		return FinalizerInfo{RemovedBy: ActorPVProtection, WellKnown: true,
			Condition: "the volume is no longer Bound to a claim",
			Risk:      "the claim bound to it is left pointing at a deleted volume"}, true
	case FinalizerVAC:
		return FinalizerInfo{RemovedBy: "vac-protection-controller", WellKnown: true,
			Condition: "no PersistentVolume or PersistentVolumeClaim references the VolumeAttributesClass",
			Risk:      "volumes referencing the class can no longer be modified"}, true
	case FinalizerJob:
		return FinalizerInfo{RemovedBy: ActorJob, WellKnown: true,
			Condition: "the Job is deleted or finished, or the pod succeeded or failed, or the pod is an orphan",
			Risk:      "the Job's success and failure counts miss this pod"}, true
	case FinalizerLB:
		return FinalizerInfo{RemovedBy: "service-controller (cloud-controller-manager)", WellKnown: true,
			Condition: "the cloud load balancer has been deleted",
			Risk:      "the cloud load balancer leaks and keeps costing money"}, true
	case FinalizerPVCtrl:
		return FinalizerInfo{RemovedBy: ActorPVController, WellKnown: true,
			Condition: "the backing volume has been deleted (reclaimPolicy Delete), or the reclaim policy changed to Retain",
			Risk:      "the backing storage volume leaks"}, true
	case FinalizerExtProv:
		return FinalizerInfo{RemovedBy: "external CSI provisioner", WellKnown: true,
			Condition: "the CSI driver has deleted the backing volume",
			Risk:      "the backing storage volume leaks"}, true
	case FinalizerDRA:
		return FinalizerInfo{RemovedBy: "resourceclaim-controller", WellKnown: true,
			Condition: "the claim is deallocated (no pod uses it any more)",
			Risk:      "a device still in use by a pod may be handed to another"}, true
	case FinalizerSvcCIDR:
		return FinalizerInfo{RemovedBy: "servicecidrs-controller", WellKnown: true,
			Condition: "no Service IP depends only on this ServiceCIDR",
			Risk:      "Services keep IPs from a range that no longer exists"}, true
	}
	return FinalizerInfo{}, false
}

// ecosystemFinalizer describes the finalizers of widely installed projects,
// each from the project's own source. Group is the group of the object
// carrying it, for projects whose controllers split by group (Flux).
func ecosystemFinalizer(name, group string) (FinalizerInfo, bool) {
	eco := func(by, cond, risk, source string, workloads ...string) (FinalizerInfo, bool) {
		return FinalizerInfo{RemovedBy: by, Condition: cond, Risk: risk, WellKnown: true, Ecosystem: true, Workloads: workloads, Source: source}, true
	}
	switch {
	case name == "resources-finalizer.argocd.argoproj.io" || strings.HasPrefix(name, "resources-finalizer.argocd.argoproj.io/"):
		// argoproj/argo-cd pkg/apis/application/v1alpha1: ResourcesFinalizerName
		// (and its /foreground and /background variants).
		return eco("Argo CD application controller", "it has deleted the Application's managed resources",
			"the Application's resources stay in the cluster, no longer managed",
			"Argo CD, pkg/apis/application/v1alpha1 ResourcesFinalizerName", "argocd-application-controller")
	case name == "finalizers.fluxcd.io":
		// fluxcd kustomize-controller api/v1 KustomizationFinalizer,
		// helm-controller, source-controller, notification-controller.
		for _, c := range []struct{ group, ctrl string }{
			{"kustomize.toolkit.fluxcd.io", "kustomize-controller"}, {"helm.toolkit.fluxcd.io", "helm-controller"},
			{"source.toolkit.fluxcd.io", "source-controller"}, {"notification.toolkit.fluxcd.io", "notification-controller"},
			{"image.toolkit.fluxcd.io", "image-reflector-controller"},
		} {
			if group == c.group {
				return eco("Flux "+c.ctrl, "it has finished the object's cleanup (garbage-collecting what it applied, uninstalling a release)",
					"what Flux applied or installed for this object is left behind", "Flux, fluxcd/"+c.ctrl+" api: finalizers.fluxcd.io", c.ctrl)
			}
		}
		return eco("a Flux controller", "it has finished the object's cleanup", "what Flux applied or installed for this object is left behind",
			"Flux toolkit APIs: finalizers.fluxcd.io", "kustomize-controller", "helm-controller", "source-controller", "notification-controller", "image-reflector-controller", "image-automation-controller")
	case name == "finalizer.managedresource.crossplane.io":
		// crossplane/crossplane-runtime pkg/reconciler/managed: managedFinalizerName.
		return eco("the Crossplane provider serving this resource", "the provider has deleted the external resource (deletionPolicy Delete) or orphaned it",
			"the external (cloud) resource is left behind, unmanaged", "Crossplane, crossplane-runtime pkg/reconciler/managed managedFinalizerName")
	case name == "service.k8s.aws/resources", name == "ingress.k8s.aws/resources", name == "elbv2.k8s.aws/resources",
		name == "gateway.k8s.aws/nlb", name == "gateway.k8s.aws/alb", strings.HasPrefix(name, "group.ingress.k8s.aws/"):
		// kubernetes-sigs/aws-load-balancer-controller pkg/shared_constants
		// and controllers/elbv2 (targetGroupBindingFinalizer).
		return eco("AWS Load Balancer Controller", "it has deleted the AWS load balancer resources it created for the object",
			"the AWS load balancer, target groups or security group rules leak and keep costing money",
			"kubernetes-sigs/aws-load-balancer-controller pkg/shared_constants", "aws-load-balancer-controller")
	case name == "finalizer.acme.cert-manager.io":
		// cert-manager: the ACME Challenge finalizer (its own release notes
		// and cmctl's uninstall steps name it).
		return eco("cert-manager controller", "it has cleaned up the ACME challenge (solver pods, DNS records)",
			"ACME solver resources (a DNS TXT record, solver pods) may be left behind", "cert-manager, acme.cert-manager.io Challenge finalizer", "cert-manager")
	case name == "restores.velero.io/external-resources-finalizer":
		// vmware-tanzu/velero pkg/controller: ExternalResourcesFinalizer,
		// which the Velero server's restore finalizer controller removes.
		return eco("Velero server", "it has deleted what the restore left in backup storage",
			"the restore's files in backup storage are left behind", "Velero, pkg/controller ExternalResourcesFinalizer", "velero")
	case name == "kubevirt.io/virtualMachineControllerFinalize":
		// kubevirt/kubevirt api core/v1: VirtualMachineControllerFinalizer,
		// removed by virt-controller once the VirtualMachine's instance is
		// handled.
		return eco("KubeVirt virt-controller", "it has stopped and cleaned up the virtual machine's instance",
			"the virtual machine's instance and its pod may be left running", "KubeVirt, api core/v1 VirtualMachineControllerFinalizer", "virt-controller")
	case name == "istio-finalizer.install.istio.io":
		// istio/istio operator/pkg/controller/istiocontrolplane: the
		// in-cluster operator's finalizer on IstioOperator resources (the
		// in-cluster operator was removed in Istio 1.24: where none runs,
		// nothing removes it).
		return eco("the in-cluster Istio operator", "it has uninstalled the control plane the IstioOperator installed",
			"the Istio control plane components it installed are left behind", "Istio, operator/pkg/controller/istiocontrolplane finalizer", "istio-operator")
	case group == "ceph.rook.io" && name == rookFinalizer(name):
		// rook/rook pkg/operator/ceph/controller/finalizer.go:
		// buildFinalizerName(kind) = lower(kind) + ".ceph.rook.io".
		return eco("Rook Ceph operator", "it has cleaned up the Ceph resources behind the object (pools, filesystems, the cluster's daemons)",
			"Ceph pools, filesystems or daemons, and their data on disk, are left behind", "Rook, pkg/operator/ceph/controller/finalizer.go buildFinalizerName", "rook-ceph-operator")
	case strings.HasPrefix(name, "external-attacher/"):
		// kubernetes-csi/external-attacher pkg/attacher: GetFinalizerName(driver).
		driver := strings.TrimPrefix(name, "external-attacher/")
		return eco("the CSI external-attacher of driver "+driver, "the volume is detached from the node",
			"the volume may stay attached to a node", "kubernetes-csi/external-attacher GetFinalizerName")
	}
	return FinalizerInfo{}, false
}

// LookupFinalizer describes a finalizer. Unknown finalizers get a remover
// that says it is not identified, with the finalizer's domain (for example
// "example.com/cleanup" → "an unidentified controller of example.com"): a
// label for plan steps, not evidence (why-stuck names controllers on
// evidence only).
func LookupFinalizer(name string) FinalizerInfo { return LookupFinalizerOn(name, "") }

// LookupFinalizerOn is LookupFinalizer for a finalizer on an object of
// group, which names the controller more precisely where a project splits
// its controllers by group.
func LookupFinalizerOn(name, group string) FinalizerInfo {
	if fi, ok := wellKnownFinalizer(name); ok {
		fi.Name = name
		if fi.Source == "" {
			fi.Source = "Kubernetes"
		}
		return fi
	}
	if fi, ok := ecosystemFinalizer(name, group); ok {
		fi.Name = name
		if p, ok := ProjectOf(name); ok {
			fi.Project = &p
		}
		return fi
	}
	if p, ok := ProjectOf(name); ok {
		return FinalizerInfo{Name: name, RemovedBy: p.Controller, Condition: "it has finished its cleanup of the object",
			Risk:      "the cleanup " + p.Name + " does for this object (external resources, dependent state) is skipped",
			WellKnown: true, Ecosystem: true, Source: p.Name + ", " + p.Source, Project: &p, ByDomain: true}
	}
	domain := name
	if i := strings.Index(name, "/"); i >= 0 {
		domain = name[:i]
	}
	by := ActorUnknown
	if domain != name || strings.Contains(domain, ".") {
		// Named after its domain, never after a guess: why-stuck looks
		// for the evidence of who runs it (diagnose's attribution).
		by = "an unidentified controller of " + domain
	}
	return FinalizerInfo{
		Name:      name,
		RemovedBy: by,
		Condition: "its controller has finished its cleanup",
		Risk:      "the cleanup its controller does for this object (external resources, dependent state) is skipped",
	}
}

// rookFinalizer returns name when it has the shape of Rook's Ceph
// finalizers (lower-case kind, then ".ceph.rook.io"), else "".
func rookFinalizer(name string) string {
	kind, ok := strings.CutSuffix(name, ".ceph.rook.io")
	if !ok || kind == "" || strings.ContainsAny(kind, "./") {
		return ""
	}
	return name
}

// FinalizerDomain returns the part of a finalizer before "/" ("" when none):
// the usual way a third-party controller namespaces its finalizers.
func FinalizerDomain(name string) string {
	if i := strings.Index(name, "/"); i >= 0 {
		return name[:i]
	}
	return ""
}
