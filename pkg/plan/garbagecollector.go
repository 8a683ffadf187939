// This file mirrors pkg/controller/garbagecollector/garbagecollector.go of
// k8s.io/kubernetes v1.36.3: the attemptToDelete and attemptToOrphan
// workers and what they decide, transcribed rule by rule (spec §2).

package plan

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

type gc struct {
	sim             *sim
	uidToNode       map[string]*node
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
	return &gc{sim: s, uidToNode: make(map[string]*node, n), attemptToDelete: newQueue[*node]("attemptToDelete"),
		attemptToOrphan: newQueue[*node]("attemptToOrphan"), absentOwnerCache: map[objectReference]struct{}{}, rotations: map[string]rotation{}, sc: newSched()}
}

// attemptToDeleteWorker runs one attemptToDelete item and forgets or
// requeues it (upstream's attemptToDeleteWorker with
// processAttemptToDeleteWorker, garbagecollector.go).
func (g *gc) attemptToDeleteWorker(n *node, w int) {
	if n.virtual {
		gn, ok := g.uidToNode[n.identity.UID]
		if !ok || !gn.virtual {
			g.attemptToDelete.forget(n)
			return
		}
	}
	err := g.attemptToDeleteItem(n, w)
	switch {
	case err == enqueuedVirtualDeleteEventErr || err == namespacedOwnerOfClusterScopedObjectErr:
		if err == namespacedOwnerOfClusterScopedObjectErr {
			g.sim.note(fmt.Sprintf("%s is cluster-scoped but refers to a namespaced owner: the garbage collector never collects it", n.identity.ref()))
		}
		g.attemptToDelete.forget(n)
	case err != nil:
		g.attemptToDelete.requeue(n, w, g.sim.st.writes, err.Error())
	case n.virtual:
		g.attemptToDelete.requeue(n, w, g.sim.st.writes, errNotObserved.Error())
	default:
		g.attemptToDelete.forget(n)
	}
}

// classifyReferences sorts the refs into solid, dangling and waiting by
// the live owners (isDangling: absent cache, REST mapping, GET by ref.name
// in the dependent's namespace).
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

// isDangling is upstream's isDangling: the absent-owner cache first, then
// the owner judged by rules.ClassifyReference, whose GET by name is one
// round trip (ownerGet). An owner of a type kgc could not list, or of a
// kind it cannot tell is served, may exist: it counts as solid (the safe
// side) and the plan says it is incomplete; a kind kgc cannot map fails
// the item as the RESTMapper would.
func (g *gc) isDangling(r snapshot.OwnerReference, item *node) (bool, *snapshot.Object, error) {
	key := coords(r, "")
	if _, ok := g.absentOwnerCache[key]; ok {
		return true, nil, nil
	}
	key.Namespace = item.identity.Namespace
	if _, ok := g.absentOwnerCache[key]; ok {
		return true, nil, nil
	}
	dep := rules.Dependent{Namespace: item.identity.Namespace, Namespaced: item.identity.Namespace != ""}
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
		g.sim.unknown(key.ref())
		return false, nil, nil
	case v.Class == rules.Dangling:
		g.absentOwnerCache[key] = struct{}{}
		return true, nil, nil
	}
	return false, v.Owner, nil
}

// ownerGet is the store seen through the collector's GET of an owner
// reference: reading it takes one round trip.
type ownerGet struct {
	g   *gc
	ref snapshot.OwnerReference
}

func (l ownerGet) ByName(group, kind, namespace, name string) *snapshot.Object {
	l.g.call(false, coords(l.ref, namespace))
	ri := l.g.sim.res.byGK[gk{group, kind}]
	if ri == nil {
		return nil
	}
	_, o := l.g.sim.st.getByName(ri, namespace, name)
	return o
}

// ByUID only explains a dangling reference; the collector makes no such
// call.
func (l ownerGet) ByUID(uid string) *snapshot.Object {
	_, o := l.g.sim.st.get(uid)
	return o
}

