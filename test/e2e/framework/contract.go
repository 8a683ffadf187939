package framework

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// The documents below mirror docs/output-contract.md. They are
// declared here rather than imported from kgc so that the suite checks the
// published contract, not whatever the implementation's structs say.

// ObjectRef identifies an object in kgc's documents.
type ObjectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
}

func (r ObjectRef) String() string {
	if r.Namespace != "" {
		return fmt.Sprintf("%s %s/%s (%s)", r.Kind, r.Namespace, r.Name, r.UID)
	}
	return fmt.Sprintf("%s %s (%s)", r.Kind, r.Name, r.UID)
}

// Plan is `kgc plan delete ... -o json`.
type Plan struct {
	APIVersion        string          `json:"apiVersion"`
	Kind              string          `json:"kind"`
	Target            ObjectRef       `json:"target"`
	PropagationPolicy string          `json:"propagationPolicy"`
	Assumptions       map[string]any  `json:"assumptions"`
	Steps             []PlanStep      `json:"steps"`
	Objects           []PlanObject    `json:"objects"`
	Summary           map[string]int  `json:"summary"`
	Complete          bool            `json:"complete"`
	Raw               json.RawMessage `json:"-"`
}

// PlanStep is one simulated action.
type PlanStep struct {
	Step              int       `json:"step"`
	Actor             string    `json:"actor"`
	Action            string    `json:"action"`
	Object            ObjectRef `json:"object"`
	PropagationPolicy string    `json:"propagationPolicy,omitempty"`
	Detail            string    `json:"detail,omitempty"`
}

// PlanObject is an object whose state the plan changes or that blocks it.
type PlanObject struct {
	Object ObjectRef  `json:"object"`
	Fate   string     `json:"fate"`
	Final  FinalState `json:"final"`
	Reason string     `json:"reason"`
	// Alternatives are the outcomes if the GC's concurrent calls land in
	// another order (a race the plan names); empty when timing does not
	// matter.
	Alternatives []PlanAlternative `json:"alternatives"`
	// RecreatedBy is set on an object that a controller replaces after the
	// delete: fate "recreated" when Certain, else the fate stays "deleted"
	// ("may be recreated").
	RecreatedBy *Recreation `json:"recreatedBy,omitempty"`
	// AdoptedBy is set on an orphaned object that the replacement of its
	// controller owner adopts: an owner the plan's final state cannot name.
	AdoptedBy *Adoption `json:"adoptedBy,omitempty"`
}

// Adoption is the replacement that adopts an orphaned object; its UID is
// empty (it did not exist when kgc planned).
type Adoption struct {
	Controller string    `json:"controller"`
	Owner      ObjectRef `json:"owner"`
}

// FateRecreated is the fate of an object the delete removes (final.exists
// false) and a controller then replaces.
const FateRecreated = "recreated"

// Recreation says which controller replaces a deleted object, and how.
type Recreation struct {
	// Controller names the controller that creates the replacement.
	Controller string `json:"controller"`
	// Owner is the surviving owner the controller reconciles (a ReplicaSet
	// for its pods, a Deployment for its ReplicaSet, the Namespace for its
	// kube-root-ca.crt ConfigMap and default ServiceAccount).
	Owner ObjectRef `json:"owner"`
	// Name is the replacement's name when known (the same name for a
	// Deployment's ReplicaSet, StatefulSet pods, the namespace's
	// ConfigMap and ServiceAccount); empty when generated.
	Name     string `json:"name"`
	SameName bool   `json:"sameName"`
	NewUID   bool   `json:"newUID"`
	Certain  bool   `json:"certain"`
}

// PlanAlternative is an object's other possible outcome.
type PlanAlternative struct {
	Fate   string     `json:"fate"`
	Final  FinalState `json:"final"`
	Reason string     `json:"reason"`
}

// FinalState is an object's predicted state at quiescence.
type FinalState struct {
	Exists          bool     `json:"exists"`
	Terminating     bool     `json:"terminating"`
	Finalizers      []string `json:"finalizers"`
	OwnerReferences []string `json:"ownerReferences"`
}

// Graph is `kgc graph -o json`.
type Graph struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Nodes      []GraphNode    `json:"nodes"`
	Edges      []GraphEdge    `json:"edges"`
	Findings   []GraphFinding `json:"findings"`
}

