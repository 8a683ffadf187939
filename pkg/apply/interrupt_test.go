package apply

import (
	"context"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/render"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// An interrupt while following stops the follow at once (the timeout is
// an hour) and reports what was seen: the DELETE sent, the objects done,
// and the one still held, with why-stuck's verdict.
func TestApplyInterruptedWhileFollowing(t *testing.T) {
	saved := mustPlan(t, shop(), plan.PolicyBackground)
	held := &plan.FinalState{Exists: true, Terminating: true, Finalizers: []string{"example.com/hold"}}
	later := shop()
	for i := range later.Objects {
		if o := &later.Objects[i]; o.Metadata.Name == "a" {
			gone := later.CapturedAt.Add(-time.Minute)
			o.Metadata.DeletionTimestamp = &gone
			o.Metadata.Finalizers = []string{"example.com/hold"}
		}
	}
	var aUID string
	for _, of := range saved.Objects {
		if of.Object.Name == "a" {
			aUID = of.Object.UID
		}
	}
	f := &watchedCluster{fakeCluster: &fakeCluster{snap: shop(), later: later, after: map[string]*plan.FinalState{aUID: held}}, seen: make(chan struct{})}
	interrupt := make(chan struct{})
	a := &Applier{Cluster: f, Options: applier(f.fakeCluster, Options{Consent: yes, Timeout: time.Hour, Interrupt: interrupt}).Options}
	done := make(chan struct{})
	var rep *report.Report
	var err error
	go func() {
		defer close(done)
		rep, err = a.Apply(context.Background(), saved)
	}()
	<-f.seen // the follow has read every object's first state
	close(interrupt)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != report.OutcomeInterrupted || len(rep.Requests) != 1 {
		t.Fatalf("outcome %s with %d requests, want interrupted after the one DELETE", rep.Outcome, len(rep.Requests))
	}
	var out strings.Builder
	if err := render.ApplyText(&out, rep); err != nil {
		t.Fatal(err)
	}
	mustContain(t, "report", out.String(), "INTERRUPTED: 1 object(s) still in progress when following stopped",
		"interrupted while following: the cascade goes on in the cluster", "why-stuck: Secret/a -n shop has been terminating")
}

// watchedCluster says when a watch has delivered every object's first
// state, so that a test interrupts a follow in the middle.
type watchedCluster struct {
	*fakeCluster
	seen chan struct{}
}

func (w *watchedCluster) Watch(ctx context.Context, objs []snapshot.ObjectRef) (<-chan Event, error) {
	in, err := w.fakeCluster.Watch(ctx, objs)
	out := make(chan Event)
	go func() {
		defer close(out)
		for i := 0; ; i++ {
			if i == len(objs) {
				close(w.seen)
			}
			ev, ok := <-in
			if !ok {
				return
			}
			out <- ev
		}
	}()
	return out, err
}

func TestWaitingOn(t *testing.T) {
	ref := func(uid string) snapshot.ObjectRef {
		return snapshot.ObjectRef{Kind: "ConfigMap", Namespace: "team-a", Name: uid, UID: uid}
	}
	p := &plan.Plan{Steps: []plan.Step{{Wave: 1, Object: ref("stuck")}, {Wave: 2, Object: ref("owner")}}}
	objs := []report.ObjectResult{
		{Object: ref("owner"), PlannedFate: plan.FateDeleted, Result: report.ResultInProgress, Detail: "still exists, planned to be deleted"},
		{Object: ref("stuck"), PlannedFate: plan.FateDeleted, Result: report.ResultInProgress, Detail: "terminating, finalizers [example.com/never]"},
	}
	want := "waiting on ConfigMap/stuck -n team-a: terminating, finalizers [example.com/never] (40s)"
	if got := waitingOn(p, objs, 40*time.Second+300*time.Millisecond); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	objs[1].Result = report.ResultAsPlanned
	if got := waitingOn(p, objs, time.Second); !strings.HasPrefix(got, "waiting on ConfigMap/owner -n team-a: still exists") {
		t.Errorf("once the first wave is done, got %q, want the owner of wave 2", got)
	}
	objs[0].Result = report.ResultAsPlanned
	if got := waitingOn(p, objs, time.Second); got != "" {
		t.Errorf("nothing pending, got %q", got)
	}
	// The clock starts again with each wave.
	c := &waitClock{}
	objs[0].Result, objs[1].Result = report.ResultInProgress, report.ResultInProgress
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	c.line(p, objs, t0)
	if got := c.line(p, objs, t0.Add(40*time.Second)); !strings.HasSuffix(got, "  "+want) {
		t.Errorf("line %q, want it to end with %q", got, want)
	}
	objs[1].Result = report.ResultAsPlanned
	if got := c.line(p, objs, t0.Add(50*time.Second)); !strings.HasSuffix(got, "(0s)") {
		t.Errorf("a new wave: line %q, want its clock at 0s", got)
	}
}
