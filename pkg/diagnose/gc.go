package diagnose

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// foreground explains foregroundDeletion: processDeletingDependentsItem
// removes it once no dependent in the collector's graph has a blocking
// reference to the object, terminating dependents included (spec §2.7).
func (r *run) foreground(o *snapshot.Object, b *Blocker) {
	if !r.ix.monitored(o.APIVersion, o.Kind) {
		r.unmonitored(o, rules.FinalizerForeground, b)
		return
	}
	var deps []*snapshot.Object
	if n := r.ix.node(o.Metadata.UID); n != nil {
		deps = observed(r.ix.g.BlockingDependents(n))
	}
	r.noteUnlistedDependents()
	if o.HasFinalizer(rules.FinalizerOrphan) {
		n := r.ix.node(o.Metadata.UID)
		r.foregroundAfterOrphan(o, deps, n != nil && n.DeletingDependents, b)
		return
	}
	if len(deps) == 0 {
		b.WaitingFor = "the garbage collector to see that no dependent blocks it any more"
		b.RootCause = r.progress(o, o, rules.FinalizerForeground, rules.ActorGC,
			"no dependent has blockOwnerDeletion=true on it any more: the garbage collector removes foregroundDeletion on its next pass", o, nil)
		return
	}
	b.WaitingFor = plural(len(deps), "dependent") + " with blockOwnerDeletion=true to be deleted (" + countKinds(deps) + ")"
	b.Objects = refsOf(deps)
	for _, d := range deps {
		edge := &fgEdge{owner: o, index: blockingRefIndex(d, o.Metadata.UID)}
		if r.path[d.Metadata.UID] {
			b.Blockers = append(b.Blockers, r.cycle(d, o, edge))
			continue
		}
		if d.Terminating() {
			b.Blockers = append(b.Blockers, r.explainHeld(d, o, edge)...)
			continue
		}
		b.Blockers = append(b.Blockers, r.pendingDependent(d, o, edge))
	}
}

// foregroundAfterOrphan explains foregroundDeletion on an object that also
// has orphan. processTransitions handles orphan first and returns, so the
// object is queued for attemptToDelete only when a dependent's blocking
// reference to it goes away: orphaning its blocking dependents does that,
// after which processDeletingDependentsItem removes foregroundDeletion.
// With no blocking dependent, nothing ever queues it (a freshly started
// collector would: its add event sees foregroundDeletion alone).
//
// An object the collector first knew as a virtual owner (a dependent was
// observed before it) is never marked as deleting its dependents when orphan
// comes with foregroundDeletion, so it ignores foregroundDeletion
// altogether (graph.Node.DeletingDependents).
func (r *run) foregroundAfterOrphan(o *snapshot.Object, deps []*snapshot.Object, deletingDependents bool, b *Blocker) {
	if len(deps) > 0 && deletingDependents {
		b.WaitingFor = "the garbage collector to orphan its blocking dependents (" + countKinds(deps) + "), which requeues it"
		b.Objects = refsOf(deps)
		b.RootCause = r.inProgress(o, rules.FinalizerForeground, rules.ActorGC,
			"it also has orphan, which the garbage collector handles first: orphaning its "+plural(len(deps), "blocking dependent")+" requeues it, and it then removes foregroundDeletion", o)

		return
	}
	b.WaitingFor = "the garbage collector to look at it again, which nothing will make it do"
	b.RootCause = r.addLeaf(leaf{obj: o, rc: RootCause{Object: o.Ref(), Finalizer: rules.FinalizerForeground, Reason: ReasonForegroundNotQueued, RemovedBy: rules.ActorGC,
		Message: r.notQueuedMsg(len(deps), deletingDependents)}}, o, nil)
}

func (r *run) notQueuedMsg(deps int, deletingDependents bool) string {
	why := "no dependent with blockOwnerDeletion=true is left to go away and queue it again"
	if !deletingDependents && deps > 0 {
		why = "the garbage collector knew it as a missing owner before it saw it, so it never marked it as deleting its dependents and ignores foregroundDeletion"
	}
	return "its deletion started with both orphan and foregroundDeletion: the garbage collector handles orphan first and then leaves foregroundDeletion, because " + why +
		"; a restarted kube-controller-manager sees foregroundDeletion alone and removes it once no dependent blocks"
}