// GraphNode is a node of kgc's owner graph.
type GraphNode struct {
	ObjectRef
	Virtual            bool     `json:"virtual"`
	BeingDeleted       bool     `json:"beingDeleted"`
	DeletingDependents bool     `json:"deletingDependents"`
	Finalizers         []string `json:"finalizers"`
}

// GraphEdge goes from a dependent to its owner.
type GraphEdge struct {
	From               string `json:"from"`
	To                 string `json:"to"`
	BlockOwnerDeletion bool   `json:"blockOwnerDeletion"`
	Controller         bool   `json:"controller"`
}

// GraphFinding is a flagged hazard.
type GraphFinding struct {
	Type    string      `json:"type"`
	Objects []ObjectRef `json:"objects"`
	Message string      `json:"message"`
}

// Diagnosis is `kgc why-stuck ... -o json`.
type Diagnosis struct {
	APIVersion  string      `json:"apiVersion"`
	Kind        string      `json:"kind"`
	Object      ObjectRef   `json:"object"`
	Terminating bool        `json:"terminating"`
	Since       string      `json:"since"`
	Blockers    []Blocker   `json:"blockers"`
	RootCauses  []RootCause `json:"rootCauses"`
	Remedies    []Remedy    `json:"remedies"`
}

// Blocker is one finalizer holding an object, with what it waits for.
type Blocker struct {
	Finalizer  string      `json:"finalizer"`
	RemovedBy  string      `json:"removedBy"`
	WaitingFor string      `json:"waitingFor"`
	Objects    []ObjectRef `json:"objects"`
	Blockers   []Blocker   `json:"blockers"`
}

// RootCause is a leaf of the blocker tree.
type RootCause struct {
	Object    ObjectRef `json:"object"`
	Finalizer string    `json:"finalizer"`
	// Reason classifies the root cause for scripts (controller-absent,
	// node-not-ready, ...).
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Remedy is a suggested way out.
type Remedy struct {
	Description string `json:"description"`
	Command     string `json:"command"`
	Risk        string `json:"risk"`
}

// ComparePlan checks a plan against reality: every object the plan lists
// must end in its predicted final state (or, where the plan gives one, its
// alternative: the GC's workers decided), and every other object of the case
// must be exactly as it was before the delete. It returns one line per
// disagreement about the case's objects; an empty result means kgc
// predicted the GC exactly. Objects the plan lists that are not the case's
// (other tests' objects elsewhere in the cluster, which the delete cannot
// affect and which do not block it) are returned apart, as foreign: listing
// them breaks the contract, but says nothing about the GC semantics.
func ComparePlan(plan *Plan, before, after map[string]ObjState) (diffs, foreign []string) {
	listed := map[string]bool{}
	for _, po := range plan.Objects {
		uid := po.Object.UID
		listed[uid] = true
		b, known := before[uid]
		if !known {
			foreign = append(foreign, fmt.Sprintf("plan lists %s (fate %q, %s), which the delete cannot affect: not one of the case's objects", po.Object, po.Fate, po.Reason))
			continue
		}
		a, ok := after[uid]
		if !ok {
			a = ObjState{GVR: b.GVR, Kind: b.Kind, Namespace: b.Namespace, Name: b.Name, UID: uid}
		}
		d := ""
		if po.AdoptedBy != nil {
			a, d = adopted(po.AdoptedBy, b, a)
		}
		if d == "" {
			d = compareFinal(po.Final, a)
		}
		for _, alt := range po.Alternatives {
			if d != "" && compareFinal(alt.Final, a) == "" {
				// The plan said timing decides, and reality took another side.
				d = ""
			}
		}
		if d != "" {
			predicted := describeFinal(po.Final)
			for _, alt := range po.Alternatives {
				predicted += fmt.Sprintf(" or (fate %q) %s", alt.Fate, describeFinal(alt.Final))
			}
			diffs = append(diffs, fmt.Sprintf("%s (fate %q): predicted %s; real %s", b.Kind+" "+qualified(b), po.Fate, predicted, describeState(a)))
		}
	}
	for uid, b := range before {
		if listed[uid] {
			continue
		}
		a, ok := after[uid]
		if !ok {
			a = ObjState{Kind: b.Kind, Namespace: b.Namespace, Name: b.Name, UID: uid}
		}
		if describeState(a) != describeState(b) {
			diffs = append(diffs, fmt.Sprintf("%s not in the plan (so predicted unchanged): before %s; real after %s", b.Kind+" "+qualified(b), describeState(b), describeState(a)))
		}
	}
	sort.Strings(diffs)
	sort.Strings(foreign)
	return diffs, foreign
}

func qualified(s ObjState) string {
	if s.Namespace != "" {
		return s.Namespace + "/" + s.Name
	}
	return s.Name
}

// adopted checks that a, the object's real state, has an owner reference
// to a new object (not one of its owners before) of the kind and name
// the plan's adoptedBy names, and returns a without it, to be compared
// with the plan's final state; or a difference when it has none.
func adopted(by *Adoption, before, a ObjState) (ObjState, string) {
	if !a.Exists {
		return a, ""
	}
	for i, uid := range a.OwnerUIDs {
		if i < len(a.OwnerNames) && a.OwnerNames[i] == by.Owner.Kind+"/"+by.Owner.Name && !slices.Contains(before.OwnerUIDs, uid) {
			rest := a
			rest.OwnerUIDs = slices.Delete(slices.Clone(a.OwnerUIDs), i, i+1)
			rest.OwnerNames = slices.Delete(slices.Clone(a.OwnerNames), i, i+1)
			return rest, ""
		}
	}
	return a, "adoption by a new " + by.Owner.Kind + " " + by.Owner.Name
}

func compareFinal(f FinalState, a ObjState) string {
	if f.Exists != a.Exists {
		return "exists"
	}
	if !a.Exists {
		return ""
	}
	if f.Terminating != a.Terminating {
		return "terminating"
	}
	if sortedJoin(f.Finalizers) != sortedJoin(a.Finalizers) {
		return "finalizers"
	}
	if sortedJoin(f.OwnerReferences) != sortedJoin(a.OwnerUIDs) {
		return "ownerReferences"
	}
	return ""
}

// sortedJoin compares finalizer and owner lists as sets: their order carries
// no meaning to the GC, and the apiserver's order is not part of the plan's
// promise.
func sortedJoin(s []string) string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return strings.Join(c, ",")
}

