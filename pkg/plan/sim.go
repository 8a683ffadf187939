package plan

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// sim is one simulation: the store (API server), the garbage collector,
// the other controllers and a logical clock, run to quiescence.
//
// Scheduling is fixed, so every run gives the same result: drain the GC's
// graphChanges, then one round trip of the GC's concurrent workers
// (sched.go), one item of each other controller, and again; when every
// queue is empty and no worker is busy the clock jumps to the next timer
// (grace periods, requeue delays). Where the workers' calls race, the plan
// says so and gives the other outcomes (SimulateActions).
type sim struct {
	snap *snapshot.Snapshot
	opts Options
	res  *resources
	st   *store
	gc   *gc
	ctrl *controllers

	wave     int
	baseline bool
	steps    []Step

	notes, warnings []string
	noteSet         map[string]bool
	noteAbout       map[string]snapshot.ObjectRef
	// changedWave is, by UID, the wave of the last step that changed or
	// removed an object: what a collector worker learns by reading it
	// comes no earlier (gc.observeState).
	changedWave map[string]int
	unknownRefs map[snapshot.ObjectRef]bool
	orphaned    map[string]bool
	firstWhy    map[string]string

	// raced is set when one garbage collector worker reads an object in
	// the round trip in which, or just before, another writes it
	// (sched.go); order says how such calls are served.
	raced bool
	order order
	// nearReaders are the items whose workers read an object one round
	// before another wrote it; slow are the items whose workers start a
	// round late (order slowReaders).
	nearReaders, slow map[string]bool

	recLook *rules.RecreateLookup

	timers    []timer
	timerSeq  int
	workItems int
	maxItems  int
	limitHit  bool
}

type timer struct {
	at  time.Time
	seq int
	fn  func()
}

const defaultMaxSteps = 5_000_000

// newSim prepares a simulation of snap, or, with r, of the part of it r
// holds.
func newSim(snap *snapshot.Snapshot, opts Options, r *reach) (*sim, error) {
	if snap == nil {
		return nil, fmt.Errorf("no snapshot to plan on")
	}
	switch opts.AssumeFinalizers {
	case "":
		opts.AssumeFinalizers = AssumeHang
	case AssumeHang, AssumeRemove:
	default:
		return nil, fmt.Errorf("unknown finalizer assumption %q: use hang or remove", opts.AssumeFinalizers)
	}
	if opts.Controllers == nil {
		opts.Controllers = AllControllers()
	}
	for _, c := range opts.Controllers {
		if !slices.Contains(AllControllers(), c) {
			return nil, fmt.Errorf("unknown controller %q: use some of %v", c, AllControllers())
		}
	}
	s := &sim{snap: snap, opts: opts, noteSet: map[string]bool{}, unknownRefs: map[snapshot.ObjectRef]bool{},
		orphaned: map[string]bool{}, firstWhy: map[string]string{}, maxItems: opts.MaxSteps, nearReaders: map[string]bool{}}
	if s.maxItems <= 0 {
		s.maxItems = defaultMaxSteps
	}
	var warns []string
	if r == nil {
		s.res = newResources(rules.NewServedTypes(snap))
		s.st, warns = newStore(snap, s.res)
	} else {
		// The part's store warns and counts resourceVersions as the
		// whole snapshot's would.
		s.snap, s.res = r.sub, r.res
		s.st, _ = newStore(r.sub, s.res)
		s.st.reach, warns = r, r.warnings
		r.numberRVs(s.st)
	}
	s.warnings = append(s.warnings, warns...)
	s.st.onChange = s.onChange
	s.st.record = s.record
	s.gc = newGC(s, len(s.snap.Objects))
	s.ctrl = newControllers(s)
	return s, nil
}

// noteOn is a note about one object (see Plan.NoteAbout).
func (s *sim) noteOn(ref snapshot.ObjectRef, msg string) {
	if s.noteAbout == nil {
		s.noteAbout = map[string]snapshot.ObjectRef{}
	}
	s.noteAbout[msg] = ref
	s.note(msg)
}

func (s *sim) note(msg string) {
	if !s.noteSet[msg] {
		s.noteSet[msg] = true
		s.notes = append(s.notes, msg)
	}
}

func (s *sim) unknown(ref snapshot.ObjectRef) {
	if !s.baseline {
		s.unknownRefs[ref] = true
	}
}