// blockingRefIndex is the index of d's blocking owner reference to uid.
func blockingRefIndex(d *snapshot.Object, uid string) int {
	for i, ref := range d.Metadata.OwnerReferences {
		if ref.UID == uid && ref.Blocking() {
			return i
		}
	}
	return -1
}

// cycle: d blocks owner, and d is already waiting (higher in the tree) for
// something owner holds up. processDeletingDependentsItem only enqueues
// blocking dependents that are not themselves deleting dependents, and the
// cycle breaker in attemptToDeleteItem only runs for objects not yet
// deleting, so nothing breaks a cycle of objects already terminating.
func (r *run) cycle(d, owner *snapshot.Object, edge *fgEdge) Blocker {
	msg := fmt.Sprintf("blocking owner references form a cycle: %s waits for %s, which in turn waits (through the chain above) for %s; the garbage collector does not break a cycle of objects already deleting in the foreground",
		owner.Ref(), d.Ref(), owner.Ref())
	fin := ""
	if d.HasFinalizer(rules.FinalizerForeground) {
		fin = rules.FinalizerForeground
	}
	idx := r.addLeaf(leaf{obj: d, rc: RootCause{Object: d.Ref(), Finalizer: fin, Reason: ReasonForegroundCycle, RemovedBy: rules.ActorGC, Message: msg}}, owner, edge)
	return Blocker{Object: d.Ref(), Finalizer: fin, RemovedBy: rules.ActorGC, WaitingFor: "a cycle back to " + owner.Ref().String(), RootCause: idx}
}

// pendingDependent is a blocking dependent that is not terminating: the
// collector must delete it (or drop its reference) first.
func (r *run) pendingDependent(d, owner *snapshot.Object, edge *fgEdge) Blocker {
	c := r.collection(d)
	b := Blocker{Object: d.Ref(), RemovedBy: rules.ActorGC}
	if ns := r.ix.byName("", "Namespace", "", d.Metadata.Namespace); d.Metadata.Namespace != "" && ns != nil && ns.Terminating() {
		// The namespace controller deletes it whatever the collector can do.
		b.RemovedBy = rules.ActorNamespace
		if !isKind(d, "", "Pod") && r.holdsPods(ns) {
			// Only once every pod is gone: what holds the pods holds it.
			b.WaitingFor = "the namespace controller to delete it once every pod of namespace " + ns.Metadata.Name + " is gone"
			b.Blockers = r.explainHeld(ns, owner, nil)
			return b
		}
		b.WaitingFor = "the namespace controller to delete it with namespace " + ns.Metadata.Name
		b.RootCause = r.progress(d, owner, "", rules.ActorNamespace, "its namespace "+ns.Metadata.Name+" is terminating: the namespace controller deletes it", owner, edge)
		b.Blockers = r.afterDeletion(d, owner, edge)
		return b
	}
	if c.Verdict == VerdictNeverCollected {
		b.WaitingFor = "the garbage collector to delete it, which it never will"
		b.RootCause = r.addLeaf(leaf{obj: d, rc: RootCause{Object: d.Ref(), Reason: ReasonGCCannotResolve, RemovedBy: rules.ActorGC,
			Message: "it blocks the foreground deletion of " + owner.Ref().String() + " but the garbage collector never deletes it: " + c.Message}}, owner, edge)
		return b
	}
	msg := "the garbage collector deletes it on its next pass (no other owner keeps it)"
	if c.Verdict == VerdictUnknown {
		msg = "the garbage collector deletes it unless another owner stops it: " + c.Message
	}
	for _, oc := range c.Owners {
		if oc.Class == ClassSolid {
			msg = "the garbage collector removes its owner reference to " + owner.Ref().String() + " on its next pass and keeps it (its owner " + oc.Ref.Kind + "/" + oc.Ref.Name + " still exists)"
			break
		}
	}
	b.WaitingFor = "the garbage collector to delete it or drop its reference"
	if rc, ok := r.recreated(d, owner); ok {
		// A loop, not a stalled collector: it deletes, a controller
		// creates again.
		b.WaitingFor = "the garbage collector to delete it, and its controller to stop creating it again"
		b.RootCause = r.addLeaf(leaf{obj: d, rc: rc.rc, extra: rc.remedies}, owner, edge)
		return b
	}
	// The staleness of a dependent's pending deletion is the owner's.
	b.RootCause = r.progress(d, owner, "", rules.ActorGC, msg, owner, edge)
	b.Blockers = r.afterDeletion(d, owner, edge)
	return b
}

