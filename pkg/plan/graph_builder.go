// This file mirrors pkg/controller/garbagecollector/graph_builder.go of
// k8s.io/kubernetes v1.36.3: the GraphBuilder, which turns informer events
// into changes of the owner graph and queues the work the workers do.

package plan

import (
	"fmt"
	"reflect"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// event follows upstream's event (graph_builder.go). identity is what
// upstream's identityFromEvent computes from the event; wave is the causal
// depth of the change, for the plan's steps.
type event struct {
	eventType eventType
	virtual   bool
	identity  objectReference // identityFromEvent
	obj       *snapshot.Object
	oldObj    *snapshot.Object
	wave      int
}

// observe is the event handlers of upstream's controllerFor
// (graph_builder.go): a store change to a monitored type becomes an event
// on graphChanges.
func (g *gc) observe(ri *resInfo, typ eventType, old, new *snapshot.Object, wave int) {
	if !ri.monitored {
		return
	}
	o := new
	if typ == deleteEvent {
		o = old
		old = nil
	}
	id := objectReference{APIVersion: ri.apiVersion, Kind: ri.kind, Name: o.Metadata.Name, UID: o.Metadata.UID, Namespace: o.Metadata.Namespace}
	g.graphChanges = append(g.graphChanges, event{eventType: typ, identity: id, obj: o, oldObj: old, wave: wave})
}

// enqueueVirtualDeleteEvent follows its namesake (graph_builder.go).
func (g *gc) enqueueVirtualDeleteEvent(id objectReference, wave int) {
	g.graphChanges = append(g.graphChanges, event{eventType: deleteEvent, virtual: true, identity: id, wave: wave})
}

// addDependentToOwners follows its namesake (graph_builder.go): an owner
// not in the graph gets a virtual node, queued so that a worker checks
// whether it exists; a dependent whose reference disagrees with an owner
// already there is queued to be checked.
func (g *gc) addDependentToOwners(n *node, owners []snapshot.OwnerReference, w int) {
	invalid := false
	for _, r := range owners {
		on, ok := g.uidToNode[r.UID]
		if !ok {
			on = &node{identity: coords(r, n.identity.Namespace), virtual: true}
			g.uidToNode[r.UID] = on
		}
		on.addDependent(n)
		if !ok {
			g.attemptToDelete.add(on, w)
		} else if !invalid {
			ownerNamespaced := on.identity.Namespace != ""
			switch {
			case ownerNamespaced && on.identity.Namespace != n.identity.Namespace:
				if !on.virtual {
					g.reportInvalidNamespaceOwnerRef(n, r.UID)
				}
				invalid = true
			case !ownerReferenceMatchesCoordinates(r, on.identity):
				invalid = true
			case !ownerNamespaced && on.identity.Namespace != n.identity.Namespace && on.virtual:
				invalid = true
			}
		}
	}
	if invalid {
		g.attemptToDelete.add(n, w)
	}
}

// reportInvalidNamespaceOwnerRef follows its namesake (graph_builder.go);
// the Warning event becomes a note of the plan.
func (g *gc) reportInvalidNamespaceOwnerRef(n *node, ownerUID string) {
	for _, r := range n.owners {
		if r.UID == ownerUID {
			g.sim.noteOn(n.identity.ref(), fmt.Sprintf("Warning OwnerRefInvalidNamespace on %s: ownerRef [%s/%s, namespace: %s, name: %s, uid: %s] does not exist in namespace %q",
				n.identity.ref(), r.APIVersion, r.Kind, n.identity.Namespace, r.Name, r.UID, n.identity.Namespace))
			return
		}
	}
}

// insertNode follows its namesake (graph_builder.go).
func (g *gc) insertNode(n *node, w int) {
	g.uidToNode[n.identity.UID] = n
	g.addDependentToOwners(n, n.owners, w)
}

// removeDependentFromOwners follows its namesake (graph_builder.go).
func (g *gc) removeDependentFromOwners(n *node, owners []snapshot.OwnerReference) {
	for _, r := range owners {
		if on, ok := g.uidToNode[r.UID]; ok {
			on.deleteDependent(n)
		}
	}
}

// removeNode follows its namesake (graph_builder.go).
func (g *gc) removeNode(n *node) {
	delete(g.uidToNode, n.identity.UID)
	g.removeDependentFromOwners(n, n.owners)
}

// ownerRefPair follows its namesake (graph_builder.go).
type ownerRefPair struct{ oldRef, newRef snapshot.OwnerReference }

// referencesDiffs follows its namesake (graph_builder.go); removed keeps
// the old list's order where upstream ranges over a set.
func referencesDiffs(old, new []snapshot.OwnerReference) (added, removed []snapshot.OwnerReference, changed []ownerRefPair) {
	if len(old) == 0 {
		return new, nil, nil
	}
	oldByUID := make(map[string]snapshot.OwnerReference, len(old))
	for _, r := range old {
		oldByUID[r.UID] = r
	}
	left := make(map[string]bool, len(old))
	for _, r := range old {
		left[r.UID] = true
	}
	for _, nr := range new {
		if left[nr.UID] {
			if or := oldByUID[nr.UID]; !reflect.DeepEqual(or, nr) {
				changed = append(changed, ownerRefPair{or, nr})
			}
			delete(left, nr.UID)
		} else {
			added = append(added, nr)
		}
	}
	for _, r := range old {
		if left[r.UID] {
			removed = append(removed, oldByUID[r.UID])
			delete(left, r.UID)
		}
	}
	return added, removed, changed
}

// deletionStartsWithFinalizer follows its namesake (graph_builder.go).
func deletionStartsWithFinalizer(old, new *snapshot.Object, f string) bool {
	if new.Metadata.DeletionTimestamp == nil || !hasFin(new, f) {
		return false
	}
	if old == nil {
		return true
	}
	return old.Metadata.DeletionTimestamp == nil || !hasFin(old, f)
}

// addUnblockedOwnersToDeleteQueue follows its namesake (graph_builder.go):
// an owner waiting for its dependents is checked again when a blocking
// reference to it goes or stops blocking.
func (g *gc) addUnblockedOwnersToDeleteQueue(removed []snapshot.OwnerReference, changed []ownerRefPair, w int) {
	for _, r := range removed {
		if r.Blocking() {
			if on, ok := g.uidToNode[r.UID]; ok {
				g.attemptToDelete.add(on, w)
			}
		}
	}
	for _, c := range changed {
		if c.oldRef.Blocking() && !c.newRef.Blocking() {
			if on, ok := g.uidToNode[c.newRef.UID]; ok {
				g.attemptToDelete.add(on, w)
			}
		}
	}
}

// processTransitions follows its namesake (graph_builder.go).
func (g *gc) processTransitions(old, new *snapshot.Object, n *node, w int) {
	if deletionStartsWithFinalizer(old, new, rules.FinalizerOrphan) {
		g.attemptToOrphan.add(n, w)
		return
	}
	if deletionStartsWithFinalizer(old, new, rules.FinalizerForeground) {
		n.deletingDependents = true
		// Upstream's order: every dependent, then n. The workers run them
		// at once (sched.go): whether a dependent with a non-blocking
		// reference reads n before or after n drops foregroundDeletion
		// depends on how many round trips each needs.
		for _, d := range n.dependents {
			g.attemptToDelete.add(d, w)
		}
		g.attemptToDelete.add(n, w)
	}
}

// pendingEvents is how many events wait on graphChanges.
func (g *gc) pendingEvents() int { return len(g.graphChanges) - g.gcHead }

// runProcessGraphChanges follows its namesake (graph_builder.go), but
// returns once graphChanges is empty, saying whether there was anything:
// the simulation interleaves it with the workers (sim.run).
func (g *gc) runProcessGraphChanges() bool {
	did := false
	for g.processGraphChanges() {
		did = true
	}
	g.graphChanges = g.graphChanges[:0]
	g.gcHead = 0
	return did
}

// processGraphChanges follows its namesake (graph_builder.go): it takes
// one event off graphChanges and updates the graph; false when there is
// none.
func (g *gc) processGraphChanges() bool {
	if g.gcHead == len(g.graphChanges) {
		return false
	}
	ev := g.graphChanges[g.gcHead]
	g.graphChanges[g.gcHead] = event{} // drop the objects it holds
	g.gcHead++
	w := ev.wave
	existing, found := g.uidToNode[ev.identity.UID]
	if found && !ev.virtual && existing.virtual {
		existing = g.observeVirtualNode(existing, ev.identity, w)
	}
	switch {
	case (ev.eventType == addEvent || ev.eventType == updateEvent) && !found:
		m := &ev.obj.Metadata
		n := &node{identity: ev.identity, owners: m.OwnerReferences, beingDeleted: m.DeletionTimestamp != nil}
		n.deletingDependents = n.beingDeleted && hasFin(ev.obj, rules.FinalizerForeground)
		g.insertNode(n, w)
		g.processTransitions(ev.oldObj, ev.obj, n, w)
	case (ev.eventType == addEvent || ev.eventType == updateEvent) && found:
		newRefs := ev.obj.Metadata.OwnerReferences
		added, removed, changed := referencesDiffs(existing.owners, newRefs)
		if len(added) != 0 || len(removed) != 0 || len(changed) != 0 {
			g.addUnblockedOwnersToDeleteQueue(removed, changed, w)
			existing.owners = newRefs
			g.addDependentToOwners(existing, added, w)
			g.removeDependentFromOwners(existing, removed)
		}
		if ev.obj.Metadata.DeletionTimestamp != nil {
			existing.beingDeleted = true
		}
		g.processTransitions(ev.oldObj, ev.obj, existing, w)
	case ev.eventType == deleteEvent && found:
		removeExistingNode := true
		if ev.virtual {
			removeExistingNode = g.processVirtualDeleteEvent(existing, ev.identity, w)
		}
		if removeExistingNode {
			g.removeNode(existing)
			g.addAbsentOwner(ev.identity, existing.dependents, w)
			g.addDeletingOwnersToDeleteQueue(existing, w)
		}
	}
	return true
}

// observeVirtualNode is the block of upstream's processGraphChanges that
// marks a virtual node observed when an informer event for its uid comes:
// the dependents that name it by other coordinates are checked again, and
// a copy of the node takes the observed identity.
func (g *gc) observeVirtualNode(existing *node, observed objectReference, w int) *node {
	if observed != existing.identity {
		_, invalid := partitionDependents(existing.dependents, observed)
		for _, dep := range invalid {
			if observed.Namespace != "" && dep.identity.Namespace != observed.Namespace {
				g.reportInvalidNamespaceOwnerRef(dep, observed.UID)
			}
			g.attemptToDelete.add(dep, w)
		}
		existing = existing.clone()
		existing.identity = observed
		g.uidToNode[observed.UID] = existing
	}
	existing.virtual = false
	return existing
}

// processVirtualDeleteEvent is the event.virtual block of upstream's
// processGraphChanges: a worker found no object at deleted. It says
// whether the node goes (removeExistingNode): not while dependents name
// its uid by other coordinates, nor when it was observed under others.
func (g *gc) processVirtualDeleteEvent(existing *node, deleted objectReference, w int) bool {
	if !existing.virtual {
		if existing.identity == deleted {
			return true
		}
		matching, _ := partitionDependents(existing.dependents, deleted)
		g.addAbsentOwner(deleted, matching, w)
		return false
	}
	matching, nonmatching := partitionDependents(existing.dependents, deleted)
	if len(nonmatching) == 0 {
		return true
	}
	g.addAbsentOwner(deleted, matching, w)
	if existing.identity == deleted {
		if alt := getAlternateOwnerIdentity(nonmatching, deleted); alt != nil {
			repl := existing.clone()
			repl.identity = *alt
			g.uidToNode[repl.identity.UID] = repl
			g.requeueReplacement(repl, w)
		}
	}
	return false
}

// addAbsentOwner records that nothing exists at id and queues the
// dependents that name it so: what upstream's processGraphChanges writes
// out each time it learns of an absent owner.
func (g *gc) addAbsentOwner(id objectReference, dependents []*node, w int) {
	if len(dependents) == 0 {
		return
	}
	g.absentOwnerCache[id] = struct{}{}
	for _, dep := range dependents {
		g.attemptToDelete.add(dep, w)
	}
}

// addDeletingOwnersToDeleteQueue is the end of upstream's deleteEvent
// case: a removed node's owners that wait for their dependents are checked
// again, as one of those may have been it.
func (g *gc) addDeletingOwnersToDeleteQueue(n *node, w int) {
	for _, r := range n.owners {
		if on, ok := g.uidToNode[r.UID]; ok && on.deletingDependents {
			g.attemptToDelete.add(on, w)
		}
	}
}

// partitionDependents follows its namesake (graph_builder.go): the
// dependents whose reference to id's uid matches id, and those with one
// that does not (a dependent can be in both).
func partitionDependents(dependents []*node, id objectReference) (matching, nonmatching []*node) {
	namespaced := id.Namespace != ""
	for _, d := range dependents {
		match, mismatch := false, false
		if namespaced && id.Namespace != d.identity.Namespace {
			mismatch = true
		} else {
			for _, r := range d.owners {
				if r.UID == id.UID {
					if ownerReferenceMatchesCoordinates(r, id) {
						match = true
					} else {
						mismatch = true
					}
				}
			}
		}
		if match {
			matching = append(matching, d)
		}
		if mismatch {
			nonmatching = append(nonmatching, d)
		}
	}
	return matching, nonmatching
}

// referenceLessThan follows its namesake (graph_builder.go): kind,
// apiVersion, namespace, name, uid.
func referenceLessThan(a, b objectReference) bool { return rules.ReferenceLess(a.ref(), b.ref()) }

// getAlternateOwnerIdentity follows its namesake (graph_builder.go): the
// other identity the dependents give an absent owner's uid, the first after
// absent in referenceLessThan order, else the first.
func getAlternateOwnerIdentity(deps []*node, absent objectReference) *objectReference {
	clusterScoped := absent.Namespace == ""
	seen := map[objectReference]bool{absent: true}
	var first, firstFollowing *objectReference
	for _, d := range deps {
		for _, r := range d.owners {
			if r.UID != absent.UID {
				continue
			}
			if ownerReferenceMatchesCoordinates(r, absent) && (clusterScoped || absent.Namespace == d.identity.Namespace) {
				continue
			}
			ref := coords(r, d.identity.Namespace)
			if clusterScoped && ref.APIVersion == absent.APIVersion && ref.Kind == absent.Kind {
				ref.Namespace = ""
			}
			if seen[ref] {
				continue
			}
			seen[ref] = true
			if first == nil || referenceLessThan(ref, *first) {
				r2 := ref
				first = &r2
			}
			if referenceLessThan(absent, ref) && (firstFollowing == nil || referenceLessThan(ref, *firstFollowing)) {
				r2 := ref
				firstFollowing = &r2
			}
		}
	}
	if firstFollowing != nil {
		return firstFollowing
	}
	return first
}

// requeueReplacement is upstream's attemptToDelete.AddRateLimited of the
// replacement node in processGraphChanges: a virtual node whose identity
// the collector switched to another dependent's. When
// dependents in several namespaces name an absent owner and cannot go away
// (they are held by finalizers), upstream switches between their identities
// for ever, one rate-limited GET each, changing nothing: after
// strikesToPark switches without a store write in between, the node is
// parked until the store changes, as a failing item is.
func (g *gc) requeueReplacement(repl *node, w int) {
	writes := g.sim.st.writes
	r := g.rotations[repl.identity.UID]
	if r.writes == writes {
		r.count++
	} else {
		r = rotation{writes: writes}
	}
	g.rotations[repl.identity.UID] = r
	if r.count >= strikesToPark {
		g.attemptToDelete.park(repl, w, writes, "dependents in several namespaces name this absent owner: the garbage collector keeps switching its identity between theirs")
		return
	}
	g.attemptToDelete.requeue(repl, w, writes, "")
}

// rotation counts identity switches of one virtual node since the store
// last changed.
type rotation struct{ writes, count int }
