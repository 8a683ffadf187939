// This file mirrors pkg/controller/garbagecollector/garbagecollector.go of
// k8s.io/kubernetes v1.36.3: the attemptToDelete and attemptToOrphan
// workers and what they decide, transcribed rule by rule (spec §2).

package plan

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kgc-dev/kgc/pkg/collector"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// gc is upstream's GarbageCollector and its GraphBuilder in one
// (garbagecollector.go, graph_builder.go): the graph, the graphChanges
// queue the graph builder drains and the two work queues the workers take
// items from.
type gc struct {
	sim             *sim
	uidToNode       collector.Map
	graphChanges    []event
	gcHead          int
	attemptToDelete *queue[*node]
	attemptToOrphan *queue[*node]
	// absentOwnerCache is a set here; upstream it is an LRU of 500
	// entries, which only matters when more than 500 distinct absent
	// owners are looked up between two hits (a miss costs a GET, the
	// result is the same).
	absentOwnerCache map[objectReference]struct{}
	// rotations counts identity switches of virtual nodes by UID.
	rotations map[string]rotation

	// sc runs the workers (sched.go).
	sc *sched
}

func newGC(s *sim, n int) *gc {
	return &gc{sim: s, uidToNode: make(collector.Map, n), attemptToDelete: newQueue[*node]("attemptToDelete"),
		attemptToOrphan: newQueue[*node]("attemptToOrphan"), absentOwnerCache: map[objectReference]struct{}{}, rotations: map[string]rotation{}, sc: newSched()}
}

// attemptToDeleteWorker runs one attemptToDelete item and forgets or
// requeues it (upstream's attemptToDeleteWorker with
// processAttemptToDeleteWorker, garbagecollector.go).
func (g *gc) attemptToDeleteWorker(n *node, w int) {
	if n.Virtual {
		gn, ok := g.uidToNode[n.Identity().UID]
		if !ok || !gn.Virtual {
			g.attemptToDelete.forget(n)
			return
		}
	}
	err := g.attemptToDeleteItem(n, w)
	switch {
	case errors.Is(err, enqueuedVirtualDeleteEventErr) || errors.Is(err, namespacedOwnerOfClusterScopedObjectErr):
		if errors.Is(err, namespacedOwnerOfClusterScopedObjectErr) {
			g.noteClusterScoped(n)
		}
		g.attemptToDelete.forget(n)
	case err != nil:
		g.attemptToDelete.requeue(n, w, g.sim.st.writes, err.Error())
	case n.Virtual:
		g.attemptToDelete.requeue(n, w, g.sim.st.writes, errNotObserved.Error())
	default:
		g.attemptToDelete.forget(n)
	}
}

// noteClusterScoped says which cluster-scoped object the collector never
// collects. The item that failed is that object when its owner reference
// was classified, but the owner's virtual node when the collector tried
// to look that owner up (getObject: a namespaced kind without a
// namespace): then the objects to name are its dependents.
func (g *gc) noteClusterScoped(n *node) {
	deps := []*node{n}
	if n.Virtual {
		deps = n.Dependents
	}
	owner := n.Identity()
	for _, d := range deps {
		id := d.Identity()
		if id.Namespace != "" {
			continue
		}
		if n.Virtual {
			g.sim.note(fmt.Sprintf("%s is cluster-scoped but refers to a namespaced owner (%s %s: an owner reference carries no namespace): the garbage collector never collects it",
				id, owner.Kind, owner.Name))
			continue
		}
		g.sim.note(fmt.Sprintf("%s is cluster-scoped but refers to a namespaced owner: the garbage collector never collects it", id))
	}
}

// isDangling follows its namesake (garbagecollector.go): the absent-owner
// cache first, then the owner judged by rules.ClassifyReference, whose GET
// by name is one round trip (ownerGet). An owner of a type kgc could not
// list, or of a kind it cannot tell is served, may exist: it counts as
// solid (the safe side) and the plan says it is incomplete; a kind kgc
// cannot map fails the item as the RESTMapper would.
func (g *gc) isDangling(r snapshot.OwnerReference, item *node) (bool, *snapshot.Object, error) {
	key := collector.Coordinates(r, "")
	g.observeState(r.UID)
	if _, ok := g.absentOwnerCache[key]; ok {
		return true, nil, nil
	}
	key.Namespace = item.Identity().Namespace
	if _, ok := g.absentOwnerCache[key]; ok {
		return true, nil, nil
	}
	dep := rules.Dependent{Namespace: item.Identity().Namespace, Namespaced: item.Identity().Namespace != ""}
	v := rules.ClassifyReference(g.sim.res.cat, ownerGet{g, r}, dep, r)
	key.Namespace = v.Namespace
	switch {
	case v.Class == rules.Unresolvable || v.KindUnknown():
		// A kind the catalog cannot map fails the collector's RESTMapping
		// whether or not the cluster might serve it: the item errors and is
		// retried, as the real collector does while discovery lacks it.
		return false, nil, newRESTMappingError(r.Kind, r.APIVersion)
	case v.Class == rules.NamespacedOwnerOfClusterScoped:
		return false, nil, namespacedOwnerOfClusterScopedObjectErr
	case v.Class == rules.Unknown:
		g.sim.unknown(key)
		return false, nil, nil
	case v.Class == rules.Dangling:
		g.absentOwnerCache[key] = struct{}{}
		return true, nil, nil
	}
	return false, v.Owner, nil
}

