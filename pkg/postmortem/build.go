package postmortem

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// chains is the forest of what happened: roots and each object's cause.
type chains struct {
	ix       *index
	children map[*record][]*record
	roots    []*record
	// missing are owners whose deletion the log does not hold, keyed by
	// UID, with the dependents that went for them.
	missing map[string]*record
	// orphanedFirst are, by owner, the objects the garbage collector
	// orphaned for that owner's orphaning delete before their own
	// deletion, of another chain, started: listed in both chains.
	orphanedFirst map[*record][]orphaning
	unexplained   []*record
	wentByNS      map[string][]went
	// sweptTypes and collsByNS are what unitemized reads for every
	// deleted namespace, filed once (indexSweeps).
	sweptTypes map[typeKey]bool
	collsByNS  map[string][]*audit.Event
}

// buildChains decides every object's cause. Objects whose deletion did
// not start in the window and that were not orphaned take no part.
func buildChains(ix *index) *chains {
	ch := &chains{ix: ix, children: map[*record][]*record{}, missing: map[string]*record{}, orphanedFirst: map[*record][]orphaning{}}
	records := sortedRecords(ix.all)
	for _, r := range records {
		if !ix.wentOrStarted(r) {
			ch.orphan(r)
			continue
		}
		c, found := ix.causeOf(r)
		switch found {
		case causeRoot:
			ch.roots = append(ch.roots, r)
			r.setCause(c)
		case causeParent:
			ch.link(r, c)
		case causeOwnerUnseen:
			ch.collectedAlone(r, c)
		case causeNone:
			ch.unexplained = append(ch.unexplained, r)
		}
	}
	ch.promoteParents()
	// What one chain orphaned and another deleted later is in both; what
	// a chain orphaned and then deleted itself is its deletion only.
	for _, r := range records {
		if !r.caused || !ix.wentOrStarted(r) {
			continue
		}
		if o, ok := ch.orphanedBefore(r); ok && chainRoot(o.owner) != chainRoot(r) {
			ch.orphanedFirst[o.owner] = append(ch.orphanedFirst[o.owner], o)
		}
	}
	return ch
}

// promoteParents makes an unexplained object that others went for the
// root of their chain: its own deletion is not in the log, but theirs is.
func (ch *chains) promoteParents() {
	rest := ch.unexplained[:0]
	for _, r := range ch.unexplained {
		if len(ch.children[r]) == 0 {
			rest = append(rest, r)
			continue
		}
		ch.missing[r.uid] = r
		ch.roots = append(ch.roots, r)
		r.setCause(cause{via: ViaRoot, actor: rules.ActorUnknown})
	}
	ch.unexplained = rest
}

// wentOrStarted: a request started deleting the object, or it was there
// before and is gone after.
func (ix *index) wentOrStarted(r *record) bool {
	if r.start() != nil {
		return true
	}
	if _, ok := ix.modelCause(r); ok {
		return true
	}
	return ix.startedSilently(r) || (ix.gone(r) && (r.before != nil || r.createdInWindow()))
}

func (ch *chains) link(r *record, c cause) {
	r.setCause(c)
	ch.children[c.parent] = append(ch.children[c.parent], r)
}

// orphan files an object the garbage collector orphaned under the owner
// whose orphaning delete caused it.
func (ch *chains) orphan(r *record) {
	uids, e, ev := ch.ix.orphanedFrom(r)
	for _, uid := range uids {
		o := ch.ix.ownerOf(r, uid)
		if o == nil || o.start() == nil {
			continue
		}
		c := cause{parent: o, via: ViaOwnerReference, evidence: ev, actor: ActorGarbageCollector, likely: e == nil}
		ch.link(r, c)
		return
	}
}

// orphaning is the garbage collector orphaning an object for an owner's
// orphaning delete.
type orphaning struct {
	owner, r *record
	e        *audit.Event
	evidence string
	// plannedBy is the root whose plan orphans r, when kgc's plan, not an
	// orphaning DELETE of its owner, says so.
	plannedBy *record
}

