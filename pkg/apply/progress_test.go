package apply

import (
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"testing"

	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// TestProgressBar: the bar counts the planned deletions observed gone,
// and the wave is the first one still holding an object not as planned.
func TestProgressBar(t *testing.T) {
	ref := func(uid string) snapshot.ObjectRef { return snapshot.ObjectRef{Kind: "Secret", Name: uid, UID: uid} }
	p := &plan.Plan{Steps: []plan.Step{{Wave: 1, Object: ref("owner")}, {Wave: 2, Object: ref("a")}, {Wave: 2, Object: ref("b")}, {Wave: 3, Object: ref("owner")}}}
	gone := &plan.FinalState{}
	there := &plan.FinalState{Exists: true, Terminating: true}
	res := func(uid, fate, result string, obs *plan.FinalState) report.ObjectResult {
		return report.ObjectResult{Object: ref(uid), PlannedFate: fate, Result: result, Observed: obs}
	}
	for _, c := range []struct {
		name string
		objs []report.ObjectResult
		want string
	}{
		{"nothing observed", []report.ObjectResult{res("owner", plan.FateDeleted, report.ResultInProgress, nil), res("a", plan.FateDeleted, report.ResultInProgress, nil), res("b", plan.FateDeleted, report.ResultInProgress, nil)},
			"following [------------------------] 0/3 deleted  wave 1/3  0 diverged"},
		{"dependents going", []report.ObjectResult{res("owner", plan.FateDeleted, report.ResultInProgress, there), res("a", plan.FateDeleted, report.ResultAsPlanned, gone), res("b", plan.FateDeleted, report.ResultInProgress, there)},
			"following [########----------------] 1/3 deleted  wave 1/3  0 diverged"},
		{"one kept object diverged", []report.ObjectResult{res("owner", plan.FateDeleted, report.ResultAsPlanned, gone), res("a", plan.FateDeleted, report.ResultAsPlanned, gone), res("b", plan.FateUnchanged, report.ResultDiverged, gone)},
			"following [########################] 2/2 deleted  wave 2/3  1 diverged"},
		{"done", []report.ObjectResult{res("owner", plan.FateDeleted, report.ResultAsPlanned, gone), res("a", plan.FateDeleted, report.ResultAsPlanned, gone), res("b", plan.FateDeleted, report.ResultAsPlanned, gone)},
			"following [########################] 3/3 deleted  wave 3/3  0 diverged"},
	} {
		if got := progressBar(p, c.objs); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}
