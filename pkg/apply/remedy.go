package apply

import (
	"context"
	"fmt"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// ApplyRemedy carries out the remedy id of a why-stuck diagnosis made
// against this cluster: it diagnoses the object again live and refuses
// when the remedy is no longer offered, its root cause changed, or its
// object is no longer as reviewed (uid, resourceVersion, finalizers),
// asks, sends the reviewed remedy's guarded request, and follows what it
// finishes.
func (a *Applier) ApplyRemedy(ctx context.Context, saved *diagnose.Diagnosis, id string) (*report.Report, error) {
	rep := newRemedyReport(saved, id)
	if err := PrecheckRemedy(saved, id); err != nil {
		return rep.Refused(err)
	}
	savedRem, rc, _ := saved.FindRemedy(id)
	snap, err := a.Cluster.Capture(ctx, "")
	if err != nil {
		return rep, fmt.Errorf("reading the cluster to check the diagnosis: %w", err)
	}
	if err := checkFingerprint(saved.Cluster, snap.Source, "diagnosis"); err != nil {
		return rep.Refused(err)
	}
	if err := CheckRead(snap); err != nil {
		return rep.Refused(err)
	}
	fresh, err := rediagnose(snap, saved.Object, id, rc)
	if err != nil {
		return rep.Refused(err)
	}
	// The request sent is the reviewed one, pinned to the state the
	// diagnosis read, never one rebuilt from the fresh read: its test
	// operations then guard everything since the review.
	reviewed := *savedRem.Request
	fresh.obj = objectByUID(snap, reviewed.Object.UID)
	if err := checkReviewed(reviewed, fresh.obj); err != nil {
		return rep.Refused(err)
	}
	fresh.rem.Request = &reviewed
	rep.Remedy = &report.RemedyApplied{ID: id, Action: fresh.rem.Action, Description: fresh.rem.Description,
		Reason: fresh.rc.Reason, Message: fresh.rc.Message, Leaks: fresh.rem.Leaks}
	return a.runRemedy(ctx, fresh, rep)
}

// PrecheckRemedy refuses what no cluster can make right: a remedy the
// diagnosis does not offer, or a diagnosis made from files. It needs no
// connection.
func PrecheckRemedy(saved *diagnose.Diagnosis, id string) error {
	if rem, _, ok := saved.FindRemedy(id); !ok || rem.Request == nil {
		return refuse(report.ReasonNoBasis, "the diagnosis offers no remedy %q that kgc can apply: pick an id from its remedies[] (kgc why-stuck … -o json)", id)
	}
	return checkMadeLive(saved.Cluster, "diagnosis")
}

// RefusedRemedyReport is the report of a remedy refused by err before
// anything was read from the cluster.
func RefusedRemedyReport(saved *diagnose.Diagnosis, id string, err error) *report.Report {
	rep, _ := newRemedyReport(saved, id).Refused(err)
	return rep
}

func newRemedyReport(saved *diagnose.Diagnosis, id string) *report.Report {
	rep := &report.Report{APIVersion: snapshot.APIVersion, Kind: "ApplyReport", Target: saved.Object, Cluster: saved.Cluster,
		Requests: []report.RequestRecord{}, Objects: []report.ObjectResult{}}
	if rem, rc, ok := saved.FindRemedy(id); ok {
		rep.Target = rem.Request.Object
		rep.Remedy = &report.RemedyApplied{ID: id, Action: rem.Action, Description: rem.Description, Reason: rc.Reason, Message: rc.Message, Leaks: rem.Leaks}
	}
	return rep
}

type freshRemedy struct {
	rem diagnose.Remedy
	rc  diagnose.RootCause
	obj *snapshot.Object // the remedy's object as it is now
}

// rediagnose diagnoses obj again on snap and returns the remedy id with
// its root cause, or refuses when either changed: the remedy was chosen
// for a cause, and a remedy for another is not what was reviewed.
func rediagnose(snap *snapshot.Snapshot, obj snapshot.ObjectRef, id string, was diagnose.RootCause) (freshRemedy, error) {
	sim := diagnose.NewSimulator(snap, plan.Options{MaxSteps: diagnose.RemedySimSteps})
	d, err := diagnose.New(snap, nil, diagnose.Options{Finishes: sim.Finishes}).Diagnose(obj.UID)
	if err != nil {
		return freshRemedy{}, refuse(report.ReasonApplied, "%s (uid %s) is gone: nothing is left to unstick", refString(obj), obj.UID)
	}
	rem, rc, ok := d.FindRemedy(id)
	if !ok {
		return freshRemedy{}, refuse(report.ReasonStale, "the cluster changed since the diagnosis: %s no longer offers remedy %s (%s); run kgc why-stuck again",
			refString(obj), id, summaryOf(d))
	}
	if rc.Reason != was.Reason || rc.Finalizer != was.Finalizer {
		return freshRemedy{}, refuse(report.ReasonStale, "the root cause changed since the diagnosis: it was %s (%s), it is now %s (%s); run kgc why-stuck again",
			was.Reason, was.Message, rc.Reason, rc.Message)
	}
	return freshRemedy{rem: rem, rc: rc}, nil
}

func summaryOf(d *diagnose.Diagnosis) string {
	if len(d.RootCauses) == 0 {
		return "no root cause left"
	}
	var rs []string
	for _, rc := range d.RootCauses {
		rs = append(rs, rc.Reason)
	}
	return "root causes now: " + strings.Join(rs, ", ")
}

// runRemedy asks, sends the remedy's request, and follows what it
// finishes: the object itself and what the diagnosis says it unblocks.
func (a *Applier) runRemedy(ctx context.Context, fresh freshRemedy, rep *report.Report) (*report.Report, error) {
	rem := fresh.rem
	rep.DryRun = a.Options.DryRun
	c := a.Options.Consent
	if c.Digest != "" {
		return rep.Refused(refuse(report.ReasonNotConfirmed, "--confirm approves a plan's digest; a remedy is approved with --yes or on a terminal"))
	}
	typed := ""
	if rem.Leaks != "" {
		typed = "the remedy may leave behind what no Kubernetes API cleans up (" + rem.Leaks + ")"
	}
	ask, err := c.NeedsPrompt("", typed)
	if err != nil {
		return rep.Refused(err)
	}
	if ask {
		if err := PromptRemedy(a.Options.In, a.Options.Out, rem); err != nil {
			return rep.Refused(err)
		}
	}
	rep.Identity = a.Cluster.Identity(ctx)
	resp := a.Cluster.Send(ctx, *rem.Request, a.Options.DryRun)
	rep.Requests = append(rep.Requests, a.recordRemedy(*rem.Request, resp))
	resp, err = a.settleLostRemedy(ctx, *rem.Request, fresh.obj, resp, rep)
	if err != nil {
		return rep, err
	}
	if err := judgeRemedy(rep, rem, resp, a.Options.DryRun); err != nil || a.Options.DryRun {
		return rep, err
	}
	if rem.Leaks != "" {
		rep.Notes = append(rep.Notes, "may have leaked: "+rem.Leaks)
	}
	if a.Options.Timeout == 0 {
		rep.Outcome = report.OutcomeSent
		rep.Notes = append(rep.Notes, "--timeout=0: what the remedy unblocks was not followed")
		return rep, nil
	}
	return rep, a.follow(ctx, finishedPlan(fresh), rep)
}

// finishedPlan is the remedy's promise as a plan to follow: every object
// it finishes, gone; when it finishes nothing (another finalizer still
// holds its object), its object without the finalizer removed.
func finishedPlan(fresh freshRemedy) *plan.Plan {
	rem := fresh.rem
	p := &plan.Plan{}
	if len(rem.Finishes) == 0 && rem.Request.Verb == diagnose.VerbPatch && fresh.obj != nil {
		final := plan.StateOf(fresh.obj)
		final.Finalizers = slices.DeleteFunc(final.Finalizers, func(f string) bool { return f == fresh.rc.Finalizer })
		p.Objects = append(p.Objects, plan.ObjectFate{Object: rem.Request.Object, Fate: plan.FateUpdated, Final: final})
		return p
	}
	gone := func(ref snapshot.ObjectRef) {
		for _, of := range p.Objects {
			if of.Object.UID == ref.UID {
				return
			}
		}
		p.Objects = append(p.Objects, plan.ObjectFate{Object: ref, Fate: plan.FateDeleted,
			Final: plan.FinalState{Finalizers: []string{}, OwnerReferences: []string{}}})
	}
	if len(rem.Finishes) == 0 {
		gone(rem.Request.Object)
	}
	for _, ref := range rem.Finishes {
		gone(ref)
	}
	return p
}

// judgeRemedy sets the outcome the response decides. A failed test
// operation (422) or precondition (409) means the object changed since it
// was read: nothing was changed.
func judgeRemedy(rep *report.Report, rem diagnose.Remedy, resp Response, dryRun bool) error {
	ok := resp.Status >= 200 && resp.Status < 300
	switch {
	case resp.Status == 409 || resp.Status == 422 && rem.Request.Verb == diagnose.VerbPatch:
		_, err := rep.Refused(refuse(report.ReasonStale, "the API server refused the %s: %s changed since it was diagnosed (%s); nothing was changed: run kgc why-stuck again",
			rem.Request.Verb, refString(rem.Request.Object), resp.Message))
		return err
	case dryRun && ok:
		rep.Outcome = report.OutcomeDryRunAccepted
		return nil
	case dryRun:
		rep.Outcome = report.OutcomeDryRunRejected
	case ok:
		return nil
	default:
		rep.Outcome = report.OutcomeRejected
	}
	return fmt.Errorf("the API server refused the %s of %s (HTTP %d): %s", rem.Request.Verb, refString(rem.Request.Object), resp.Status, resp.Message)
}

func (a *Applier) recordRemedy(req diagnose.RemedyRequest, resp Response) report.RequestRecord {
	r := report.RequestRecord{Time: a.now().UTC(), Verb: req.Verb, Object: req.Object, DryRun: a.Options.DryRun,
		Status: resp.Status, Message: resp.Message, Patch: req.Patch, GracePeriodSeconds: req.GracePeriodSeconds,
		AuditID: resp.AuditID}
	if p := req.Preconditions; p != nil {
		r.Preconditions = report.Preconditions{UID: p.UID, ResourceVersion: p.ResourceVersion}
	}
	for _, op := range req.Patch {
		// A patch's preconditions are its test operations.
		if op.Op != "test" {
			continue
		}
		switch op.Path {
		case "/metadata/uid":
			r.Preconditions.UID, _ = op.Value.(string)
		case "/metadata/resourceVersion":
			r.Preconditions.ResourceVersion, _ = op.Value.(string)
		}
	}
	return r
}
