package postmortem

import (
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Kind is the document kind of a post-mortem.
const Kind = "PostMortem"

// PostMortem is the PostMortem document of the output contract.
type PostMortem struct {
	APIVersion  string        `json:"apiVersion"`
	Kind        string        `json:"kind"`
	Window      Window        `json:"window"`
	Before      string        `json:"before,omitempty"`
	After       string        `json:"after,omitempty"`
	Roots       []Root        `json:"roots"`
	Unexplained []Unexplained `json:"unexplained"`
	StillGoing  []StillGoing  `json:"stillGoing"`
	// DryRuns are the requests sent with dryRun=All: they changed
	// nothing, so they never start, join or step a chain.
	DryRuns        []DryRun              `json:"dryRuns,omitempty"`
	PolicyFindings []audit.PolicyFinding `json:"policyFindings,omitempty"`
	Warnings       []string              `json:"warnings,omitempty"`
	// Complete is false when the evidence has holes a reader must know
	// of: gaps in the log, roots not in it, unexplained objects.
	Complete bool `json:"complete"`
	// NoMatch is what the text says when no root is in scope: where kgc
	// looked, and what it knows of the object asked about.
	NoMatch string `json:"-"`
}

// Window is the time the log covers, file by file.
type Window struct {
	From  time.Time    `json:"from"`
	To    time.Time    `json:"to"`
	Files []audit.File `json:"files"`
	Gaps  []Gap        `json:"gaps,omitempty"`
}

// Gap is a stretch of time the log says nothing about.
type Gap struct {
	From    time.Time `json:"from"`
	To      time.Time `json:"to"`
	Message string    `json:"message"`
}

// Root is one chain: the request that started it and what followed.
type Root struct {
	Request    Request     `json:"request"`
	Summary    Summary     `json:"summary"`
	Cascade    []Link      `json:"cascade"`
	Prediction *Prediction `json:"prediction,omitempty"`
	// Unitemized are the deletecollections of a deleted namespace that
	// name no object (logged at Metadata level) and that no before
	// snapshot itemizes: what they removed is not in Cascade.
	Unitemized []Sweep `json:"unitemized,omitempty"`
}

// Sweep is a deletecollection whose objects the evidence does not name.
type Sweep struct {
	Resource  string    `json:"resource"`
	Namespace string    `json:"namespace"`
	User      string    `json:"user"`
	AuditID   string    `json:"auditID"`
	Time      time.Time `json:"time"`
}

// Request is the root request as the log shows it. A root whose request is
// not in the log (it came before the window, or went through an API server
// whose log was not given) has Missing set and only what its dependents
// say of it.
type Request struct {
	AuditID            string         `json:"auditID,omitempty"`
	Missing            bool           `json:"missing,omitempty"`
	Time               time.Time      `json:"time"`
	Verb               string         `json:"verb,omitempty"`
	URI                string         `json:"uri,omitempty"`
	User               string         `json:"user,omitempty"`
	Groups             []string       `json:"groups,omitempty"`
	ImpersonatedUser   string         `json:"impersonatedUser,omitempty"`
	UserAgent          string         `json:"userAgent,omitempty"`
	SourceIPs          []string       `json:"sourceIPs,omitempty"`
	Object             RequestObject  `json:"object"`
	DeleteOptions      *DeleteOptions `json:"deleteOptions,omitempty"`
	DeleteOptionsKnown bool           `json:"deleteOptionsKnown"`
	Code               int            `json:"code,omitempty"`
	Authorization      *Authorization `json:"authorization,omitempty"`
	// Actor is "user" for a person or an outside client, or the name of
	// the controller that acted on its own.
	Actor string `json:"actor"`
	// ReasonUnknown is set on a controller's root when the evidence does
	// not show why it deleted the object (its owner references were
	// never logged nor in a snapshot): it started the deletion, and kgc
	// does not say for whom.
	ReasonUnknown bool `json:"reasonUnknown,omitempty"`
	// ApplyReport names the kgc apply report that sent the request, when
	// one given with --apply-report holds its audit ID.
	ApplyReport *ApplyReportRef `json:"applyReport,omitempty"`
}

// RequestObject is the object a root request named.
type RequestObject struct {
	snapshot.ObjectRef
	Resource string `json:"resource,omitempty"`
}

// DeleteOptions of a root request, as logged.
type DeleteOptions struct {
	PropagationPolicy  string         `json:"propagationPolicy,omitempty"`
	OrphanDependents   *bool          `json:"orphanDependents,omitempty"`
	GracePeriodSeconds *int64         `json:"gracePeriodSeconds,omitempty"`
	DryRun             []string       `json:"dryRun,omitempty"`
	Preconditions      *Preconditions `json:"preconditions,omitempty"`
}

// Preconditions of a DELETE.
type Preconditions struct {
	UID             string `json:"uid,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// Authorization is the authorizer's decision on the request.
type Authorization struct {
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// Summary counts what went with a root, the root object excluded.
type Summary struct {
	Objects     int         `json:"objects"`
	Deleted     int         `json:"deleted"`
	Orphaned    int         `json:"orphaned"`
	Terminating int         `json:"terminating"`
	ByKind      []KindCount `json:"byKind"`
}

// KindCount is how many objects of one kind went.
type KindCount struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

// Results of a link.
const (
	ResultDeleted          = "deleted"
	ResultOrphaned         = "orphaned"
	ResultTerminating      = "terminating"
	ResultFinalizerRemoved = "finalizer-removed"
)

// What a link's parent is to its object.
const (
	ViaRoot           = "root"
	ViaOwnerReference = "ownerReference"
	ViaNamespace      = "namespace"
	ViaCRD            = "customResourceDefinition"
)

// Evidence kinds, strongest first.
const (
	EvidenceAudit    = "audit"
	EvidenceSnapshot = "snapshot"
	EvidenceModel    = "model"
	EvidenceTiming   = "timing"
)

// Link is one object of a chain: what happened to it, who did it, and how
// its tie to its parent is known.
type Link struct {
	Object   snapshot.ObjectRef `json:"object"`
	Result   string             `json:"result"`
	Actor    string             `json:"actor"`
	User     string             `json:"user,omitempty"`
	Time     time.Time          `json:"time"`
	AuditID  string             `json:"auditID,omitempty"`
	Via      string             `json:"via"`
	Evidence string             `json:"evidence"`
	Detail   string             `json:"detail,omitempty"`
	Steps    []Step             `json:"steps"`
	// Dependents are the links this object's going caused.
	Dependents []Link `json:"dependents,omitempty"`
}

// Step is one logged request about a link's object.
type Step struct {
	Time    time.Time `json:"time"`
	User    string    `json:"user"`
	Actor   string    `json:"actor"`
	Verb    string    `json:"verb"`
	AuditID string    `json:"auditID"`
	Code    int       `json:"code,omitempty"`
	What    string    `json:"what"`
	// Finalizers are the finalizers a remove-finalizer step took off,
	// when the log shows which.
	Finalizers []string `json:"finalizers,omitempty"`
}

// Step kinds.
const (
	StepMarkDeleting     = "mark-deleting"
	StepDelete           = "delete"
	StepDeleteCollection = "deletecollection"
	StepRemoveFinalizer  = "remove-finalizer"
	StepOrphan           = "orphan"
	StepUpdate           = "update"
	StepEvict            = "evict"
	StepRefused          = "refused"
	// StepNotFound is a DELETE answered 404: the object was already gone.
	StepNotFound = "not-found"
)

// Prediction compares what kgc's plan of the root request, made on the
// before snapshot, says with what happened.
type Prediction struct {
	PropagationPolicy    plan.Policy       `json:"propagationPolicy"`
	PolicyKnown          bool              `json:"policyKnown"`
	Complete             bool              `json:"complete"`
	AsPredicted          int               `json:"asPredicted"`
	NotPredicted         int               `json:"notPredicted"`
	PredictedNotHappened int               `json:"predictedNotHappened"`
	Objects              []PredictedObject `json:"objects"`
	// Error says why no plan could be made (the root object is not in
	// the before snapshot).
	Error string `json:"error,omitempty"`
}

// Results of a prediction.
const (
	PredictionAsPredicted          = "as-predicted"
	PredictionNotPredicted         = "not-predicted"
	PredictionPredictedNotHappened = "predicted-not-happened"
	// PredictionGoneBefore is an object another chain started deleting
	// before the root's request: not the request's doing.
	PredictionGoneBefore = "gone-before"
)

// What happened to an object, as the evidence shows.
const (
	HappenedDeleted     = "deleted"
	HappenedOrphaned    = "orphaned"
	HappenedTerminating = "terminating"
	HappenedExists      = "exists"
	HappenedUnknown     = "unknown"
)

// PredictedObject is one object of the comparison.
type PredictedObject struct {
	Object    snapshot.ObjectRef `json:"object"`
	Predicted string             `json:"predicted"`
	Happened  string             `json:"happened"`
	Result    string             `json:"result"`
	Detail    string             `json:"detail,omitempty"`
	WhyStuck  string             `json:"whyStuck,omitempty"`
}

// Unexplained is an object that went with no request naming it and no
// chain to put it in.
type Unexplained struct {
	Object        snapshot.ObjectRef `json:"object"`
	LikelyRemover string             `json:"likelyRemover"`
	Evidence      string             `json:"evidence"`
	Message       string             `json:"message"`
}

// DryRun is a request the API server answered as if it had acted, and
// that changed nothing (dryRun=All): who asked "what if", and of what.
type DryRun struct {
	Time             time.Time     `json:"time"`
	User             string        `json:"user"`
	ImpersonatedUser string        `json:"impersonatedUser,omitempty"`
	UserAgent        string        `json:"userAgent,omitempty"`
	Verb             string        `json:"verb"`
	Object           RequestObject `json:"object"`
	AuditID          string        `json:"auditID"`
	Code             int           `json:"code,omitempty"`
}

// StillGoing is an object whose deletion started in the window and that is
// still terminating at its end.
type StillGoing struct {
	Object      snapshot.ObjectRef `json:"object"`
	Since       time.Time          `json:"since"`
	RootAuditID string             `json:"rootAuditID,omitempty"`
	RootCause   string             `json:"rootCause"`
}