// orphanedBefore finds the orphaning the garbage collector carried out on
// an object that went before its own deletion started: the first thing
// that happened to it, in its owner's chain. The PATCH names the owners
// it removed at RequestResponse level; else the object's owners say.
func (ch *chains) orphanedBefore(r *record) (orphaning, bool) {
	uids, e, ev := ch.ix.orphanedFrom(r)
	s := ch.ix.sweepOrStart(r)
	if ns := ch.ix.namespaceRecord(r.key.namespace); s == nil && ns != nil && ns != r {
		s = ns.start() // swept with its namespace, by no logged request
	}
	if s == nil {
		return orphaning{}, false
	}
	if e == nil {
		return ch.orphanedByModel(r, s)
	}
	if !e.ReceivedAt().Before(s.ReceivedAt()) {
		return orphaning{}, false
	}
	if len(uids) == 0 {
		// The PATCH does not say which (a JSON merge patch lists the
		// references left, and r.owners may be those by now): every
		// owner the object had is a candidate.
		if r.before != nil {
			for _, ref := range r.before.Metadata.OwnerReferences {
				uids = append(uids, ref.UID)
			}
		}
		for _, ref := range r.owners {
			uids = append(uids, ref.UID)
		}
		ev = r.ownersFrom
	}
	for _, uid := range uids {
		o := ch.ix.ownerOf(r, uid)
		if o != nil && o != r && o.start() != nil && !o.start().ReceivedAt().After(e.ReceivedAt()) {
			return orphaning{owner: o, r: r, e: e, evidence: ev}, true
		}
	}
	return orphaning{}, false
}

// orphanedByModel finds, when the log holds no orphaning PATCH (a log
// trimmed of the collector's requests), an owner of r whose logged DELETE
// orphans its dependents and came before r's own deletion started: by
// kgc's model, the collector orphaned r first.
func (ch *chains) orphanedByModel(r *record, s *audit.Event) (orphaning, bool) {
	for _, ref := range r.owners {
		o := ch.ix.ownerOf(r, ref.UID)
		if o == nil || o == r || o.start() == nil || !o.start().ReceivedAt().Before(s.ReceivedAt()) {
			continue
		}
		if orphans, known := ch.ix.orphansDependents(o); known && orphans {
			return orphaning{owner: o, r: r, evidence: EvidenceModel}, true
		}
	}
	if f, ok := ch.ix.firstPlanned(r, s.ReceivedAt()); ok && f.orphans(r) {
		return orphaning{owner: ch.ix.plannedParent(r, f), r: r, evidence: EvidenceModel, plannedBy: f.root}, true
	}
	return orphaning{}, false
}

// orphanedLink is the link, in its owner's chain, of an object orphaned
// first and deleted later in another chain.
func (ch *chains) orphanedLink(o orphaning) Link {
	l := Link{Object: o.r.ref(), Result: ResultOrphaned, Actor: ActorGarbageCollector, Via: ViaOwnerReference, Evidence: o.evidence, Steps: []Step{}}
	switch {
	case o.e == nil && o.plannedBy != nil:
		l.Detail = "orphaned first, per kgc's plan of " + byRequest(o.plannedBy) + " (the log holds no request of the garbage collector's about it); " + laterDeletion(o.r)
		return l
	case o.e == nil:
		l.Detail = "orphaned first, per kgc's model of the owner's orphaning DELETE (the log holds no request of the garbage collector's about it); " + laterDeletion(o.r)
		return l
	}
	l.User, l.Time, l.AuditID = userOf(o.e), o.e.Time, o.e.AuditID
	for _, st := range ch.ix.stepsOf(o.r) {
		if !st.Time.After(o.e.Time) {
			l.Steps = append(l.Steps, st)
		}
	}
	l.Detail = "orphaned first; " + laterDeletion(o.r)
	return l
}

// laterDeletion says which chain deleted an object later: its root's
// request.
func laterDeletion(r *record) string { return "deleted later " + byChain(r) }

// chainRoot is the root record of the chain r is in.
func chainRoot(r *record) *record {
	root := r
	// A chain is a tree; the bound only keeps a malformed one finite.
	for range len(r.events) + 1024 {
		if !root.caused || root.cause.parent == nil {
			break
		}
		root = root.cause.parent
	}
	return root
}

