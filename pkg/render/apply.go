package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/pkg/apply/report"
)

// ApplyText prints kgc apply's report for a person: the outcome, the
// requests sent, and each object against the plan, surprises first.
func ApplyText(w io.Writer, r *report.Report) error {
	var b strings.Builder
	if m := r.Remedy; m != nil {
		fmt.Fprintf(&b, "Apply of remedy %s: %s\n", m.ID, m.Description)
		fmt.Fprintf(&b, "Root cause: %s (%s)\n", m.Message, m.Reason)
	} else {
		fmt.Fprintf(&b, "Apply of the delete of %s (propagationPolicy %s)\n", r.Target.String(), report.PolicyName(r.PropagationPolicy))
		fmt.Fprintf(&b, "Plan digest: %s\n", r.Digest)
	}
	if r.Refusal != nil && len(r.Requests) == 0 {
		// A refusal is said once: why, and that nothing was sent, on the
		// outcome line (kgc prints no error beside it on a terminal).
		writeRefusal(&b, "Outcome: refused (%s), no request was sent: %s\n", r.Refusal)
	} else {
		fmt.Fprintf(&b, "Outcome: %s\n", outcomeText(r))
		if r.Refusal != nil {
			writeRefusal(&b, "\nRefused (%s): %s\n", r.Refusal)
		}
	}
	if r.Backup != nil {
		fmt.Fprintf(&b, "\nBackup: %d object(s) written to %s before the first request\n", len(r.Backup.Files), r.Backup.Dir)
	}
	if r.Refusal == nil || len(r.Requests) > 0 {
		writeRequests(&b, r.Requests, r.Identity)
	}
	writeObjects(&b, r.Objects)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\nNote: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeRefusal writes a refusal on the line format says (its reason, then
// its message), the objects of its diff, and every other refusal that
// holds, one line each.
func writeRefusal(b *strings.Builder, format string, r *report.Refusal) {
	fmt.Fprintf(b, format, r.Reason, r.Message)
	for _, d := range r.Diff {
		fmt.Fprintf(b, "  %s\n", d)
	}
	for i := range r.Also {
		writeRefusal(b, "Also refused (%s): %s\n", &r.Also[i])
	}
}

func outcomeText(r *report.Report) string {
	switch r.Outcome {
	case report.OutcomeAsPlanned:
		return "as planned: every object reached its planned state"
	case report.OutcomeDiverged:
		return fmt.Sprintf("DIVERGED: %d object(s) did not end as planned", r.Summary.Diverged)
	case report.OutcomeTimedOut:
		return fmt.Sprintf("timed out: %d object(s) still in progress", r.Summary.InProgress)
	case report.OutcomeSent:
		return "the DELETE was accepted; the cascade was not followed"
	case report.OutcomeInterrupted:
		return fmt.Sprintf("INTERRUPTED: %d object(s) still in progress when following stopped", r.Summary.InProgress)
	case report.OutcomeDryRunAccepted:
		return "dry run: the API server would accept the DELETE; nothing was deleted"
	case report.OutcomeDryRunRejected:
		return "dry run: the API server would refuse the DELETE; nothing was deleted"
	case report.OutcomeRefused:
		return "refused; nothing was deleted"
	case report.OutcomeRejected:
		return "the API server refused the DELETE; nothing was deleted"
	case report.OutcomeUnknown:
		return "UNKNOWN: the DELETE got no response and its target could not be re-read"
	}
	return r.Outcome
}

func writeRequests(b *strings.Builder, reqs []report.RequestRecord, identity string) {
	if len(reqs) == 0 {
		b.WriteString("\nNo request was sent.\n")
		return
	}
	b.WriteString("\nRequests sent")
	if identity != "" {
		fmt.Fprintf(b, " as %s", identity)
	}
	b.WriteString(":\n")
	for _, q := range reqs {
		dry := ""
		if q.DryRun {
			dry = " dryRun=All"
		}
		how := "propagationPolicy=" + report.PolicyName(q.PropagationPolicy)
		switch {
		case len(q.Patch) > 0:
			how = fmt.Sprintf("JSON patch of %d operations", len(q.Patch))
		case q.GracePeriodSeconds != nil:
			how = fmt.Sprintf("gracePeriodSeconds=%d", *q.GracePeriodSeconds)
		}
		fmt.Fprintf(b, "  %s %s %s preconditions uid=%s resourceVersion=%s %s%s -> %d %s\n",
			q.Time.Format(time.RFC3339), q.Verb, q.Object.String(), q.Preconditions.UID, q.Preconditions.ResourceVersion,
			how, dry, q.Status, q.Message)
	}
}

func writeObjects(b *strings.Builder, objs []report.ObjectResult) {
	if len(objs) == 0 {
		return
	}
	b.WriteString("\nObjects:\n")
	for _, want := range []string{report.ResultDiverged, report.ResultInProgress, report.ResultAsPlanned} {
		for _, o := range objs {
			if o.Result != want {
				continue
			}
			fmt.Fprintf(b, "  %-11s %s (planned %s)", o.Result, o.Object.String(), o.PlannedFate)
			if o.Detail != "" {
				fmt.Fprintf(b, ": %s", o.Detail)
			}
			b.WriteString("\n")
			if o.WhyStuck != "" {
				fmt.Fprintf(b, "              why-stuck: %s\n", o.WhyStuck)
			}
		}
	}
}
