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

type gcEvent struct {
	typ     eventType
	virtual bool
	id      identity // identityFromEvent
	obj     *snapshot.Object
	old     *snapshot.Object
	wave    int
}

// observe turns a store change into an informer event when the type is
// monitored.
func (g *gc) observe(ri *resInfo, typ eventType, old, new *snapshot.Object, wave int) {
	if !ri.monitored {
		return
	}
	o := new
	if typ == deleteEvent {
		o = old
		old = nil
	}
	id := identity{APIVersion: ri.apiVersion, Kind: ri.kind, Name: o.Metadata.Name, UID: o.Metadata.UID, Namespace: o.Metadata.Namespace}
	g.graphChanges = append(g.graphChanges, gcEvent{typ: typ, id: id, obj: o, old: old, wave: wave})
}

func (g *gc) enqueueVirtualDeleteEvent(id identity, wave int) {
	g.graphChanges = append(g.graphChanges, gcEvent{typ: deleteEvent, virtual: true, id: id, wave: wave})
}

func (g *gc) addDependentToOwners(n *node, owners []snapshot.OwnerReference, w int) {
	invalid := false
	for _, r := range owners {
		on, ok := g.uidToNode[r.UID]
		if !ok {
			on = &node{id: coords(r, n.id.Namespace), virtual: true}
			g.uidToNode[r.UID] = on
		}
		on.addDependent(n)
		if !ok {
			g.attemptToDel.add(on, w)
		} else if !invalid {
			ownerNamespaced := on.id.Namespace != ""
			switch {
			case ownerNamespaced && on.id.Namespace != n.id.Namespace:
				if !on.virtual {
					g.reportInvalidNamespaceOwnerRef(n, r.UID)
				}
				invalid = true
			case !matchesCoordinates(r, on.id):
				invalid = true
			case !ownerNamespaced && on.id.Namespace != n.id.Namespace && on.virtual:
				invalid = true
			}
		}
	}
	if invalid {
		g.attemptToDel.add(n, w)
	}
}

func (g *gc) reportInvalidNamespaceOwnerRef(n *node, ownerUID string) {
	for _, r := range n.owners {
		if r.UID == ownerUID {
			g.sim.note(fmt.Sprintf("Warning OwnerRefInvalidNamespace on %s: ownerRef [%s/%s, namespace: %s, name: %s, uid: %s] does not exist in namespace %q",
				n.id.ref(), r.APIVersion, r.Kind, n.id.Namespace, r.Name, r.UID, n.id.Namespace))
			return
		}
	}
}

func (g *gc) removeDependentFromOwners(n *node, owners []snapshot.OwnerReference) {
	for _, r := range owners {
		if on, ok := g.uidToNode[r.UID]; ok {
			on.deleteDependent(n)
		}
	}
}

func (g *gc) removeNode(n *node) {
	delete(g.uidToNode, n.id.UID)
	g.removeDependentFromOwners(n, n.owners)
}

type refPair struct{ old, new snapshot.OwnerReference }

