package plan

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// maxBaselineSteps caps how many baseline steps a plan lists: on a big,
// busy cluster the controllers may have a lot of unrelated work pending.
const maxBaselineSteps = 200

// buildPlan compares the final state with the settled baseline and writes
// the Plan document.
func (s *sim) buildPlan(actions []Action, base []*snapshot.Object, nBase int) *Plan {
	p := &Plan{APIVersion: snapshot.APIVersion, Kind: "Plan",
		Assumptions: Assumptions{UnknownFinalizers: s.opts.AssumeFinalizers, Controllers: append([]string{"garbagecollector"}, s.opts.Controllers...)},
		Steps:       []Step{}, Objects: []ObjectFate{}, Complete: true}
	s.planTarget(p, actions, nBase)
	s.planSteps(p, nBase)
	s.planFates(p, base)
	for _, of := range p.Objects {
		p.Summary.add(of.Fate)
	}
	countVolumes(p)
	s.planCompleteness(p)
	s.parkedNotes()
	p.Warnings = append(p.Warnings, s.warnings...)
	p.Notes = append(p.Notes, s.notes...)
	p.NoteAbout = s.noteAbout
	p.Stats = &SimulateStat{Objects: len(s.st.objs), GraphNodes: len(s.gc.uidToNode), WorkItems: s.workItems, StoreWrites: s.st.writes}
	return p
}

// planTarget names the plan's target, the object of the first delete (or
// of the first action when none is a delete), and the policy the API
// server applied to it: that of the first step on it.
func (s *sim) planTarget(p *Plan, actions []Action, nBase int) {
	var targetUID string
	for _, a := range actions {
		if d, ok := a.(Delete); ok {
			targetUID = d.UID
			p.PropagationPolicy = d.Policy
			break
		}
	}
	if targetUID == "" && len(actions) > 0 {
		switch a := actions[0].(type) {
		case RemoveFinalizer:
			targetUID = a.UID
		case RemoveOwnerReference:
			targetUID = a.UID
		}
	}
	if i, ok := s.st.index(targetUID); ok {
		p.Target = s.st.orig[i].Ref()
	}
	for _, st := range s.steps[nBase:] {
		if st.Object.UID == targetUID && st.PropagationPolicy != "" {
			p.EffectivePolicy = st.PropagationPolicy
			break
		}
	}
}

// planSteps numbers the steps, the baseline's first (capped, with a
// warning that the input is not settled), then the plan's own.
func (s *sim) planSteps(p *Plan, nBase int) {
	add := func(st Step) {
		st.Step = len(p.Steps) + 1
		p.Steps = append(p.Steps, st)
	}
	shown := min(nBase, maxBaselineSteps)
	for _, st := range s.steps[:shown] {
		add(st)
	}
	if nBase > 0 {
		p.Warnings = append(p.Warnings, s.unsettledWarning(nBase, shown))
	}
	for _, st := range s.steps[nBase:] {
		add(st)
	}
}

// unsettledWarning says how much the controllers would do without the
// plan's actions, so that a reader does not blame the delete for it.
func (s *sim) unsettledWarning(nBase, shown int) string {
	objs := map[string]bool{}
	for _, st := range s.steps[:nBase] {
		objs[st.Object.UID] = true
	}
	w := fmt.Sprintf("the input is not settled: even without this delete the controllers would take %d step(s) on %d object(s) (steps marked baseline", nBase, len(objs))
	if shown < nBase {
		w += fmt.Sprintf(", the first %d shown", shown)
	}
	return w + "); the objects below are what the delete changes on top of that"
}

// planFates lists every object the plan changed with its fate, and the
// blockers of blocked objects that did not change themselves, in
// contract order.
func (s *sim) planFates(p *Plan, base []*snapshot.Object) {
	listed := map[int32]int{}
	for i := range s.st.objs {
		if s.st.orig[i] == nil || s.st.objs[i] == base[i] {
			continue
		}
		listed[int32(i)] = len(p.Objects)
		p.Objects = append(p.Objects, s.fate(int32(i), base[i]))
	}
	s.addUnchangedBlockers(p, listed)
	s.replacedWithOwner(p)
	sort.SliceStable(p.Objects, func(a, b int) bool { return p.Objects[a].Object.Less(p.Objects[b].Object) })
}

