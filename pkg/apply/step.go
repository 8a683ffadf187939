package apply

import (
	"context"
	"fmt"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"slices"

	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// StepOrder is the order --step deletes the plan's objects in: bottom-up,
// the reverse of the order in which the plan's actors delete them, so
// that every dependent goes before its owner; the target comes last.
// Objects the plan keeps, orphans or leaves blocked are not deleted.
func StepOrder(p *plan.Plan) []snapshot.ObjectRef {
	deleted := map[string]bool{}
	for _, of := range p.Objects {
		if of.Fate == plan.FateDeleted || of.Fate == plan.FateRecreated {
			deleted[of.Object.UID] = true
		}
	}
	target := p.Request.Target
	var out []snapshot.ObjectRef
	seen := map[string]bool{target.UID: true}
	for _, st := range slices.Backward(p.Steps) {
		uid := st.Object.UID
		if st.Baseline || st.Action != plan.ActionDelete || !deleted[uid] || seen[uid] {
			continue
		}
		seen[uid] = true
		out = append(out, st.Object)
	}
	return append(out, target)
}

// runSteps deletes the plan's objects one by one, bottom-up, each with
// its own preconditions, and follows each until it is as planned before
// sending the next: it stops at the first object that is not. The target
// goes last, with the planned propagationPolicy.
func (a *Applier) runSteps(ctx context.Context, p *plan.Plan, rep *report.Report) error {
	order := StepOrder(p)
	for k, ref := range order {
		req := DeleteRequest{Object: ref, PropagationPolicy: plan.PolicyBackground,
			Preconditions: report.Preconditions{UID: ref.UID}}
		if b := basisOf(p, ref.UID); b != nil {
			req.Preconditions.ResourceVersion = b.ResourceVersion
		}
		if k == len(order)-1 {
			req.PropagationPolicy = p.Request.PropagationPolicy
		}
		resp := a.Cluster.Delete(ctx, req)
		rep.Requests = append(rep.Requests, a.record(req, resp))
		resp, err := a.settleLostDelete(ctx, req, resp, rep)
		if err == nil {
			err = judgeResponse(rep, req, resp)
		}
		if err != nil {
			return stepStopped(rep, len(order)-k-1, err)
		}
		if err := a.follow(ctx, stepPlan(p, ref.UID), rep); err != nil {
			return err
		}
		if rep.Outcome != report.OutcomeAsPlanned && k < len(order)-1 {
			return stepStopped(rep, len(order)-k-1, nil)
		}
	}
	// The target's own cascade (what it orphans, what its last DELETE
	// takes along) is followed against the whole plan.
	return a.follow(ctx, p, rep)
}

// stepPlan is the part of p that concerns one object.
func stepPlan(p *plan.Plan, uid string) *plan.Plan {
	out := &plan.Plan{}
	for _, of := range p.Objects {
		if of.Object.UID == uid {
			out.Objects = append(out.Objects, of)
		}
	}
	return out
}

// stepStopped records that --step stopped with left requests unsent.
func stepStopped(rep *report.Report, left int, err error) error {
	rep.Notes = append(rep.Notes, fmt.Sprintf("--step stopped at the first surprise: %d DELETE(s) of the plan were not sent", left))
	return err
}