func referencesDiffs(old, new []snapshot.OwnerReference) (added, removed []snapshot.OwnerReference, changed []refPair) {
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
				changed = append(changed, refPair{or, nr})
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

func deletionStartsWithFinalizer(old, new *snapshot.Object, f string) bool {
	if new.Metadata.DeletionTimestamp == nil || !hasFin(new, f) {
		return false
	}
	if old == nil {
		return true
	}
	return old.Metadata.DeletionTimestamp == nil || !hasFin(old, f)
}

func (g *gc) addUnblockedOwnersToDeleteQueue(removed []snapshot.OwnerReference, changed []refPair, w int) {
	for _, r := range removed {
		if r.Blocking() {
			if on, ok := g.uidToNode[r.UID]; ok {
				g.attemptToDel.add(on, w)
			}
		}
	}
	for _, c := range changed {
		if c.old.Blocking() && !c.new.Blocking() {
			if on, ok := g.uidToNode[c.new.UID]; ok {
				g.attemptToDel.add(on, w)
			}
		}
	}
}

func (g *gc) processTransitions(old, new *snapshot.Object, n *node, w int) {
	if deletionStartsWithFinalizer(old, new, rules.FinalizerOrphan) {
		g.attemptToOrp.add(n, w)
		return
	}
	if deletionStartsWithFinalizer(old, new, rules.FinalizerForeground) {
		n.deletingDependents = true
		// Upstream's order: every dependent, then n. The workers run them
		// at once (sched.go): whether a dependent with a non-blocking
		// reference reads n before or after n drops foregroundDeletion
		// depends on how many round trips each needs.
		for _, d := range n.deps {
			g.attemptToDel.add(d, w)
		}
		g.attemptToDel.add(n, w)
	}
}

func (g *gc) pendingEvents() int { return len(g.graphChanges) - g.gcHead }

// drain processes every pending graph change (processGraphChanges).
func (g *gc) drain() bool {
	did := false
	for g.gcHead < len(g.graphChanges) {
		ev := g.graphChanges[g.gcHead]
		g.graphChanges[g.gcHead] = gcEvent{}
		g.gcHead++
		g.processGraphChange(ev)
		did = true
	}
	g.graphChanges = g.graphChanges[:0]
	g.gcHead = 0
	return did
}

func (g *gc) processGraphChange(ev gcEvent) {
	w := ev.wave
	existing, found := g.uidToNode[ev.id.UID]
	if found && !ev.virtual && existing.virtual {
		observed := ev.id
		if observed != existing.id {
			_, invalid := partitionDependents(existing.deps, observed)
			for _, dep := range invalid {
				if observed.Namespace != "" && dep.id.Namespace != observed.Namespace {
					g.reportInvalidNamespaceOwnerRef(dep, observed.UID)
				}
				g.attemptToDel.add(dep, w)
			}
			existing = existing.clone()
			existing.id = observed
			g.uidToNode[observed.UID] = existing
		}
		existing.virtual = false
	}
	switch {
	case (ev.typ == addEvent || ev.typ == updateEvent) && !found:
		m := &ev.obj.Metadata
		n := &node{id: ev.id, owners: m.OwnerReferences, beingDeleted: m.DeletionTimestamp != nil}
		n.deletingDependents = n.beingDeleted && hasFin(ev.obj, rules.FinalizerForeground)
		g.uidToNode[n.id.UID] = n
		g.addDependentToOwners(n, n.owners, w)
		g.processTransitions(ev.old, ev.obj, n, w)
	case (ev.typ == addEvent || ev.typ == updateEvent) && found:
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
		g.processTransitions(ev.old, ev.obj, existing, w)
	case ev.typ == deleteEvent:
		if !found {
			return
		}
		removeExisting := true
		if ev.virtual {
			deleted := ev.id
			if existing.virtual {
				matching, nonmatching := partitionDependents(existing.deps, deleted)
				if len(nonmatching) > 0 {
					removeExisting = false
					if len(matching) > 0 {
						g.absent[deleted] = struct{}{}
						for _, dep := range matching {
							g.attemptToDel.add(dep, w)
						}
					}
					if existing.id == deleted {
						if alt := getAlternateOwnerIdentity(nonmatching, deleted); alt != nil {
							repl := existing.clone()
							repl.id = *alt
							g.uidToNode[repl.id.UID] = repl
							g.requeueReplacement(repl, w)
						}
					}
				}
			} else if existing.id != deleted {
				removeExisting = false
				matching, _ := partitionDependents(existing.deps, deleted)
				if len(matching) > 0 {
					g.absent[deleted] = struct{}{}
					for _, dep := range matching {
						g.attemptToDel.add(dep, w)
					}
				}
			}
		}
		if removeExisting {
			g.removeNode(existing)
			if len(existing.deps) > 0 {
				g.absent[ev.id] = struct{}{}
			}
			for _, dep := range existing.deps {
				g.attemptToDel.add(dep, w)
			}
			for _, r := range existing.owners {
				if on, ok := g.uidToNode[r.UID]; ok && on.deletingDependents {
					g.attemptToDel.add(on, w)
				}
			}
		}
	}
}

func partitionDependents(deps []*node, id identity) (matching, nonmatching []*node) {
	namespaced := id.Namespace != ""
	for _, d := range deps {
		match, mismatch := false, false
		if namespaced && id.Namespace != d.id.Namespace {
			mismatch = true
		} else {
			for _, r := range d.owners {
				if r.UID == id.UID {
					if matchesCoordinates(r, id) {
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

// referenceLessThan is upstream's order of identities (kind, apiVersion,
// namespace, name, uid).
func referenceLessThan(a, b identity) bool { return a.ref().ReferenceLess(b.ref()) }

func getAlternateOwnerIdentity(deps []*node, absent identity) *identity {
	clusterScoped := absent.Namespace == ""
	seen := map[identity]bool{absent: true}
	var first, firstFollowing *identity
	for _, d := range deps {
		for _, r := range d.owners {
			if r.UID != absent.UID {
				continue
			}
			if matchesCoordinates(r, absent) && (clusterScoped || absent.Namespace == d.id.Namespace) {
				continue
			}
			ref := coords(r, d.id.Namespace)
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

// requeueReplacement requeues a virtual node whose identity the collector
// switched to another dependent's (getAlternateOwnerIdentity). When
// dependents in several namespaces name an absent owner and cannot go away
// (they are held by finalizers), upstream switches between their identities
// for ever, one rate-limited GET each, changing nothing: after
// strikesToPark switches without a store write in between, the node is
// parked until the store changes, as a failing item is.
func (g *gc) requeueReplacement(repl *node, w int) {
	writes := g.sim.st.writes
	r := g.rotations[repl.id.UID]
	if r.writes == writes {
		r.count++
	} else {
		r = rotation{writes: writes}
	}
	g.rotations[repl.id.UID] = r
	if r.count >= strikesToPark {
		g.attemptToDel.park(repl, w, writes, "dependents in several namespaces name this absent owner: the garbage collector keeps switching its identity between theirs")
		return
	}
	g.attemptToDel.requeue(repl, w, writes, "")
}

// rotation counts identity switches of one virtual node since the store
// last changed.
type rotation struct{ writes, count int }
