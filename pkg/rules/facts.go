package rules

// Which kinds carry facts: what kgc reads of an object beyond its
// metadata, from its spec or status. A live capture lists these kinds in
// full (every other kind as metadata only), and the reader
// (pkg/snapshotio's Extractor) reduces each to its Facts: the one list of
// them, so that a kind cannot be listed in full without being read, nor
// read without being listed.

// FactKind is which facts an object carries, and so which reader reduces
// it.
type FactKind uint8

const (
	// FactNone: metadata is all kgc reads of the kind.
	FactNone FactKind = iota
	// FactPod: a Pod's node, phase, grace period, claims and CSI
	// volumes: the kubelet's and the pod garbage collector's decisions
	// (PodTermination, PodDeleteGrace, PodUsesClaim), the nodes the
	// controllers place recreated pods on, why-stuck's volumes.
	FactPod
	// FactService: whether a Service selects pods (and its type), for the
	// endpointslice controller's recreation of its slices (Recreate).
	FactService
	// FactNamespace: a Namespace's phase, spec finalizers and
	// conditions, which the namespace controller's deletion and
	// why-stuck's namespace diagnosis read.
	FactNamespace
	// FactNode: a Node's readiness and taints, where the kubelet runs a
	// pod's termination and where a DaemonSet places its pods.
	FactNode
	// FactPVC: a PersistentVolumeClaim's phase and volume, for
	// pvc-protection and the volume a deletion releases.
	FactPVC
	// FactPV: a PersistentVolume's claim, reclaim policy and provisioner,
	// for pv-protection and what becomes of its storage
	// (VolumeReclaimer).
	FactPV
	// FactJob: a Job's completion, for the Job controller's tracking
	// finalizer (JobTrackingDone) and its pods' recreation.
	FactJob
	// FactWorkload: the replicas, selector, template placement and
	// availability of the workloads whose controllers recreate what a
	// plan deletes (Deployment, ReplicaSet, ReplicationController,
	// StatefulSet, DaemonSet, CronJob): Recreate and
	// ProvisionerWorkloads.
	FactWorkload
	// FactCRD: a CustomResourceDefinition's names, scope, versions and
	// conversion webhook: the catalog a dump without discovery lacks and
	// the CRD finalizer why-stuck diagnoses.
	FactCRD
	// FactAPIService: an APIService's backend and availability: the
	// aggregated group whose discovery fails and stalls the collector.
	FactAPIService
	// FactWebhooks: a webhook configuration's webhooks, which why-stuck
	// checks for the admission that refuses a finalizer's removal.
	FactWebhooks
	// FactRBAC: a role's rules or a binding's subjects, for who may
	// update a finalizer's type (why-stuck's evidence).
	FactRBAC
	// FactEndpointSlice: how many endpoints are ready behind a webhook's
	// or APIService's Service.
	FactEndpointSlice
	// FactCSIDriver: a CSIDriver's name is its driver: a capture lists
	// every one, as a driver without one is uninstalled (why-stuck's
	// volumes).
	FactCSIDriver
	// FactCSINode: the drivers registered on a node.
	FactCSINode
	// FactVolumeAttachment: an attachment's attacher, node, volume and
	// state, which why-stuck reads for the external-attacher's finalizer.
	FactVolumeAttachment
	// FactClass: the controller a class object names, or the class an
	// object names (ClassOf): who owns an object and its finalizers.
	FactClass
	// FactAdmissionPolicy: a ValidatingAdmissionPolicy's match
	// constraints and validations, or its binding's actions and
	// parameter, which why-stuck checks for the policy that denies a
	// finalizer's removal.
	FactAdmissionPolicy
)

// FactKindOf is the facts objects of group and kind carry. It is called
// for every object read, so it is a switch (no map lookup, no hashing).
func FactKindOf(group, kind string) FactKind {
	switch group {
	case "":
		return coreFactKind(kind)
	case "apps":
		switch kind {
		case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet":
			return FactWorkload
		}
	case "batch":
		switch kind {
		case "Job":
			return FactJob
		case "CronJob":
			return FactWorkload
		}
	case "apiextensions.k8s.io":
		if kind == "CustomResourceDefinition" {
			return FactCRD
		}
	case "apiregistration.k8s.io":
		if kind == "APIService" {
			return FactAPIService
		}
	case "admissionregistration.k8s.io":
		switch kind {
		case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
			return FactWebhooks
		case "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding":
			return FactAdmissionPolicy
		}
	case "discovery.k8s.io":
		if kind == "EndpointSlice" {
			return FactEndpointSlice
		}
	case "rbac.authorization.k8s.io":
		switch kind {
		case "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding":
			return FactRBAC
		}
	case "storage.k8s.io":
		return storageFactKind(kind)
	case "networking.k8s.io", "gateway.networking.k8s.io", "snapshot.storage.k8s.io":
		if _, ok := classKindOf(group, kind); ok {
			return FactClass
		}
		if _, _, ok := memberClass(group, kind); ok {
			return FactClass
		}
	}
	return FactNone
}

// coreFactKind is FactKindOf for the core group.
func coreFactKind(kind string) FactKind {
	switch kind {
	case "Pod":
		return FactPod
	case "Service":
		return FactService
	case "Namespace":
		return FactNamespace
	case "Node":
		return FactNode
	case "PersistentVolumeClaim":
		return FactPVC
	case "PersistentVolume":
		return FactPV
	case "ReplicationController":
		return FactWorkload
	}
	return FactNone
}

// storageFactKind is FactKindOf for storage.k8s.io.
func storageFactKind(kind string) FactKind {
	switch kind {
	case "CSIDriver":
		return FactCSIDriver
	case "CSINode":
		return FactCSINode
	case "VolumeAttachment":
		return FactVolumeAttachment
	case "StorageClass":
		return FactClass
	}
	return FactNone
}

// HasFacts reports whether objects of group and kind carry Facts read
// from their spec or status: a live capture lists those kinds in full,
// and metadata alone is enough for every other kind.
func HasFacts(group, kind string) bool { return FactKindOf(group, kind) != FactNone }

// PlanFacts reports whether a plan reads the facts of group and kind. The
// cluster-scoped RBAC kinds and the CSI kinds carry facts only why-stuck
// reads (who may update a finalizer's type, which CSI drivers are
// installed, which controller a class names): a capture that serves a
// plan alone (apply's narrow pre-flight) need not read them.
func PlanFacts(group, kind string) bool {
	switch FactKindOf(group, kind) {
	case FactNone, FactCSIDriver, FactCSINode, FactVolumeAttachment, FactClass, FactAdmissionPolicy:
		return false
	case FactRBAC:
		return kind == "Role" || kind == "RoleBinding"
	case FactPod, FactService, FactNamespace, FactNode, FactPVC, FactPV, FactJob,
		FactWorkload, FactCRD, FactAPIService, FactWebhooks, FactEndpointSlice:
		return true
	}
	return false
}
