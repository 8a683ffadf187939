package apply

import (
	"bytes"
	"context"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/internal/golden"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/render"
)

var at = time.Date(2026, 11, 20, 10, 5, 0, 0, time.UTC)

func applier(f *fakeCluster, o Options) *Applier {
	o.Now = func() time.Time { return at }
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Second
	}
	if o.Limits.MaxDeletions == 0 && !o.Limits.AllowBlocked && o.Limits.AllowKept == nil {
		o.Limits.MaxDeletions = -1
	}
	return &Applier{Cluster: f, Options: o}
}

var yes = Consent{Yes: true}

func TestApplyAsPlanned(t *testing.T) {
	saved := mustPlan(t, shop(), plan.PolicyBackground)
	f := &fakeCluster{snap: shop(), after: map[string]*plan.FinalState{}} // everything planned is gone
	rep, err := applier(f, Options{Consent: yes}).Apply(context.Background(), saved)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != report.OutcomeAsPlanned || rep.Summary.AsPlanned != 3 {
		t.Errorf("outcome %s, summary %+v; want as-planned, 3", rep.Outcome, rep.Summary)
	}
	if len(f.deletes) != 1 {
		t.Fatalf("sent %d DELETEs, want 1", len(f.deletes))
	}
	d := f.deletes[0]
	if d.Preconditions != (report.Preconditions{UID: ownerUID, ResourceVersion: "10"}) || d.PropagationPolicy != plan.PolicyBackground || d.DryRun {
		t.Errorf("DELETE %+v, want preconditions uid and resourceVersion 10 from the basis, Background, not a dry run", d)
	}
	var out bytes.Buffer
	if err := render.ApplyText(&out, rep); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "as-planned.golden"), out.String())
}

func TestApplyRefusesBeforeAnyRequest(t *testing.T) {
	saved := mustPlan(t, shop(), plan.PolicyBackground)
	other := shop()
	other.Source.KubeSystemUID = "ks-2"
	for name, tc := range map[string]struct {
		cluster *fakeCluster
		opts    Options
		want    string
	}{
		"another cluster":       {&fakeCluster{snap: other}, Options{Consent: yes}, report.ReasonOtherCluster},
		"target relabelled":     {&fakeCluster{snap: withRV(shop(), ownerUID, "14")}, Options{Consent: yes}, report.ReasonStale},
		"cap below the plan":    {&fakeCluster{snap: shop()}, Options{Consent: yes, Limits: Limits{MaxDeletions: 1}}, report.ReasonMaxDeletions},
		"no terminal, no --yes": {&fakeCluster{snap: shop()}, Options{}, report.ReasonNotConfirmed},
		"wrong --confirm":       {&fakeCluster{snap: shop()}, Options{Consent: Consent{Digest: "sha256:0"}}, report.ReasonNotConfirmed},
	} {
		t.Run(name, func(t *testing.T) {
			rep, err := applier(tc.cluster, tc.opts).Apply(context.Background(), saved)
			if got := reason(err); got != tc.want {
				t.Fatalf("refusal %s, want %s", got, tc.want)
			}
			if len(tc.cluster.deletes) != 0 {
				t.Errorf("a refused apply sent %+v", tc.cluster.deletes)
			}
			if rep.Outcome != report.OutcomeRefused || rep.Refusal == nil || len(rep.Requests) != 0 {
				t.Errorf("report outcome %s, refusal %+v, requests %d", rep.Outcome, rep.Refusal, len(rep.Requests))
			}
		})
	}
}

func TestApplyConfirmDigest(t *testing.T) {
	saved := mustPlan(t, shop(), plan.PolicyBackground)
	f := &fakeCluster{snap: shop(), after: map[string]*plan.FinalState{}}
	if _, err := applier(f, Options{Consent: Consent{Digest: saved.Digest}}).Apply(context.Background(), saved); err != nil {
		t.Fatalf("--confirm with the plan's digest: %v", err)
	}
	if len(f.deletes) != 1 {
		t.Errorf("sent %d DELETEs, want 1", len(f.deletes))
	}
}

func TestApplyConflictIsStale(t *testing.T) {
	saved := mustPlan(t, shop(), plan.PolicyBackground)
	f := &fakeCluster{snap: shop(), status: 409, message: "Precondition failed: ResourceVersion in precondition: 10, ResourceVersion in object meta: 15"}
	rep, err := applier(f, Options{Consent: yes}).Apply(context.Background(), saved)
	if reason(err) != report.ReasonStale {
		t.Fatalf("refusal %s, want stale", reason(err))
	}
	if len(rep.Requests) != 1 || rep.Requests[0].Status != 409 {
		t.Errorf("requests %+v, want the one DELETE answered 409", rep.Requests)
	}
	mustContain(t, "refusal", err.Error(), "nothing was deleted", "re-plan")
}