// ownerGet is the store seen through isDangling's GET of an owner
// reference: reading it takes one round trip.
type ownerGet struct {
	g   *gc
	ref snapshot.OwnerReference
}

func (l ownerGet) ByName(group, kind, namespace, name string) *snapshot.Object {
	l.g.call(false, collector.Coordinates(l.ref, namespace))
	ri := l.g.sim.res.byGK[gk{group, kind}]
	if ri == nil {
		return nil
	}
	_, o := l.g.sim.st.getByName(ri, namespace, name)
	if o != nil {
		l.g.observeState(o.Metadata.UID)
	}
	return o
}

// ByUID only explains a dangling reference; the collector makes no such
// call.
func (l ownerGet) ByUID(uid string) *snapshot.Object {
	_, o := l.g.sim.st.get(uid)
	return o
}

// classifyReferences follows its namesake (garbagecollector.go): solid,
// dangling and waitingForDependentsDeletion by the live owners.
func (g *gc) classifyReferences(item *node, refs []snapshot.OwnerReference) (solid, dangling, waiting []snapshot.OwnerReference, err error) {
	for _, r := range refs {
		dang, owner, err := g.isDangling(r, item)
		if err != nil {
			return nil, nil, nil, err
		}
		if dang {
			dangling = append(dangling, r)
			continue
		}
		if owner != nil && owner.Metadata.DeletionTimestamp != nil && hasFin(owner, rules.FinalizerForeground) {
			waiting = append(waiting, r)
		} else {
			solid = append(solid, r)
		}
	}
	return solid, dangling, waiting, nil
}

// ownerRefsToUIDs follows its namesake (garbagecollector.go).
func ownerRefsToUIDs(refs []snapshot.OwnerReference) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.UID)
	}
	return out
}

// attemptToDeleteItem follows its namesake (garbagecollector.go): it
// deletes the item when no owner is solid, and otherwise drops its
// references to owners that are gone or waiting for their dependents.
func (g *gc) attemptToDeleteItem(item *node, w int) error {
	if item.BeingDeleted && !item.DeletingDependents {
		return nil
	}
	latest, err := g.getObject(item.Identity())
	switch {
	case errors.Is(err, errNotFound):
		g.enqueueVirtualDeleteEvent(item.Identity(), w)
		return enqueuedVirtualDeleteEventErr
	case err != nil:
		return err
	}
	if latest.Metadata.UID != item.Identity().UID {
		g.enqueueVirtualDeleteEvent(item.Identity(), w)
		return enqueuedVirtualDeleteEventErr
	}
	if item.DeletingDependents {
		return g.processDeletingDependentsItem(item, w)
	}
	refs := latest.Metadata.OwnerReferences
	if len(refs) == 0 {
		return nil
	}
	solid, dangling, waiting, err := g.classifyReferences(item, refs)
	if err != nil {
		return err
	}
	switch {
	case len(solid) != 0:
		if len(dangling) == 0 && len(waiting) == 0 {
			return nil
		}
		// The waiting references go too, or those owners would wait for
		// this dependent for ever.
		ownerUIDs := append(ownerRefsToUIDs(dangling), ownerRefsToUIDs(waiting)...)
		return g.patchRemoveOwnerRefs(item, ownerUIDs, solidOwnerWhy(solid, dangling, waiting))
	case len(waiting) != 0 && len(item.Dependents) != 0:
		for _, dep := range item.Dependents {
			if dep.DeletingDependents {
				if err := g.unblockOwnerReferences(item, dep); err != nil {
					return err
				}
				break
			}
		}
		why := fmt.Sprintf("its owner %s is deleting its dependents in the foreground and it has dependents of its own", refName(waiting[0]))
		return g.deleteObject(item, latest, PolicyForeground, why, w)
	default:
		// A GC finalizer already on the item is honoured.
		policy := rules.EffectivePolicy(latest.Metadata.Finalizers)
		return g.deleteObject(item, latest, policy, noSolidOwnerWhy(dangling, waiting), w)
	}
}