// holdsPods reports whether namespace ns still holds pods: the namespace
// controller deletes its other content only once they are gone.
func (r *run) holdsPods(ns *snapshot.Object) bool {
	for _, o := range r.ix.inNamespace(ns.Metadata.Name) {
		if isKind(o, "", "Pod") {
			return true
		}
	}
	return false
}

// afterDeletion explains what will hold d once it is deleted: its
// finalizers, and for a pod its graceful termination. It explains a copy of
// d as the DELETE leaves it (deletionTimestamp set, a pod's grace period
// started), so that an in-progress deletion shows where it will stop next
// instead of promising an end it will not reach.
func (r *run) afterDeletion(d, parent *snapshot.Object, edge *fgEdge) []Blocker {
	if len(d.Metadata.Finalizers) == 0 && !isKind(d, "", "Pod") {
		return nil
	}
	c := *d
	c.Metadata.Finalizers = slices.Clone(d.Metadata.Finalizers)
	at := r.ix.snap.CapturedAt
	if isKind(d, "", "Pod") {
		grace := rules.PodDeleteGrace(d, nil)
		c.Metadata.DeletionGracePeriodSeconds = &grace
		at = at.Add(time.Duration(grace) * time.Second)
	}
	c.Metadata.DeletionTimestamp = &at
	first := len(r.leaves)
	bs := r.explainHeld(&c, parent, edge)
	for _, l := range r.leaves[first:] {
		if l.rc.Object.UID == d.Metadata.UID {
			l.rc.Message = "once it is deleted: " + l.rc.Message
		}
	}
	return bs
}

// unmonitored: the garbage collector has no informer for the type, so it
// never sees the object and never removes its GC finalizers (spec §2.9).
func (r *run) unmonitored(o *snapshot.Object, f string, b *Blocker) {
	why := "it is one of the types the garbage collector ignores"
	if res, ok := r.ix.resource(o.APIVersion, o.Kind); ok {
		var missing []string
		for _, v := range []string{"delete", "list", "watch"} {
			if !res.HasVerb(v) {
				missing = append(missing, v)
			}
		}
		// With every verb offered, only DefaultIgnoredResources explains it.
		if len(missing) > 0 {
			why = "its API does not offer " + strings.Join(missing, ", ") + ", which the garbage collector needs to watch a type"
		}
	}
	b.WaitingFor = "the garbage collector, which does not watch " + o.Kind + " objects"
	b.RootCause = r.addLeaf(leaf{obj: o, rc: RootCause{Object: o.Ref(), Finalizer: f, Reason: ReasonGCUnmonitored, RemovedBy: rules.ActorGC,
		Message: "the garbage collector never processes " + f + " on a " + o.Kind + ": " + why}}, o, nil)
}

