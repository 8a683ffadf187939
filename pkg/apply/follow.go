package apply

import (
	"context"
	"fmt"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"slices"
	"time"

	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// follow watches the planned objects until each is as planned or has
// diverged for good, or until the timeout, and fills in the report.
func (a *Applier) follow(ctx context.Context, p *plan.Plan, rep *report.Report) error {
	ctx, cancel := context.WithTimeout(ctx, a.Options.Timeout)
	defer cancel()
	refs := make([]snapshot.ObjectRef, 0, len(p.Objects))
	for _, of := range p.Objects {
		refs = append(refs, of.Object)
	}
	events, err := a.Cluster.Watch(ctx, refs)
	if err != nil {
		rep.Outcome = report.OutcomeSent
		return fmt.Errorf("the DELETE was accepted, but following the cascade failed: %w; check with kgc why-stuck", err)
	}
	if a.Options.Following != nil {
		a.Options.Following()
	}
	seen := map[string]plan.FinalState{}
	clock := &waitClock{}
	interrupted := false
	for settled := false; !settled; {
		select {
		case ev, ok := <-events:
			if !ok {
				settled = true
				break
			}
			seen[ev.UID] = observed(ev.State)
			rep.Objects = Judge(p, seen)
			settled = allSettled(rep.Objects)
			a.progress(p, rep.Objects, clock)
		case <-a.Options.Interrupt:
			settled, interrupted = true, true
		case <-ctx.Done():
			settled = true
		}
	}
	if a.Options.Progress != nil {
		fmt.Fprintln(a.Options.Progress)
	}
	rep.Objects = Judge(p, seen)
	rep.Summary = summarize(rep.Objects)
	rep.Outcome = outcome(rep.Summary)
	if interrupted {
		rep.Outcome = interruptedOutcome(rep.Summary)
		if rep.Outcome == report.OutcomeInterrupted {
			rep.Notes = append(rep.Notes, interruptNote(rep.Summary))
		}
	}
	a.explainStuck(ctx, rep)
	return nil
}

// explainStuck gives each object still terminating at the timeout
// why-stuck's verdict, from a fresh capture: "in progress" alone would
// leave the person to find out why.
func (a *Applier) explainStuck(ctx context.Context, rep *report.Report) {
	var stuck []*report.ObjectResult
	for i := range rep.Objects {
		r := &rep.Objects[i]
		if r.Result == report.ResultInProgress && r.Observed != nil && r.Observed.Terminating {
			stuck = append(stuck, r)
		}
	}
	if len(stuck) == 0 {
		return
	}
	// The follow's own deadline has passed; the capture gets its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	snap, err := a.Cluster.Capture(ctx, "")
	if err != nil {
		rep.Notes = append(rep.Notes, "cannot say why objects are still terminating: "+err.Error()+"; run kgc why-stuck on them")
		return
	}
	d := diagnose.New(snap, nil, diagnose.Options{})
	for _, r := range stuck {
		if diag, err := d.Diagnose(r.Object.UID); err == nil {
			r.WhyStuck = diag.Summary
		}
	}
}

func observed(s *plan.FinalState) plan.FinalState {
	if s == nil {
		return plan.FinalState{Finalizers: []string{}, OwnerReferences: []string{}}
	}
	return *s
}

// progress redraws the progress bar, on a terminal only (the project's
// rule: progress never goes to a pipe or a log).
func (a *Applier) progress(p *plan.Plan, objs []report.ObjectResult, clock *waitClock) {
	if a.Options.Progress == nil {
		return
	}
	fmt.Fprint(a.Options.Progress, "\r\033[K"+clock.line(p, objs, a.now()))
}

// Judge compares each planned object with its last observed state: as
// planned when it is in its planned final state (or an alternative's);
// diverged when it is gone but was planned to stay, which cannot be
// undone; otherwise still in progress.
func Judge(p *plan.Plan, seen map[string]plan.FinalState) []report.ObjectResult {
	out := make([]report.ObjectResult, 0, len(p.Objects))
	for _, of := range p.Objects {
		r := report.ObjectResult{Object: of.Object, PlannedFate: of.Fate, Planned: of.Final}
		obs, ok := seen[of.Object.UID]
		switch {
		case !ok:
			r.Result, r.Detail = report.ResultInProgress, "not observed yet"
		case matches(of.Final, obs):
			r.Result = report.ResultAsPlanned
		case matchesAlternative(of, obs):
			r.Result, r.Detail = report.ResultAsPlanned, "as an alternative outcome of the plan"
		case !obs.Exists:
			r.Result, r.Detail = report.ResultDiverged, "deleted, but the plan keeps it"
		default:
			r.Result, r.Detail = report.ResultInProgress, inProgressDetail(of.Final, obs)
		}
		if ok {
			o := obs
			r.Observed = &o
		}
		out = append(out, r)
	}
	return out
}

func matchesAlternative(of plan.ObjectFate, obs plan.FinalState) bool {
	for _, a := range of.Alternatives {
		if matches(a.Final, obs) {
			return true
		}
	}
	return false
}

// matches compares states as sets: the order of finalizers and owner
// references is not part of the plan.
func matches(planned, obs plan.FinalState) bool {
	if planned.Exists != obs.Exists {
		return false
	}
	if !planned.Exists {
		return true
	}
	return planned.Terminating == obs.Terminating && sameSet(planned.Finalizers, obs.Finalizers) &&
		sameSet(planned.OwnerReferences, obs.OwnerReferences)
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

func inProgressDetail(planned, obs plan.FinalState) string {
	switch {
	case !planned.Exists && obs.Terminating:
		return fmt.Sprintf("terminating, finalizers %v", obs.Finalizers)
	case !planned.Exists:
		return "still exists, planned to be deleted"
	case planned.Terminating && !obs.Terminating:
		return "not terminating yet"
	case !sameSet(planned.OwnerReferences, obs.OwnerReferences):
		return fmt.Sprintf("owner references %v, planned %v", obs.OwnerReferences, planned.OwnerReferences)
	}
	return fmt.Sprintf("finalizers %v, planned %v", obs.Finalizers, planned.Finalizers)
}

func allSettled(objs []report.ObjectResult) bool {
	for _, o := range objs {
		if o.Result == report.ResultInProgress {
			return false
		}
	}
	return true
}

func summarize(objs []report.ObjectResult) report.ResultSummary {
	var s report.ResultSummary
	for _, o := range objs {
		switch o.Result {
		case report.ResultAsPlanned:
			s.AsPlanned++
		case report.ResultDiverged:
			s.Diverged++
		default:
			s.InProgress++
		}
	}
	return s
}

// outcome: a divergence is reported over a timeout, because it is the
// surprise that needs a person; objects still in progress may yet finish.
func outcome(s report.ResultSummary) string {
	switch {
	case s.Diverged > 0:
		return report.OutcomeDiverged
	case s.InProgress > 0:
		return report.OutcomeTimedOut
	}
	return report.OutcomeAsPlanned
}