// solidOwnerWhy says why attemptToDeleteItem only drops references.
func solidOwnerWhy(solid, dangling, waiting []snapshot.OwnerReference) string {
	why := fmt.Sprintf("it still has the solid owner %s", refName(solid[0]))
	if len(dangling) > 0 {
		why += fmt.Sprintf("; owner %s is gone", refName(dangling[0]))
	}
	if len(waiting) > 0 {
		why += fmt.Sprintf("; owner %s is waiting for its dependents (foreground deletion)", refName(waiting[0]))
	}
	return why
}

// noSolidOwnerWhy says why attemptToDeleteItem deletes an item.
func noSolidOwnerWhy(dangling, waiting []snapshot.OwnerReference) string {
	switch {
	case len(waiting) != 0:
		return fmt.Sprintf("its owner %s is deleting its dependents in the foreground", refName(waiting[0]))
	case len(dangling) == 1:
		return fmt.Sprintf("its owner %s no longer exists", refName(dangling[0]))
	}
	return fmt.Sprintf("none of its %d owners exists any more", len(dangling))
}

func refName(r snapshot.OwnerReference) string { return r.Kind + "/" + r.Name }

// processDeletingDependentsItem follows its namesake
// (garbagecollector.go): foregroundDeletion goes once no dependent blocks
// the item; until then the blocking dependents are pushed along.
func (g *gc) processDeletingDependentsItem(item *node, w int) error {
	blocking := item.BlockingDependents()
	if len(blocking) == 0 {
		return g.removeFinalizer(item, rules.FinalizerForeground, "no dependent with blockOwnerDeletion=true is left")
	}
	for _, d := range blocking {
		if !d.DeletingDependents {
			g.attemptToDelete.add(d, w)
		}
	}
	return nil
}

// orphanDependents follows its namesake (garbagecollector.go): it patches
// every dependent at once, one goroutine each, so the lot takes one round
// trip (three where a type needs the JSON merge patch fallback).
func (g *gc) orphanDependents(owner objectReference, dependents []*node) []error {
	fallback := false
	for _, d := range dependents {
		if ri := g.sim.res.mapping(d.Identity().APIVersion, d.Identity().Kind); ri != nil && !g.sim.res.strategicMerge(ri) {
			fallback = true
		}
	}
	if len(dependents) > 0 {
		g.yield(true)
		if fallback {
			g.yield(false)
			g.yield(true)
		}
	}
	var errs []error
	for _, d := range dependents {
		if err := g.orphanDependent(owner, d); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// orphanDependent is one goroutine of upstream's orphanDependents: the
// patch removing the reference to owner from dependent d, the round trip
// already taken. A dependent that is gone is no error.
func (g *gc) orphanDependent(owner objectReference, d *node) error {
	g.touch(true, d.Identity())
	i, o, err := g.patchTargetNoCall(d)
	if errors.Is(err, errNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	c := clone(o)
	c.Metadata.OwnerReferences = slices.DeleteFunc(c.Metadata.OwnerReferences, func(r snapshot.OwnerReference) bool { return r.UID == owner.UID })
	if len(c.Metadata.OwnerReferences) == len(o.Metadata.OwnerReferences) {
		return nil
	}
	g.sim.st.record(rules.ActorGC, ActionRemoveOwner, c, PolicyOrphan, fmt.Sprintf("orphans it: its owner %s is deleted with propagationPolicy Orphan", owner))
	g.sim.orphaned[c.Metadata.UID] = true
	g.sim.st.update(rules.ActorGC, i, c)
	return nil
}

// attemptToOrphanWorker runs one attemptToOrphan item and forgets or
// requeues it (upstream's attemptToOrphanWorker with
// processAttemptToOrphanWorker, garbagecollector.go): orphan the
// dependents, then remove the orphan finalizer.
func (g *gc) attemptToOrphanWorker(owner *node, w int) {
	dependents := slices.Clone(owner.Dependents)
	errs := g.orphanDependents(owner.Identity(), dependents)
	if len(errs) == 0 {
		if err := g.removeFinalizer(owner, rules.FinalizerOrphan, "its dependents are orphaned"); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		g.attemptToOrphan.requeue(owner, w, g.sim.st.writes, errors.Join(errs...).Error())
		return
	}
	g.attemptToOrphan.forget(owner)
}
