// Package snapshot is kgc's data model: the Snapshot, its objects and
// their facts, and the resource catalog that answers what a RESTMapper
// answers. Reading dumps and writing snapshot files is pkg/snapshotio's.
//
// A Snapshot is the only input kgc's analysis packages (graph, plan, render)
// see: a resource catalog plus the metadata of every object, and a few
// non-metadata facts diagnosis needs. It deliberately holds nothing that can
// carry secret data: no spec or status beyond Facts, no annotations, no
// managedFields. This package never talks to a cluster and never parses a
// file, so that the analysis packages that import it stay free of cluster
// clients and of codecs.
//
// Objects read by pkg/snapshotio share memory (label maps, strings,
// ownerReference booleans) to keep big snapshots small: treat them as
// read-only.
package snapshot

import (
	"slices"
	"strings"
	"time"
)

// APIVersion is the version of every document kgc writes (see docs/output-contract.md).
const APIVersion = "kgc.dev/v1alpha1"

// Snapshot is the Snapshot document of the output contract.
type Snapshot struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	CapturedAt time.Time  `json:"capturedAt"`
	Source     Source     `json:"source"`
	Resources  []Resource `json:"resources"`
	Objects    []Object   `json:"objects"`
	// DiscoveryErrors are the group versions whose discovery failed during
	// a live capture: owners of their kinds are unknown, not unresolvable.
	DiscoveryErrors []DiscoveryError `json:"discoveryErrors,omitempty"`

	// Warnings collected while reading or capturing; printed on stderr,
	// never written into the document.
	Warnings []Warning `json:"-"`

	// Duplicates are objects dropped because an earlier object had the same
	// UID (offline input only); pkg/graph reports them as duplicate-uid.
	Duplicates []Object `json:"-"`
}

// DiscoveryError records an API group version whose discovery failed.
type DiscoveryError struct {
	GroupVersion string `json:"groupVersion"`
	Error        string `json:"error"`
}

// Source says where a snapshot came from.
type Source struct {
	Type          string `json:"type"` // "live" or "files"
	Server        string `json:"server,omitempty"`
	ServerVersion string `json:"serverVersion,omitempty"`
	Context       string `json:"context,omitempty"`
	// KubeSystemUID is the UID of the kube-system namespace, for live
	// captures: it identifies the cluster however the kubeconfig names
	// its context or server, so a plan can be checked against the cluster
	// it was made for.
	KubeSystemUID string   `json:"kubeSystemUID,omitempty"`
	Files         []string `json:"files,omitempty"`
	// Namespace is set when namespaced types were listed in this namespace
	// only: their objects elsewhere are missing, though the types are
	// marked listed. Cluster-scoped types are always listed in full.
	Namespace string `json:"namespace,omitempty"`
}

// Resource is one entry of the resource catalog: an API type as discovery
// (or, offline, the built-in table and the dump's CRDs) describes it, and
// whether kgc managed to list it. Listed=false means absent owners of this
// type are unknown rather than dangling.
type Resource struct {
	Group      string   `json:"group"`
	Version    string   `json:"version"`
	Resource   string   `json:"resource"`
	Kind       string   `json:"kind"`
	Namespaced bool     `json:"namespaced"`
	ShortNames []string `json:"shortNames,omitempty"`
	Singular   string   `json:"singular,omitempty"`
	Categories []string `json:"categories,omitempty"`
	Verbs      []string `json:"verbs,omitempty"`
	// Versions are all served versions of the group/kind, preferred first.
	// A reference through any of them resolves (the GC's RESTMapper accepts
	// every served version); one through another version cannot.
	Versions []string `json:"versions,omitempty"`
	Listed   bool     `json:"listed"`
	Count    int      `json:"count"`
	Error    string   `json:"error,omitempty"`
	// Namespaces, when set on a listed type, are the only namespaces it
	// was read in: its list at cluster scope was forbidden (Error says
	// why) and kgc listed it namespace by namespace, as kubectl get -n
	// succeeds where kubectl get -A is forbidden. For the namespaces type
	// itself, the Namespace objects of those names were read. Its objects
	// elsewhere are missing; owners of objects read are not, for an owner
	// reference never leaves its dependent's namespace.
	Namespaces []string `json:"namespaces,omitempty"`
}

