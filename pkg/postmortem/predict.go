package postmortem

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// PredictionUnknown is an object the plan predicted a fate for whose end
// the evidence does not show.
const PredictionUnknown = "unknown"

// predict plans the root request on the before snapshot, as `kgc plan
// delete` would have, and compares the plan with what happened.
func predict(before *snapshot.Snapshot, root *Root, ix *index, whyStuck func(string) string) *Prediction {
	req := root.Request
	pr := &Prediction{PolicyKnown: req.DeleteOptionsKnown, Objects: []PredictedObject{}}
	target := ix.byUID[req.Object.UID]
	if req.Missing || target == nil || target.before == nil {
		pr.Error = "the root object is not in the before snapshot, so there is nothing to plan"
		return pr
	}
	opts := plan.Options{Target: target.before.Metadata.UID}
	if d := req.DeleteOptions; d != nil {
		opts.Policy, opts.OrphanDependents = plan.Policy(d.PropagationPolicy), d.OrphanDependents
	}
	p, err := plan.Simulate(before, opts)
	if err != nil {
		pr.Error = fmt.Sprintf("planning the root request: %v", err)
		return pr
	}
	pr.PropagationPolicy, pr.Complete = cmp.Or(p.EffectivePolicy, p.PropagationPolicy, opts.Policy), p.Complete
	// What happened first to an object this root's chain orphaned before
	// another chain deleted it is the orphaning.
	orphanedHere, inChain := map[string]Link{}, map[string]bool{}
	walkLinks(root.Cascade, func(l Link) {
		inChain[l.Object.UID] = true
		if l.Result == ResultOrphaned {
			orphanedHere[l.Object.UID] = l
		}
	})
	planned := map[string]bool{}
	for _, of := range p.Objects {
		planned[of.Object.UID] = true
		if po, ok := goneBefore(of, ix, target, inChain); ok {
			pr.Objects = append(pr.Objects, po)
			continue
		}
		if po, ok := comparePlanned(of, ix, orphanedHere, whyStuck); ok {
			pr.Objects = append(pr.Objects, po)
		}
	}
	walkLinks(root.Cascade, func(l Link) {
		if !planned[l.Object.UID] && l.Object.UID != target.uid {
			pr.Objects = append(pr.Objects, unpredicted(l, ix))
		}
	})
	slices.SortFunc(pr.Objects, func(a, b PredictedObject) int { return a.Object.Compare(b.Object) })
	for _, o := range pr.Objects {
		switch o.Result {
		case PredictionAsPredicted:
			pr.AsPredicted++
		case PredictionNotPredicted:
			pr.NotPredicted++
		case PredictionPredictedNotHappened:
			pr.PredictedNotHappened++
		}
	}
	return pr
}

// comparePlanned judges one object the plan changes or that blocks it.
// Objects the plan leaves unchanged are compared only when they went.
func comparePlanned(of plan.ObjectFate, ix *index, orphanedHere map[string]Link, whyStuck func(string) string) (PredictedObject, bool) {
	po := PredictedObject{Object: of.Object, Predicted: of.Fate, Happened: ix.happened(of.Object.UID)}
	first, orphaned := orphanedHere[of.Object.UID]
	if orphaned {
		po.Happened = HappenedOrphaned
	}
	want := expected(of.Fate)
	if r := ix.byUID[of.Object.UID]; want == nil && r != nil && losesOwners(of, r) {
		// The plan keeps it but removes an owner reference: the collector
		// orphans it from the owners that go while another stays.
		want = expected(plan.FateOrphaned)
	}
	switch {
	case orphaned && slices.Contains(want, po.Happened) && first.Detail != "":
		po.Result, po.Detail = PredictionAsPredicted, "orphaned as predicted"+strings.TrimPrefix(first.Detail, "orphaned first")
	case want == nil:
		if po.Happened != HappenedDeleted {
			return po, false
		}
		po.Result, po.Detail = PredictionNotPredicted, "deleted, but the plan keeps it"
	case po.Happened == HappenedUnknown:
		po.Result, po.Detail = PredictionUnknown, "neither the log nor an after snapshot shows how it ended"
	case slices.Contains(want, po.Happened):
		po.Result = PredictionAsPredicted
	case po.Happened == HappenedDeleted:
		po.Result, po.Detail = PredictionNotPredicted, fmt.Sprintf("deleted, but the plan says %s", planSays(of))
	default:
		po.Result, po.Detail = PredictionPredictedNotHappened, fmt.Sprintf("%s, but the plan says %s", po.Happened, planSays(of))
		if po.Happened == HappenedTerminating && whyStuck != nil {
			po.WhyStuck = whyStuck(of.Object.UID)
		}
	}
	return po, true
}

