package postmortem

import (
	"cmp"
	"slices"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// This file places an object whose going no request names — a log
// trimmed of the controllers' requests — by kgc's model of the garbage
// collector, the one `kgc plan delete` runs: the first person's DELETE
// before the object's own end whose plan changes the object is what
// happened to it first. The plan knows what an owner's going does to a
// dependent that another owner keeps (the collector removes the reference
// and keeps it), which "an owner went" alone does not.

// planFate is what a root's plan does to one object.
type planFate struct {
	root  *record
	until time.Time
	of    plan.ObjectFate
}

// deletes: the plan starts the object's deletion.
func (f planFate) deletes() bool {
	return f.of.Fate == plan.FateDeleted || f.of.Fate == plan.FateBlocked || f.of.Fate == plan.FateRecreated
}

// orphans: the plan keeps the object but removes owner references.
func (f planFate) orphans(r *record) bool {
	return f.of.Fate == plan.FateOrphaned || losesOwners(f.of, r)
}

// firstPlanned is the plan of the earliest logged DELETE by a person,
// received before until, that deletes or orphans r. Only r's owners, and
// theirs, can start a chain that reaches it.
func (ix *index) firstPlanned(r *record, until time.Time) (planFate, bool) {
	if r.before == nil || ix.before == nil {
		return planFate{}, false
	}
	for _, root := range ix.personAncestors(r) {
		if !root.start().ReceivedAt().Before(until) {
			break
		}
		of, ok := ix.planOf(root, until)[r.uid]
		if !ok {
			continue
		}
		if f := (planFate{root, until, of}); f.deletes() || f.orphans(r) {
			return f, true
		}
	}
	return planFate{}, false
}

// personAncestors are r's owners, and theirs, whose logged start is a
// person's DELETE whose options the log holds (a plan needs its policy),
// in the order the API server received them.
func (ix *index) personAncestors(r *record) []*record {
	var out []*record
	seen := map[*record]bool{r: true}
	queue := []*record{r}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		for _, ref := range slices.Concat(d.owners, beforeOwners(d)) {
			o := ix.ownerOf(d, ref.UID)
			if o == nil || seen[o] {
				continue
			}
			seen[o] = true
			queue = append(queue, o)
			if s := o.start(); s != nil && o.before != nil && s.Verb == "delete" && actor(s) == ActorUser && ix.optionsKnown(o) {
				out = append(out, o)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b *record) int {
		return cmp.Or(a.start().ReceivedAt().Compare(b.start().ReceivedAt()), a.ref().Compare(b.ref()))
	})
	return out
}

// planKey is one root's plan as of one time.
type planKey struct {
	root  *record
	until time.Time
}

// planOf is the plan of root's logged DELETE, by object UID, on the
// before snapshot with the finalizers logged requests removed before
// until: a finalizer someone removed let the collector go on; planned
// once.
func (ix *index) planOf(root *record, until time.Time) map[string]plan.ObjectFate {
	k := planKey{root, until}
	if fates, ok := ix.plans[k]; ok {
		return fates
	}
	if ix.plans == nil {
		ix.plans = map[planKey]map[string]plan.ObjectFate{}
	}
	opts := plan.Options{Target: root.before.Metadata.UID, PrimaryOnly: true}
	if d := root.start().Delete; d != nil {
		opts.Policy, opts.OrphanDependents = plan.Policy(d.PropagationPolicy), d.OrphanDependents
	}
	fates := map[string]plan.ObjectFate{}
	if ix.released == nil {
		ix.released = map[time.Time]*snapshot.Snapshot{}
	}
	snap, ok := ix.released[until]
	if !ok {
		snap = ix.releasedBy(until)
		ix.released[until] = snap
	}
	if p, err := plan.Simulate(snap, opts); err == nil {
		for _, of := range p.Objects {
			fates[of.Object.UID] = of
		}
	}
	ix.plans[k] = fates
	return fates
}

// releasedBy is the before snapshot with each object's finalizers as the
// last logged write received before until left them.
func (ix *index) releasedBy(until time.Time) *snapshot.Snapshot {
	var out *snapshot.Snapshot
	for i := range ix.before.Objects {
		o := &ix.before.Objects[i]
		r := ix.byUID[o.Metadata.UID]
		if r == nil {
			continue
		}
		fins, ok := lastFinalizers(r, until)
		if !ok || slices.Equal(fins, o.Metadata.Finalizers) {
			continue
		}
		if out == nil {
			cp := *ix.before
			cp.Objects = slices.Clone(ix.before.Objects)
			out = &cp
		}
		out.Objects[i].Metadata.Finalizers = fins
	}
	if out == nil {
		return ix.before
	}
	return out
}

// lastFinalizers are r's finalizers after its last accepted update or
// patch received before until whose response was logged: the response
// is the whole object, so no finalizers field is none.
func lastFinalizers(r *record, until time.Time) ([]string, bool) {
	var fins []string
	found := false
	for _, e := range r.events {
		if (e.Verb == "update" || e.Verb == "patch") && accepted(e) && e.Response != nil && e.Level == audit.LevelRequestResponse && e.ReceivedAt().Before(until) {
			fins, found = e.Response.Finalizers, true
		}
	}
	return fins, found
}

// plannedParent is the record r hangs under in f's chain: an owner of r
// the plan deletes, else the root.
func (ix *index) plannedParent(r *record, f planFate) *record {
	fates := ix.planOf(f.root, f.until)
	for _, ref := range slices.Concat(r.owners, beforeOwners(r)) {
		o := ix.ownerOf(r, ref.UID)
		if o == nil || o == r {
			continue
		}
		if o == f.root || (planFate{f.root, f.until, fates[o.uid]}).deletes() {
			return o
		}
	}
	return f.root
}

// planOutcome is what the first of kgc's plans to change an object says of
// it, for plannedCause.
type planOutcome uint8

const (
	// planSilent: no plan changes the object.
	planSilent planOutcome = iota
	// planDeletes: a plan deletes it; its cause is that plan's chain.
	planDeletes
	// planKeeps: the first plan to change it keeps it (orphans it): its
	// going is then another chain's.
	planKeeps
)

// plannedCause is, when no request names r's going, the chain whose plan
// first deletes r, and what that first plan says of r.
func (ix *index) plannedCause(r *record, until time.Time) (cause, planOutcome) {
	f, found := ix.firstPlanned(r, until)
	switch {
	case !found:
		return cause{}, planSilent
	case !f.deletes():
		return cause{}, planKeeps
	}
	c := cause{parent: ix.plannedParent(r, f), via: ViaOwnerReference, evidence: EvidenceModel, actor: ActorGarbageCollector, likely: true,
		detail: "no request names it (the audit policy did not log it): per kgc's plan of " + byRequest(f.root) + ", the garbage collector deletes it"}
	return c, planDeletes
}

// byRequest names a root's request: "bob's delete of Widget/w -n shop".
func byRequest(root *record) string {
	s := root.start()
	return userOf(s) + "'s " + s.Verb + " of " + root.ref().String()
}

// beforeOwners are r's owner references in the before snapshot, which the
// plans are of: its latest logged state may have lost some since.
func beforeOwners(r *record) []audit.OwnerRef {
	if r.before == nil {
		return nil
	}
	return r.before.Metadata.OwnerReferences
}