// Forbidden reports whether the API server refused to list the type, at
// cluster scope or everywhere kgc tried (RBAC, HTTP 403): a permission
// gap of the user, not a problem of the cluster.
func (r Resource) Forbidden() bool { return strings.Contains(r.Error, "(HTTP 403)") }

// Covers reports whether the type's objects in namespace ns were read: it
// was listed at cluster scope, or in ns.
func (r Resource) Covers(ns string) bool {
	return r.Listed && (len(r.Namespaces) == 0 || slices.Contains(r.Namespaces, ns))
}

// ListFailed reports whether the snapshot lacks r's objects because kgc
// failed to list r (an error, or a live capture that did not list it), as
// opposed to a dump that simply holds none: dumps rarely hold every type.
func (s *Snapshot) ListFailed(r Resource) bool { return r.Error != "" || s.Source.Type != "files" }

// Unlisted words, for messages, why a type that is not listed has no
// objects in the snapshot: "kgc could not list deployments.apps (…)" when
// a list failed, "the input holds no deployments.apps objects" for a dump
// without them. Blaming the cluster for what a dump left out would send
// the user after a permission problem that does not exist.
func (s *Snapshot) Unlisted(r Resource) string {
	if !s.ListFailed(r) {
		return "the input holds no " + r.QualifiedName() + " objects"
	}
	msg := "kgc could not list " + r.QualifiedName()
	if r.Error != "" {
		msg += " (" + r.Error + ")"
	}
	return msg
}

// GroupVersion returns "v1" for the core group and "group/version" otherwise.
func (r Resource) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// HasVerb reports whether discovery lists verb for the resource.
func (r Resource) HasVerb(verb string) bool {
	for _, v := range r.Verbs {
		if v == verb {
			return true
		}
	}
	return false
}

// Object is one object's metadata plus the facts diagnosis needs.
type Object struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   ObjectMeta `json:"metadata"`
	// Facts may be shared between objects read with the same facts:
	// never modify them in place; change a copy.
	Facts *Facts `json:"facts,omitempty"`
}