func (s *sim) record(actor, action string, o *snapshot.Object, policy Policy, detail string) {
	st := Step{Wave: s.wave + 1, Actor: actor, Action: action, Object: o.Ref(), PropagationPolicy: policy, Detail: detail, Baseline: s.baseline}
	s.steps = append(s.steps, st)
	if !s.baseline {
		if _, ok := s.firstWhy[o.Metadata.UID]; !ok {
			s.firstWhy[o.Metadata.UID] = actor + ": " + detail
		}
	}
}

func (s *sim) onChange(i int32, typ eventType, old, new *snapshot.Object) {
	ri := s.st.info[i]
	if s.changedWave == nil {
		s.changedWave = map[string]int{}
	}
	if o := cmp.Or(new, old); o != nil {
		s.changedWave[o.Metadata.UID] = s.wave + 1
	}
	s.gc.observe(ri, typ, old, new, s.wave+1)
	s.ctrl.observe(i, ri, typ, old, new, s.wave+1)
}

// observeState moves the running worker's wave (a collector worker's or a
// controller's) past the step that last changed or removed the object uid
// it read; it reports whether it moved.
func (s *sim) observeState(uid string) bool {
	w, ok := s.changedWave[uid]
	if !ok || w <= s.wave {
		return false
	}
	s.wave = w
	return true
}

func (s *sim) after(d time.Duration, fn func()) {
	s.timerSeq++
	s.timers = append(s.timers, timer{at: s.st.now.Add(d), seq: s.timerSeq, fn: fn})
}

func (s *sim) fireTimer() bool {
	if len(s.timers) == 0 {
		return false
	}
	best := 0
	for k, t := range s.timers {
		if t.at.Before(s.timers[best].at) || (t.at.Equal(s.timers[best].at) && t.seq < s.timers[best].seq) {
			best = k
		}
	}
	t := s.timers[best]
	s.timers = slices.Delete(s.timers, best, best+1)
	if t.at.After(s.st.now) {
		s.st.now = t.at
	}
	t.fn()
	return true
}

// run processes work until quiescence.
func (s *sim) run() {
	for {
		if s.workItems >= s.maxItems {
			s.limitHit = true
			s.gc.drainTasks()
			return
		}
		did := s.gc.runProcessGraphChanges()
		if s.gc.step() {
			did = true
		}
		if s.ctrl.processOne() {
			did = true
			s.workItems++
		}
		if did || s.gc.pendingEvents() > 0 {
			continue
		}
		if s.gc.attemptToDelete.flush() || s.gc.attemptToOrphan.flush() || s.ctrl.q.flush() {
			continue
		}
		if s.fireTimer() {
			continue
		}
		w := s.st.writes
		if s.gc.attemptToDelete.wake(w) || s.gc.attemptToOrphan.wake(w) || s.ctrl.wake(w) {
			continue
		}
		return
	}
}

// observeAll feeds every object to the informers as an add event, in the
// order a running collector observed them (rules.ReplayOrder), the same
// order in which the graph package builds its graph.
func (s *sim) observeAll() {
	order := rules.ReplayOrder(s.snap.Objects, func(i int) bool { return s.st.objs[i] != nil })
	for k, i := range order {
		s.onChange(i, addEvent, nil, s.st.objs[i])
		if k%1024 == 1023 {
			// The graph builder keeps up with the informers: do not hold
			// a million pending events.
			s.gc.runProcessGraphChanges()
		}
	}
}

// warnRecreationLoop warns before a foreground delete of a custom
// resource whose controller owns dependents that block it: an operator
// that reconciles its resource while it is deleted creates those
// dependents again as the collector deletes them, and the delete never
// ends (ClickHouse/clickhouse-operator#309,
// open-telemetry/opentelemetry-operator#2364). The plan cannot know the
// operator; it says what to watch and how to avoid the loop.
func (s *sim) warnRecreationLoop(i int32, o *snapshot.Object) {
	g := s.st.info[i].group
	if !strings.Contains(g, ".") || strings.HasSuffix(g, ".k8s.io") || g == "k8s.io" {
		return
	}
	var deps []string
	for _, d := range s.st.objs {
		if d == nil {
			continue
		}
		for _, ref := range d.Metadata.OwnerReferences {
			if ref.UID == o.Metadata.UID && ref.IsController() && ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion {
				deps = append(deps, d.Ref().String())
			}
		}
	}
	if len(deps) == 0 {
		return
	}
	slices.Sort(deps)
	s.warnings = append(s.warnings, fmt.Sprintf("%s is deleted in the foreground and its controller owns %s, which block it: an operator that reconciles %s while it is deleted creates them again as the garbage collector deletes them, and the deletion never ends (kgc why-stuck then says dependent-recreated); --cascade=background avoids the loop",
		o.Ref(), strings.Join(deps, ", "), o.Kind))
}

