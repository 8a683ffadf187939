package report

import (
	"errors"
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
	// Also are the other refusals that hold, in the order checked, so
	// that one run says everything that stands between the plan and its
	// DELETE; the first refusal decides the exit code.
	Also []Refusal `json:"also,omitempty"`
}

// Refused records err in the report when it is a refusal, and returns
// both, so that a check's failure is one line: return rep.Refused(err).
func (r *Report) Refused(err error) (*Report, error) {
	if ref := (*Refusal)(nil); errors.As(err, &ref) {
		r.Outcome = OutcomeRefused
		r.Refusal = ref
	}
	return r, err
}

func (r *Refusal) Error() string {
	var b strings.Builder
	b.WriteString(r.Message)
	for _, d := range r.Diff {
		fmt.Fprintf(&b, "\n  %s", d)
	}
	for i := range r.Also {
		fmt.Fprintf(&b, "\nalso refused (%s): %s", r.Also[i].Reason, r.Also[i].Error())
	}
	return b.String()
}

// Join makes one refusal of the checks' results: the first refusal, with
// every other that holds in its Also. An error that is not a refusal (the
// cluster could not be read) is returned as is, before any refusal; no
// error at all is nil.
func Join(errs ...error) error {
	var first *Refusal
	for _, err := range errs {
		if err == nil {
			continue
		}
		var ref *Refusal
		if !errors.As(err, &ref) {
			return err
		}
		if first == nil {
			first = ref
			continue
		}
		more := *ref
		more.Also = nil
		first.Also = append(first.Also, more)
		first.Also = append(first.Also, ref.Also...)
	}
	if first == nil {
		return nil
	}
	return first
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
	s := fmt.Sprintf("%s: %s, now %s", d.Object.String(), planned, d.Now)
	if d.Detail != "" {
		s += " (" + d.Detail + ")"
	}
	return s
}

// ReasonIncomplete: the fresh read of the cluster missed a type the
// API server did not answer for (throttled, 5xx, timed out): the check
// could not be completed, and a DELETE on a partial re-plan is never sent.
const ReasonIncomplete = "incomplete"

// NotInPlan is ObjectDiff.Planned for an object the saved plan does not
// list: created after the plan was made, or newly reached by the cascade.
// "kept" would say the plan decided to keep it, which it never did.
const NotInPlan = "not-in-plan"