// goneBefore judges an object the plan names but that another chain
// started deleting before this root's request: what became of it is not
// this request's doing, so it is neither a hit nor a miss of the plan.
func goneBefore(of plan.ObjectFate, ix *index, target *record, inChain map[string]bool) (PredictedObject, bool) {
	r := ix.byUID[of.Object.UID]
	if r == nil || r == target || inChain[of.Object.UID] || target.start() == nil {
		return PredictedObject{}, false
	}
	s := ix.sweepOrStart(r)
	if s == nil || !s.ReceivedAt().Before(target.start().ReceivedAt()) {
		return PredictedObject{}, false
	}
	return PredictedObject{Object: of.Object, Predicted: of.Fate, Happened: ix.happened(of.Object.UID), Result: PredictionGoneBefore,
		Detail: "its deletion started earlier, " + byChain(r) + ", before this request"}, true
}

// planSays is a planned fate with why, when the plan says: a blocked
// object names what blocks it.
func planSays(of plan.ObjectFate) string {
	var by []string
	for _, b := range of.BlockedBy {
		w := b.Words(func(f string) string { return f })
		for _, o := range b.Objects {
			w += " " + o.String()
		}
		by = append(by, w)
	}
	switch {
	case len(by) > 0:
		return fmt.Sprintf("%s (by %s)", of.Fate, strings.Join(by, "; "))
	case of.Reason != "":
		return fmt.Sprintf("%s (%s)", of.Fate, of.Reason)
	}
	return of.Fate
}

// expected maps a planned fate to what the evidence may show for it.
func expected(fate string) []string {
	switch fate {
	case plan.FateDeleted, plan.FateRecreated:
		return []string{HappenedDeleted}
	case plan.FateOrphaned:
		return []string{HappenedOrphaned, HappenedExists}
	case plan.FateBlocked:
		return []string{HappenedTerminating}
	}
	return nil
}

// losesOwners: the plan keeps r but with fewer owner references than
// the before snapshot gave it.
func losesOwners(of plan.ObjectFate, r *record) bool {
	return of.Fate == plan.FateUpdated && of.Final.Exists && r.before != nil &&
		len(of.Final.OwnerReferences) < len(r.before.Metadata.OwnerReferences)
}

// unpredicted judges an object that went with the root but that the plan
// did not name. A link orphaned in this chain happened as that first.
func unpredicted(l Link, ix *index) PredictedObject {
	po := PredictedObject{Object: l.Object, Happened: ix.happened(l.Object.UID), Result: PredictionNotPredicted}
	if l.Result == ResultOrphaned {
		po.Happened = HappenedOrphaned
	}
	r := ix.byUID[l.Object.UID]
	switch {
	case r == nil || r.before == nil:
		po.Detail = "not in the before snapshot: created after it was taken"
	case l.Actor != ActorGarbageCollector && l.Actor != ActorNamespaceController && l.Actor != ActorAPIServer && l.Actor != ActorKubelet:
		po.Detail = fmt.Sprintf("another actor: %s (%s)", l.Actor, l.User)
	default:
		po.Detail = "a model error: kgc's plan of this request did not predict it"
	}
	return po
}

// happened says what became of an object by the end of the evidence.
func (ix *index) happened(uid string) string {
	r := ix.byUID[uid]
	if r == nil {
		return HappenedUnknown
	}
	if uids, _, _ := ix.orphanedFrom(r); len(uids) > 0 && ix.sweepOrStart(r) == nil && !ix.startedSilently(r) {
		return HappenedOrphaned
	}
	res := ix.result(r)
	switch res {
	case ResultDeleted:
		return HappenedDeleted
	case ResultTerminating:
		return HappenedTerminating
	case HappenedExists:
		return HappenedExists
	}
	if r.start() == nil && r.after == nil && !ix.covers(r) {
		return HappenedUnknown
	}
	if r.start() == nil {
		return HappenedExists
	}
	return HappenedUnknown
}

func walkLinks(ls []Link, f func(Link)) {
	for _, l := range ls {
		f(l)
		walkLinks(l.Dependents, f)
	}
}