// apply performs one initial action as a user request.
func (s *sim) apply(a Action) error {
	s.wave = 0
	switch a := a.(type) {
	case Delete:
		i, o := s.st.get(a.UID)
		if o == nil {
			if k, ok := s.st.index(a.UID); ok {
				s.warnings = append(s.warnings, fmt.Sprintf("%s is already deleted by the controllers before the delete is sent: the input is not settled", s.st.orig[k].Ref()))
				return nil
			}
			return fmt.Errorf("object with uid %s is not in the snapshot: check the name and namespace", a.UID)
		}
		if err := a.Policy.Validate(); err != nil {
			return err
		}
		if !s.st.info[i].hasDelete {
			return fmt.Errorf("the API server does not allow delete on %s (no delete verb in discovery)", o.Ref())
		}
		opts := deleteOptions{DeleteOptions: rules.DeleteOptions{Policy: a.Policy, OrphanDependents: a.OrphanDependents}, grace: a.GracePeriodSeconds}
		var why string
		switch {
		case a.Policy != PolicyDefault:
			why = "requested with propagationPolicy " + string(a.Policy)
		case a.OrphanDependents != nil:
			why = fmt.Sprintf("requested with orphanDependents=%v", *a.OrphanDependents)
		default:
			why = "requested without a propagation policy (the resource's default applies)"
		}
		if a.Policy == PolicyForeground {
			s.warnRecreationLoop(i, o)
		}
		if err := s.st.delete(rules.ActorAPIServer, i, opts, why); err != nil {
			return fmt.Errorf("the API server would reject the delete of %s: %w", o.Ref(), err)
		}
	case RemoveFinalizer:
		i, o := s.st.get(a.UID)
		if o == nil {
			return fmt.Errorf("object with uid %s is not in the snapshot (or already deleted)", a.UID)
		}
		if s.st.info[i].isNamespace && a.Finalizer == rules.FinalizerNamespace && slices.Contains(nsSpecFinalizers(o), rules.FinalizerNamespace) {
			// spec.finalizers through /finalize, as the namespace controller does.
			c := clone(o)
			nf := *terminatingNamespaceFacts(o.Facts)
			if o.Metadata.DeletionTimestamp == nil && o.Facts != nil && o.Facts.Namespace != nil {
				nf.Namespace.Phase = o.Facts.Namespace.Phase
			}
			ns := *nf.Namespace
			ns.SpecFinalizers = slices.DeleteFunc(slices.Clone(ns.SpecFinalizers), func(f string) bool { return f == rules.FinalizerNamespace })
			nf.Namespace = &ns
			c.Facts = &nf
			s.record("user", ActionRemoveFin, c, "", "spec.finalizers kubernetes removed through /finalize by hand")
			s.st.update("user", i, c)
			return nil
		}
		if !hasFin(o, a.Finalizer) {
			return fmt.Errorf("%s has no finalizer %q", o.Ref(), a.Finalizer)
		}
		c := clone(o)
		c.Metadata.Finalizers = slices.DeleteFunc(c.Metadata.Finalizers, func(f string) bool { return f == a.Finalizer })
		s.record("user", ActionRemoveFin, c, "", a.Finalizer+" removed by hand")
		s.st.update("user", i, c)
	case RemoveOwnerReference:
		i, o := s.st.get(a.UID)
		if o == nil {
			return fmt.Errorf("object with uid %s is not in the snapshot (or already deleted)", a.UID)
		}
		c := clone(o)
		c.Metadata.OwnerReferences = slices.DeleteFunc(c.Metadata.OwnerReferences, func(r snapshot.OwnerReference) bool { return r.UID == a.OwnerUID })
		if len(c.Metadata.OwnerReferences) == len(o.Metadata.OwnerReferences) {
			return fmt.Errorf("%s has no owner reference to uid %s", o.Ref(), a.OwnerUID)
		}
		s.record("user", ActionRemoveOwner, c, "", "owner reference to "+a.OwnerUID+" removed by hand")
		s.st.update("user", i, c)
	default:
		return fmt.Errorf("unknown action %T", a)
	}
	return nil
}