// orphan explains the orphan finalizer: attemptToOrphan removes the
// object's owner reference from every dependent in the graph, then the
// finalizer; a failed patch requeues and keeps the finalizer (spec §2.8).
func (r *run) orphan(o *snapshot.Object, b *Blocker) {
	if !r.ix.monitored(o.APIVersion, o.Kind) {
		r.unmonitored(o, rules.FinalizerOrphan, b)
		return
	}
	var deps []*snapshot.Object
	if n := r.ix.node(o.Metadata.UID); n != nil {
		deps = observed(n.Dependents)
	}
	r.noteUnlistedDependents()
	if len(deps) == 0 {
		b.WaitingFor = "the garbage collector to remove the finalizer (no dependent references it any more)"
		b.RootCause = r.progress(o, o, rules.FinalizerOrphan, rules.ActorGC,
			"no dependent references it: the garbage collector removes orphan on its next pass", o, nil)
		return
	}
	b.WaitingFor = "the garbage collector to remove its owner reference from " + plural(len(deps), "dependent")
	b.Objects = refsOf(deps)
	var unpatchable []*snapshot.Object
	for _, d := range deps {
		if res, ok := r.ix.resource(d.APIVersion, d.Kind); ok && len(res.Verbs) > 0 && !res.HasVerb("patch") {
			unpatchable = append(unpatchable, d)
		}
	}
	age := r.ix.snap.CapturedAt.Sub(*o.Metadata.DeletionTimestamp)
	switch {
	case len(unpatchable) > 0:
		b.RootCause = r.addLeaf(leaf{obj: o, rc: RootCause{Object: o.Ref(), Finalizer: rules.FinalizerOrphan, Reason: ReasonOrphanPatchFailing,
			RemovedBy: rules.ActorGC, Related: refsOf(deps),
			Message: "the garbage collector cannot patch the owner reference away: the API of " + countKinds(unpatchable) + " does not offer patch, so every attempt fails and orphan stays"}}, o, nil)
	case age > staleAfter:
		b.RootCause = r.addLeaf(leaf{obj: o, rc: RootCause{Object: o.Ref(), Finalizer: rules.FinalizerOrphan, Reason: ReasonOrphanPatchFailing,
			RemovedBy: rules.ActorGC, Related: refsOf(deps),
			Message: fmt.Sprintf("%s still reference it %s after its deletion: the garbage collector's patches of these dependents are probably failing (an admission webhook rejecting them, or the garbage collector is not running); kube-controller-manager logs say which", countKinds(deps), Age(age))}}, o, nil)
	default:
		b.RootCause = r.inProgress(o, rules.FinalizerOrphan, rules.ActorGC,
			"the garbage collector is removing its owner reference from "+plural(len(deps), "dependent")+", then removes orphan", o)

	}
}

// noteUnlistedDependents says the dependents shown may be incomplete when
// a type the garbage collector watches could not be listed (only those
// can hold dependents in its graph).
func (r *run) noteUnlistedDependents() {
	r.noteUnlisted("their objects may be dependents that are not shown", func(res snapshot.Resource) bool {
		return res.HasVerb("list") && r.ix.monitored(res.GroupVersion(), res.Kind)
	})
}

// noteFailedDependentLists says the same of the types a live capture
// failed to list, whatever held the object: dependents they hide are
// missing from the blockers and from what a remedy finishes. (A type a
// dump lacks is said only where it matters: dumps are partial by design.)
func (r *run) noteFailedDependentLists() {
	r.noteUnlisted("their objects may be dependents that are not shown", func(res snapshot.Resource) bool {
		return res.HasVerb("list") && r.ix.monitored(res.GroupVersion(), res.Kind) && r.ix.snap.ListFailed(res)
	})
}

// noteUnlistedContent says a namespace's content may be incomplete when a
// namespaced type the namespace controller deletes could not be listed.
func (r *run) noteUnlistedContent() {
	r.noteUnlisted("their objects in the namespace are not shown", func(res snapshot.Resource) bool {
		return res.Namespaced && res.HasVerb("list") && res.HasVerb("delete")
	})
}

func (r *run) noteUnlisted(what string, relevant func(snapshot.Resource) bool) {
	// A type a live capture failed to list carries the error; a type a
	// plain dump simply does not contain has none, and saying it "could
	// not be listed" would blame the cluster for what the dump left out.
	var failed, absent []string
	for _, res := range r.ix.snap.Resources {
		if res.Listed || !relevant(res) {
			continue
		}
		if r.ix.snap.ListFailed(res) {
			failed = append(failed, qualifiedResource(res))
		} else {
			absent = append(absent, qualifiedResource(res))
		}
	}
	if len(failed) > 0 {
		r.note("%s could not be listed, so %s: %s", plural(len(failed), "type"), what, shortList(failed))
	}
	if len(absent) > 0 {
		verb := "types are"
		if len(absent) == 1 {
			verb = "type is"
		}
		r.note("%d %s not in the input (a dump holds only the types it was dumped with), so %s: %s", len(absent), verb, what, shortList(absent))
	}
}

func shortList(names []string) string {
	sort.Strings(names)
	const show = 4
	if len(names) > show {
		return strings.Join(names[:show], ", ") + fmt.Sprintf(" and %d more", len(names)-show)
	}
	return strings.Join(names, ", ")
}

