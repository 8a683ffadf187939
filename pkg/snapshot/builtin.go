package snapshot

import "strings"

// Verb sets as kube-apiserver v1.36 discovery reports them. Offline, the
// catalog cannot ask a server, so these stand in for discovery; they matter
// because the garbage collector only monitors types with delete, list and
// watch (GetDeletableResources).
var (
	verbsStandard   = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	verbsNoDelColl  = []string{"create", "delete", "get", "list", "patch", "update", "watch"}
	verbsCreateOnly = []string{"create"}
	verbsGetList    = []string{"get", "list"}
)

// builtinSpec is one row of the built-in table: "group/version[,other versions]"
// is written as gv, other served versions in versions.
type builtinSpec struct {
	gv         string // "v1" or "group/version" (preferred)
	resource   string
	kind       string
	namespaced bool
	short      string // comma separated
	verbs      []string
	versions   string // extra served versions after the preferred one, comma separated
	categories string
}

// builtinTable lists the types a default Kubernetes 1.36 kube-apiserver
// serves (pkg/controlplane/instance.go DefaultAPIResourceConfigSource: GA
// versions only; beta and alpha groups are off by default). Its order is
// the group priority kubectl uses to break ties: core first.
var builtinTable = []builtinSpec{
	// core
	{gv: "v1", resource: "bindings", kind: "Binding", namespaced: true, verbs: verbsCreateOnly},
	{gv: "v1", resource: "componentstatuses", kind: "ComponentStatus", short: "cs", verbs: verbsGetList},
	{gv: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true, short: "cm", verbs: verbsStandard},
	{gv: "v1", resource: "endpoints", kind: "Endpoints", namespaced: true, short: "ep", verbs: verbsStandard},
	{gv: "v1", resource: "events", kind: "Event", namespaced: true, short: "ev", verbs: verbsStandard},
	{gv: "v1", resource: "limitranges", kind: "LimitRange", namespaced: true, short: "limits", verbs: verbsStandard},
	{gv: "v1", resource: "namespaces", kind: "Namespace", short: "ns", verbs: verbsNoDelColl},
	{gv: "v1", resource: "nodes", kind: "Node", short: "no", verbs: verbsStandard},
	{gv: "v1", resource: "persistentvolumeclaims", kind: "PersistentVolumeClaim", namespaced: true, short: "pvc", verbs: verbsStandard},
	{gv: "v1", resource: "persistentvolumes", kind: "PersistentVolume", short: "pv", verbs: verbsStandard},
	{gv: "v1", resource: "pods", kind: "Pod", namespaced: true, short: "po", verbs: verbsStandard, categories: "all"},
	{gv: "v1", resource: "podtemplates", kind: "PodTemplate", namespaced: true, verbs: verbsStandard},
	{gv: "v1", resource: "replicationcontrollers", kind: "ReplicationController", namespaced: true, short: "rc", verbs: verbsStandard, categories: "all"},
	{gv: "v1", resource: "resourcequotas", kind: "ResourceQuota", namespaced: true, short: "quota", verbs: verbsStandard},
	{gv: "v1", resource: "secrets", kind: "Secret", namespaced: true, verbs: verbsStandard},
	{gv: "v1", resource: "serviceaccounts", kind: "ServiceAccount", namespaced: true, short: "sa", verbs: verbsStandard},
	{gv: "v1", resource: "services", kind: "Service", namespaced: true, short: "svc", verbs: verbsStandard, categories: "all"},
	// apiregistration.k8s.io
	{gv: "apiregistration.k8s.io/v1", resource: "apiservices", kind: "APIService", verbs: verbsStandard, categories: "api-extensions"},
	// apps
	{gv: "apps/v1", resource: "controllerrevisions", kind: "ControllerRevision", namespaced: true, verbs: verbsStandard},
	{gv: "apps/v1", resource: "daemonsets", kind: "DaemonSet", namespaced: true, short: "ds", verbs: verbsStandard, categories: "all"},
	{gv: "apps/v1", resource: "deployments", kind: "Deployment", namespaced: true, short: "deploy", verbs: verbsStandard, categories: "all"},
	{gv: "apps/v1", resource: "replicasets", kind: "ReplicaSet", namespaced: true, short: "rs", verbs: verbsStandard, categories: "all"},
	{gv: "apps/v1", resource: "statefulsets", kind: "StatefulSet", namespaced: true, short: "sts", verbs: verbsStandard, categories: "all"},
	// events.k8s.io
	{gv: "events.k8s.io/v1", resource: "events", kind: "Event", namespaced: true, short: "ev", verbs: verbsStandard},
	// authentication.k8s.io, authorization.k8s.io
	{gv: "authentication.k8s.io/v1", resource: "selfsubjectreviews", kind: "SelfSubjectReview", verbs: verbsCreateOnly},
	{gv: "authentication.k8s.io/v1", resource: "tokenreviews", kind: "TokenReview", verbs: verbsCreateOnly},
	{gv: "authorization.k8s.io/v1", resource: "localsubjectaccessreviews", kind: "LocalSubjectAccessReview", namespaced: true, verbs: verbsCreateOnly},
	{gv: "authorization.k8s.io/v1", resource: "selfsubjectaccessreviews", kind: "SelfSubjectAccessReview", verbs: verbsCreateOnly},
	{gv: "authorization.k8s.io/v1", resource: "selfsubjectrulesreviews", kind: "SelfSubjectRulesReview", verbs: verbsCreateOnly},
	{gv: "authorization.k8s.io/v1", resource: "subjectaccessreviews", kind: "SubjectAccessReview", verbs: verbsCreateOnly},
	// autoscaling
	{gv: "autoscaling/v2", resource: "horizontalpodautoscalers", kind: "HorizontalPodAutoscaler", namespaced: true, short: "hpa", verbs: verbsStandard, versions: "v1", categories: "all"},
	// batch
	{gv: "batch/v1", resource: "cronjobs", kind: "CronJob", namespaced: true, short: "cj", verbs: verbsStandard, categories: "all"},
	{gv: "batch/v1", resource: "jobs", kind: "Job", namespaced: true, verbs: verbsStandard, categories: "all"},
	// certificates.k8s.io
	{gv: "certificates.k8s.io/v1", resource: "certificatesigningrequests", kind: "CertificateSigningRequest", short: "csr", verbs: verbsStandard},
	// networking.k8s.io
	{gv: "networking.k8s.io/v1", resource: "ingressclasses", kind: "IngressClass", verbs: verbsStandard},
	{gv: "networking.k8s.io/v1", resource: "ingresses", kind: "Ingress", namespaced: true, short: "ing", verbs: verbsStandard},
	{gv: "networking.k8s.io/v1", resource: "ipaddresses", kind: "IPAddress", short: "ip", verbs: verbsStandard},
	{gv: "networking.k8s.io/v1", resource: "networkpolicies", kind: "NetworkPolicy", namespaced: true, short: "netpol", verbs: verbsStandard},
	{gv: "networking.k8s.io/v1", resource: "servicecidrs", kind: "ServiceCIDR", verbs: verbsStandard},
	// policy
	{gv: "policy/v1", resource: "poddisruptionbudgets", kind: "PodDisruptionBudget", namespaced: true, short: "pdb", verbs: verbsStandard},
	// rbac.authorization.k8s.io
	{gv: "rbac.authorization.k8s.io/v1", resource: "clusterrolebindings", kind: "ClusterRoleBinding", verbs: verbsStandard},
	{gv: "rbac.authorization.k8s.io/v1", resource: "clusterroles", kind: "ClusterRole", verbs: verbsStandard},
	{gv: "rbac.authorization.k8s.io/v1", resource: "rolebindings", kind: "RoleBinding", namespaced: true, verbs: verbsStandard},
	{gv: "rbac.authorization.k8s.io/v1", resource: "roles", kind: "Role", namespaced: true, verbs: verbsStandard},
	// storage.k8s.io
	{gv: "storage.k8s.io/v1", resource: "csidrivers", kind: "CSIDriver", verbs: verbsStandard},
	{gv: "storage.k8s.io/v1", resource: "csinodes", kind: "CSINode", verbs: verbsStandard},
	{gv: "storage.k8s.io/v1", resource: "csistoragecapacities", kind: "CSIStorageCapacity", namespaced: true, verbs: verbsStandard},
	{gv: "storage.k8s.io/v1", resource: "storageclasses", kind: "StorageClass", short: "sc", verbs: verbsStandard},
	{gv: "storage.k8s.io/v1", resource: "volumeattachments", kind: "VolumeAttachment", verbs: verbsStandard},
	{gv: "storage.k8s.io/v1", resource: "volumeattributesclasses", kind: "VolumeAttributesClass", short: "vac", verbs: verbsStandard},
	// admissionregistration.k8s.io
	{gv: "admissionregistration.k8s.io/v1", resource: "mutatingadmissionpolicies", kind: "MutatingAdmissionPolicy", verbs: verbsStandard, categories: "api-extensions"},
	{gv: "admissionregistration.k8s.io/v1", resource: "mutatingadmissionpolicybindings", kind: "MutatingAdmissionPolicyBinding", verbs: verbsStandard, categories: "api-extensions"},
	{gv: "admissionregistration.k8s.io/v1", resource: "mutatingwebhookconfigurations", kind: "MutatingWebhookConfiguration", verbs: verbsStandard, categories: "api-extensions"},
	{gv: "admissionregistration.k8s.io/v1", resource: "validatingadmissionpolicies", kind: "ValidatingAdmissionPolicy", verbs: verbsStandard, categories: "api-extensions"},
	{gv: "admissionregistration.k8s.io/v1", resource: "validatingadmissionpolicybindings", kind: "ValidatingAdmissionPolicyBinding", verbs: verbsStandard, categories: "api-extensions"},
	{gv: "admissionregistration.k8s.io/v1", resource: "validatingwebhookconfigurations", kind: "ValidatingWebhookConfiguration", verbs: verbsStandard, categories: "api-extensions"},
	// apiextensions.k8s.io
	{gv: "apiextensions.k8s.io/v1", resource: "customresourcedefinitions", kind: "CustomResourceDefinition", short: "crd,crds", verbs: verbsStandard, categories: "api-extensions"},
	// scheduling.k8s.io
	{gv: "scheduling.k8s.io/v1", resource: "priorityclasses", kind: "PriorityClass", short: "pc", verbs: verbsStandard},
	// coordination.k8s.io
	{gv: "coordination.k8s.io/v1", resource: "leases", kind: "Lease", namespaced: true, verbs: verbsStandard},
	// node.k8s.io
	{gv: "node.k8s.io/v1", resource: "runtimeclasses", kind: "RuntimeClass", verbs: verbsStandard},
	// discovery.k8s.io
	{gv: "discovery.k8s.io/v1", resource: "endpointslices", kind: "EndpointSlice", namespaced: true, verbs: verbsStandard},
	// flowcontrol.apiserver.k8s.io
	{gv: "flowcontrol.apiserver.k8s.io/v1", resource: "flowschemas", kind: "FlowSchema", verbs: verbsStandard},
	{gv: "flowcontrol.apiserver.k8s.io/v1", resource: "prioritylevelconfigurations", kind: "PriorityLevelConfiguration", verbs: verbsStandard},
	// resource.k8s.io
	{gv: "resource.k8s.io/v1", resource: "deviceclasses", kind: "DeviceClass", verbs: verbsStandard},
	{gv: "resource.k8s.io/v1", resource: "resourceclaims", kind: "ResourceClaim", namespaced: true, verbs: verbsStandard},
	{gv: "resource.k8s.io/v1", resource: "resourceclaimtemplates", kind: "ResourceClaimTemplate", namespaced: true, verbs: verbsStandard},
	{gv: "resource.k8s.io/v1", resource: "resourceslices", kind: "ResourceSlice", verbs: verbsStandard},
}

// BuiltinResources returns the catalog entries of the standard Kubernetes
// 1.36 types, as a default kube-apiserver's discovery would list them,
// with Listed=false. The offline reader starts from these.
func BuiltinResources() []Resource {
	out := make([]Resource, 0, len(builtinTable))
	for _, b := range builtinTable {
		group, version := SplitAPIVersion(b.gv)
		r := Resource{
			Group: group, Version: version, Resource: b.resource, Kind: b.kind,
			Namespaced: b.namespaced, Singular: strings.ToLower(b.kind),
			Verbs:    append([]string(nil), b.verbs...),
			Versions: []string{version},
		}
		if b.short != "" {
			r.ShortNames = strings.Split(b.short, ",")
		}
		if b.categories != "" {
			r.Categories = strings.Split(b.categories, ",")
		}
		if b.versions != "" {
			r.Versions = append(r.Versions, strings.Split(b.versions, ",")...)
		}
		out = append(out, r)
	}
	return out
}
