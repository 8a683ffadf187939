// Package report holds the ApplyReport document of the output contract:
// what kgc apply decided, every request it sent, and reality compared
// with the plan. It is apart from package apply, which talks to a
// cluster, so that the pure renderers can print it.
package report

import (
	"time"

	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Report is the ApplyReport document of the output contract: what apply
// decided, every request it sent, and reality compared with the plan.
type Report struct {
	APIVersion        string             `json:"apiVersion"`
	Kind              string             `json:"kind"`
	Target            snapshot.ObjectRef `json:"target"`
	PropagationPolicy plan.Policy        `json:"propagationPolicy"`
	Digest            string             `json:"digest"`
	Cluster           *plan.Cluster      `json:"cluster,omitempty"`
	DryRun            bool               `json:"dryRun,omitempty"`
	// Identity is the user the requests were sent as (a SelfSubjectReview),
	// when the API server says.
	Identity string `json:"identity,omitempty"`
	// Outcome is one of the Outcome* constants.
	Outcome  string          `json:"outcome"`
	Refusal  *Refusal        `json:"refusal,omitempty"`
	Requests []RequestRecord `json:"requests"`
	Objects  []ObjectResult  `json:"objects"`
	Summary  ResultSummary   `json:"summary"`
	Notes    []string        `json:"notes,omitempty"`
	// Backup is what --backup wrote before the DELETE.
	Backup *Backup `json:"backup,omitempty"`
	// Remedy is the why-stuck remedy applied (kgc apply --remedy).
	Remedy *RemedyApplied `json:"remedy,omitempty"`
}

// Outcomes of an apply.
const (
	OutcomeAsPlanned      = "as-planned"       // every planned object reached its planned final state
	OutcomeDiverged       = "diverged"         // reality differs from the plan for at least one object
	OutcomeTimedOut       = "timed-out"        // --timeout passed with objects still in progress
	OutcomeSent           = "sent"             // --timeout=0: the DELETE was accepted, not followed
	OutcomeRefused        = "refused"          // a check failed; nothing was deleted
	OutcomeDryRunAccepted = "dry-run-accepted" // --dry-run=server: the API server would accept the DELETE
	OutcomeDryRunRejected = "dry-run-rejected" // --dry-run=server: the API server refused it
	OutcomeRejected       = "rejected"         // the API server refused the DELETE (not a precondition)
	// OutcomeUnknown: the DELETE got no response and its target could not
	// be re-read to tell whether the API server accepted it.
	OutcomeUnknown = "unknown"
	// OutcomeInterrupted: the person interrupted the follow (Ctrl-C) with
	// objects still in progress. The DELETE was sent and the cascade goes on
	// in the cluster; the report is what was seen until then.
	OutcomeInterrupted = "interrupted"
)

// RequestRecord is one request apply sent.
type RequestRecord struct {
	Time              time.Time          `json:"time"`
	Verb              string             `json:"verb"`
	Object            snapshot.ObjectRef `json:"object"`
	Preconditions     Preconditions      `json:"preconditions"`
	PropagationPolicy plan.Policy        `json:"propagationPolicy,omitempty"`
	DryRun            bool               `json:"dryRun,omitempty"`
	// Patch is a PATCH's JSON patch, its test operations included.
	Patch []diagnose.PatchOp `json:"patch,omitempty"`
	// GracePeriodSeconds of a DELETE that sets one (a force delete).
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
	// Status is the HTTP status code of the response.
	Status  int    `json:"status"`
	Message string `json:"message,omitempty"`
	// AuditID is the request's Audit-Id: the ID of its event in the API
	// server's audit log. kgc sends an ID of its own, which the API server
	// adopts and echoes, so a request whose response was lost has one too.
	AuditID string `json:"auditID,omitempty"`
}

// Preconditions of a DELETE: the server refuses it with 409 Conflict when
// the object is not this one any more.
type Preconditions struct {
	UID             string `json:"uid"`
	ResourceVersion string `json:"resourceVersion"`
}

// Results of one object, reality against the plan.
const (
	ResultAsPlanned  = "as-planned"
	ResultDiverged   = "diverged"
	ResultInProgress = "in-progress"
)

// ObjectResult compares one planned object with what was observed.
type ObjectResult struct {
	Object      snapshot.ObjectRef `json:"object"`
	PlannedFate string             `json:"plannedFate"`
	Planned     plan.FinalState    `json:"planned"`
	// Observed is the last state seen; Exists false once it is gone.
	Observed *plan.FinalState `json:"observed,omitempty"`
	Result   string           `json:"result"`
	Detail   string           `json:"detail,omitempty"`
	// WhyStuck is kgc why-stuck's verdict on an object still terminating
	// when the cascade stopped being followed.
	WhyStuck string `json:"whyStuck,omitempty"`
}

// ResultSummary counts objects by result.
type ResultSummary struct {
	AsPlanned  int `json:"asPlanned"`
	Diverged   int `json:"diverged"`
	InProgress int `json:"inProgress"`
}