func qualifiedResource(res snapshot.Resource) string {
	if res.Group == "" {
		return res.Resource
	}
	return res.Resource + "." + res.Group
}

// collection classifies each owner reference the way classifyReferences
// and isDangling do (spec §2.6) and says whether the garbage collector
// will ever delete o. It reads the snapshot only, so "dangling" means
// absent from a listed type.
func (r *run) collection(o *snapshot.Object) Collection {
	var c Collection
	refs := o.Metadata.OwnerReferences
	nsTerminating := false
	if o.Metadata.Namespace != "" {
		if ns := r.ix.byName("", "Namespace", "", o.Metadata.Namespace); ns != nil && ns.Terminating() {
			nsTerminating = true
		}
	}
	for i, ref := range refs {
		if ref.UID == "" {
			continue
		}
		c.Owners = append(c.Owners, r.classify(o, i, ref))
	}
	count := map[string]int{}
	var first = map[string]OwnerOf{}
	for _, oc := range c.Owners {
		count[oc.Class]++
		if _, ok := first[oc.Class]; !ok {
			first[oc.Class] = oc
		}
	}
	suffix := ""
	if nsTerminating {
		suffix = " Its namespace " + o.Metadata.Namespace + " is terminating, though: the namespace controller deletes it whatever its owners."
	}
	switch {
	case len(c.Owners) == 0:
		c.Verdict = VerdictNotOwned
		c.Message = "It has no owner references: the garbage collector never deletes it; only an explicit delete removes it."
		if o.Metadata.Namespace != "" {
			c.Message = "It has no owner references: the garbage collector never deletes it; only an explicit delete, or its namespace's deletion, removes it."
		}
	case !r.ix.monitored(o.APIVersion, o.Kind):
		c.Verdict = VerdictNeverCollected
		c.Message = "The garbage collector does not watch " + o.Kind + " objects, so it never deletes it, whatever happens to its owners."
	case count[ClassUnresolvable] > 0:
		c.Verdict = VerdictNeverCollected
		c.Message = first[ClassUnresolvable].Message + " Any error on any owner reference aborts the whole item, so the garbage collector retries it forever and never deletes it."
	case count[ClassNamespacedOwner] > 0:
		c.Verdict = VerdictNeverCollected
		c.Message = first[ClassNamespacedOwner].Message + " The garbage collector gives up on it without retrying and never deletes it."
	case count[ClassSolid] > 0:
		c.Verdict = VerdictKept
		oc := first[ClassSolid]
		c.Message = "It is kept while its owner " + oc.Ref.Kind + "/" + oc.Ref.Name + " exists; it is deleted with its last solid owner (unless that delete orphans it)."
		if count[ClassDangling]+count[ClassWaiting] > 0 {
			c.Message += " The garbage collector removes its other, dangling or deleting, owner references."
		}
	case count[ClassUnknown] > 0:
		c.Verdict = VerdictUnknown
		c.Message = first[ClassUnknown].Message
	default:
		c.Verdict = VerdictWillBeDeleted
		oc := first[ClassDangling]
		if oc.Class == "" {
			oc = first[ClassWaiting]
		}
		c.Message = "Every owner is gone or being deleted, so the garbage collector deletes it: " + oc.Message
	}
	c.Message += suffix
	return c
}

// classify is one owner reference seen by the collector
// (rules.ClassifyReference), in its words (rules.Reference.Message).
func (r *run) classify(o *snapshot.Object, i int, ref snapshot.OwnerReference) OwnerOf {
	v := rules.ClassifyReference(r.ix.cat, r.ix.index(), r.ix.cat.Dependent(o), ref)
	return OwnerOf{Index: i, Ref: ref, Class: v.Class.Name(), Message: sentence(v.Message(r.ix.cat, o.Ref())) + "."}
}

// observed returns the objects behind graph nodes, leaving out virtual
// nodes: an owner the GC has not observed has no object to act on.
func observed(nodes []*graph.Node) []*snapshot.Object {
	var objs []*snapshot.Object
	for _, n := range nodes {
		if n.Object != nil {
			objs = append(objs, n.Object)
		}
	}
	return objs
}