func describeFinal(f FinalState) string {
	if !f.Exists {
		return "gone"
	}
	return fmt.Sprintf("exists terminating=%v finalizers=[%s] owners=[%s]", f.Terminating, sortedJoin(f.Finalizers), sortedJoin(f.OwnerReferences))
}

func describeState(s ObjState) string {
	if !s.Exists {
		return "gone"
	}
	return fmt.Sprintf("exists terminating=%v finalizers=[%s] owners=[%s]", s.Terminating, sortedJoin(s.Finalizers), sortedJoin(s.OwnerUIDs))
}

// PostMortem is `kgc postmortem -o json`: who started each deletion found
// in the audit log, and what went with it.
type PostMortem struct {
	APIVersion     string            `json:"apiVersion"`
	Kind           string            `json:"kind"`
	Window         PMWindow          `json:"window"`
	Before         string            `json:"before"`
	After          string            `json:"after"`
	Roots          []PMRoot          `json:"roots"`
	Unexplained    []PMUnexplained   `json:"unexplained"`
	StillGoing     []PMStillGoing    `json:"stillGoing"`
	PolicyFindings []PMPolicyFinding `json:"policyFindings"`
	Warnings       []string          `json:"warnings"`
	Complete       bool              `json:"complete"`
}

// PMWindow is the time the audit log covers, per file, and its gaps.
type PMWindow struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Files []struct {
		Path   string `json:"path"`
		Events int    `json:"events"`
		Kept   int    `json:"kept"`
		First  string `json:"first"`
		Last   string `json:"last"`
		Bad    int    `json:"bad"`
		// Format is what the file was read as; Losses what that form
		// loses (added with the export readers).
		Format string   `json:"format"`
		Losses []string `json:"losses"`
	} `json:"files"`
	Gaps []struct {
		From    string `json:"from"`
		To      string `json:"to"`
		Message string `json:"message"`
	} `json:"gaps"`
}

// PMRoot is one deletion a user (or a controller on its own) started.
type PMRoot struct {
	Request    PMRequest     `json:"request"`
	Summary    PMSummary     `json:"summary"`
	Cascade    []PMLink      `json:"cascade"`
	Prediction *PMPrediction `json:"prediction"`
}

