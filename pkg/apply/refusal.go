package apply

import (
	"fmt"
	"strings"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Reasons for refusing. Each refusal deletes nothing; the command maps
// the reason to an exit code.
const (
	ReasonNoBasis      = "no-basis"      // the plan document predates apply: re-plan
	ReasonOtherCluster = "other-cluster" // planned against another cluster, or from files
	ReasonStale        = "stale"         // the cluster moved since the plan was made
	// ReasonApplied: the plan's delete already happened (its target and
	// everything it deletes are gone): the plan is single use.
	ReasonApplied      = "already-applied"
	ReasonKept         = "kept"          // the cascade reaches an object marked to keep; --allow-kept
	ReasonBackup       = "backup-failed" // --backup could not read or write an object
	ReasonMaxDeletions = "max-deletions" // --max-deletions is below what the plan deletes
	ReasonBlocked      = "blocked"       // the plan leaves objects terminating; --allow-blocked
	ReasonNotConfirmed = "not-confirmed" // no --yes, no matching --confirm, no terminal, or a wrong answer
)

// Refusal is why apply did not send the DELETE. It is an error, and part
// of the report.
type Refusal struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// Diff is the difference between the saved plan and the fresh one,
	// object by object, for a stale plan.
	Diff []ObjectDiff `json:"diff,omitempty"`
}

func (r *Refusal) Error() string {
	var b strings.Builder
	b.WriteString(r.Message)
	for _, d := range r.Diff {
		fmt.Fprintf(&b, "\n  %s", d)
	}
	return b.String()
}

// ObjectDiff is one object whose outcome the fresh plan changes.
type ObjectDiff struct {
	Object snapshot.ObjectRef `json:"object"`
	// Planned and Now are the outcomes, fate first, alternatives after a
	// "|"; "kept" when the plan leaves the object alone.
	Planned string `json:"planned"`
	Now     string `json:"now"`
	Detail  string `json:"detail,omitempty"`
}

func (d ObjectDiff) String() string {
	planned := "planned " + d.Planned
	if d.Planned == NotInPlan {
		planned = "not in the plan"
	}
	s := fmt.Sprintf("%s: %s, now %s", refString(d.Object), planned, d.Now)
	if d.Detail != "" {
		s += " (" + d.Detail + ")"
	}
	return s
}

func refString(r snapshot.ObjectRef) string { return r.String() }

func refuse(reason, format string, a ...any) *Refusal {
	return &Refusal{Reason: reason, Message: fmt.Sprintf(format, a...)}
}

// ReasonIncomplete: the fresh read of the cluster missed a type the
// API server did not answer for (throttled, 5xx, timed out): the check
// could not be completed, and a DELETE on a partial re-plan is never sent.
const ReasonIncomplete = "incomplete"