// byChain names the chain that deleted r: "by bob's delete of X".
func byChain(r *record) string {
	root := chainRoot(r)
	s := root.start()
	switch {
	case s == nil:
		return fmt.Sprintf("in the chain of %s, whose deletion is not in the log", root.ref().String())
	case root == r:
		return fmt.Sprintf("by %s's %s of it", userOf(s), s.Verb)
	}
	return fmt.Sprintf("by %s's %s of %s", userOf(s), s.Verb, root.ref().String())
}

// collectedAlone places a dependent the garbage collector deleted when
// the log shows no owner of it going: on its own when its owners are
// absent, else under an owner whose deletion is not in the log, else,
// its owners unknown, by timing.
func (ch *chains) collectedAlone(r *record, c cause) {
	why, ev := ch.ix.absentOwners(r), ch.ix.invalidOwnerEvent(r)
	switch {
	case why != "":
		ch.onItsOwn(r, c, why)
	case ev != nil:
		ch.onItsOwn(r, c, fmt.Sprintf("the garbage collector recorded a warning event on it (audit ID %s) before deleting it, and the only event it records is OwnerRefInvalidNamespace: its owner reference names no object in its namespace", ev.AuditID))
	case len(r.owners) > 0:
		ch.underMissingOwner(r, c)
	default:
		ch.byTiming(r, c)
	}
}

// underMissingOwner puts a dependent the garbage collector deleted under
// an owner whose deletion is not in the log: it came before the window,
// or through an API server whose log was not given.
func (ch *chains) underMissingOwner(r *record, c cause) {
	ref := r.owners[0]
	o := ch.ix.ownerOf(r, ref.UID)
	if o == nil {
		group, _ := snapshot.SplitAPIVersion(ref.APIVersion)
		t, _ := ch.ix.kinds.typeOfKind(group, ref.Kind)
		o = ch.ix.add(objKey{t, r.key.namespace, ref.Name}, ref.UID)
		o.setType(ref.APIVersion, ref.Kind)
	}
	if !o.caused {
		ch.missing[ref.UID] = o
		ch.roots = append(ch.roots, o)
		o.setCause(cause{via: ViaRoot, actor: rules.ActorUnknown})
	}
	c.parent, c.via, c.evidence = o, ViaOwnerReference, r.ownersFrom
	ch.link(r, c)
}

// guessWindow is how close in time a deletion must follow another for
// kgc to guess that one caused the other, when nothing else ties them.
const guessWindow = time.Minute

// byTiming ties a dependent the garbage collector deleted, whose owner
// references neither the log nor a snapshot shows, to the deletion that
// started last before it in its namespace: a guess, said as one.
func (ch *chains) byTiming(r *record, c cause) {
	at := r.start().ReceivedAt()
	best, bestAt := ch.lastWentBefore(r, at)
	switch {
	case ch.ix.before != nil:
		// Given the before snapshot, an object whose owners kgc cannot
		// see was made in the window: no guess is made for it.
		c.whyUnknown = true
		why := "its owner references are in neither the log nor a snapshot (it was made after the before snapshot, and the log keeps no bodies), so which owner the garbage collector followed is not known"
		if best != nil {
			why += fmt.Sprintf("; the nearest earlier deletion in its namespace was %s's, %s before", best.ref().String(), at.Sub(bestAt).Round(time.Millisecond))
		}
		ch.onItsOwn(r, c, why)
		return
	case best == nil:
		ch.unexplained = append(ch.unexplained, r)
		return
	}
	c.parent, c.via, c.evidence = best, ViaOwnerReference, EvidenceTiming
	c.detail = fmt.Sprintf("its owner references are in neither the log nor a snapshot: tied to %s only because its deletion started %s later (a guess)",
		best.ref(), at.Sub(bestAt).Round(time.Millisecond))
	ch.link(r, c)
}

// went is one object's start of going, for lastWentBefore.
type went struct {
	at time.Time
	r  *record
}

