package postmortem

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// chains is the forest of what happened: roots and each object's cause.
type chains struct {
	ix       *index
	causes   map[*record]cause
	children map[*record][]*record
	roots    []*record
	// missing are owners whose deletion the log does not hold, keyed by
	// UID, with the dependents that went for them.
	missing     map[string]*record
	unexplained []*record
}

// buildChains decides every object's cause. Objects whose deletion did
// not start in the window and that were not orphaned take no part.
func buildChains(ix *index) *chains {
	ch := &chains{ix: ix, causes: map[*record]cause{}, children: map[*record][]*record{}, missing: map[string]*record{}}
	for _, r := range sortedRecords(ix.all) {
		if !ix.wentOrStarted(r) {
			ch.orphan(r)
			continue
		}
		c, ok := ix.causeOf(r)
		switch {
		case ok && c.parent == nil:
			ch.roots = append(ch.roots, r)
			ch.causes[r] = c
		case ok:
			ch.link(r, c)
		case c.actor == ActorGarbageCollector && len(r.owners) > 0:
			ch.underMissingOwner(r, c)
		default:
			ch.unexplained = append(ch.unexplained, r)
		}
	}
	return ch
}

// wentOrStarted: a request started deleting the object, or it was there
// before and is gone after.
func (ix *index) wentOrStarted(r *record) bool {
	if r.start() != nil {
		return true
	}
	g, _ := ix.gone(r)
	return g && r.before != nil
}

func (ch *chains) link(r *record, c cause) {
	ch.causes[r] = c
	ch.children[c.parent] = append(ch.children[c.parent], r)
}

// orphan files an object the garbage collector orphaned under the owner
// whose orphaning delete caused it.
func (ch *chains) orphan(r *record) {
	uids, e, ev := ch.ix.orphanedFrom(r)
	for _, uid := range uids {
		o := ch.ix.byUID[uid]
		if o == nil || o.start() == nil {
			continue
		}
		c := cause{parent: o, via: ViaOwnerReference, evidence: ev, actor: ActorGarbageCollector, likely: e == nil}
		ch.link(r, c)
		return
	}
}

// underMissingOwner puts a dependent the garbage collector deleted under
// an owner whose deletion is not in the log: it came before the window,
// or through an API server whose log was not given.
func (ch *chains) underMissingOwner(r *record, c cause) {
	ref := r.owners[0]
	o := ch.ix.byUID[ref.UID]
	if o == nil {
		group, _ := snapshot.SplitAPIVersion(ref.APIVersion)
		t, _ := ch.ix.kinds.byKind[[2]string{group, ref.Kind}]
		o = ch.ix.add(objKey{t, r.key.namespace, ref.Name}, ref.UID)
		o.ref = snapshot.ObjectRef{APIVersion: ref.APIVersion, Kind: ref.Kind, Namespace: r.key.namespace, Name: ref.Name, UID: ref.UID}
	}
	if _, known := ch.causes[o]; !known {
		ch.missing[ref.UID] = o
		ch.roots = append(ch.roots, o)
		ch.causes[o] = cause{via: ViaRoot, actor: "unknown"}
	}
	c.parent, c.via, c.evidence = o, ViaOwnerReference, r.ownersFrom
	ch.link(r, c)
}

// tree is the Link of r with its dependents, in time order.
func (ch *chains) tree(r *record, seen map[*record]bool) Link {
	seen[r] = true
	c := ch.causes[r]
	l := ch.linkOf(r, c)
	kids := slices.Clone(ch.children[r])
	slices.SortStableFunc(kids, func(a, b *record) int {
		if x := a.startTime().Compare(b.startTime()); x != 0 {
			return x
		}
		return a.ref.Compare(b.ref)
	})
	for _, k := range kids {
		if !seen[k] {
			l.Dependents = append(l.Dependents, ch.tree(k, seen))
		}
	}
	return l
}

func (ch *chains) linkOf(r *record, c cause) Link {
	l := Link{Object: r.ref, Via: c.via, Evidence: c.evidence, Actor: c.actor, Detail: c.detail, Steps: ch.ix.stepsOf(r)}
	if c.via == ViaRoot {
		l.Evidence = EvidenceAudit
		if _, missing := ch.missing[r.uid]; missing && r.start() == nil {
			l.Evidence = ""
		}
	}
	s := r.start()
	if s != nil {
		l.Time, l.AuditID, l.User = s.Time, s.AuditID, userOf(s)
	} else if sw := ch.ix.sweepOrStart(r); sw != nil {
		l.Time = sw.Time
	}
	l.Result, _ = ch.ix.result(r)
	if s == nil && c.via == ViaOwnerReference && c.actor == ActorGarbageCollector && !c.likely {
		l.Result = ResultOrphaned
	}
	if uids, e, _ := ch.ix.orphanedFrom(r); len(uids) > 0 && s == nil {
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
	started := false
	for _, e := range r.events {
		what := stepWhat(e, started)
		if what == "" {
			continue
		}
		if deletes(e) && accepted(e) {
			started = true
		}
		out = append(out, Step{Time: e.Time, User: userOf(e), Actor: actor(e), Verb: e.Verb, AuditID: e.AuditID, Code: e.Code, What: what})
	}
	if e := ix.sweepOrStart(r); e != nil && e.Verb == "deletecollection" {
		out = append(out, Step{Time: e.Time, User: userOf(e), Actor: actor(e), Verb: e.Verb, AuditID: e.AuditID, Code: e.Code, What: StepDeleteCollection})
	}
	slices.SortStableFunc(out, func(a, b Step) int { return cmp.Compare(a.Time.UnixNano(), b.Time.UnixNano()) })
	return out
}

func stepWhat(e *audit.Event, started bool) string {
	switch {
	case e.Code >= 400 && (deletes(e) || e.Verb == "deletecollection"):
		return StepRefused
	case e.Code >= 400:
		return ""
	case e.Verb == "create" && e.Object.Subresource == "eviction":
		return StepEvict
	case e.Verb == "delete" && !started:
		if removedIt(e) {
			return StepDelete
		}
		return StepMarkDeleting
	case e.Verb == "delete":
		return StepDelete
	case (e.Verb == "patch" || e.Verb == "update") && e.Request != nil && len(e.Request.RemovedOwnerUIDs) > 0:
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
