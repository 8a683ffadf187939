package apply

import (
	"context"
	"encoding/json"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/render"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

const (
	widgetUID  = "widget-gizmo"
	cleanup    = "widgets.example.com/cleanup"
	removeHold = "remove-finalizer:widget:shop/gizmo:" + cleanup
)

// stuckWidget is a live snapshot in which Widget/gizmo -n shop has been
// terminating for a day, held by a finalizer no controller removes, and
// ConfigMap/gizmo-cfg -n shop waits for it in the foreground.
func stuckWidget(finalizers ...string) *snapshot.Snapshot {
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	w := testobj.New("example.com/v1", "Widget", "shop", "gizmo").UID(widgetUID).ResourceVersion("41").
		Finalizers(finalizers...).Deleting(at.Add(-24 * time.Hour)).Build()
	s := testobj.Snapshot(w).CRD("example.com", "Widget", "widgets", true, "v1").Live().At(at).Build()
	s.Source.KubeSystemUID = ksUID
	return s
}

func diagnosis(t *testing.T, snap *snapshot.Snapshot) *diagnose.Diagnosis {
	t.Helper()
	d, err := diagnose.New(snap, nil, diagnose.Options{}).Diagnose(widgetUID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestApplyRemedyRemovesOnlyTheFinalizer(t *testing.T) {
	saved := diagnosis(t, stuckWidget(cleanup, "example.com/audit"))
	if _, _, ok := saved.FindRemedy(removeHold); !ok {
		t.Fatalf("the diagnosis offers no %s; remedies: %+v", removeHold, saved.Remedies)
	}
	f := &fakeCluster{snap: stuckWidget(cleanup, "example.com/audit"), after: map[string]*plan.FinalState{
		widgetUID: {Exists: true, Terminating: true, Finalizers: []string{"example.com/audit"}, OwnerReferences: []string{}}}}
	rep, err := applier(f, Options{Consent: yes, Timeout: 100 * time.Millisecond}).ApplyRemedy(context.Background(), saved, removeHold)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.sent) != 1 || f.sent[0].Verb != diagnose.VerbPatch {
		t.Fatalf("sent %+v, want one PATCH", f.sent)
	}
	patch, _ := json.Marshal(f.sent[0].Patch)
	want := `[{"op":"test","path":"/metadata/uid","value":"widget-gizmo"},{"op":"test","path":"/metadata/resourceVersion","value":"41"},` +
		`{"op":"test","path":"/metadata/finalizers","value":["widgets.example.com/cleanup","example.com/audit"]},` +
		`{"op":"replace","path":"/metadata/finalizers","value":["example.com/audit"]}]`
	if string(patch) != want {
		t.Errorf("patch\n%s\nwant\n%s", patch, want)
	}
	if r := rep.Requests[0]; r.Preconditions != (report.Preconditions{UID: widgetUID, ResourceVersion: "41"}) || len(r.Patch) != 4 {
		t.Errorf("the report records %+v, want the patch and its uid/resourceVersion tests", r)
	}
	if rep.Remedy == nil || rep.Remedy.ID != removeHold {
		t.Errorf("report remedy %+v", rep.Remedy)
	}
	// The other finalizer still holds the Widget: the remedy finishes
	// nothing, and its promise is the Widget held by that one alone.
	if rep.Outcome != report.OutcomeAsPlanned || len(rep.Objects) != 1 || rep.Objects[0].PlannedFate != plan.FateUpdated {
		t.Errorf("outcome %s, objects %+v; want the Widget as planned, updated", rep.Outcome, rep.Objects)
	}
}

func TestApplyRemedyFollowsWhatItFinishes(t *testing.T) {
	saved := diagnosis(t, stuckWidget(cleanup))
	f := &fakeCluster{snap: stuckWidget(cleanup), after: map[string]*plan.FinalState{}}
	rep, err := applier(f, Options{Consent: yes}).ApplyRemedy(context.Background(), saved, removeHold)
	if err != nil || rep.Outcome != report.OutcomeAsPlanned || len(rep.Objects) != 1 || rep.Objects[0].Object.UID != widgetUID {
		t.Fatalf("outcome %s, objects %+v, err %v; want the Widget followed until gone", rep.Outcome, rep.Objects, err)
	}
	var out strings.Builder
	if err := render.ApplyText(&out, rep); err != nil {
		t.Fatal(err)
	}
	mustContain(t, "report", out.String(), "Apply of remedy "+removeHold, "PATCH Widget/gizmo -n shop preconditions uid=widget-gizmo resourceVersion=41 JSON patch of 4 operations")
}

func TestApplyRemedyRefusals(t *testing.T) {
	fromFiles := diagnosis(t, stuckWidget(cleanup))
	fromFiles.Cluster = nil
	for name, tc := range map[string]struct {
		saved  *diagnose.Diagnosis
		now    *snapshot.Snapshot
		id     string
		status int
		want   string
		msg    string
	}{
		"an id the diagnosis does not offer":  {diagnosis(t, stuckWidget(cleanup)), stuckWidget(cleanup), "remove-finalizer:widget:shop/gizmo:other", 0, report.ReasonNoBasis, "offers no remedy"},
		"a diagnosis made from files":         {fromFiles, stuckWidget(cleanup), removeHold, 0, report.ReasonOtherCluster, "made from files"},
		"the finalizer was removed meanwhile": {diagnosis(t, stuckWidget(cleanup)), stuckWidget("example.com/audit"), removeHold, 0, report.ReasonStale, "no longer offers remedy"},
		"the object is gone":                  {diagnosis(t, stuckWidget(cleanup)), testobj.Snapshot().Live().Build(), removeHold, 0, report.ReasonApplied, "is gone"},
		"a test operation fails (422)":        {diagnosis(t, stuckWidget(cleanup)), stuckWidget(cleanup), removeHold, 422, report.ReasonStale, "nothing was changed"},
	} {
		t.Run(name, func(t *testing.T) {
			tc.now.Source.KubeSystemUID = ksUID
			f := &fakeCluster{snap: tc.now, status: tc.status, message: "the server rejected our request"}
			rep, err := applier(f, Options{Consent: yes}).ApplyRemedy(context.Background(), tc.saved, tc.id)
			if reason(err) != tc.want || rep.Outcome != report.OutcomeRefused {
				t.Fatalf("refusal %s, outcome %s; want %s", reason(err), rep.Outcome, tc.want)
			}
			mustContain(t, "refusal", err.Error(), tc.msg)
			if tc.status == 0 && len(f.sent) != 0 {
				t.Errorf("sent %+v on a refusal", f.sent)
			}
		})
	}
}

// A remedy that leaks (a cloud load balancer) needs the typed name even
// with --yes.
func TestApplyRemedyThatLeaksNeedsTheTypedName(t *testing.T) {
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	svc := testobj.Service("shop", "front").UID("svc-front").ResourceVersion("7").Finalizers("service.kubernetes.io/load-balancer-cleanup").
		Deleting(at.Add(-24 * time.Hour)).Facts(&snapshot.Facts{Service: &snapshot.ServiceFacts{Type: "LoadBalancer"}}).Build()
	snap := testobj.Snapshot(svc).Live().At(at).Build()
	snap.Source.KubeSystemUID = ksUID
	saved, err := diagnose.New(snap, nil, diagnose.Options{}).Diagnose("svc-front")
	if err != nil {
		t.Fatal(err)
	}
	const id = "remove-finalizer:service:shop/front:service.kubernetes.io/load-balancer-cleanup"
	rem, _, ok := saved.FindRemedy(id)
	if !ok || rem.Leaks == "" {
		t.Fatalf("no leaking remedy %s in %+v", id, saved.Remedies)
	}
	f := &fakeCluster{snap: snap}
	_, err = applier(f, Options{Consent: yes}).ApplyRemedy(context.Background(), saved, id)
	if reason(err) != report.ReasonNotConfirmed || len(f.sent) != 0 {
		t.Fatalf("refusal %s, sent %d; want not-confirmed, nothing sent", reason(err), len(f.sent))
	}
	mustContain(t, "refusal", err.Error(), "cloud load balancer", "--yes is not enough")
	var prompt strings.Builder
	_, err = applier(f, Options{Consent: Consent{Yes: true, Prompts: true}, In: strings.NewReader("front\n"), Out: &prompt, Timeout: 50 * time.Millisecond}).ApplyRemedy(context.Background(), saved, id)
	if err != nil || len(f.sent) != 1 {
		t.Fatalf("typed name: err %v, sent %d", err, len(f.sent))
	}
	mustContain(t, "prompt", prompt.String(), "May leak: the cloud load balancer", "Type the name of the Service (front)")
}

// roundTrip is the diagnosis as kgc apply reads it back from WHY.json.
func roundTrip(t *testing.T, d *diagnose.Diagnosis) *diagnose.Diagnosis {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var out diagnose.Diagnosis
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// A remedy is a contract on the object as the diagnosis read it: when
// someone else changed it since (the root cause still the same), kgc
// refuses with the difference and sends nothing, instead of pinning the
// state it reads now.
func TestApplyRemedyRefusesAnObjectChangedSinceReview(t *testing.T) {
	saved := roundTrip(t, diagnosis(t, stuckWidget(cleanup, "example.com/audit")))
	withRV := func(rv string, finalizers ...string) *snapshot.Snapshot {
		s := stuckWidget(finalizers...)
		s.Objects[0].Metadata.ResourceVersion = rv
		return s
	}
	for name, tc := range map[string]struct {
		now  *snapshot.Snapshot
		want []string
	}{
		"another finalizer was removed": {withRV("42", cleanup),
			[]string{"finalizers were [" + cleanup + " example.com/audit] when reviewed, now [" + cleanup + "]", "resourceVersion was 41 when reviewed, now 42", "nothing was sent"}},
		"only the resourceVersion moved": {withRV("43", cleanup, "example.com/audit"),
			[]string{"Widget/gizmo -n shop changed since the diagnosis was reviewed: resourceVersion was 41 when reviewed, now 43"}},
	} {
		t.Run(name, func(t *testing.T) {
			f := &fakeCluster{snap: tc.now}
			rep, err := applier(f, Options{Consent: yes}).ApplyRemedy(context.Background(), saved, removeHold)
			if reason(err) != report.ReasonStale || rep.Outcome != report.OutcomeRefused || len(f.sent) != 0 {
				t.Fatalf("refusal %s (%v), outcome %s, sent %+v; want stale, nothing sent", reason(err), err, rep.Outcome, f.sent)
			}
			mustContain(t, "refusal", err.Error(), tc.want...)
		})
	}
}

// Unchanged since the review, the remedy sends the reviewed request as
// saved, read back from its document.
func TestApplyRemedySendsTheReviewedRequest(t *testing.T) {
	saved := roundTrip(t, diagnosis(t, stuckWidget(cleanup, "example.com/audit")))
	f := &fakeCluster{snap: stuckWidget(cleanup, "example.com/audit"), after: map[string]*plan.FinalState{
		widgetUID: {Exists: true, Terminating: true, Finalizers: []string{"example.com/audit"}, OwnerReferences: []string{}}}}
	if _, err := applier(f, Options{Consent: yes, Timeout: 100 * time.Millisecond}).ApplyRemedy(context.Background(), saved, removeHold); err != nil {
		t.Fatal(err)
	}
	rem, _, _ := saved.FindRemedy(removeHold)
	got, _ := json.Marshal(f.sent)
	want, _ := json.Marshal([]diagnose.RemedyRequest{*rem.Request})
	if string(got) != string(want) {
		t.Errorf("sent\n%s\nwant the reviewed\n%s", got, want)
	}
}