// PMRequest is the root request as the audit log has it.
type PMRequest struct {
	AuditID          string   `json:"auditID"`
	Missing          bool     `json:"missing"`
	Time             string   `json:"time"`
	Verb             string   `json:"verb"`
	URI              string   `json:"uri"`
	User             string   `json:"user"`
	Groups           []string `json:"groups"`
	ImpersonatedUser string   `json:"impersonatedUser"`
	UserAgent        string   `json:"userAgent"`
	SourceIPs        []string `json:"sourceIPs"`
	Object           struct {
		ObjectRef
		Resource string `json:"resource"`
	} `json:"object"`
	DeleteOptions *struct {
		PropagationPolicy  string   `json:"propagationPolicy"`
		OrphanDependents   *bool    `json:"orphanDependents"`
		GracePeriodSeconds *int64   `json:"gracePeriodSeconds"`
		DryRun             []string `json:"dryRun"`
		Preconditions      *struct {
			UID             string `json:"uid"`
			ResourceVersion string `json:"resourceVersion"`
		} `json:"preconditions"`
	} `json:"deleteOptions"`
	DeleteOptionsKnown bool `json:"deleteOptionsKnown"`
	Code               int  `json:"code"`
	Authorization      *struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	} `json:"authorization"`
	Actor string `json:"actor"`
}

// PMSummary counts what went with a root.
type PMSummary struct {
	Objects     int `json:"objects"`
	Deleted     int `json:"deleted"`
	Orphaned    int `json:"orphaned"`
	Terminating int `json:"terminating"`
	ByKind      []struct {
		Kind  string `json:"kind"`
		Count int    `json:"count"`
	} `json:"byKind"`
}

// PMLink is one object of a cascade, how it went, and how that is known.
type PMLink struct {
	Object     ObjectRef `json:"object"`
	Result     string    `json:"result"`
	Actor      string    `json:"actor"`
	User       string    `json:"user"`
	Time       string    `json:"time"`
	AuditID    string    `json:"auditID"`
	Via        string    `json:"via"`
	Evidence   string    `json:"evidence"`
	Detail     string    `json:"detail"`
	Steps      []PMStep  `json:"steps"`
	Dependents []PMLink  `json:"dependents"`
}

// PMStep is one request that acted on a link's object.
type PMStep struct {
	Time    string `json:"time"`
	User    string `json:"user"`
	Actor   string `json:"actor"`
	Verb    string `json:"verb"`
	AuditID string `json:"auditID"`
	Code    int    `json:"code"`
	What    string `json:"what"`
}

// PMPrediction compares what a plan of the root request on the before
// snapshot says with what happened.
type PMPrediction struct {
	PropagationPolicy    string `json:"propagationPolicy"`
	PolicyKnown          bool   `json:"policyKnown"`
	Complete             bool   `json:"complete"`
	AsPredicted          int    `json:"asPredicted"`
	NotPredicted         int    `json:"notPredicted"`
	PredictedNotHappened int    `json:"predictedNotHappened"`
	Objects              []struct {
		Object    ObjectRef `json:"object"`
		Predicted string    `json:"predicted"`
		Happened  string    `json:"happened"`
		Result    string    `json:"result"`
		Detail    string    `json:"detail"`
		WhyStuck  string    `json:"whyStuck"`
	} `json:"objects"`
}

// PMUnexplained is an object gone with no event naming its removal.
type PMUnexplained struct {
	Object        ObjectRef `json:"object"`
	LikelyRemover string    `json:"likelyRemover"`
	Evidence      string    `json:"evidence"`
	Message       string    `json:"message"`
}

// PMStillGoing is an object still Terminating at the end of the window.
type PMStillGoing struct {
	Object      ObjectRef `json:"object"`
	Since       string    `json:"since"`
	RootAuditID string    `json:"rootAuditID"`
	RootCause   string    `json:"rootCause"`
}

// PMPolicyFinding is what the audit policy hides from a post-mortem.
type PMPolicyFinding struct {
	Rule    int    `json:"rule"`
	Problem string `json:"problem"`
	Message string `json:"message"`
}

// Walk calls f on every link of the cascade, depth first, with its parent
// (nil for a top-level link).
func Walk(links []PMLink, parent *PMLink, f func(l, parent *PMLink)) {
	for i := range links {
		f(&links[i], parent)
		Walk(links[i].Dependents, &links[i], f)
	}
}