// addUnchangedBlockers lists with fate unchanged what blocked objects wait
// for and the plan did not change (listed holds what is listed already):
// those are what a reader has to look at.
func (s *sim) addUnchangedBlockers(p *Plan, listed map[int32]int) {
	for k := 0; k < len(p.Objects); k++ {
		of := &p.Objects[k]
		if of.Fate != FateBlocked {
			continue
		}
		for b := range of.BlockedBy {
			for _, ref := range of.BlockedBy[b].Objects {
				i, ok := s.st.index(ref.UID)
				if !ok {
					continue
				}
				if _, ok := listed[i]; ok {
					continue
				}
				listed[i] = len(p.Objects)
				o := s.st.objs[i]
				p.Objects = append(p.Objects, ObjectFate{Object: s.st.orig[i].Ref(), Fate: FateUnchanged, Final: finalState(o),
					Reason: "blocks " + of.Object.String() + s.holdReason(i)})
			}
		}
	}
}

// planCompleteness marks the plan incomplete, with a warning each, where
// it rests on objects kgc could not see or the simulation was cut short.
func (s *sim) planCompleteness(p *Plan) {
	s.warnUnknownRefs(p)
	if p.Summary.Deleted+p.Summary.Orphaned+p.Summary.Blocked > 0 {
		s.warnUnlistedTypes(p)
	}
	if s.limitHit {
		p.Complete = false
		p.Warnings = append(p.Warnings, fmt.Sprintf("the simulation stopped after %d work items without settling: the plan is cut short", s.maxItems))
	}
}

// warnUnknownRefs names the objects the plan assumed exist because their
// type could not be listed.
func (s *sim) warnUnknownRefs(p *Plan) {
	if len(s.unknownRefs) == 0 {
		return
	}
	p.Complete = false
	var refs []snapshot.ObjectRef
	for r := range s.unknownRefs {
		refs = append(refs, r)
	}
	sort.Slice(refs, func(a, b int) bool { return refs[a].Less(refs[b]) })
	for _, r := range refs {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s (%s): its type could not be listed when the snapshot was taken, so whether it exists is unknown; the plan assumes it does", r, r.APIVersion))
	}
}

// warnUnlistedTypes names the watched types whose list failed. They may
// hold dependents of what the plan deletes or orphans; the real GC would
// act on them (its monitor for the type lists through its own cache), kgc
// cannot see them. A dump that holds no objects of a type says nothing
// about it (listErr is empty): dumps rarely hold every type, and a warning
// per type would bury the plan.
func (s *sim) warnUnlistedTypes(p *Plan) {
	var names []string
	for _, ri := range s.res.byGK {
		if !ri.listed && ri.monitored && ri.listErr != "" {
			n := ri.plural
			if ri.group != "" {
				n += "." + ri.group
			}
			n += " (" + ri.listErr + ")"
			names = append(names, n)
		}
	}
	sort.Strings(names)
	switch {
	case len(names) == 1:
		p.Warnings = append(p.Warnings, "could not list "+names[0]+": objects of that type may be dependents of what this plan deletes or orphans, and the plan cannot show what happens to them")
	case len(names) > 1:
		// One line for all: a user allowed into one namespace may miss
		// dozens of types, and a line each would bury the plan.
		shown := names
		more := ""
		if len(names) > 4 {
			shown, more = names[:4], fmt.Sprintf(" and %d more", len(names)-4)
		}
		p.Warnings = append(p.Warnings, fmt.Sprintf("could not list %d types, whose objects may be dependents of what this plan deletes or orphans, so the plan cannot show what happens to them: %s%s",
			len(names), strings.Join(shown, ", "), more))
	}
	if len(names) > 0 {
		p.Complete = false
	}
}

// parkedNotes turns items still retrying at quiescence into notes.
func (s *sim) parkedNotes() {
	for _, p := range s.gc.attemptToDelete.parked {
		s.noteOn(p.v.Identity(), fmt.Sprintf("the garbage collector retries %s for ever: %s", p.v.Identity(), p.reason))
	}
	for _, p := range s.gc.attemptToOrphan.parked {
		s.noteOn(p.v.Identity(), fmt.Sprintf("the garbage collector retries orphaning the dependents of %s for ever: %s", p.v.Identity(), p.reason))
	}
}