// lastWentBefore finds, in r's namespace, the object whose going started
// last at or before at (r excluded). The per-namespace lists are sorted
// once, so a log of many such dependents costs a search each.
func (ch *chains) lastWentBefore(r *record, at time.Time) (*record, time.Time) {
	if ch.wentByNS == nil {
		ch.wentByNS = map[string][]went{}
		for _, o := range ch.ix.all {
			if st, ok := ch.ix.wentAt(o); ok && !st.IsZero() {
				ch.wentByNS[o.key.namespace] = append(ch.wentByNS[o.key.namespace], went{st, o})
			}
		}
		for _, ws := range ch.wentByNS {
			slices.SortStableFunc(ws, func(a, b went) int { return a.at.Compare(b.at) })
		}
	}
	ws := ch.wentByNS[r.key.namespace]
	i, _ := slices.BinarySearchFunc(ws, at, func(w went, t time.Time) int {
		if w.at.After(t) {
			return 1
		}
		return -1
	})
	for i--; i >= 0 && at.Sub(ws[i].at) <= guessWindow; i-- {
		if ws[i].r != r && ch.ix.couldCollect(ws[i].r, r) {
			return ws[i].r, ws[i].at
		}
	}
	return nil, time.Time{}
}

// couldCollect: o's going could have made the collector delete r. Its
// DELETE did not orphan, as far as the log says; and r was there when o
// started going, or o still was when r was made (a foreground delete
// waits for dependents made meanwhile): a later write of o shows it.
func (ix *index) couldCollect(o, r *record) bool {
	if orphans, known := ix.orphansDependents(o); known && orphans {
		return false
	}
	made, ok := r.madeAt()
	st, _ := ix.wentAt(o)
	if !ok || made.Before(st) {
		return true
	}
	for _, e := range o.events {
		if accepted(e) && (e.Verb == "update" || e.Verb == "patch") && !e.ReceivedAt().Before(made) {
			return true
		}
	}
	return false
}

// tree is the Link of r with its dependents, in time order.
//
// A dependent's steps from before the chain's root request (since) are
// another chain's (an orphaning before a later namespace delete): they are
// left out of this chain's link.
func (ch *chains) tree(r *record, seen map[*record]bool, since time.Time) Link {
	seen[r] = true
	l := ch.linkOf(r, r.cause)
	if len(seen) > 1 && !since.IsZero() {
		l.Steps = slices.DeleteFunc(l.Steps, func(st Step) bool { return st.Time.Before(since) })
	}
	kids := slices.Clone(ch.children[r])
	slices.SortStableFunc(kids, func(a, b *record) int {
		if x := a.startTime().Compare(b.startTime()); x != 0 {
			return x
		}
		return a.ref().Compare(b.ref())
	})
	for _, k := range kids {
		if !seen[k] {
			l.Dependents = append(l.Dependents, ch.tree(k, seen, since))
		}
	}
	for _, o := range ch.orphanedFirst[r] {
		l.Dependents = append(l.Dependents, ch.orphanedLink(o))
	}
	return l
}

func (ch *chains) linkOf(r *record, c cause) Link {
	l := Link{Object: r.ref(), Via: c.via, Evidence: c.evidence, Actor: c.actor, Detail: c.detail, Steps: ch.ix.stepsOf(r)}
	if c.via == ViaRoot && r.start() != nil {
		l.Evidence = EvidenceAudit
	}
	s := r.start()
	if s != nil {
		l.Time, l.AuditID, l.User = s.Time, s.AuditID, userOf(s)
	} else if sw := ch.ix.sweepOrStart(r); sw != nil {
		l.Time = sw.Time
	}
	l.Result = ch.ix.result(r)
	if c.modeled && len(heldBy(r)) == 0 {
		l.Result = ResultDeleted
	}
	if s == nil && c.via == ViaOwnerReference && c.actor == ActorGarbageCollector && !c.likely {
		l.Result = ResultOrphaned
	}
	// Only a link through an owner reference is the orphaning; in its
	// namespace's or CRD's chain the link is the object's deletion.
	if uids, e, _ := ch.ix.orphanedFrom(r); len(uids) > 0 && s == nil && l.Result != ResultDeleted && c.via == ViaOwnerReference {
		l.Result = ResultOrphaned
		if e != nil {
			l.Time, l.AuditID, l.User = e.Time, e.AuditID, userOf(e)
		}
	}
	if c.likely && l.Detail == "" {
		l.Detail = fmt.Sprintf("no request shows who did it: %s is the likely actor", c.actor)
	}
	return l
}