func TestApplyDryRun(t *testing.T) {
	saved := mustPlan(t, shop(), plan.PolicyForeground)
	f := &fakeCluster{snap: shop()}
	rep, err := applier(f, Options{Consent: yes, DryRun: true}).Apply(context.Background(), saved)
	if err != nil || rep.Outcome != report.OutcomeDryRunAccepted {
		t.Fatalf("outcome %s, err %v; want dry-run-accepted", rep.Outcome, err)
	}
	if len(f.deletes) != 1 || !f.deletes[0].DryRun || f.deletes[0].PropagationPolicy != plan.PolicyForeground {
		t.Errorf("DELETEs %+v, want one dry run with Foreground", f.deletes)
	}
	f = &fakeCluster{snap: shop(), status: 403, message: `configmaps "owner" is forbidden`}
	rep, err = applier(f, Options{Consent: yes, DryRun: true}).Apply(context.Background(), saved)
	if err == nil || rep.Outcome != report.OutcomeDryRunRejected {
		t.Errorf("outcome %s, err %v; want dry-run-rejected with an error", rep.Outcome, err)
	}
}

func TestApplyDivergedAndTimedOut(t *testing.T) {
	saved := mustPlan(t, shop(), plan.PolicyOrphan)
	// The plan orphans both Secrets: a, gone, diverged; b, still owned, in progress.
	b := &plan.FinalState{Exists: true, Finalizers: []string{}, OwnerReferences: []string{ownerUID}}
	f := &fakeCluster{snap: shop(), after: map[string]*plan.FinalState{"secret-shop-b": b}}
	rep, err := applier(f, Options{Consent: yes, Timeout: 200 * time.Millisecond}).Apply(context.Background(), saved)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != report.OutcomeDiverged || rep.Summary != (report.ResultSummary{AsPlanned: 1, Diverged: 1, InProgress: 1}) {
		t.Errorf("outcome %s, summary %+v; want diverged, 1/1/1", rep.Outcome, rep.Summary)
	}
	var out bytes.Buffer
	if err := render.ApplyText(&out, rep); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "diverged.golden"), out.String())

	f = &fakeCluster{snap: shop(), after: map[string]*plan.FinalState{"secret-shop-a": b, "secret-shop-b": b}}
	rep, _ = applier(f, Options{Consent: yes, Timeout: 100 * time.Millisecond}).Apply(context.Background(), saved)
	if rep.Outcome != report.OutcomeTimedOut {
		t.Errorf("outcome %s, want timed-out", rep.Outcome)
	}
}

func TestApplyStaleReportGolden(t *testing.T) {
	saved := mustPlan(t, shop(), plan.PolicyBackground)
	owner := shop().Objects[0]
	late := shop().Objects[1]
	late.Metadata.Name, late.Metadata.UID = "c", "secret-shop-c"
	late.Metadata.OwnerReferences[0].UID = owner.Metadata.UID
	f := &fakeCluster{snap: shop(late)}
	rep, err := applier(f, Options{Consent: yes}).Apply(context.Background(), saved)
	if reason(err) != report.ReasonStale {
		t.Fatalf("refusal %s, want stale", reason(err))
	}
	var out bytes.Buffer
	if err := render.ApplyText(&out, rep); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "stale.golden"), out.String())
}

func TestApplySendOnly(t *testing.T) {
	saved := mustPlan(t, shop(), plan.PolicyBackground)
	f := &fakeCluster{snap: shop()}
	a := applier(f, Options{Consent: yes})
	a.Options.Timeout = 0
	rep, err := a.Apply(context.Background(), saved)
	if err != nil || rep.Outcome != report.OutcomeSent || len(rep.Objects) != 0 {
		t.Errorf("outcome %s, err %v, objects %d; want sent, not followed", rep.Outcome, err, len(rep.Objects))
	}
}

func TestApplyBackup(t *testing.T) {
	saved := mustPlan(t, shop(), plan.PolicyBackground)
	dir := t.TempDir()
	f := &fakeCluster{snap: shop(), after: map[string]*plan.FinalState{}}
	rep, err := applier(f, Options{Consent: yes, BackupDir: dir}).Apply(context.Background(), saved)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"shop/configmap_owner.yaml", "shop/secret_a.yaml", "shop/secret_b.yaml"}
	if rep.Backup == nil || strings.Join(rep.Backup.Files, ",") != strings.Join(want, ",") {
		t.Fatalf("backup %+v, want %v", rep.Backup, want)
	}
	data, err := os.ReadFile(filepath.Join(dir, "shop", "secret_a.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(data); !strings.Contains(s, "uid: secret-shop-a") || !strings.Contains(s, "k: v") || strings.Contains(s, "managedFields") {
		t.Errorf("backup of Secret a:\n%s", s)
	}
	if info, _ := os.Stat(filepath.Join(dir, "shop", "secret_a.yaml")); info.Mode().Perm() != 0o600 {
		t.Errorf("backup mode %v, want 0600", info.Mode().Perm())
	}
	mustContain(t, "notes", strings.Join(rep.Notes, "\n"), "restores content, not identity", "new UIDs", "Secret data included")

	f = &fakeCluster{snap: shop(), unreadable: "secret-shop-b"}
	rep, err = applier(f, Options{Consent: yes, BackupDir: t.TempDir()}).Apply(context.Background(), saved)
	if reason(err) != report.ReasonBackup || len(f.deletes) != 0 || rep.Outcome != report.OutcomeRefused {
		t.Errorf("an unreadable object: refusal %s, %d DELETEs, outcome %s; want backup-failed before any DELETE", reason(err), len(f.deletes), rep.Outcome)
	}
}

