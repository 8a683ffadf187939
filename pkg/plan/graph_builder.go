// This file mirrors pkg/controller/garbagecollector/graph_builder.go of
// k8s.io/kubernetes v1.36.3: the GraphBuilder, which turns informer events
// into changes of the owner graph and queues the work the workers do.

package plan

import (
	"fmt"
	"reflect"

	"github.com/kgc-dev/kgc/pkg/collector"
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

// addDependentToOwners follows its namesake (graph_builder.go), the
// graph's change being collector.AddDependentToOwners: an owner not in the
// graph gets a virtual node, queued so that a worker checks whether it
// exists; a dependent whose reference disagrees with an owner already
// there is queued to be checked.
func (g *gc) addDependentToOwners(n *node, owners []snapshot.OwnerReference, w int) {
	g.queueLinked(n, collector.AddDependentToOwners(g.uidToNode, n, owners), w)
}

// queueLinked queues what linking n to its owners found, in upstream's
// order: the new virtual nodes, then n.
func (g *gc) queueLinked(n *node, l collector.Linked, w int) {
	for _, on := range l.Virtual {
		g.attemptToDelete.add(on, w)
	}
	for _, uid := range l.InvalidNamespace {
		g.reportInvalidNamespaceOwnerRef(n, uid)
	}
	if l.Invalid {
		g.attemptToDelete.add(n, w)
	}
}

// reportInvalidNamespaceOwnerRef follows its namesake (graph_builder.go);
// the Warning event becomes a note of the plan.
func (g *gc) reportInvalidNamespaceOwnerRef(n *node, ownerUID string) {
	id := n.Identity()
	for _, r := range n.Owners {
		if r.UID == ownerUID {
			g.sim.noteOn(id, fmt.Sprintf("Warning OwnerRefInvalidNamespace on %s: ownerRef [%s/%s, namespace: %s, name: %s, uid: %s] does not exist in namespace %q",
				id, r.APIVersion, r.Kind, id.Namespace, r.Name, r.UID, id.Namespace))
			return
		}
	}
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

// processTransitions follows its namesake (graph_builder.go); what it
// starts is collector.ProcessTransitions'.
func (g *gc) processTransitions(old, new *snapshot.Object, n *node, w int) {
	switch collector.ProcessTransitions(old, new) {
	case collector.StartOrphaning:
		g.attemptToOrphan.add(n, w)
	case collector.StartDeletingDependents:
		n.DeletingDependents = true
		// Upstream's order: every dependent, then n. The workers run them
		// at once (sched.go): whether a dependent with a non-blocking
		// reference reads n before or after n drops foregroundDeletion
		// depends on how many round trips each needs.
		for _, d := range n.Dependents {
			g.attemptToDelete.add(d, w)
		}
		g.attemptToDelete.add(n, w)
	case collector.NoTransition:
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
	if found && !ev.virtual && existing.Virtual {
		existing = g.observeVirtualNode(existing, ev.identity, w)
	}
	switch {
	case (ev.eventType == addEvent || ev.eventType == updateEvent) && !found:
		n := collector.NewNode(ev.identity, ev.obj)
		g.queueLinked(n, collector.InsertNode(g.uidToNode, n), w)
		g.processTransitions(ev.oldObj, ev.obj, n, w)
	case (ev.eventType == addEvent || ev.eventType == updateEvent) && found:
		newRefs := ev.obj.Metadata.OwnerReferences
		added, removed, changed := referencesDiffs(existing.Owners, newRefs)
		if len(added) != 0 || len(removed) != 0 || len(changed) != 0 {
			g.addUnblockedOwnersToDeleteQueue(removed, changed, w)
			existing.Owners = newRefs
			g.addDependentToOwners(existing, added, w)
			collector.RemoveDependentFromOwners(g.uidToNode, existing, removed)
		}
		if ev.obj.Metadata.DeletionTimestamp != nil {
			existing.BeingDeleted = true
		}
		g.processTransitions(ev.oldObj, ev.obj, existing, w)
	case ev.eventType == deleteEvent && found:
		removeExistingNode := true
		if ev.virtual {
			removeExistingNode = g.processVirtualDeleteEvent(existing, ev.identity, w)
		}
		if removeExistingNode {
			collector.RemoveNode(g.uidToNode, existing)
			g.addAbsentOwner(ev.identity, existing.Dependents, w)
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
	if observed != existing.Identity() {
		_, invalid := collector.PartitionDependents(existing.Dependents, observed)
		for _, dep := range invalid {
			if rules.InvalidOwnerNamespace(observed.Namespace, dep.Identity().Namespace) {
				g.reportInvalidNamespaceOwnerRef(dep, observed.UID)
			}
			g.attemptToDelete.add(dep, w)
		}
		existing = existing.Clone()
		existing.SetIdentity(observed)
		g.uidToNode.Insert(observed.UID, existing)
	}
	existing.Virtual = false
	return existing
}

// processVirtualDeleteEvent is the event.virtual block of upstream's
// processGraphChanges: a worker found no object at deleted. It says
// whether the node goes (removeExistingNode): not while dependents name
// its uid by other coordinates, nor when it was observed under others.
func (g *gc) processVirtualDeleteEvent(existing *node, deleted objectReference, w int) bool {
	if !existing.Virtual {
		if existing.Identity() == deleted {
			return true
		}
		matching, _ := collector.PartitionDependents(existing.Dependents, deleted)
		g.addAbsentOwner(deleted, matching, w)
		return false
	}
	matching, nonmatching := collector.PartitionDependents(existing.Dependents, deleted)
	if len(nonmatching) == 0 {
		return true
	}
	g.addAbsentOwner(deleted, matching, w)
	if existing.Identity() == deleted {
		if alt := collector.GetAlternateOwnerIdentity(nonmatching, deleted); alt != nil {
			repl := existing.Clone()
			repl.SetIdentity(*alt)
			g.uidToNode.Insert(repl.UID(), repl)
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
	for _, r := range n.Owners {
		if on, ok := g.uidToNode[r.UID]; ok && on.DeletingDependents {
			g.attemptToDelete.add(on, w)
		}
	}
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
	r := g.rotations[repl.Identity().UID]
	if r.writes == writes {
		r.count++
	} else {
		r = rotation{writes: writes}
	}
	g.rotations[repl.Identity().UID] = r
	if r.count >= strikesToPark {
		g.attemptToDelete.park(repl, w, writes, "dependents in several namespaces name this absent owner: the garbage collector keeps switching its identity between theirs")
		return
	}
	g.attemptToDelete.requeue(repl, w, writes, "")
}

// rotation counts identity switches of one virtual node since the store
// last changed.
type rotation struct{ writes, count int }
