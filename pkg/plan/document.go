package plan

import (
	"slices"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Assumptions about finalizers no simulated controller removes.
const (
	AssumeHang   = "hang"
	AssumeRemove = "remove"
)

// Simulated controller names, for Options.Controllers. The garbage
// collector and the API server always run.
const (
	ControllerNamespace     = "namespace"
	ControllerCRDFinalizer  = "crd-finalizer"
	ControllerKubelet       = "kubelet"
	ControllerPodGC         = "podgc"
	ControllerPVCProtection = "pvc-protection"
	ControllerPVProtection  = "pv-protection"
	ControllerJob           = "job"
	// ControllerPVBinder is kube-controller-manager's persistentvolume
	// controller (named persistentvolume-binder there): it releases a
	// volume whose claim is gone and reclaims it by its policy.
	ControllerPVBinder = "persistentvolume-binder"
	// The controllers that create again what a delete removes while its
	// owner survives (recreate.go); the Job controller replaces pods too.
	ControllerDeployment            = "deployment"
	ControllerReplicaSet            = "replicaset"
	ControllerReplicationController = "replicationcontroller"
	ControllerStatefulSet           = "statefulset"
	ControllerDaemonSet             = "daemonset"
	ControllerRootCAPublisher       = "root-ca-cert-publisher"
	ControllerServiceAccount        = "serviceaccount"
	ControllerEndpointSlice         = "endpointslice"
)

// AllControllers lists every controller the simulator knows, the default set.
func AllControllers() []string {
	return []string{ControllerNamespace, ControllerCRDFinalizer, ControllerKubelet, ControllerPodGC,
		ControllerPVCProtection, ControllerPVProtection, ControllerPVBinder, ControllerJob,
		ControllerDeployment, ControllerReplicaSet, ControllerReplicationController, ControllerStatefulSet,
		ControllerDaemonSet, ControllerRootCAPublisher, ControllerServiceAccount, ControllerEndpointSlice}
}

// Options of one simulation.
type Options struct {
	// Target is the UID of the object to delete.
	Target string
	// Policy is what the DELETE sends; PolicyDefault sends none (the
	// resource's default applies).
	Policy Policy
	// OrphanDependents is the deprecated field; it may not be combined with Policy.
	OrphanDependents *bool
	// AssumeFinalizers says what happens to finalizers no simulated
	// controller removes: "hang" (default) or "remove".
	AssumeFinalizers string
	// Controllers restricts which controllers besides the garbage collector
	// and the API server (with its CRD finalizer, which cannot be turned off
	// separately from apiextensions) are simulated; nil means all of
	// AllControllers. A control plane that runs only the garbagecollector
	// and namespace controllers is []string{"namespace", "crd-finalizer"}.
	Controllers []string
	// PrimaryOnly skips the extra simulations that give timing-dependent
	// objects their alternatives, for callers that read only the primary
	// final states.
	PrimaryOnly bool
	// MaxSteps bounds the number of work items processed (0 = 5,000,000),
	// so that a bug or a pathological input cannot loop for ever.
	MaxSteps int

	// whole has Simulate simulate the whole snapshot even where the part
	// the delete reaches would do, for the tests that compare the two.
	whole bool
}

// Plan is the Plan document of the output contract.
type Plan struct {
	APIVersion string             `json:"apiVersion"`
	Kind       string             `json:"kind"`
	Target     snapshot.ObjectRef `json:"target"`
	// Targets are every object the request deletes when it names several
	// (kgc plan delete deploy/a sts/b, or -l): one DELETE each, in this
	// order, Target the first. Empty for one.
	Targets []snapshot.ObjectRef `json:"targets,omitempty"`
	// PropagationPolicy is the policy the DELETE sends ("" = none).
	PropagationPolicy Policy `json:"propagationPolicy"`
	// EffectivePolicy is what the API server made of it for the target:
	// Orphan, Foreground or Background.
	EffectivePolicy Policy        `json:"effectivePolicy,omitempty"`
	Assumptions     Assumptions   `json:"assumptions"`
	Steps           []Step        `json:"steps"`
	Objects         []ObjectFate  `json:"objects"`
	Summary         Summary       `json:"summary"`
	Complete        bool          `json:"complete"`
	Warnings        []string      `json:"warnings,omitempty"`
	Notes           []string      `json:"notes,omitempty"`
	Stats           *SimulateStat `json:"-"`
	// NoteAbout is the object a note is about, for the notes that are
	// about one object (a Warning event of the collector's): the text view
	// tells those on objects the delete does not concern from the rest.
	// Not in the document: a plan read back has none, and shows its notes
	// as they are.
	NoteAbout map[string]snapshot.ObjectRef `json:"-"`

	// What apply needs (see Seal); absent from plans written before apply
	// existed, which apply refuses.
	Cluster    *Cluster     `json:"cluster,omitempty"`
	CapturedAt *time.Time   `json:"capturedAt,omitempty"`
	Request    *Request     `json:"request,omitempty"`
	Basis      []BasisEntry `json:"basis,omitempty"`
	Digest     string       `json:"digest,omitempty"`
}

// Assumptions the plan was made under.
type Assumptions struct {
	UnknownFinalizers string   `json:"unknownFinalizers"`
	Controllers       []string `json:"controllers"`
}

// Step is one simulated action.
type Step struct {
	Step              int                `json:"step"`
	Wave              int                `json:"wave"`
	Actor             string             `json:"actor"`
	Action            string             `json:"action"`
	Object            snapshot.ObjectRef `json:"object"`
	PropagationPolicy Policy             `json:"propagationPolicy,omitempty"`
	Detail            string             `json:"detail,omitempty"`
	// Baseline marks a step the controllers would take even without the
	// planned delete: the input was not settled.
	Baseline bool `json:"baseline,omitempty"`
}

// Step actions.
const (
	ActionDelete       = "delete"
	ActionMarkDeleting = "mark-deleting"
	ActionAddFinalizer = "add-finalizer"
	ActionRemoveFin    = "remove-finalizer"
	ActionRemoveOwner  = "remove-owner-reference"
	ActionUnblockOwner = "unblock-owner-reference"
	ActionWait         = "wait"
	// ActionRelease: the persistentvolume controller marks a volume whose
	// claim is gone Released; ActionDeleteStorage: the volume's storage
	// (the disk, outside the cluster) is deleted, before the volume
	// object.
	ActionRelease       = "release"
	ActionDeleteStorage = "delete-storage"
)

// Fates of objects.
const (
	FateDeleted   = "deleted"
	FateOrphaned  = "orphaned"
	FateUpdated   = "updated"
	FateBlocked   = "blocked"
	FateUnchanged = "unchanged"
	// FateRecreated: deleted (final.exists false), and a controller whose
	// owner survives creates a replacement (recreatedBy says which).
	FateRecreated = "recreated"
)

// ObjectFate is one entry of the plan's objects.
type ObjectFate struct {
	Object snapshot.ObjectRef `json:"object"`
	Fate   string             `json:"fate"`
	Final  FinalState         `json:"final"`
	Reason string             `json:"reason"`
	// BlockedBy lists what keeps a blocked object (or what it blocks).
	BlockedBy []Blocker `json:"blockedBy,omitempty"`
	// RecreatedBy is set on a recreated object, and on a deleted one a
	// controller may recreate (Certain false).
	RecreatedBy *RecreatedBy `json:"recreatedBy,omitempty"`
	// Alternatives are the object's other outcomes when the real garbage
	// collector's concurrent calls land in another order (see the notes);
	// empty when the object ends the same either way.
	Alternatives []Alternative `json:"alternatives,omitempty"`
	// Keep is the object's keep markers (snapshot.KeepMarker): Helm, Argo
	// CD or Flux were asked not to delete it; the collector ignores them.
	Keep string `json:"keep,omitempty"`
	// AdoptedBy is set on an object the plan orphans whose controller
	// owner comes back under the same name and adopts it again: once the
	// controllers have reconciled, it is owned by the replacement, which
	// Final.OwnerReferences cannot name (it has no UID yet).
	AdoptedBy *AdoptedBy `json:"adoptedBy,omitempty"`
	// Volume is set on a PersistentVolume the plan releases: what becomes
	// of the storage behind it.
	Volume *VolumeFate `json:"volume,omitempty"`
}

// VolumeFate is what a plan does to a PersistentVolume's storage.
type VolumeFate struct {
	// Phase is the volume's phase at quiescence ("" once it is deleted).
	Phase         string `json:"phase,omitempty"`
	ReclaimPolicy string `json:"reclaimPolicy"`
	Capacity      string `json:"capacity,omitempty"`
	// Driver is the CSI driver or external provisioner that deletes the
	// storage; "" for an in-tree plugin (Plugin).
	Driver string `json:"driver,omitempty"`
	Plugin string `json:"plugin,omitempty"`
	// Claim is the claim the volume was bound to.
	Claim *snapshot.ObjectRef `json:"claim,omitempty"`
	// Storage is destroyed, kept or destroyed-if-provisioner-runs
	// (rules.Disk*).
	Storage string `json:"storage"`
	// Reason says who deletes the storage, or why nobody does.
	Reason string `json:"reason"`
	// Reclaim says how to free kept storage by hand.
	Reclaim string `json:"reclaim,omitempty"`
}

// AdoptedBy is the replacement that adopts an orphaned object.
type AdoptedBy struct {
	// Controller is the actor that adopts it (rules.Actor*).
	Controller string `json:"controller"`
	// Owner is the replacement: its apiVersion, kind, namespace and name;
	// uid is empty, as the object does not exist yet.
	Owner snapshot.ObjectRef `json:"owner"`
}

// Alternative is an object's other possible outcome, decided by worker
// timing in the real garbage collector.
type Alternative struct {
	Fate        string       `json:"fate"`
	Final       FinalState   `json:"final"`
	Reason      string       `json:"reason"`
	BlockedBy   []Blocker    `json:"blockedBy,omitempty"`
	RecreatedBy *RecreatedBy `json:"recreatedBy,omitempty"`
}

// RecreatedBy says which controller creates a replacement for a deleted
// object, for which surviving owner, and under which name.
type RecreatedBy struct {
	// Controller is the actor (rules.Actor*: "deployment-controller", …).
	Controller string `json:"controller"`
	// Owner is the surviving object that reconciles: the controller
	// owner, or the Namespace for kube-root-ca.crt and default.
	Owner snapshot.ObjectRef `json:"owner"`
	// Name is the replacement's name when known; "" when generated.
	Name     string `json:"name"`
	SameName bool   `json:"sameName"`
	NewUID   bool   `json:"newUID"`
	// Certain is false when the controller is not simulated or the input
	// lacks the facts it decides from: the object may be recreated.
	Certain bool `json:"certain"`
}

// Blocker is one thing holding an object: a finalizer and who should
// remove it, and for foregroundDeletion the dependents it waits for.
type Blocker struct {
	Finalizer  string               `json:"finalizer,omitempty"`
	RemovedBy  string               `json:"removedBy,omitempty"`
	WaitingFor string               `json:"waitingFor,omitempty"`
	Objects    []snapshot.ObjectRef `json:"objects,omitempty"`
}

// Words says what a blocker is: its finalizer (through hl, which may
// highlight it), who removes it, and what it waits for.
func (b Blocker) Words(hl func(string) string) string {
	var parts []string
	if b.Finalizer != "" {
		parts = append(parts, "finalizer "+hl(b.Finalizer))
	}
	if b.RemovedBy != "" {
		parts = append(parts, "removed by "+b.RemovedBy)
	}
	line := strings.Join(parts, ", ")
	if b.WaitingFor != "" {
		if line != "" {
			line += ": "
		}
		line += "waits for " + b.WaitingFor
	}
	return line
}

// FinalState is an object's state at quiescence.
type FinalState struct {
	Exists          bool     `json:"exists"`
	Terminating     bool     `json:"terminating"`
	Finalizers      []string `json:"finalizers"`
	OwnerReferences []string `json:"ownerReferences"`
}

func (f FinalState) equal(g FinalState) bool {
	return f.Exists == g.Exists && f.Terminating == g.Terminating &&
		slices.Equal(f.Finalizers, g.Finalizers) && slices.Equal(f.OwnerReferences, g.OwnerReferences)
}

// Summary counts objects by fate.
type Summary struct {
	Deleted  int `json:"deleted"`
	Orphaned int `json:"orphaned"`
	Updated  int `json:"updated"`
	Blocked  int `json:"blocked"`
	// Recreated counts fate recreated: those objects are deleted too, but
	// not counted under Deleted.
	Recreated int `json:"recreated"`
	// VolumesDestroyed counts PersistentVolumes whose storage the plan
	// deletes, outside the cluster, and BytesDestroyed adds up their
	// capacities (a number, as every count of the summary is: scripts
	// read it as a map of numbers); VolumesKept counts released volumes whose
	// storage stays by design (Retain, no deleter), VolumesNotReclaimed
	// those under Delete whose provisioner does not run.
	VolumesDestroyed    int   `json:"volumesDestroyed,omitempty"`
	BytesDestroyed      int64 `json:"bytesDestroyed,omitempty"`
	VolumesKept         int   `json:"volumesKept,omitempty"`
	VolumesNotReclaimed int   `json:"volumesNotReclaimed,omitempty"`
	// VolumesDestroyedIfRuns counts volumes under Delete whose deleter
	// the input does not show (rules.DiskDestroyedIfRuns): their storage
	// is destroyed if it runs. VolumesNotReclaimed, which said "not
	// reclaimed" of them, stays 0.
	VolumesDestroyedIfRuns int `json:"volumesDestroyedIfProvisionerRuns,omitempty"`
}

// WorstCase counts objects by fate as Summary does, but counts an object
// under its alternative fate too: what a safety gate must assume when the
// garbage collector's worker timing decides.
func (p *Plan) WorstCase() Summary {
	var s Summary
	for _, of := range p.Objects {
		fates := []string{of.Fate}
		for _, a := range of.Alternatives {
			if !slices.Contains(fates, a.Fate) {
				fates = append(fates, a.Fate)
			}
		}
		for _, f := range fates {
			s.add(f)
		}
	}
	return s
}

// add counts one object of fate f; unchanged objects are not counted.
func (s *Summary) add(f string) {
	switch f {
	case FateDeleted:
		s.Deleted++
	case FateOrphaned:
		s.Orphaned++
	case FateUpdated:
		s.Updated++
	case FateBlocked:
		s.Blocked++
	case FateRecreated:
		s.Recreated++
	}
}

// SimulateStat says how much work a simulation did (for benchmarks and -v).
type SimulateStat struct {
	Objects     int
	GraphNodes  int
	WorkItems   int
	StoreWrites int
}

// Action is an initial action for SimulateActions.
type Action interface{ isAction() }

// Delete is a DELETE request on an object.
type Delete struct {
	UID string
	// Policy as in Options.Policy ("" = none sent).
	Policy           Policy
	OrphanDependents *bool
	// GracePeriodSeconds as the request's gracePeriodSeconds (nil = unset).
	GracePeriodSeconds *int64
}

// RemoveFinalizer is a PATCH removing one finalizer (what a controller, or
// a person, finishing its work does).
type RemoveFinalizer struct {
	UID       string
	Finalizer string
}

// RemoveOwnerReference is a PATCH removing the owner reference to OwnerUID.
type RemoveOwnerReference struct {
	UID      string
	OwnerUID string
}

func (Delete) isAction()               {}
func (RemoveFinalizer) isAction()      {}
func (RemoveOwnerReference) isAction() {}

// ObjectState is one object's final state after SimulateActions.
type ObjectState struct {
	Object snapshot.ObjectRef
	FinalState
	// Changed is true when the actions changed the object relative to the
	// settled baseline.
	Changed bool
}

// Outcome is the result of SimulateActions: the plan-shaped report of what
// the actions change, and a lookup of every object's final state.
type Outcome struct {
	Plan  *Plan
	state func(uid string) (ObjectState, bool)
}

// State returns the final state of the object with uid (which existed in
// the snapshot); ok is false for unknown UIDs.
func (o *Outcome) State(uid string) (ObjectState, bool) { return o.state(uid) }
