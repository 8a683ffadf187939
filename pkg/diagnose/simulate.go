package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Simulator answers Options.Finishes with the plan simulator: it settles
// the snapshot once as a running control plane would (the baseline), then,
// for each remedy, applies it to a copy and settles again. The remedy
// finishes the terminating objects that survive the baseline but not the
// remedy. Unknown finalizers hang in both runs, as in kgc plan.
type Simulator struct {
	snap *snapshot.Snapshot
	opts plan.Options
	base *plan.Outcome
	err  error
	memo map[string][]snapshot.ObjectRef
	// Errors collects what the simulator refused, one line each, so the
	// command can warn on stderr instead of silently leaving finishes out.
	Errors []string
}

// RemedySimSteps bounds each remedy simulation: a stuck chain settles in
// a few hundred work items, and a diagnosis must answer quickly even on a
// pathological input.
const RemedySimSteps = 200000

// NewSimulator prepares remedy simulations of snap.
func NewSimulator(snap *snapshot.Snapshot, opts plan.Options) *Simulator {
	// "finishes" compares final states only: the alternatives of
	// timing-dependent objects would cost two more runs each and go unread.
	opts.PrimaryOnly = true
	return &Simulator{snap: snap, opts: opts, memo: map[string][]snapshot.ObjectRef{}}
}

// Finishes is an Options.Finishes.
func (s *Simulator) Finishes(rc RootCause, r Remedy) []snapshot.ObjectRef {
	mod, actions, key, ok := s.remedyInput(rc, r)
	if !ok {
		return nil
	}
	// Fixing a controller and removing its finalizer by hand end the same
	// way: one simulation answers both.
	if got, ok := s.memo[key]; ok {
		return got
	}
	finished := s.simulate(mod, actions, rc, r)
	s.memo[key] = finished
	return finished
}

func (s *Simulator) simulate(mod *snapshot.Snapshot, actions []plan.Action, rc RootCause, r Remedy) []snapshot.ObjectRef {
	if s.base == nil && s.err == nil {
		s.base, s.err = plan.SimulateActions(s.snap, nil, s.opts)
		if s.err != nil {
			s.Errors = append(s.Errors, "simulating the snapshot as it is: "+s.err.Error())
		}
	}
	if s.err != nil {
		return nil
	}
	if st, ok := s.base.State(rc.Object.UID); ok && !st.Exists && len(actions) > 0 {
		// The simulated controllers already finish the object (the root
		// cause says the real ones do not act): the remedy has nothing
		// left to act on, and finishes nothing the baseline does not.
		return nil
	}
	out, err := plan.SimulateActions(mod, actions, s.opts)
	if err != nil {
		s.Errors = append(s.Errors, "simulating "+r.Action+" on "+rc.Object.String()+": "+err.Error())
		return nil
	}
	if st := out.Plan.Stats; s.opts.MaxSteps > 0 && st != nil && st.WorkItems >= s.opts.MaxSteps {
		// A simulation cut short would claim too little.
		s.Errors = append(s.Errors, fmt.Sprintf("simulating %s on %s stopped after %d work items: what it finishes is left out", r.Action, rc.Object, st.WorkItems))
		return nil
	}
	var finished []snapshot.ObjectRef
	for i := range s.snap.Objects {
		o := &s.snap.Objects[i]
		if !o.Terminating() {
			continue
		}
		before, ok := s.base.State(o.Metadata.UID)
		if !ok || !before.Exists {
			continue
		}
		if after, ok := out.State(o.Metadata.UID); ok && !after.Exists {
			finished = append(finished, o.Ref())
		}
	}
	slices.SortFunc(finished, snapshot.ObjectRef.Compare)
	return finished
}

