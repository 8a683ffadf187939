package apply

import (
	"context"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// A DELETE whose response was lost is never sent twice: kgc re-reads its
// target and says whether the API server accepted it.
func TestApplyLostDeleteResponse(t *testing.T) {
	for name, tc := range map[string]struct {
		rereadAs, outcome, note, err string
	}{
		"the target is gone":        {"gone", report.OutcomeAsPlanned, "outcome of the DELETE unknown until re-read: accepted", ""},
		"the target is terminating": {"terminating", report.OutcomeAsPlanned, "outcome of the DELETE unknown until re-read: accepted", ""},
		"the target is unchanged":   {"", report.OutcomeRejected, "outcome of the DELETE unknown until re-read: not accepted", "did not accept it and nothing was deleted"},
	} {
		t.Run(name, func(t *testing.T) {
			saved := mustPlan(t, shop(), plan.PolicyBackground)
			f := &fakeCluster{snap: shop(), after: map[string]*plan.FinalState{}, lost: true, rereadAs: tc.rereadAs}
			rep, err := applier(f, Options{Consent: yes}).Apply(context.Background(), saved)
			if len(f.deletes) != 1 {
				t.Fatalf("sent %d DELETEs after a lost response, want exactly 1", len(f.deletes))
			}
			requireSettled(t, rep, err, tc.outcome, tc.note, tc.err)
			if rep.Requests[0].Status != 0 {
				t.Errorf("the report records status %d for a DELETE that got no response, want 0", rep.Requests[0].Status)
			}
		})
	}
}

// A type the API server did not answer for (a 429 storm outlasting the
// retries) makes the check incomplete: refused, nothing sent, whatever
// the partial re-plan would say (here: the target's own type unread, so
// it would look already applied).
func TestApplyRefusesAnIncompleteRead(t *testing.T) {
	for name, kind := range map[string]string{"the dependents' type": "Secret", "the target's type": "ConfigMap"} {
		t.Run(name, func(t *testing.T) {
			saved := mustPlan(t, shop(), plan.PolicyBackground)
			now := shop()
			var kept []snapshot.Object
			for _, o := range now.Objects {
				if o.Kind != kind {
					kept = append(kept, o)
				}
			}
			now.Objects = kept
			for i, r := range now.Resources {
				if r.Kind == kind {
					now.Resources[i].Listed, now.Resources[i].Error = false, "the server has received too many requests (HTTP 429)"
				}
			}
			f := &fakeCluster{snap: now}
			rep, err := applier(f, Options{Consent: yes}).Apply(context.Background(), saved)
			if reason(err) != report.ReasonIncomplete || rep.Outcome != report.OutcomeRefused || len(f.deletes) != 0 {
				t.Fatalf("refusal %s, outcome %s, deletes %d; want incomplete, refused, none sent", reason(err), rep.Outcome, len(f.deletes))
			}
			mustContain(t, "refusal", err.Error(), "the check could not be completed", "(HTTP 429)", "nothing was sent")
		})
	}
}

// A remedy's PATCH whose response was lost is settled as a plan's DELETE
// is: never sent twice, the object re-read; its operations showing (or
// the object gone) mean the API server took it.
func TestApplyRemedyLostResponse(t *testing.T) {
	for name, tc := range map[string]struct {
		rereadAs   string
		finalizers []string
		outcome    string
		note, err  string
	}{
		"the object is gone":         {"gone", nil, report.OutcomeAsPlanned, "outcome of the PATCH unknown until re-read: accepted", ""},
		"the finalizer is removed":   {"patched", []string{"example.com/audit"}, report.OutcomeAsPlanned, "outcome of the PATCH unknown until re-read: accepted", ""},
		"the finalizers are as were": {"patched", []string{cleanup, "example.com/audit"}, report.OutcomeRejected, "outcome of the PATCH unknown until re-read: not accepted", "nothing was changed"},
	} {
		t.Run(name, func(t *testing.T) {
			held := []string{cleanup, "example.com/audit"}
			if tc.rereadAs == "gone" {
				held = []string{cleanup} // the remedy finishes the Widget
			}
			saved := diagnosis(t, stuckWidget(held...))
			f := &fakeCluster{snap: stuckWidget(held...), lost: true, rereadAs: tc.rereadAs, rereadFinalizers: tc.finalizers,
				after: map[string]*plan.FinalState{widgetUID: {Exists: true, Terminating: true, Finalizers: []string{"example.com/audit"}, OwnerReferences: []string{}}}}
			if tc.rereadAs == "gone" {
				f.after = map[string]*plan.FinalState{}
			}
			rep, err := applier(f, Options{Consent: yes, Timeout: time.Second}).ApplyRemedy(context.Background(), saved, removeHold)
			if len(f.sent) != 1 {
				t.Fatalf("sent %d PATCHes after a lost response, want exactly 1", len(f.sent))
			}
			requireSettled(t, rep, err, tc.outcome, tc.note, tc.err)
			if r := rep.Requests[0]; r.Status != 0 || r.AuditID == "" {
				t.Errorf("the report records %+v for a PATCH that got no response, want status 0 and its audit ID", r)
			}
		})
	}
}

// patchShows tells a JSON patch's effect on a re-read object: replaced
// lists (an emptied one is dropped), appended and removed values.
func TestPatchShows(t *testing.T) {
	obj := map[string]any{"metadata": map[string]any{"finalizers": []any{"a"}}, "spec": map[string]any{"taints": []any{map[string]any{"key": "k"}}}}
	for _, tc := range []struct {
		op   diagnose.PatchOp
		want bool
	}{
		{diagnose.PatchOp{Op: "replace", Path: "/metadata/finalizers", Value: []string{"a"}}, true},
		{diagnose.PatchOp{Op: "replace", Path: "/metadata/finalizers", Value: []string{"a", "b"}}, false},
		{diagnose.PatchOp{Op: "replace", Path: "/metadata/labels", Value: []string{}}, true},
		{diagnose.PatchOp{Op: "add", Path: "/spec/taints/-", Value: map[string]string{"key": "k"}}, true},
		{diagnose.PatchOp{Op: "add", Path: "/spec/taints/-", Value: map[string]string{"key": "other"}}, false},
		{diagnose.PatchOp{Op: "remove", Path: "/metadata/annotations"}, true},
		{diagnose.PatchOp{Op: "test", Path: "/metadata/uid", Value: "x"}, true},
	} {
		if got := patchShows(obj, []diagnose.PatchOp{tc.op}); got != tc.want {
			t.Errorf("%+v shows: %v, want %v", tc.op, got, tc.want)
		}
	}
}

// requireSettled requires the outcome, note and error (a substring, or
// "" for none) of a request whose response was lost.
func requireSettled(t *testing.T, rep *report.Report, err error, outcome, note, wantErr string) {
	t.Helper()
	if rep.Outcome != outcome || !strings.Contains(strings.Join(rep.Notes, "\n"), note) {
		t.Errorf("outcome %s, notes %q; want %s and %q", rep.Outcome, rep.Notes, outcome, note)
	}
	if wantErr == "" && err != nil || wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)) {
		t.Errorf("error %v, want %q", err, wantErr)
	}
}