// Simulate plans the DELETE of opts.Target: it settles the snapshot as a
// freshly started control plane would (the baseline), issues the delete,
// runs the API server, the garbage collector and the other simulated
// controllers to quiescence, and reports what the delete changed.
func Simulate(snap *snapshot.Snapshot, opts Options) (*Plan, error) {
	if opts.Target == "" {
		return nil, fmt.Errorf("no target: give the uid of the object to delete")
	}
	actions := []Action{Delete{UID: opts.Target, Policy: opts.Policy, OrphanDependents: opts.OrphanDependents}}
	if p := simulatePart(snap, actions, opts); p != nil {
		return p, nil
	}
	out, err := SimulateActions(snap, actions, opts)
	if err != nil {
		return nil, err
	}
	return out.Plan, nil
}

// simulatePart plans on the part of snap the delete can reach (reach.go),
// or returns nil when the whole snapshot has to be simulated: the part
// escaped, or the simulation failed (the whole snapshot's then says why).
func simulatePart(snap *snapshot.Snapshot, actions []Action, opts Options) *Plan {
	if opts.whole {
		return nil
	}
	r, _ := newReach(snap, opts.Target)
	if r == nil {
		return nil
	}
	out, err := simulateActions(r.sub, r, actions, opts)
	if err != nil || r.escaped != "" {
		return nil
	}
	return out.Plan
}

// SimulateActions is Simulate with arbitrary initial actions (deletes,
// finalizer and owner-reference removals), applied in order after the
// baseline settles. opts.Target and opts.Policy are ignored. The outcome
// gives the plan-shaped report and the final state of every object, so
// callers can say what resolving a root cause would finish.
func SimulateActions(snap *snapshot.Snapshot, actions []Action, opts Options) (*Outcome, error) {
	return simulateActions(snap, nil, actions, opts)
}

// simulateActions is SimulateActions on snap, or, with r, on the part of
// the snapshot r holds.
func simulateActions(snap *snapshot.Snapshot, r *reach, actions []Action, opts Options) (*Outcome, error) {
	s, base, p, err := runActions(snap, r, actions, opts, writesFirst, nil)
	if err != nil {
		return nil, err
	}
	if s.raced && !opts.PrimaryOnly {
		// The real garbage collector's workers could have gone the other
		// way; run the other orders and report every object that ends
		// differently, rather than pretend the race has one winner.
		for _, v := range []order{readsFirst, slowReaders} {
			if v == slowReaders && len(s.nearReaders) == 0 {
				continue
			}
			alt, _, ap, err := runActions(snap, r, actions, opts, v, s.nearReaders)
			if err != nil {
				return nil, err
			}
			addAlternatives(p, s, ap, alt)
		}
		finishAlternatives(p)
	}
	// A race in the baseline, or one whose orders all end the same, leaves
	// nothing to choose between: its notes would promise alternatives the
	// plan does not list.
	dropTimingNotes(p)
	markKept(p, s)
	state := func(uid string) (ObjectState, bool) {
		i, ok := s.st.index(uid)
		if !ok {
			return ObjectState{}, false
		}
		o := s.st.objs[i]
		ref := s.st.orig[i].Ref()
		return ObjectState{Object: ref, FinalState: finalState(o), Changed: o != base[i]}, true
	}
	return &Outcome{Plan: p, state: state}, nil
}

// runActions settles the snapshot, applies the actions and runs to
// quiescence, serving racing calls in the given order.
func runActions(snap *snapshot.Snapshot, r *reach, actions []Action, opts Options, o order, slow map[string]bool) (*sim, []*snapshot.Object, *Plan, error) {
	s, err := newSim(snap, opts, r)
	if err != nil {
		return nil, nil, nil, err
	}
	s.order = o
	if o == slowReaders {
		s.slow = slow
	}
	s.baseline = true
	s.observeAll()
	s.run()
	if r != nil && (s.moved() || len(s.warnings) > len(r.warnings)) {
		r.baselineMoved()
	}
	base := slices.Clone(s.st.objs)
	nBase := len(s.steps)
	s.baseline = false
	s.limitHit = false
	s.workItems = 0
	s.raced = false
	clear(s.nearReaders)
	for _, a := range actions {
		if err := s.apply(a); err != nil {
			return nil, nil, nil, err
		}
	}
	s.run()
	return s, base, s.buildPlan(actions, base, nBase), nil
}