// remedyInput turns a remedy into a modified snapshot and initial actions.
// Edits the simulator has no action for (blockOwnerDeletion=false, a
// namespace's spec finalizer) are made on a copy of the snapshot.
func (s *Simulator) remedyInput(rc RootCause, r Remedy) (*snapshot.Snapshot, []plan.Action, string, bool) {
	uid := rc.Object.UID
	i := slices.IndexFunc(s.snap.Objects, func(o snapshot.Object) bool { return o.Metadata.UID == uid })
	if i < 0 {
		return nil, nil, "", false
	}
	o := s.snap.Objects[i]
	switch r.Action {
	case ActionFixController, ActionRemoveFinalizer, ActionGrantRBAC:
		// A granted controller removes its finalizer as a fixed one does.
		if rc.Finalizer == "" {
			return nil, nil, "", false
		}
		if o.HasFinalizer(rc.Finalizer) {
			return s.snap, []plan.Action{plan.RemoveFinalizer{UID: uid, Finalizer: rc.Finalizer}}, "remove-finalizer|" + uid + "|" + rc.Finalizer, true
		}
		if isSpecFinalizer(&o, rc.Finalizer) {
			c := cloneObject(o)
			if c.Facts != nil && c.Facts.Namespace != nil {
				c.Facts.Namespace.SpecFinalizers = slices.DeleteFunc(c.Facts.Namespace.SpecFinalizers, func(f string) bool { return f == rc.Finalizer })
			} else {
				c.Facts = &snapshot.Facts{Namespace: &snapshot.NamespaceFacts{Phase: "Terminating", SpecFinalizers: []string{}}}
			}
			return withObject(s.snap, i, c), nil, "remove-spec-finalizer|" + uid + "|" + rc.Finalizer, true
		}
	case ActionDelete:
		return s.snap, []plan.Action{plan.Delete{UID: uid, Policy: plan.PolicyBackground}}, "delete|" + uid, true
	case ActionDeleteAPIService:
		if r.Request == nil {
			return nil, nil, "", false
		}
		api := r.Request.Object.UID
		return s.snap, []plan.Action{plan.Delete{UID: api, Policy: plan.PolicyBackground}}, "delete|" + api, true
	case ActionForceDelete:
		zero := int64(0)
		return s.snap, []plan.Action{plan.Delete{UID: uid, GracePeriodSeconds: &zero}}, "force-delete|" + uid, true
	case ActionRemoveOwnerReference, ActionUnblockOwnerReference:
		idx, ownerUID := refFromCommand(o, r.Command)
		if idx < 0 {
			return nil, nil, "", false
		}
		if r.Action == ActionRemoveOwnerReference {
			return s.snap, []plan.Action{plan.RemoveOwnerReference{UID: uid, OwnerUID: ownerUID}}, "remove-owner-reference|" + uid + "|" + ownerUID, true
		}
		c := cloneObject(o)
		f := false
		c.Metadata.OwnerReferences[idx].BlockOwnerDeletion = &f
		return withObject(s.snap, i, c), nil, "unblock|" + uid + "|" + ownerUID, true
	}
	return nil, nil, "", false
}

// refFromCommand finds which owner reference a remedy's patch tests: the
// command is the one place that names it, by UID.
func refFromCommand(o snapshot.Object, cmd string) (int, string) {
	for i, ref := range o.Metadata.OwnerReferences {
		if ref.UID != "" && strings.Contains(cmd, `"value":"`+ref.UID+`"`) {
			return i, ref.UID
		}
	}
	return -1, ""
}

func cloneObject(o snapshot.Object) snapshot.Object {
	c := o
	c.Metadata.Finalizers = slices.Clone(o.Metadata.Finalizers)
	c.Metadata.OwnerReferences = slices.Clone(o.Metadata.OwnerReferences)
	if o.Facts != nil {
		f := *o.Facts
		if f.Namespace != nil {
			ns := *f.Namespace
			ns.SpecFinalizers = slices.Clone(ns.SpecFinalizers)
			f.Namespace = &ns
		}
		c.Facts = &f
	}
	return c
}

// withObject returns a shallow copy of snap with Objects[i] replaced.
func withObject(snap *snapshot.Snapshot, i int, o snapshot.Object) *snapshot.Snapshot {
	c := *snap
	c.Objects = slices.Clone(snap.Objects)
	c.Objects[i] = o
	return &c
}
