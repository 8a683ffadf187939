package diagnose

import (
	"time"

	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Document kinds this package produces.
const (
	KindDiagnosis     = "Diagnosis"
	KindDiagnosisList = "DiagnosisList"
)

// Reasons classify root causes so that scripts (and the -A grouping) need
// not parse messages. They are part of the Diagnosis document.
const (
	// ReasonControllerAbsent: the evidence names a finalizer's controller
	// and the input shows it is not installed (no workload under its
	// published names), or the package owning the object's CRD is gone.
	ReasonControllerAbsent = "controller-absent"
	// ReasonControllerTerminating: the controller the evidence names is
	// itself being deleted (typically with the namespace it lives in).
	ReasonControllerTerminating = "controller-terminating"
	// ReasonControllerPending: the controller the evidence names runs (or
	// is a built-in one) and has not removed its finalizer yet.
	ReasonControllerPending = "controller-pending"
	// ReasonControllerNotFinishing: the controller the evidence names
	// runs and is available, yet its finalizer stays: it is failing its
	// cleanup, or waiting on something the cleanup needs. Its logs and
	// the object's status say which; removing the finalizer skips what it
	// has not done.
	ReasonControllerNotFinishing = "controller-not-finishing"
	// ReasonControllerForbidden: the controller the evidence names runs,
	// but RBAC grants its ServiceAccount neither patch nor update on the
	// object's resource, so every attempt to remove the finalizer is
	// refused (rbaccause.go).
	ReasonControllerForbidden = "controller-forbidden"
	// ReasonControllerUnknown: kgc cannot tell whether the controller runs
	// (the workload types could not be listed, or the evidence names a
	// controller whose workloads the input does not show).
	ReasonControllerUnknown = "controller-unknown"
	// ReasonControllerNotFound: nothing in the input names the controller
	// of a finalizer (not a well-known finalizer, no owner on its CRD, no
	// workload carrying its domain).
	ReasonControllerNotFound = "controller-not-found"
	// ReasonGCUnmonitored: the garbage collector does not watch the type,
	// so it never processes orphan or foregroundDeletion on it.
	ReasonGCUnmonitored = "gc-unmonitored"
	// ReasonGCCannotResolve: a blocking dependent the garbage collector
	// gives up on (unserved owner kind, namespaced owner of a
	// cluster-scoped object), so it is never deleted.
	ReasonGCCannotResolve = "gc-cannot-resolve"
	// ReasonForegroundNotQueued: foregroundDeletion sits on an object that
	// also had orphan when its deletion started. The collector handles
	// orphan first and then reacts to foregroundDeletion only when a
	// blocking dependent goes away; with none left, it never removes it.
	ReasonForegroundNotQueued = "foreground-not-queued"
	// ReasonOrphanPatchFailing: dependents whose owner reference the
	// garbage collector cannot patch away.
	ReasonOrphanPatchFailing = "orphan-patch-failing"
	// ReasonForegroundCycle: blocking owner references form a cycle of
	// objects all waiting for each other.
	ReasonForegroundCycle = "foreground-cycle"
	// ReasonDiscoveryFailure: an API group's discovery fails, so the
	// namespace controller never finalizes namespaces.
	ReasonDiscoveryFailure = "discovery-failure"
	// ReasonContentNotInSnapshot: the namespace status reports content the
	// snapshot does not hold (a type kgc could not list).
	ReasonContentNotInSnapshot = "content-not-in-snapshot"
	// ReasonNodeNotReady: a pod's node is NotReady or Unknown, so no
	// kubelet confirms the pod's termination.
	ReasonNodeNotReady = "node-not-ready"
	// ReasonNodeMissing: a pod's node object is gone.
	ReasonNodeMissing = "node-missing"
	// ReasonKubeletNotConfirming: the node is Ready but its kubelet has
	// not confirmed termination after the grace period.
	ReasonKubeletNotConfirming = "kubelet-not-confirming"
	// ReasonClaimInUse: a pod that is not being deleted still uses a
	// PersistentVolumeClaim.
	ReasonClaimInUse = "claim-in-use"
	// ReasonVolumeBound: a PersistentVolume is still Bound to a claim
	// that is not being deleted.
	ReasonVolumeBound = "volume-bound"
	// ReasonControllerStalled: the step is one its actor takes within
	// seconds, nothing stands in its way, yet the object has waited far
	// longer: the actor is not acting (not running, or, for the garbage
	// collector, not synced).
	ReasonControllerStalled = "controller-stalled"
	// ReasonDependentRecreated: a dependent blocking a foreground
	// deletion was created after the owner's deletion began: a controller
	// creates it again as the collector deletes it (recreate.go).
	ReasonDependentRecreated = "dependent-recreated"
	// ReasonContentFailure: the namespace controller reports that it
	// failed to list or delete content (NamespaceDeletionContentFailure)
	// and the message names no cause kgc can check.
	ReasonContentFailure = "content-failure"
	// ReasonConversionWebhookUnavailable: content of a custom type cannot
	// be listed or deleted because its CRD's conversion webhook fails.
	ReasonConversionWebhook = "conversion-webhook-unavailable"
	// ReasonInstanceDeletionFailed: the CRD finalizer reports that it
	// failed to list or delete a terminating CRD's instances
	// (InstanceDeletionFailed) and nothing kgc can check explains it. It
	// retries for ever: a root cause, never progress.
	ReasonInstanceDeletionFailed = "instance-deletion-failed"
	// ReasonAPIServiceUnavailable: an APIService is not Available, so
	// discovery of its group version fails.
	ReasonAPIServiceUnavailable = "apiservice-unavailable"
	// ReasonNamespaceBlocksItself: an APIService whose Service lives in a
	// namespace being deleted: that deletion removed what serves it, and
	// its failing discovery keeps every namespace from being finalized.
	ReasonNamespaceBlocksItself = "namespace-blocks-itself"
	// ReasonWebhookRejects: an admission webhook with failurePolicy Fail
	// intercepts the request that would let the object go (a finalizer
	// removal is an UPDATE, the namespace controller's a DELETE) and
	// cannot be called, or denies it.
	ReasonWebhookRejects = "webhook-rejects"
	// ReasonPolicyDenies: a ValidatingAdmissionPolicy bound with
	// validationActions Deny judges the UPDATE that removes a finalizer
	// (or the namespace controller's DELETE) and denies it (policy.go).
	ReasonPolicyDenies = "policy-denies"
	// ReasonInProgress: nothing is stuck at this leaf; the named actor
	// should act on its next pass. Persisting means that actor is down.
	ReasonInProgress = "in-progress"
	// ReasonNoFinalizers: the object has a deletionTimestamp and nothing
	// holds it: it is about to disappear.
	ReasonNoFinalizers = "no-finalizers"
)

// Remedy actions, from least to most destructive.
const (
	ActionWait          = "wait"
	ActionFixController = "fix-controller"
	ActionFixAPIService = "fix-apiservice"
	ActionFixNode       = "fix-node"
	ActionFixService    = "fix-service"
	// ActionGrantRBAC: grant a controller's ServiceAccount the verbs
	// removing its finalizer needs.
	ActionGrantRBAC = "grant-rbac"
	// ActionCheckPolicy, ActionFixPolicy, ActionPatchPolicyBinding and
	// ActionDeletePolicyBinding answer a ValidatingAdmissionPolicy that
	// denies: confirm it with a dry run, fix it, let requests through
	// (Warn, Audit), or remove its binding.
	ActionCheckPolicy         = "check-policy"
	ActionFixPolicy           = "fix-policy"
	ActionPatchPolicyBinding  = "patch-policy-binding"
	ActionDeletePolicyBinding = "delete-policy-binding"
	// ActionCheckWebhook: find out, with a server-side dry run, whether
	// an admission webhook rewrites or refuses a finalizer's removal.
	ActionCheckWebhook          = "check-webhook"
	ActionDelete                = "delete"
	ActionTaintOutOfService     = "taint-out-of-service"
	ActionUnblockOwnerReference = "unblock-owner-reference"
	ActionRemoveOwnerReference  = "remove-owner-reference"
	ActionDeleteAPIService      = "delete-apiservice"
	ActionPatchWebhook          = "patch-webhook"
	ActionDeleteWebhook         = "delete-webhook-configuration"
	ActionPatchCRDConversion    = "patch-crd-conversion"
	ActionForceDelete           = "force-delete"
	ActionRemoveFinalizer       = "remove-finalizer"
)

// Diagnosis is the Diagnosis document of the output contract: why one
// object is (or is not) going away.
type Diagnosis struct {
	APIVersion string             `json:"apiVersion"`
	Kind       string             `json:"kind"`
	Object     snapshot.ObjectRef `json:"object"`
	// Terminating: the object has a deletionTimestamp.
	Terminating bool `json:"terminating"`
	// Since is the deletionTimestamp (omitted when not terminating).
	Since *time.Time `json:"since,omitempty"`
	// AgeSeconds is capturedAt − deletionTimestamp; negative while a pod
	// is still inside its grace period.
	AgeSeconds int64 `json:"ageSeconds,omitempty"`
	// Summary is the verdict in one sentence.
	Summary    string      `json:"summary"`
	Blockers   []Blocker   `json:"blockers"`
	RootCauses []RootCause `json:"rootCauses"`
	// Remedies are every root cause's remedies, in root-cause order, each
	// naming its root cause (1-based index into rootCauses).
	Remedies []Remedy `json:"remedies"`
	// GarbageCollection says, for an object that is not terminating,
	// whether the garbage collector will ever delete it and why.
	GarbageCollection *Collection `json:"garbageCollection,omitempty"`
	// Findings are the owner-graph hazards (kgc graph) that name the object.
	Findings []graph.Finding `json:"findings,omitempty"`
	// Complete is false when the answer depends on something the snapshot
	// does not show (a type that could not be listed, missing facts).
	Complete bool `json:"complete"`
	// Notes say what is missing when Complete is false.
	Notes []string `json:"notes,omitempty"`
	// Cluster is the cluster the diagnosis was made against (live only),
	// so that kgc apply --remedy refuses it anywhere else.
	Cluster *plan.Cluster `json:"cluster,omitempty"`
}

// Blocker is one thing holding an object: a finalizer (metadata or, for a
// namespace, spec), or the kubelet for a pod in graceful termination.
type Blocker struct {
	// Object is the object held.
	Object snapshot.ObjectRef `json:"object"`
	// Finalizer is the finalizer holding it; empty when nothing but an
	// actor holds it (a pod waiting for its kubelet).
	Finalizer string `json:"finalizer"`
	// Spec is true for a Namespace spec.finalizers entry.
	Spec bool `json:"spec,omitempty"`
	// RemovedBy is the actor expected to remove it: "unknown" for a
	// finalizer kgc does not know.
	RemovedBy string `json:"removedBy"`
	// Controller is, for a finalizer no Kubernetes controller removes, the
	// controller the evidence names (see Attribution).
	Controller string `json:"controller,omitempty"`
	// Attribution is, for a finalizer a controller removes, how kgc knows
	// which controller that is.
	Attribution *Attribution `json:"attribution,omitempty"`
	WaitingFor  string       `json:"waitingFor"`
	// Conditions are, for a namespace's kubernetes finalizer, the failing
	// (status True) conditions the namespace controller wrote.
	Conditions []snapshot.Condition `json:"conditions,omitempty"`
	// StaleConditions are, for a namespace's kubernetes finalizer, the
	// conditions that say content is gone while the input still holds
	// it: the objects win (the namespace controller writes an all-clear
	// while pods remain under ordered namespace deletion,
	// kubernetes/kubernetes#138208).
	StaleConditions []StaleCondition `json:"staleConditions,omitempty"`
	// Objects are the objects it waits on.
	Objects []snapshot.ObjectRef `json:"objects,omitempty"`
	// Blockers are, for each object it waits on that is itself stuck, what
	// holds that object (each names its object).
	Blockers []Blocker `json:"blockers,omitempty"`
	// RootCause is the 1-based index into rootCauses when this blocker is
	// a leaf; 0 otherwise.
	RootCause int `json:"rootCause,omitempty"`
	// Repeated is true when the object was already explained higher in the
	// tree (a shared dependent); its blockers are not repeated.
	Repeated bool `json:"repeated,omitempty"`
}

// StaleCondition is a status condition contradicted by the objects the
// input holds.
type StaleCondition struct {
	snapshot.Condition
	// ContradictedBy says what in the input contradicts it.
	ContradictedBy string `json:"contradictedBy"`
}

// RootCause is a leaf of the blocker tree: an object and finalizer (or
// actor) that, once dealt with, lets the chain above it finish.
type RootCause struct {
	Object    snapshot.ObjectRef `json:"object"`
	Finalizer string             `json:"finalizer"`
	Reason    string             `json:"reason"`
	RemovedBy string             `json:"removedBy,omitempty"`
	// Controller is the controller the evidence names (see Attribution).
	Controller string `json:"controller,omitempty"`
	// Attribution is how kgc knows who removes the finalizer.
	Attribution *Attribution `json:"attribution,omitempty"`
	Message     string       `json:"message"`
	// Related names other objects involved: the APIService that fails
	// discovery, the node a pod runs on, the controller that matched.
	Related []snapshot.ObjectRef `json:"related,omitempty"`
	// Holds are the objects directly waiting on this root cause.
	Holds    []snapshot.ObjectRef `json:"holds,omitempty"`
	Remedies []Remedy             `json:"remedies"`
}

// Attribution is the evidence for who removes a finalizer.
type Attribution struct {
	// Evidence: "well-known" (kgc's table of finalizers, with its source),
	// "crd-owner" (the owner of the CRD serving the object), "workload-label"
	// (a workload carrying the finalizer's full domain), "rbac" (a workload
	// whose ServiceAccount may update the object's type or a group of the
	// finalizer's API-group family), "install-labels" (a workload sharing
	// an installation label with a CRD of that family) or "none".
	Evidence string `json:"evidence"`
	// Confidence: "high", "medium" or "none".
	Confidence string `json:"confidence"`
	// Controller is the controller the evidence names; empty for "none".
	Controller string `json:"controller,omitempty"`
	// Detail is the evidence in words.
	Detail string `json:"detail"`
	// Objects are the objects the evidence rests on: the CRD and its
	// owner, the workloads found.
	Objects []snapshot.ObjectRef `json:"objects,omitempty"`
}

// Remedy is one way out, with the exact command.
type Remedy struct {
	// RootCause is the 1-based index of the root cause it resolves (set
	// in the document's top-level remedies).
	RootCause   int    `json:"rootCause,omitempty"`
	Action      string `json:"action"`
	Description string `json:"description"`
	Command     string `json:"command,omitempty"`
	Risk        string `json:"risk,omitempty"`
	// Leaks says what the remedy may leave behind that no Kubernetes API
	// cleans up any more (a cloud load balancer, a disk, instances in
	// etcd); remedies that leak come after those that do not.
	Leaks string `json:"leaks,omitempty"`
	// Finishes lists the terminating objects that would be gone once the
	// remedy is applied and every controller has done its part, as the
	// plan simulator computes it.
	Finishes []snapshot.ObjectRef `json:"finishes,omitempty"`
	// ID names a remedy kgc can carry out itself (kgc apply --remedy ID),
	// and Request is the guarded request it sends; both are empty for a
	// remedy a person carries out.
	ID      string         `json:"id,omitempty"`
	Request *RemedyRequest `json:"request,omitempty"`
}

// Collection is the garbage-collection verdict for an object that is not
// terminating.
type Collection struct {
	// Verdict: "not-owned", "kept", "will-be-deleted", "never-collected"
	// or "unknown".
	Verdict string    `json:"verdict"`
	Message string    `json:"message"`
	Owners  []OwnerOf `json:"owners,omitempty"`
}

// Collection verdicts.
const (
	VerdictNotOwned       = "not-owned"
	VerdictKept           = "kept"
	VerdictWillBeDeleted  = "will-be-deleted"
	VerdictNeverCollected = "never-collected"
	VerdictUnknown        = "unknown"
)

// OwnerOf is how the garbage collector classifies one owner reference.
type OwnerOf struct {
	Index int                     `json:"index"`
	Ref   snapshot.OwnerReference `json:"ownerReference"`
	// Class: "solid", "waitingForDependentsDeletion", "dangling",
	// "unknown" (type not listed), "unresolvable-kind",
	// "namespaced-owner-of-cluster-scoped".
	Class   string `json:"class"`
	Message string `json:"message"`
}

// Owner-reference classes.
const (
	ClassSolid           = rules.ClassNameSolid
	ClassWaiting         = rules.ClassNameWaiting
	ClassDangling        = rules.ClassNameDangling
	ClassUnknown         = rules.ClassNameUnknown
	ClassUnresolvable    = rules.ClassNameUnresolvable
	ClassNamespacedOwner = rules.ClassNameNamespacedOwner
)

// DiagnosisList is `kgc why-stuck -A -o json`: every terminating object in
// scope, and the same objects grouped by root cause.
type DiagnosisList struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	CapturedAt time.Time `json:"capturedAt"`
	// Groups are the root causes with the terminating objects each holds,
	// oldest first.
	Groups []Group `json:"groups"`
	// Items are the diagnoses of every terminating object, oldest first.
	Items []Diagnosis `json:"items"`
	// Cluster is the cluster the diagnoses were made against (live only).
	Cluster *plan.Cluster `json:"cluster,omitempty"`
}

// Group is one root cause and the terminating objects it holds.
type Group struct {
	RootCause RootCause `json:"rootCause"`
	// Controller is set when the group is one controller's (missing,
	// gone with its namespace, or running but not finishing): every
	// object whose finalizer it does not remove, under one remedy, and
	// RootCause is its first. RootObjects are those objects, Finalizers
	// theirs, and Summary says it in one line.
	Controller  string               `json:"controller,omitempty"`
	Summary     string               `json:"summary,omitempty"`
	Finalizers  []string             `json:"finalizers,omitempty"`
	RootObjects []snapshot.ObjectRef `json:"rootObjects,omitempty"`
	// Objects are the terminating objects held, oldest first.
	Objects []Held `json:"objects"`
}

// Held is a terminating object and how long it has been terminating.
type Held struct {
	Object     snapshot.ObjectRef `json:"object"`
	Since      time.Time          `json:"since"`
	AgeSeconds int64              `json:"ageSeconds"`
}