// stepsOf lists the logged requests about an object that change it.
func (ix *index) stepsOf(r *record) []Step {
	out := []Step{}
	// A deletecollection that swept the object started its deletion when
	// the API server received it: the object's own requests from then on
	// are part of its going, those before are not.
	var sweptAt time.Time
	if r.sweep != nil && r.start() == r.sweep {
		sweptAt = r.sweep.ReceivedAt()
	}
	started := false
	var held []string // the finalizers last known on the object
	if r.before != nil {
		held = r.before.Metadata.Finalizers
	}
	for _, e := range r.events {
		what := stepWhat(e, started || (!sweptAt.IsZero() && !e.ReceivedAt().Before(sweptAt)))
		gone := finalizersRemoved(e, held)
		if m := e.ObjectState(); m != nil && accepted(e) {
			held = m.Finalizers
		}
		if what == StepUpdate && len(gone) > 0 {
			what = StepRemoveFinalizer
		}
		if what == "" {
			continue
		}
		if deletes(e) && accepted(e) {
			started = true
		}
		st := Step{Time: e.Time, User: userOf(e), Actor: actor(e), Verb: e.Verb, AuditID: e.AuditID, Code: e.Code, What: what}
		if what == StepRemoveFinalizer {
			st.Finalizers = gone
		}
		out = append(out, st)
	}
	if e := ix.sweepOrStart(r); e != nil && e.Verb == "deletecollection" {
		out = append(out, Step{Time: e.Time, User: userOf(e), Actor: actor(e), Verb: e.Verb, AuditID: e.AuditID, Code: e.Code, What: StepDeleteCollection})
	}
	slices.SortStableFunc(out, func(a, b Step) int { return cmp.Compare(a.Time.UnixNano(), b.Time.UnixNano()) })
	return out
}

func stepWhat(e *audit.Event, started bool) string {
	switch {
	case e.Code == audit.CodeNotFound && deletes(e):
		return StepNotFound
	case e.Code >= 400 && (deletes(e) || e.Verb == "deletecollection"):
		return StepRefused
	case e.Code >= 400:
		return ""
	case e.Verb == "create" && e.Object.Subresource == "eviction":
		return StepEvict
	case e.Verb == "delete" && !started:
		// Without its response (Metadata level) a DELETE may have marked
		// the object or removed it: say delete, which is true either way.
		if e.Response == nil || removedIt(e) {
			return StepDelete
		}
		return StepMarkDeleting
	case e.Verb == "delete":
		return StepDelete
	case (e.Verb == "patch" || e.Verb == "update") && e.Request != nil && len(e.Request.OwnersRemoved()) > 0:
		return StepOrphan
	case (e.Verb == "patch" || e.Verb == "update") && started:
		if e.Object.Subresource == "finalize" || removedIt(e) {
			return StepRemoveFinalizer
		}
		return StepUpdate
	case (e.Verb == "patch" || e.Verb == "update") && actor(e) == ActorGarbageCollector:
		return StepUpdate
	}
	return ""
}

// finalizersRemoved lists the finalizers an accepted write took off its
// object, of those held before it: from a patch's
// $deleteFromPrimitiveList, or from the object it left.
func finalizersRemoved(e *audit.Event, held []string) []string {
	if !accepted(e) || (e.Verb != "update" && e.Verb != "patch") {
		return nil
	}
	if m := e.Request; m != nil && m.MetaExtras != nil && len(m.RemovedFinalizers) > 0 {
		return m.RemovedFinalizers
	}
	// The state a write logs is the whole object (never a patch's body):
	// no finalizers field is none.
	m := e.ObjectState()
	if m == nil {
		return nil
	}
	var out []string
	for _, f := range held {
		if !slices.Contains(m.Finalizers, f) {
			out = append(out, f)
		}
	}
	return out
}