// fate compares object i's final state with the baseline b.
func (s *sim) fate(i int32, b *snapshot.Object) ObjectFate {
	o := s.st.objs[i]
	ref := s.st.orig[i].Ref()
	of := ObjectFate{Object: ref, Final: finalState(o), Volume: s.ctrl.volumeFate(ref.UID, o)}
	why := s.firstWhy[ref.UID]
	switch {
	case b == nil:
		of.Fate = FateUpdated
		of.Reason = "recreated"
	case o == nil:
		of.Fate = FateDeleted
		of.Reason = why
		s.recreate(&of, b)
	case o.Metadata.DeletionTimestamp != nil:
		of.Fate = FateBlocked
		of.BlockedBy = s.blockers(i)
		of.Reason = joinWhy(why, "stays Terminating"+s.holdReason(i))
	case s.orphaned[ref.UID] && len(o.Metadata.OwnerReferences) < len(b.Metadata.OwnerReferences):
		of.Fate = FateOrphaned
		of.Reason = why
	default:
		of.Fate = FateUpdated
		of.Reason = why
	}
	return of
}

// holdReason says in words what holds a terminating object.
func (s *sim) holdReason(i int32) string {
	o := s.st.objs[i]
	if o == nil || o.Metadata.DeletionTimestamp == nil {
		return ""
	}
	var parts []string
	for _, b := range s.blockers(i) {
		switch {
		case b.Finalizer != "" && b.WaitingFor != "":
			parts = append(parts, fmt.Sprintf("finalizer %s (removed by %s) waits for %s", b.Finalizer, b.RemovedBy, b.WaitingFor))
		case b.Finalizer != "":
			parts = append(parts, fmt.Sprintf("finalizer %s, removed by %s", b.Finalizer, b.RemovedBy))
		default:
			parts = append(parts, b.WaitingFor)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, "; ")
}

// blockers lists what holds terminating object i at quiescence.
func (s *sim) blockers(i int32) []Blocker {
	o := s.st.objs[i]
	if o == nil {
		return nil
	}
	var out []Blocker
	ri := s.st.info[i]
	for _, f := range o.Metadata.Finalizers {
		fi := rules.LookupFinalizer(f)
		b := Blocker{Finalizer: f, RemovedBy: fi.RemovedBy}
		switch f {
		case rules.FinalizerForeground:
			deps := s.blockingDependentsOf(o)
			if len(deps) > 0 {
				b.WaitingFor = fmt.Sprintf("%d dependent(s) with blockOwnerDeletion=true to be deleted", len(deps))
				b.Objects = deps
			} else if !ri.monitored {
				b.WaitingFor = "nothing, but the garbage collector does not watch this type"
			}
		case rules.FinalizerOrphan:
			if !ri.monitored {
				b.WaitingFor = "nothing, but the garbage collector does not watch this type"
			}
		default:
			if why, ok := s.ctrl.why[i]; ok && s.ctrl.handles(f) {
				b.WaitingFor = why
			} else if !s.ctrl.handles(f) {
				b.WaitingFor = "its controller (not simulated; --assume-finalizers=remove assumes it finishes)"
			}
		}
		out = append(out, b)
	}
	if ri.isNamespace && slices.Contains(nsSpecFinalizers(o), rules.FinalizerNamespace) {
		b := Blocker{Finalizer: rules.FinalizerNamespace, RemovedBy: rules.ActorNamespace, WaitingFor: s.ctrl.why[i]}
		if !s.ctrl.enabled[ControllerNamespace] {
			b.WaitingFor = "the namespace controller (not simulated)"
		}
		for _, k := range s.ctrl.inNamespace(o.Metadata.Name) {
			if c := s.st.objs[k]; c != nil && len(b.Objects) < 20 {
				b.Objects = append(b.Objects, c.Ref())
			}
		}
		out = append(out, b)
	}
	if ri.graceful && o.Metadata.DeletionGracePeriodSeconds != nil && *o.Metadata.DeletionGracePeriodSeconds > 0 {
		w := s.ctrl.why[i]
		if w == "" {
			w = "the kubelet to confirm termination"
		}
		out = append(out, Blocker{RemovedBy: rules.ActorKubelet, WaitingFor: w})
	}
	return out
}

// blockingDependentsOf lists the live objects with a blocking owner
// reference to o.
func (s *sim) blockingDependentsOf(o *snapshot.Object) []snapshot.ObjectRef {
	var out []snapshot.ObjectRef
	if n, ok := s.gc.uidToNode[o.Metadata.UID]; ok {
		for _, d := range n.BlockingDependents() {
			if _, live := s.st.get(d.Identity().UID); live != nil {
				out = append(out, live.Ref())
			} else {
				out = append(out, d.Identity())
			}
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Less(out[b]) })
	return out
}