// moved reports whether the simulation did anything but read: a step,
// a write, a timer, a note.
func (s *sim) moved() bool {
	return len(s.steps) > 0 || s.st.writes > 0 || s.timerSeq > 0 || len(s.notes) > 0
}

// addAlternatives gives every object of p that ends differently in ap (the
// same actions in another order, simulated by alt) that outcome as an
// alternative, unless it has it already. An object only the other order
// changes is listed with fate unchanged, so that a reader checking the plan
// against a cluster knows it may move.
func addAlternatives(p *Plan, s *sim, ap *Plan, alt *sim) {
	idx := map[string]int{}
	for k, of := range p.Objects {
		idx[of.Object.UID] = k
	}
	altIdx := map[string]int{}
	for k, of := range ap.Objects {
		altIdx[of.Object.UID] = k
	}
	current := func(x *sim, uid string) ObjectFate {
		i, _ := x.st.index(uid)
		return ObjectFate{Object: x.st.orig[i].Ref(), Fate: FateUnchanged, Final: finalState(x.st.objs[i]), Reason: "the delete does not change it"}
	}
	uids := make([]string, 0, len(idx)+len(altIdx))
	for uid := range idx {
		uids = append(uids, uid)
	}
	for uid := range altIdx {
		if _, ok := idx[uid]; !ok {
			uids = append(uids, uid)
		}
	}
	slices.Sort(uids)
	for _, uid := range uids {
		var a ObjectFate
		if k, ok := altIdx[uid]; ok {
			a = ap.Objects[k]
		} else {
			a = current(alt, uid)
		}
		k, ok := idx[uid]
		if !ok {
			p.Objects = append(p.Objects, current(s, uid))
			k = len(p.Objects) - 1
		}
		of := &p.Objects[k]
		same := of.Fate == a.Fate && of.Final.equal(a.Final)
		for _, x := range of.Alternatives {
			same = same || x.Fate == a.Fate && x.Final.equal(a.Final)
		}
		if same {
			if !ok {
				p.Objects = p.Objects[:k]
			}
			continue
		}
		of.Alternatives = append(of.Alternatives, Alternative{Fate: a.Fate, Final: a.Final, Reason: a.Reason, BlockedBy: a.BlockedBy, RecreatedBy: a.RecreatedBy})
	}
}

// finishAlternatives sorts the objects again and says how many may end
// otherwise.
func finishAlternatives(p *Plan) {
	n := 0
	for _, of := range p.Objects {
		if len(of.Alternatives) > 0 {
			n++
		}
	}
	if n == 0 {
		return
	}
	slices.SortStableFunc(p.Objects, func(a, b ObjectFate) int { return a.Object.Compare(b.Object) })
	p.Notes = append(p.Notes, RaceNote(n))
}

// dropTimingNotes removes the notes on races when every order ends the
// same: they promise outcomes either way, and there is only one.
func dropTimingNotes(p *Plan) {
	if slices.ContainsFunc(p.Objects, func(of ObjectFate) bool { return len(of.Alternatives) > 0 }) {
		return
	}
	p.Notes = slices.DeleteFunc(p.Notes, func(n string) bool { return strings.HasSuffix(n, timingNoteEnd) })
}

// raceNoteMiddle is the part of RaceNote that does not depend on the count.
const raceNoteMiddle = " may end otherwise, depending on which of the garbage collector's concurrent calls lands first; "

// RaceNote is the note of a plan in which n objects list alternatives
// (n > 0). A view that shows the alternatives in a section of its own
// leaves the note out (IsRaceNote).
func RaceNote(n int) string {
	return words.Count(n, "object") + raceNoteMiddle + words.Agree(n, "it lists its alternatives", "each lists its alternatives")
}

// IsRaceNote reports whether a plan note is the one RaceNote writes.
func IsRaceNote(note string) bool { return strings.Contains(note, raceNoteMiddle) }

// StateOf is o's state in the shape of a plan's final states; a nil o is
// gone.
func StateOf(o *snapshot.Object) FinalState { return finalState(o) }

func finalState(o *snapshot.Object) FinalState {
	if o == nil {
		return FinalState{Finalizers: []string{}, OwnerReferences: []string{}}
	}
	f := FinalState{Exists: true, Terminating: o.Metadata.DeletionTimestamp != nil,
		Finalizers: append([]string{}, o.Metadata.Finalizers...), OwnerReferences: []string{}}
	for _, r := range o.Metadata.OwnerReferences {
		f.OwnerReferences = append(f.OwnerReferences, r.UID)
	}
	return f
}
