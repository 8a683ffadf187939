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
	if i, ok := s.st.byUID[targetUID]; ok {
		p.Target = s.st.orig[i].Ref()
	}
	// The policy the API server applied to the target: the first step on it.
	for _, st := range s.steps[nBase:] {
		if st.Object.UID == targetUID && st.PropagationPolicy != "" {
			p.EffectivePolicy = st.PropagationPolicy
			break
		}
	}

	// Steps: baseline first (capped), then the plan's own.
	n := 0
	if nBase > 0 {
		shown := min(nBase, maxBaselineSteps)
		for _, st := range s.steps[:shown] {
			n++
			st.Step = n
			p.Steps = append(p.Steps, st)
		}
		objs := map[string]bool{}
		for _, st := range s.steps[:nBase] {
			objs[st.Object.UID] = true
		}
		w := fmt.Sprintf("the input is not settled: even without this delete the controllers would take %d step(s) on %d object(s) (steps marked baseline", nBase, len(objs))
		if shown < nBase {
			w += fmt.Sprintf(", the first %d shown", shown)
		}
		w += "); the objects below are what the delete changes on top of that"
		p.Warnings = append(p.Warnings, w)
	}
	for _, st := range s.steps[nBase:] {
		n++
		st.Step = n
		p.Steps = append(p.Steps, st)
	}

	// Objects the plan changed.
	listed := map[int32]int{}
	for i := range s.st.objs {
		if s.st.orig[i] == nil || s.st.objs[i] == base[i] {
			continue
		}
		listed[int32(i)] = len(p.Objects)
		p.Objects = append(p.Objects, s.fate(int32(i), base[i]))
	}
	// Blockers that did not change themselves.
	for k := 0; k < len(p.Objects); k++ {
		of := &p.Objects[k]
		if of.Fate != FateBlocked {
			continue
		}
		for b := range of.BlockedBy {
			for _, ref := range of.BlockedBy[b].Objects {
				i, ok := s.st.byUID[ref.UID]
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
	sort.SliceStable(p.Objects, func(a, b int) bool { return p.Objects[a].Object.Less(p.Objects[b].Object) })
	for _, of := range p.Objects {
		switch of.Fate {
		case FateDeleted:
			p.Summary.Deleted++
		case FateOrphaned:
			p.Summary.Orphaned++
		case FateUpdated:
			p.Summary.Updated++
		case FateBlocked:
			p.Summary.Blocked++
		}
	}

	if len(s.unknownRefs) > 0 {
		p.Complete = false
		var refs []snapshot.ObjectRef
		for r := range s.unknownRefs {
			refs = append(refs, r)
		}
		sort.Slice(refs, func(a, b int) bool { return refs[a].Less(refs[b]) })
		for _, r := range refs {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s/%s %s: its type could not be listed when the snapshot was taken, so whether it exists is unknown; the plan assumes it does", r.APIVersion, r.Kind, nsName(r)))
		}
	}
	// A type whose list failed may hold dependents of what the plan
	// deletes or orphans; the real GC would act on them (its monitor for
	// the type lists through its own cache), kgc cannot see them. A dump
	// that holds no objects of a type says nothing about it (listErr is
	// empty): dumps rarely hold every type, and a warning per type would
	// bury the plan.
	if p.Summary.Deleted+p.Summary.Orphaned+p.Summary.Blocked > 0 {
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
		for _, n := range names {
			p.Complete = false
			p.Warnings = append(p.Warnings, "could not list "+n+": objects of that type may be dependents of what this plan deletes or orphans, and the plan cannot show what happens to them")
		}
	}
	if s.limitHit {
		p.Complete = false
		p.Warnings = append(p.Warnings, fmt.Sprintf("the simulation stopped after %d work items without settling: the plan is cut short", s.maxItems))
	}
	s.parkedNotes()
	p.Warnings = append(p.Warnings, s.warnings...)
	p.Notes = append(p.Notes, s.notes...)
	p.Stats = &SimulateStat{Objects: len(s.st.objs), GraphNodes: len(s.gc.uidToNode), WorkItems: s.workItems, StoreWrites: s.st.writes}
	return p
}

func nsName(r snapshot.ObjectRef) string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// parkedNotes turns items still retrying at quiescence into notes.
func (s *sim) parkedNotes() {
	for _, p := range s.gc.attemptToDelete.parked {
		s.note(fmt.Sprintf("the garbage collector retries %s for ever: %s", p.v.identity.ref(), p.reason))
	}
	for _, p := range s.gc.attemptToOrphan.parked {
		s.note(fmt.Sprintf("the garbage collector retries orphaning the dependents of %s for ever: %s", p.v.identity.ref(), p.reason))
	}
}

// fate compares object i's final state with the baseline b.
func (s *sim) fate(i int32, b *snapshot.Object) ObjectFate {
	o := s.st.objs[i]
	ref := s.st.orig[i].Ref()
	of := ObjectFate{Object: ref, Final: finalState(o)}
	why := s.firstWhy[ref.UID]
	switch {
	case b == nil:
		of.Fate = FateUpdated
		of.Reason = "recreated"
	case o == nil:
		of.Fate = FateDeleted
		of.Reason = why
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
		s.ctrl.indexNS()
		for _, k := range s.ctrl.byNS[o.Metadata.Name] {
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
		for _, d := range n.blockingDependents() {
			if _, live := s.st.get(d.identity.UID); live != nil {
				out = append(out, live.Ref())
			} else {
				out = append(out, d.identity.ref())
			}
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Less(out[b]) })
	return out
}
