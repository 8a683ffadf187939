package apply

import (
	"fmt"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"time"

	"github.com/kgc-dev/kgc/pkg/plan"
)

// interruptedOutcome is the outcome of a follow the person stopped: a
// divergence still wins (it is the surprise that needs a person), and a
// cascade that finished before the interrupt was read is as planned.
func interruptedOutcome(s report.ResultSummary) string {
	if o := outcome(s); o != report.OutcomeTimedOut {
		return o
	}
	return report.OutcomeInterrupted
}

// interruptNote says what an interrupt left behind.
func interruptNote(s report.ResultSummary) string {
	return fmt.Sprintf("interrupted while following: the cascade goes on in the cluster without kgc watching; %d object(s) were still in progress; follow up with kgc why-stuck", s.InProgress)
}

// waitLimit bounds what the progress line says it waits on, so that the
// whole line stays on one terminal row.
const waitLimit = 72

// waitClock remembers since when the follow waits on the same wave, for
// the progress line.
type waitClock struct {
	wave  int
	since time.Time
}

// waitingOn names the object the current wave waits for and why, as the
// report would judge it (ObjectResult.Detail), and for how long the wave
// has waited: "waiting on ConfigMap/stuck -n team-a: terminating,
// finalizers [example.com/never] (40s)". Empty when nothing is pending.
func waitingOn(p *plan.Plan, objs []report.ObjectResult, waited time.Duration) string {
	wave, _ := currentWave(p, objs)
	pending := map[string]*report.ObjectResult{}
	for i := range objs {
		if objs[i].Result == report.ResultInProgress {
			pending[objs[i].Object.UID] = &objs[i]
		}
	}
	for _, s := range p.Steps {
		r := pending[s.Object.UID]
		if s.Wave != wave || r == nil {
			continue
		}
		why := r.Detail
		if len(why) > waitLimit {
			why = why[:waitLimit-1] + "…"
		}
		return fmt.Sprintf("waiting on %s: %s (%s)", refString(r.Object), why, waited.Truncate(time.Second))
	}
	return ""
}

// line is the progress line with what the wave waits on, keeping its
// clock: a new wave starts it again.
func (c *waitClock) line(p *plan.Plan, objs []report.ObjectResult, now time.Time) string {
	bar := progressBar(p, objs)
	wave, _ := currentWave(p, objs)
	if wave != c.wave || c.since.IsZero() {
		c.wave, c.since = wave, now
	}
	if w := waitingOn(p, objs, now.Sub(c.since)); w != "" {
		bar += "  " + w
	}
	return bar
}

// plannedOutcome is what the saved plan said of an object: its outcomes,
// or NotInPlan when it does not list the object.
func plannedOutcome(was outcomes, listed bool) string {
	if !listed {
		return report.NotInPlan
	}
	return was.String()
}