func (g *gc) attemptToDeleteItem(item *node, w int) error {
	if item.beingDeleted && !item.deletingDependents {
		return nil
	}
	_, latest, err := g.getObject(item.identity)
	switch {
	case err == errNotFound:
		g.enqueueVirtualDeleteEvent(item.identity, w)
		return enqueuedVirtualDeleteEventErr
	case err != nil:
		return err
	}
	if latest.Metadata.UID != item.identity.UID {
		g.enqueueVirtualDeleteEvent(item.identity, w)
		return enqueuedVirtualDeleteEventErr
	}
	if item.deletingDependents {
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
		var uids []string
		for _, r := range dangling {
			uids = append(uids, r.UID)
		}
		for _, r := range waiting {
			uids = append(uids, r.UID)
		}
		why := fmt.Sprintf("it still has the solid owner %s", refName(solid[0]))
		if len(dangling) > 0 {
			why += fmt.Sprintf("; owner %s is gone", refName(dangling[0]))
		}
		if len(waiting) > 0 {
			why += fmt.Sprintf("; owner %s is waiting for its dependents (foreground deletion)", refName(waiting[0]))
		}
		return g.patchRemoveOwnerRefs(item, uids, why)
	case len(waiting) != 0 && len(item.dependents) != 0:
		for _, d := range item.dependents {
			if d.deletingDependents {
				if err := g.unblockOwnerReferences(item, d); err != nil {
					return err
				}
				break
			}
		}
		pol := PolicyForeground
		why := fmt.Sprintf("its owner %s is deleting its dependents in the foreground and it has dependents of its own", refName(waiting[0]))
		return g.deleteObject(item, latest, pol, why, w)
	default:
		pol := PolicyBackground
		switch {
		case hasFin(latest, rules.FinalizerOrphan):
			pol = PolicyOrphan
		case hasFin(latest, rules.FinalizerForeground):
			pol = PolicyForeground
		}
		var why string
		switch {
		case len(waiting) != 0:
			why = fmt.Sprintf("its owner %s is deleting its dependents in the foreground", refName(waiting[0]))
		case len(dangling) == 1:
			why = fmt.Sprintf("its owner %s no longer exists", refName(dangling[0]))
		default:
			why = fmt.Sprintf("none of its %d owners exists any more", len(dangling))
		}
		return g.deleteObject(item, latest, pol, why, w)
	}
}

func refName(r snapshot.OwnerReference) string { return r.Kind + "/" + r.Name }

func (g *gc) processDeletingDependentsItem(item *node, w int) error {
	blocking := item.blockingDependents()
	if len(blocking) == 0 {
		return g.removeFinalizer(item, rules.FinalizerForeground, "no dependent with blockOwnerDeletion=true is left")
	}
	for _, d := range blocking {
		if !d.deletingDependents {
			g.attemptToDelete.add(d, w)
		}
	}
	return nil
}

// attemptToOrphanWorker runs one attemptToOrphan item (upstream's
// attemptToOrphanWorker with processAttemptToOrphanWorker).
func (g *gc) attemptToOrphanWorker(owner *node, w int) {
	deps := slices.Clone(owner.dependents)
	var errs []error
	// orphanDependents patches every dependent at once, one goroutine each:
	// one round trip for the lot (three where a type needs the JSON merge
	// patch fallback).
	fallback := false
	for _, d := range deps {
		if ri := g.sim.res.mapping(d.identity.APIVersion, d.identity.Kind); ri != nil && !g.sim.res.strategicMerge(ri) {
			fallback = true
		}
	}
	if len(deps) > 0 {
		g.yield(true)
		if fallback {
			g.yield(false)
			g.yield(true)
		}
	}
	for _, d := range deps {
		g.touch(true, d.identity)
		i, o, err := g.patchTargetNoCall(d)
		if err == errNotFound {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c := clone(o)
		c.Metadata.OwnerReferences = slices.DeleteFunc(c.Metadata.OwnerReferences, func(r snapshot.OwnerReference) bool { return r.UID == owner.identity.UID })
		if len(c.Metadata.OwnerReferences) == len(o.Metadata.OwnerReferences) {
			continue
		}
		g.sim.st.record(rules.ActorGC, ActionRemoveOwner, c, PolicyOrphan, fmt.Sprintf("orphans it: its owner %s is deleted with propagationPolicy Orphan", owner.identity.ref()))
		g.sim.orphaned[c.Metadata.UID] = true
		g.sim.st.update(rules.ActorGC, i, c)
	}
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
