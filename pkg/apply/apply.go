// Package apply carries out a saved plan on the live cluster, and checks
// the plan while the real controllers carry it out: it refuses a plan made
// elsewhere or on a state that has moved, caps the blast radius, asks for
// confirmation, sends one DELETE guarded by the plan's preconditions, then
// follows the planned objects with watches and compares reality with the
// plan object by object.
//
// Like pkg/capture it talks to a cluster, through the Cluster interface;
// the decisions (decide.go, follow.go) are plain functions of plans and
// observed states, so tests drive them with fakes.
package apply

import (
	"context"
	"fmt"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"io"
	"slices"
	"time"

	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Cluster is what apply needs from the API server.
type Cluster interface {
	// Capture reads the live state to plan again from: the whole cluster
	// when namespace is "", else a narrow capture of namespace (Scope).
	Capture(ctx context.Context, namespace string) (*snapshot.Snapshot, error)
	// Delete sends one DELETE and returns the response's status.
	Delete(ctx context.Context, req DeleteRequest) Response
	// Identity is the user the API server sees, for the report; "" when
	// it cannot say.
	Identity(ctx context.Context) string
	// Get reads one object in full, as kubectl get -o json shows it, for
	// --backup.
	Get(ctx context.Context, obj snapshot.ObjectRef) (map[string]any, error)
	// Send sends a remedy's guarded request (dryRun: with dryRun=All).
	Send(ctx context.Context, req diagnose.RemedyRequest, dryRun bool) Response
	// Watch reports the state of objs, each at least once (nil when it
	// does not exist), then every change, until ctx ends.
	Watch(ctx context.Context, objs []snapshot.ObjectRef) (<-chan Event, error)
}

// DeleteRequest is a guarded DELETE.
type DeleteRequest struct {
	Object            snapshot.ObjectRef
	Preconditions     report.Preconditions
	PropagationPolicy plan.Policy // PolicyDefault sends none
	DryRun            bool
}

// Response is what the API server answered.
type Response struct {
	Status  int
	Message string
	// AuditID names the request in the API server's audit log.
	AuditID string
}

// Event is an observed state of a watched object; State nil means gone.
type Event struct {
	UID   string
	State *plan.FinalState
}

// Options of one apply.
type Options struct {
	Limits  Limits
	Consent Consent
	// Prompt asks on the terminal: it writes the question to Out and
	// reads the answer from In.
	In     io.Reader
	Out    io.Writer
	DryRun bool
	// Timeout bounds how long the cascade is followed; 0 sends the
	// DELETE and returns.
	Timeout time.Duration
	// Progress, when set (a terminal), gets one updating progress line
	// while the cascade is followed.
	Progress io.Writer
	// Step deletes the plan's objects one by one, bottom-up, and stops at
	// the first that does not end as planned.
	Step bool
	// BackupDir, when set, receives every object the plan deletes before
	// the DELETE is sent.
	BackupDir string
	// Now is the clock for request records; nil is time.Now.
	Now func() time.Time
	// Interrupt, when it delivers (the person pressed Ctrl-C), stops
	// following: the report says what was seen so far, with outcome
	// interrupted. nil: never.
	Interrupt <-chan struct{}
	// Following, when set, is called as each follow starts: before it,
	// the caller may let an interrupt end the process as usual, for
	// nothing but the checks, the prompt and the request have happened.
	Following func()
}

// Applier applies plans to one cluster.
type Applier struct {
	Cluster Cluster
	Options Options
}

// Apply checks saved against the cluster as it is now and, if it still
// holds and is confirmed, sends its DELETE and follows the cascade. The
// report is returned even with a refusal (as the error), so that the
// caller can print both.
func (a *Applier) Apply(ctx context.Context, saved *plan.Plan) (*report.Report, error) {
	rep := newReport(saved)
	fresh, err := a.Preflight(ctx, saved)
	if err != nil {
		// A refusal fills the report; another error is returned as is.
		return rep.Refused(err)
	}
	return a.run(ctx, saved, fresh, rep)
}

// Preflight is what Apply checks before it asks or sends anything: the
// document, the cluster, that the plan was not applied already, and that
// a fresh plan, made from what the saved one depends on (Scope), has its
// outcome. It returns the fresh plan, or a *Refusal saying why not.
func (a *Applier) Preflight(ctx context.Context, saved *plan.Plan) (*plan.Plan, error) {
	if err := Precheck(saved); err != nil {
		return nil, err
	}
	snap, err := a.Cluster.Capture(ctx, Scope(saved))
	if err != nil {
		return nil, fmt.Errorf("reading the cluster to check the plan: %w", err)
	}
	if err := CheckCluster(saved, snap.Source); err != nil {
		return nil, err
	}
	if err := CheckRead(snap); err != nil {
		return nil, err
	}
	if err := CheckApplied(saved, snap); err != nil {
		return nil, err
	}
	fresh, err := Replan(saved, snap)
	if err != nil {
		return nil, err
	}
	if err := CheckStale(saved, fresh); err != nil {
		// The limits the fresh plan breaks will hold for its re-plan too.
		return nil, report.Join(err, CheckLimits(fresh, a.Options.Limits))
	}
	return fresh, nil
}

// Precheck refuses what no cluster can make right: a plan without a basis,
// edited, or made from files. It needs no connection, so a caller can run
// it before connecting.
func Precheck(p *plan.Plan) error {
	var madeLive error
	if p.Cluster == nil || p.Cluster.KubeSystemUID == "" {
		madeLive = CheckCluster(p, snapshot.Source{})
	}
	return report.Join(CheckDocument(p), madeLive)
}

// RefusedReport is the report of a plan refused by err before anything
// was read from the cluster.
func RefusedReport(p *plan.Plan, err error) *report.Report {
	rep, _ := newReport(p).Refused(err)
	return rep
}

// ApplyFresh applies a plan just made from snap: nothing to re-plan, but
// every other check holds.
func (a *Applier) ApplyFresh(ctx context.Context, p *plan.Plan, snap *snapshot.Snapshot) (*report.Report, error) {
	rep := newReport(p)
	if err := CheckDocument(p); err != nil {
		return rep.Refused(err)
	}
	if err := CheckCluster(p, snap.Source); err != nil {
		return rep.Refused(err)
	}
	return a.run(ctx, p, p, rep)
}

// Replan simulates saved's request again on snap, under saved's
// assumptions.
func Replan(saved *plan.Plan, snap *snapshot.Snapshot) (*plan.Plan, error) {
	opts := plan.Options{Target: saved.Request.Target.UID, Policy: saved.Request.PropagationPolicy,
		AssumeFinalizers: saved.Assumptions.UnknownFinalizers, Controllers: simulated(saved.Assumptions.Controllers)}
	if objectByUID(snap, saved.Request.Target.UID) == nil {
		// The target is gone: an empty fresh plan makes CheckStale say so.
		return &plan.Plan{Request: saved.Request}, nil
	}
	fresh, err := plan.Simulate(snap, opts)
	if err != nil {
		return nil, fmt.Errorf("planning the delete again on the live state: %w", err)
	}
	plan.Seal(fresh, snap)
	return fresh, nil
}

// simulated is the plan's controllers as Options takes them: the document
// also names the garbage collector, which always runs.
func simulated(controllers []string) []string {
	if controllers == nil {
		return nil
	}
	var out []string
	for _, c := range controllers {
		if slices.Contains(plan.AllControllers(), c) {
			out = append(out, c)
		}
	}
	if out == nil {
		return []string{} // none besides the collector, not "all"
	}
	return out
}

// objectByUID is the object of snap with this uid, or nil.
func objectByUID(snap *snapshot.Snapshot, uid string) *snapshot.Object {
	for i := range snap.Objects {
		if snap.Objects[i].Metadata.UID == uid {
			return &snap.Objects[i]
		}
	}
	return nil
}

// run is everything after the plan is known to hold: the limits, the
// confirmation, the DELETE and following it.
func (a *Applier) run(ctx context.Context, saved, fresh *plan.Plan, rep *report.Report) (*report.Report, error) {
	rep.DryRun = a.Options.DryRun
	if err := CheckLimits(fresh, a.Options.Limits); err != nil {
		// Say too whether it is approved, without asking: a prompt for a
		// plan the limits refuse would approve nothing.
		_, consent := a.Options.Consent.NeedsPrompt(saved.Digest, typedOnly(saved))
		return rep.Refused(report.Join(err, consent))
	}
	if err := a.confirm(saved); err != nil {
		return rep.Refused(err)
	}
	if dir := a.Options.BackupDir; dir != "" && !a.Options.DryRun {
		b, err := a.backup(ctx, saved, dir)
		rep.Backup = b
		if err != nil {
			return rep.Refused(err)
		}
		rep.Notes = append(rep.Notes, backupNote)
	}
	rep.Identity = a.Cluster.Identity(ctx)
	if a.Options.Step && !a.Options.DryRun {
		return rep, a.runSteps(ctx, saved, rep)
	}
	req := deleteRequest(saved, a.Options.DryRun)
	resp := a.Cluster.Delete(ctx, req)
	rep.Requests = append(rep.Requests, a.record(req, resp))
	resp, err := a.settleLostDelete(ctx, req, resp, rep)
	if err != nil {
		return rep, err
	}
	if err := judgeResponse(rep, req, resp); err != nil || a.Options.DryRun {
		return rep, err
	}
	if a.Options.Timeout == 0 {
		rep.Outcome = report.OutcomeSent
		rep.Notes = append(rep.Notes, "--timeout=0: the cascade was not followed")
		return rep, nil
	}
	return rep, a.follow(ctx, saved, rep)
}

func (a *Applier) confirm(p *plan.Plan) error {
	ask, err := a.Options.Consent.NeedsPrompt(p.Digest, typedOnly(p))
	if err != nil || !ask {
		return err
	}
	return Prompt(a.Options.In, a.Options.Out, p)
}

func deleteRequest(p *plan.Plan, dryRun bool) DeleteRequest {
	t := p.Request.Target
	return DeleteRequest{Object: t, PropagationPolicy: p.Request.PropagationPolicy, DryRun: dryRun,
		Preconditions: report.Preconditions{UID: t.UID, ResourceVersion: basisOf(p, t.UID).ResourceVersion}}
}

func (a *Applier) now() time.Time {
	if a.Options.Now != nil {
		return a.Options.Now()
	}
	return time.Now()
}

func (a *Applier) record(req DeleteRequest, resp Response) report.RequestRecord {
	return report.RequestRecord{Time: a.now().UTC(), Verb: "DELETE", Object: req.Object, Preconditions: req.Preconditions,
		PropagationPolicy: req.PropagationPolicy, DryRun: req.DryRun, Status: resp.Status, Message: resp.Message, AuditID: resp.AuditID}
}

// judgeResponse sets the outcome the DELETE's response decides: a 409 is
// the target changing between the check and the request (stale, nothing
// deleted); any other failure is the server's refusal.
func judgeResponse(rep *report.Report, req DeleteRequest, resp Response) error {
	ok := resp.Status >= 200 && resp.Status < 300
	switch {
	case resp.Status == 409:
		_, err := rep.Refused(refuse(report.ReasonStale, "the API server refused the DELETE: %s changed since it was checked (%s); nothing was deleted: re-plan", refString(req.Object), resp.Message))
		return err
	case req.DryRun && ok:
		rep.Outcome = report.OutcomeDryRunAccepted
		return nil
	case req.DryRun:
		rep.Outcome = report.OutcomeDryRunRejected
	case ok:
		return nil
	default:
		rep.Outcome = report.OutcomeRejected
	}
	return fmt.Errorf("the API server refused the DELETE of %s (HTTP %d): %s", refString(req.Object), resp.Status, resp.Message)
}

func newReport(p *plan.Plan) *report.Report {
	rep := &report.Report{APIVersion: snapshot.APIVersion, Kind: "ApplyReport", Target: p.Target, PropagationPolicy: p.PropagationPolicy,
		Digest: p.Digest, Cluster: p.Cluster, Requests: []report.RequestRecord{}, Objects: []report.ObjectResult{}}
	if p.Request != nil {
		rep.Target, rep.PropagationPolicy = p.Request.Target, p.Request.PropagationPolicy
	}
	return rep
}
