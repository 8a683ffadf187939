package apply

import (
	"context"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/plan"
)

// A DELETE whose response was lost is never sent twice: kgc re-reads its
// target and says whether the API server accepted it.
func TestApplyLostDeleteResponse(t *testing.T) {
	for name, tc := range map[string]struct {
		rereadAs, outcome, note, err string
	}{
		"the target is gone":        {"gone", OutcomeAsPlanned, "outcome of the DELETE unknown until re-read: accepted", ""},
		"the target is terminating": {"terminating", OutcomeAsPlanned, "outcome of the DELETE unknown until re-read: accepted", ""},
		"the target is unchanged":   {"", OutcomeRejected, "outcome of the DELETE unknown until re-read: not accepted", "did not accept it and nothing was deleted"},
	} {
		t.Run(name, func(t *testing.T) {
			saved := mustPlan(t, shop(), plan.PolicyBackground)
			f := &fakeCluster{snap: shop(), after: map[string]*plan.FinalState{}, lost: true, rereadAs: tc.rereadAs}
			rep, err := applier(f, Options{Consent: yes}).Apply(context.Background(), saved)
			if len(f.deletes) != 1 {
				t.Fatalf("sent %d DELETEs after a lost response, want exactly 1", len(f.deletes))
			}
			if rep.Outcome != tc.outcome || !strings.Contains(strings.Join(rep.Notes, "\n"), tc.note) {
				t.Errorf("outcome %s, notes %q; want %s and %q", rep.Outcome, rep.Notes, tc.outcome, tc.note)
			}
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
			if rep.Requests[0].Status != 0 {
				t.Errorf("the report records status %d for a DELETE that got no response, want 0", rep.Requests[0].Status)
			}
		})
	}
}