func TestApplyStep(t *testing.T) {
	saved := mustPlan(t, shop(), plan.PolicyForeground)
	order := StepOrder(saved)
	var names []string
	for _, r := range order {
		names = append(names, r.Name)
	}
	// Dependents first, in the reverse of the collector's order; the
	// target last.
	if len(names) != 3 || names[2] != "owner" || names[0] == "owner" || names[1] == "owner" {
		t.Fatalf("step order %v, want the two Secrets then owner", names)
	}
	f := &fakeCluster{snap: shop(), after: map[string]*plan.FinalState{}}
	rep, err := applier(f, Options{Consent: yes, Step: true}).Apply(context.Background(), saved)
	if err != nil || rep.Outcome != report.OutcomeAsPlanned || len(rep.Objects) != 3 {
		t.Fatalf("outcome %s, %d objects, err %v; want as-planned, 3", rep.Outcome, len(rep.Objects), err)
	}
	if len(f.deletes) != 3 {
		t.Fatalf("%d DELETEs, want one per object", len(f.deletes))
	}
	for i, d := range f.deletes {
		wantPolicy := plan.PolicyBackground
		if i == 2 {
			wantPolicy = plan.PolicyForeground
		}
		if d.Object.UID != order[i].UID || d.Preconditions.UID != order[i].UID || d.Preconditions.ResourceVersion == "" || d.PropagationPolicy != wantPolicy {
			t.Errorf("DELETE %d: %+v, want %s with its preconditions and %s", i, d, order[i].Name, wantPolicy)
		}
	}
}

func TestApplyStepStopsAtTheFirstSurprise(t *testing.T) {
	saved := mustPlan(t, shop(), plan.PolicyBackground)
	first := StepOrder(saved)[0]
	held := &plan.FinalState{Exists: true, Terminating: true, Finalizers: []string{"example.com/hold"}, OwnerReferences: []string{ownerUID}}
	f := &fakeCluster{snap: shop(), after: map[string]*plan.FinalState{first.UID: held}}
	rep, err := applier(f, Options{Consent: yes, Step: true, Timeout: 100 * time.Millisecond}).Apply(context.Background(), saved)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.deletes) != 1 || rep.Outcome != report.OutcomeTimedOut {
		t.Fatalf("%d DELETEs, outcome %s; want it to stop after the first, timed out", len(f.deletes), rep.Outcome)
	}
	mustContain(t, "notes", strings.Join(rep.Notes, "\n"), "--step stopped at the first surprise: 2 DELETE(s) of the plan were not sent")
}

// An object still terminating when the follow ends gets why-stuck's
// verdict in the report, from a fresh capture.
func TestApplyExplainsWhatIsStillTerminating(t *testing.T) {
	saved := mustPlan(t, shop(), plan.PolicyBackground)
	first := StepOrder(saved)[0]
	held := &plan.FinalState{Exists: true, Terminating: true, Finalizers: []string{"example.com/hold"}, OwnerReferences: []string{ownerUID}}
	later := shop()
	for i := range later.Objects {
		if later.Objects[i].Metadata.UID == first.UID {
			gone := later.CapturedAt.Add(-time.Hour)
			later.Objects[i].Metadata.DeletionTimestamp = &gone
			later.Objects[i].Metadata.Finalizers = []string{"example.com/hold"}
		}
	}
	f := &fakeCluster{snap: shop(), later: later, after: map[string]*plan.FinalState{first.UID: held}}
	rep, err := applier(f, Options{Consent: yes, Step: true, Timeout: 100 * time.Millisecond}).Apply(context.Background(), saved)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Objects) != 1 || !strings.Contains(rep.Objects[0].WhyStuck, "finalizer example.com/hold") {
		t.Fatalf("objects %+v, want why-stuck's verdict on the held Secret", rep.Objects)
	}
	var out strings.Builder
	if err := render.ApplyText(&out, rep); err != nil {
		t.Fatal(err)
	}
	mustContain(t, "report", out.String(), "why-stuck: Secret/"+first.Name+" -n shop has been terminating for 60m")
}