// ObjectMeta is the subset of metav1.ObjectMeta the garbage collector and
// the deletion machinery act on.
type ObjectMeta struct {
	Name                       string            `json:"name"`
	Namespace                  string            `json:"namespace,omitempty"`
	UID                        string            `json:"uid"`
	ResourceVersion            string            `json:"resourceVersion,omitempty"`
	Generation                 int64             `json:"generation,omitempty"`
	CreationTimestamp          *time.Time        `json:"creationTimestamp,omitempty"`
	DeletionTimestamp          *time.Time        `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64            `json:"deletionGracePeriodSeconds,omitempty"`
	Finalizers                 []string          `json:"finalizers,omitempty"`
	OwnerReferences            []OwnerReference  `json:"ownerReferences,omitempty"`
	Labels                     map[string]string `json:"labels,omitempty"`
	// Manager is the manager of the object's oldest managedFields entry
	// that is not of a subresource (usually what created it: a controller
	// that creates a dependent again names itself there), kept as this
	// name only; never the managed fields.
	Manager string `json:"manager,omitempty"`
}

// OwnerReference mirrors metav1.OwnerReference; pointers keep the
// difference between unset and false, which blockOwnerDeletion depends on.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// Blocking reports blockOwnerDeletion==true.
func (r OwnerReference) Blocking() bool { return r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion }

// MissingFields names the required fields (apiVersion, kind, name, uid)
// the reference lacks. The API server rejects such references
// (ValidateOwnerReferences), so only edited dumps carry them, and the
// garbage collector cannot resolve them.
func (r OwnerReference) MissingFields() []string {
	var missing []string
	for _, f := range [...]struct{ name, value string }{
		{"apiVersion", r.APIVersion}, {"kind", r.Kind}, {"name", r.Name}, {"uid", r.UID},
	} {
		if f.value == "" {
			missing = append(missing, f.name)
		}
	}
	return missing
}

// IsController reports controller==true.
func (r OwnerReference) IsController() bool { return r.Controller != nil && *r.Controller }

// Ref returns the ObjectRef of an object.
func (o *Object) Ref() ObjectRef {
	return ObjectRef{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Metadata.Namespace, Name: o.Metadata.Name, UID: o.Metadata.UID}
}

// Terminating reports whether the object has a deletionTimestamp.
func (o *Object) Terminating() bool { return o.Metadata.DeletionTimestamp != nil }

// HasFinalizer reports whether f is in metadata.finalizers.
func (o *Object) HasFinalizer(f string) bool {
	for _, x := range o.Metadata.Finalizers {
		if x == f {
			return true
		}
	}
	return false
}

// ObjectRef is the ObjectRef shape of the output contract.
type ObjectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
}

// Less orders refs by (namespace, kind, name, uid), the contract's order.
func (r ObjectRef) Less(o ObjectRef) bool { return r.Compare(o) < 0 }

// Compare is the contract order as a three-way comparison, for
// slices.SortFunc.
func (r ObjectRef) Compare(o ObjectRef) int {
	if c := strings.Compare(r.Namespace, o.Namespace); c != 0 {
		return c
	}
	if c := strings.Compare(r.Kind, o.Kind); c != 0 {
		return c
	}
	if c := strings.Compare(r.Name, o.Name); c != 0 {
		return c
	}
	return strings.Compare(r.UID, o.UID)
}

// String is the one way every command names an object to a person:
// KubectlName's form, which pastes into kubectl get.
func (r ObjectRef) String() string { return KubectlName(r.Kind, r.Namespace, r.Name) }

// KubectlName names an object as kubectl takes it: "Kind/name -n namespace",
// or "Kind/name" when it is cluster-scoped. kubectl resolves a kind in any
// case ("kubectl get ConfigMap/root -n ns"), so the kind keeps its own
// spelling. Every text and table output names objects this way and no
// other ("Kind ns/name" and "Kind/ns/name" do not paste into kubectl);
// cmd/kgc's TestOneWayToNameAnObject scans the goldens and docs for them.
func KubectlName(kind, namespace, name string) string {
	if namespace == "" {
		return kind + "/" + name
	}
	return kind + "/" + name + " -n " + namespace
}

// Facts holds the few non-metadata fields that deciding who finishes a
// deletion needs. At most one of the kind-specific members is set.
type Facts struct {
	// Keep is the object's keep markers (KeepMarker), of any kind: the
	// annotation and its value, e.g. "helm.sh/resource-policy=keep".
	Keep      string          `json:"keep,omitempty"`
	Pod       *PodFacts       `json:"pod,omitempty"`
	Namespace *NamespaceFacts `json:"namespace,omitempty"`
	Node      *NodeFacts      `json:"node,omitempty"`
	PVC       *PVCFacts       `json:"persistentVolumeClaim,omitempty"`
	PV        *PVFacts        `json:"persistentVolume,omitempty"`
	CRD       *CRDFacts       `json:"customResourceDefinition,omitempty"`
	Service   *ServiceFacts   `json:"service,omitempty"`
	Job       *JobFacts       `json:"job,omitempty"`
	// Workload is set on Deployments, ReplicaSets, ReplicationControllers,
	// StatefulSets, DaemonSets and CronJobs read with their spec: what
	// their controller needs to decide whether it recreates what a delete
	// removes.
	Workload *WorkloadFacts `json:"workload,omitempty"`
	// APIService, WebhookConfiguration and EndpointSlice were added for
	// why-stuck: an unavailable aggregated API or admission webhook holds
	// deletions, and whether a Service has ready endpoints says why.
	APIService           *APIServiceFacts           `json:"apiService,omitempty"`
	WebhookConfiguration *WebhookConfigurationFacts `json:"webhookConfiguration,omitempty"`
	EndpointSlice        *EndpointSliceFacts        `json:"endpointSlice,omitempty"`
	// RBAC is set on Roles, ClusterRoles and their bindings: which
	// workload may update a stuck object's type names its controller.
	RBAC *RBACFacts `json:"rbac,omitempty"`
	// AdmissionPolicy and AdmissionPolicyBinding are set on
	// ValidatingAdmissionPolicies and their bindings: which requests a
	// policy judges and whether its binding denies them (policyfacts.go).
	AdmissionPolicy        *AdmissionPolicyFacts        `json:"admissionPolicy,omitempty"`
	AdmissionPolicyBinding *AdmissionPolicyBindingFacts `json:"admissionPolicyBinding,omitempty"`
	// Refs are, on an object of any other kind that carries finalizers,
	// the object references at the top of its spec (a field named
	// *Ref holding a kind and a name: Cluster API's
	// spec.infrastructureRef and spec.controlPlaneRef): the objects its
	// controller's cleanup may wait on. Nothing else of the spec is kept.
	Refs []SpecRef `json:"refs,omitempty"`
	// Volume is set on PersistentVolumes of a CSI driver, CSINodes,
	// VolumeAttachments and DaemonSets running a CSI node plugin: what
	// tells whether a pod's volumes can be torn down (volumefacts.go).
	Volume *VolumeFacts `json:"volume,omitempty"`
	// Class is set on class objects (IngressClass, GatewayClass,
	// StorageClass, VolumeSnapshotClass) and on the objects that name a
	// class (Ingress, Gateway, VolumeSnapshot, VolumeSnapshotContent):
	// which controller owns an object and its finalizers
	// (rules.ClassController).
	Class *ClassFacts `json:"class,omitempty"`
}

// ClassFacts are the class fields of an object, nothing else of its spec.
type ClassFacts struct {
	// Controller is the controller a class object names (IngressClass
	// spec.controller, GatewayClass spec.controllerName, StorageClass
	// provisioner, VolumeSnapshotClass driver), or that an object names
	// itself (VolumeSnapshotContent spec.driver).
	Controller string `json:"controller,omitempty"`
	// Default says a class object is marked its kind's default (its
	// is-default-class annotation, kept as this fact only).
	Default bool `json:"default,omitempty"`
	// Name is the class an object names (Ingress spec.ingressClassName,
	// Gateway spec.gatewayClassName, VolumeSnapshot and
	// VolumeSnapshotContent spec.volumeSnapshotClassName).
	Name string `json:"name,omitempty"`
}

// SpecRef is one spec.*Ref object reference: its field, and the
// referenced object's apiVersion, kind, namespace and name only.
type SpecRef struct {
	Field      string `json:"field"`
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

// PodFacts: what the kubelet, PodGC and the PVC protection controller look at.
type PodFacts struct {
	NodeName                      string   `json:"nodeName,omitempty"`
	Phase                         string   `json:"phase,omitempty"`
	TerminationGracePeriodSeconds *int64   `json:"terminationGracePeriodSeconds,omitempty"`
	Claims                        []string `json:"claims,omitempty"`          // volumes[].persistentVolumeClaim.claimName
	EphemeralClaims               []string `json:"ephemeralClaims,omitempty"` // generic ephemeral volumes: <pod>-<volume>
	Mirror                        bool     `json:"mirror,omitempty"`
	// CSIDrivers are the drivers of the pod's inline CSI volumes
	// (volumes[].csi.driver).
	CSIDrivers []string `json:"csiDrivers,omitempty"`
}

// NamespaceFacts: what the namespace controller reads and writes.
type NamespaceFacts struct {
	Phase          string      `json:"phase,omitempty"`
	SpecFinalizers []string    `json:"specFinalizers,omitempty"`
	Conditions     []Condition `json:"conditions,omitempty"`
}

// NodeFacts: whether a kubelet can still confirm pod termination.
type NodeFacts struct {
	Ready  string   `json:"ready,omitempty"`  // status of the Ready condition: True, False, Unknown
	Taints []string `json:"taints,omitempty"` // key:effect
}

// PVCFacts for the pvc-protection controller.
type PVCFacts struct {
	Phase      string `json:"phase,omitempty"`
	VolumeName string `json:"volumeName,omitempty"`
	// StorageClass is spec.storageClassName: its provisioner owns the
	// claim's provisioning finalizers.
	StorageClass string `json:"storageClassName,omitempty"`
}

// PVFacts for the pv-protection and PV controllers, and for what a
// delete destroys outside the cluster: who reclaims the volume's storage
// and how much of it there is.
type PVFacts struct {
	Phase         string     `json:"phase,omitempty"`
	ReclaimPolicy string     `json:"reclaimPolicy,omitempty"`
	ClaimRef      *ObjectRef `json:"claimRef,omitempty"`
	// Capacity is spec.capacity.storage as written ("10Gi").
	Capacity string `json:"capacity,omitempty"`
	// Driver is spec.csi.driver; ProvisionedBy the
	// pv.kubernetes.io/provisioned-by annotation (the one annotation of a
	// volume kgc keeps, as this fact): who deletes the storage.
	Driver        string `json:"driver,omitempty"`
	ProvisionedBy string `json:"provisionedBy,omitempty"`
	// Plugin is the in-tree volume source (hostPath, nfs, local, …) when
	// the volume is not CSI; HostPath is a hostPath volume's path, which
	// decides whether the in-tree deleter accepts it.
	Plugin   string `json:"plugin,omitempty"`
	HostPath string `json:"hostPath,omitempty"`
	// StorageClass is spec.storageClassName, whose provisioner names the
	// volume's deleter when nothing of the volume itself does.
	StorageClass string `json:"storageClassName,omitempty"`
}

// CRDFacts let an offline reader serve the custom types a dump defines and
// tell whether the CRD finalizer still has instances to delete.
type CRDFacts struct {
	Group       string       `json:"group"`
	Kind        string       `json:"kind"`
	Plural      string       `json:"plural"`
	Singular    string       `json:"singular,omitempty"`
	ShortNames  []string     `json:"shortNames,omitempty"`
	Categories  []string     `json:"categories,omitempty"`
	Scope       string       `json:"scope"` // Namespaced or Cluster
	Versions    []CRDVersion `json:"versions,omitempty"`
	Established bool         `json:"established,omitempty"`
	// Conversion is spec.conversion when its strategy is Webhook: where
	// the API server sends objects to convert between versions. Never
	// the caBundle.
	Conversion *CRDConversion `json:"conversion,omitempty"`
	// StoredVersions is status.storedVersions: every version objects may
	// still be stored at in etcd. One that is not the storage version
	// is converted on every read, through the webhook when there is one.
	StoredVersions []string `json:"storedVersions,omitempty"`
	// Terminating is the Terminating condition the CRD finalizer writes
	// while it deletes the instances of a CRD being deleted
	// (InstanceDeletionInProgress, InstanceDeletionFailed,
	// InstanceDeletionCheck, InstanceDeletionCompleted).
	Terminating *Condition `json:"terminating,omitempty"`
}

// StorageVersion is the version objects are written at, "" when unknown.
func (c *CRDFacts) StorageVersion() string {
	for _, v := range c.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// CRDConversion is a CRD's conversion webhook: the Service it calls, or
// the host of its URL (never the URL's path, query or user info, nor the
// caBundle).
type CRDConversion struct {
	Strategy string            `json:"strategy"`
	Service  *ServiceReference `json:"service,omitempty"`
	URLHost  string            `json:"urlHost,omitempty"`
	// CAValidity says whether the caBundle can verify anything, never
	// what it holds: CABundleValid, CABundleEmpty, CABundleNotPEM or
	// CABundleNoCertificate; "" in snapshots written before it was kept.
	CAValidity string `json:"caValidity,omitempty"`
}

// CABundleState values. The API server turns a caBundle into a
// certificate pool as client-go's rootCertPool does: an empty one means
// its system roots (which rarely sign an in-cluster webhook's
// certificate), and one without a PEM certificate fails every call
// before it is made.
const (
	CABundleValid         = "valid"
	CABundleEmpty         = "empty"
	CABundleNotPEM        = "not-pem"
	CABundleNoCertificate = "no-certificate"
)

// ServiceReference names the Service a webhook or an APIService calls.
type ServiceReference struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Port      *int32 `json:"port,omitempty"`
}

// String names the Service as every output names an object:
// Service/name -n namespace.
func (r ServiceReference) String() string { return KubectlName("Service", r.Namespace, r.Name) }

// APIServiceFacts: which Service serves an aggregated API group/version
// and whether the aggregator finds it Available.
type APIServiceFacts struct {
	Group   string `json:"group,omitempty"`
	Version string `json:"version,omitempty"`
	// Service is spec.service; nil for a Local APIService (served by
	// kube-apiserver itself).
	Service *ServiceReference `json:"service,omitempty"`
	// Available is the Available condition (status, reason such as
	// ServiceNotFound, MissingEndpoints or FailedDiscoveryCheck, message).
	Available *Condition `json:"available,omitempty"`
}

// WebhookConfigurationFacts: the webhooks of a Mutating- or
// ValidatingWebhookConfiguration, without caBundle or URL path.
type WebhookConfigurationFacts struct {
	Webhooks []Webhook `json:"webhooks,omitempty"`
}

// Webhook is one admission webhook: what it intercepts, whether a failure
// to call it rejects the request, and what it calls.
type Webhook struct {
	Name string `json:"name"`
	// FailurePolicy is Fail or Ignore as written; empty means the API
	// default, Fail.
	FailurePolicy string            `json:"failurePolicy,omitempty"`
	Rules         []WebhookRule     `json:"rules,omitempty"`
	Service       *ServiceReference `json:"service,omitempty"`
	URLHost       string            `json:"urlHost,omitempty"`
	// NamespaceSelector and ObjectSelector say whether a non-empty
	// selector limits the webhook; NamespaceLabelSelector and
	// ObjectLabelSelector are those selectors (snapshots written before
	// 2026-11-24 have only the flags).
	NamespaceSelector      bool           `json:"namespaceSelector,omitempty"`
	ObjectSelector         bool           `json:"objectSelector,omitempty"`
	NamespaceLabelSelector *LabelSelector `json:"namespaceLabelSelector,omitempty"`
	ObjectLabelSelector    *LabelSelector `json:"objectLabelSelector,omitempty"`
	// MatchConditions counts the webhook's CEL match conditions, which
	// kgc does not evaluate.
	MatchConditions int `json:"matchConditions,omitempty"`
	// CAValidity says whether the clientConfig's caBundle can verify
	// anything (CABundleValid, CABundleEmpty, CABundleNotPEM,
	// CABundleNoCertificate), never what it holds; "" in snapshots
	// written before it was kept.
	CAValidity string `json:"caValidity,omitempty"`
}

// LabelSelector is a label selector as the API writes it.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is one expression of a LabelSelector.
type LabelSelectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// WebhookRule is one rule of a webhook.
type WebhookRule struct {
	Operations  []string `json:"operations,omitempty"`
	APIGroups   []string `json:"apiGroups,omitempty"`
	APIVersions []string `json:"apiVersions,omitempty"`
	Resources   []string `json:"resources,omitempty"`
	Scope       string   `json:"scope,omitempty"`
	// ResourceNames limits an admission policy's rule to objects of
	// these names (webhook rules have none).
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// EndpointSliceFacts: how many of a Service's endpoints are ready (the
// Service is the slice's kubernetes.io/service-name label).
type EndpointSliceFacts struct {
	Endpoints int `json:"endpoints"`
	Ready     int `json:"ready"`
}

// CRDVersion is one version of a CRD.
type CRDVersion struct {
	Name    string `json:"name"`
	Served  bool   `json:"served"`
	Storage bool   `json:"storage"`
}

// ServiceFacts for the load-balancer cleanup finalizer, and for the
// endpointslice controller (which manages the EndpointSlices of a Service
// with a selector).
type ServiceFacts struct {
	Type              string `json:"type,omitempty"`
	LoadBalancerClass string `json:"loadBalancerClass,omitempty"`
	// Selector says whether spec.selector is set; nil when the input
	// predates this fact.
	Selector *bool `json:"selector,omitempty"`
}

// JobFacts for the job-tracking finalizer and for the Job controller's
// replacement of deleted pods. Spec is false when the input had no spec
// (the other fields are then unknown, not zero).
type JobFacts struct {
	Finished    bool   `json:"finished,omitempty"`
	Spec        bool   `json:"spec,omitempty"`
	Suspend     bool   `json:"suspend,omitempty"`
	Completions *int32 `json:"completions,omitempty"` // spec.completions; nil: parallelism decides
	Parallelism *int32 `json:"parallelism,omitempty"`
	// BackoffLimit is spec.backoffLimit (6 when unset).
	BackoffLimit *int32 `json:"backoffLimit,omitempty"`
	Succeeded    int32  `json:"succeeded,omitempty"`
	Failed       int32  `json:"failed,omitempty"`
}

// WorkloadFacts are the few spec fields a workload controller decides
// from when something it created is deleted: never the pod template
// itself (it can carry secrets in env), only what selects and counts.
type WorkloadFacts struct {
	// Replicas is spec.replicas (nil: unset, which the API server
	// defaults to 1); not set for DaemonSets and CronJobs.
	Replicas *int32 `json:"replicas,omitempty"`
	// Paused is a Deployment's spec.paused; Suspend a CronJob's
	// spec.suspend.
	Paused  bool `json:"paused,omitempty"`
	Suspend bool `json:"suspend,omitempty"`
	// SelectorMatchesTemplate says whether spec.selector selects the pod
	// template's labels (the API server validates it for apps/v1; a
	// workload whose pods its selector does not match never counts them).
	SelectorMatchesTemplate bool `json:"selectorMatchesTemplate,omitempty"`
	// Revision is the deployment.kubernetes.io/revision annotation of a
	// Deployment and of its ReplicaSets: the Deployment's is its new
	// ReplicaSet's.
	Revision string `json:"revision,omitempty"`
	// OrdinalsStart is a StatefulSet's spec.ordinals.start.
	OrdinalsStart int32 `json:"ordinalsStart,omitempty"`
	// NodeSelector is a DaemonSet pod template's nodeSelector; Tolerations
	// its tolerations as "key:effect" ("" key: every key, "" effect: every
	// effect); NodeAffinity says the template has a node affinity, which
	// kgc does not evaluate.
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	Tolerations  []string          `json:"tolerations,omitempty"`
	NodeAffinity bool              `json:"nodeAffinity,omitempty"`
	// ServiceAccount is the pod template's serviceAccountName ("" for
	// the default ServiceAccount): what RBAC lets the workload's pods do
	// is what a controller it runs can do, which names the controller of
	// a finalizer.
	ServiceAccount string `json:"serviceAccount,omitempty"`
	// Available is, for a Deployment, StatefulSet or DaemonSet read with
	// its status, how many of its pods are available
	// (status.availableReplicas, status.numberAvailable); nil when the
	// status was not read.
	Available *int32 `json:"available,omitempty"`
}

// RBACFacts are the authorization facts of a Role, ClusterRole,
// RoleBinding or ClusterRoleBinding: what it grants and to whom, never
// anything else of it (resourceNames are dropped too: kgc asks only
// which types a subject may change).
type RBACFacts struct {
	// Rules are a role's rules.
	Rules []PolicyRule `json:"rules,omitempty"`
	// RoleRef and Subjects are a binding's.
	RoleRef  *RoleRef  `json:"roleRef,omitempty"`
	Subjects []Subject `json:"subjects,omitempty"`
	// AggregationRule is an aggregated ClusterRole's
	// aggregationRule.clusterRoleSelectors: the ClusterRoles whose rules
	// the aggregation controller copies into it.
	AggregationRule []LabelSelector `json:"aggregationRule,omitempty"`
}

// PolicyRule is one rule of a role: the verbs it allows on the resources
// of the API groups it names.
type PolicyRule struct {
	APIGroups []string `json:"apiGroups,omitempty"`
	Resources []string `json:"resources,omitempty"`
	Verbs     []string `json:"verbs,omitempty"`
}

// RoleRef is the role a binding grants: a Role (of the binding's
// namespace) or a ClusterRole.
type RoleRef struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// Subject is one subject of a binding (kind User, Group or
// ServiceAccount; namespace for a ServiceAccount).
type Subject struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// Condition is a status condition, kept for namespaces (why deletion is stuck).
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// Warning is a problem with the input that did not stop kgc: it names the
// file (or API type) and the object so the user can find it.
type Warning struct {
	File    string `json:"file,omitempty"`
	Object  string `json:"object,omitempty"`
	Message string `json:"message"`
}

func (w Warning) String() string {
	s := w.Message
	if w.Object != "" {
		s = w.Object + ": " + s
	}
	if w.File != "" {
		s = w.File + ": " + s
	}
	return s
}
