package apply

import (
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"testing"

	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

func TestJudge(t *testing.T) {
	kept := plan.FinalState{Exists: true, Finalizers: []string{"a", "b"}, OwnerReferences: []string{"o1", "o2"}}
	gone := plan.FinalState{Finalizers: []string{}, OwnerReferences: []string{}}
	held := plan.FinalState{Exists: true, Terminating: true, Finalizers: []string{"kgc.dev/hold"}, OwnerReferences: []string{}}
	of := func(fate string, final plan.FinalState, alts ...plan.FinalState) *plan.Plan {
		o := plan.ObjectFate{Object: snapshot.ObjectRef{Kind: "Secret", Name: "x", UID: "x"}, Fate: fate, Final: final}
		for _, a := range alts {
			o.Alternatives = append(o.Alternatives, plan.Alternative{Fate: "other", Final: a})
		}
		return &plan.Plan{Objects: []plan.ObjectFate{o}}
	}
	for name, tc := range map[string]struct {
		p       *plan.Plan
		seen    *plan.FinalState // nil: not observed
		want    string
		details string
	}{
		"planned gone, gone":               {of(plan.FateDeleted, gone), &gone, report.ResultAsPlanned, ""},
		"sets in another order":            {of(plan.FateUnchanged, kept), &plan.FinalState{Exists: true, Finalizers: []string{"b", "a"}, OwnerReferences: []string{"o2", "o1"}}, report.ResultAsPlanned, ""},
		"an alternative":                   {of(plan.FateOrphaned, kept, gone), &gone, report.ResultAsPlanned, "as an alternative outcome of the plan"},
		"gone though kept":                 {of(plan.FateOrphaned, kept), &gone, report.ResultDiverged, "deleted, but the plan keeps it"},
		"still there, planned gone":        {of(plan.FateDeleted, gone), &kept, report.ResultInProgress, "still exists, planned to be deleted"},
		"terminating, planned gone":        {of(plan.FateDeleted, gone), &held, report.ResultInProgress, "terminating, finalizers [kgc.dev/hold]"},
		"planned blocked, not terminating": {of(plan.FateBlocked, held), &plan.FinalState{Exists: true, Finalizers: []string{"kgc.dev/hold"}}, report.ResultInProgress, "not terminating yet"},
		"planned blocked, blocked":         {of(plan.FateBlocked, held), &held, report.ResultAsPlanned, ""},
		"never observed":                   {of(plan.FateDeleted, gone), nil, report.ResultInProgress, "not observed yet"},
	} {
		t.Run(name, func(t *testing.T) {
			seen := map[string]plan.FinalState{}
			if tc.seen != nil {
				seen["x"] = *tc.seen
			}
			got := Judge(tc.p, seen)
			if len(got) != 1 || got[0].Result != tc.want || got[0].Detail != tc.details {
				t.Errorf("got %+v, want %s (%s)", got, tc.want, tc.details)
			}
		})
	}
}

func TestOutcomeDivergedWinsOverTimeout(t *testing.T) {
	for s, want := range map[report.ResultSummary]string{
		{AsPlanned: 3}:                             report.OutcomeAsPlanned,
		{AsPlanned: 1, InProgress: 2}:              report.OutcomeTimedOut,
		{AsPlanned: 1, InProgress: 1, Diverged: 1}: report.OutcomeDiverged,
	} {
		if got := outcome(s); got != want {
			t.Errorf("outcome(%+v) = %s, want %s", s, got, want)
		}
	}
}
