// This file mirrors pkg/controller/garbagecollector/operations.go of
// k8s.io/kubernetes v1.36.3, and the patching of patch.go: the collector's
// API calls, each one or more round trips of the running worker (sched.go)
// served by the store.

package plan

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// deleteObject follows its namesake (operations.go): a DELETE with the
// uid and resourceVersion of latest as preconditions.
func (g *gc) deleteObject(item *node, latest *snapshot.Object, policy Policy, why string, w int) error {
	id := item.Identity()
	ri := g.sim.res.mapping(id.APIVersion, id.Kind)
	if ri == nil {
		return newRESTMappingError(id.Kind, id.APIVersion)
	}
	if _, o := g.sim.st.getByName(ri, id.Namespace, id.Name); o == nil {
		g.enqueueVirtualDeleteEvent(id, w)
		return enqueuedVirtualDeleteEventErr
	}
	opts := deleteOptions{DeleteOptions: rules.DeleteOptions{Policy: policy}, precondUID: id.UID, precondRV: latest.Metadata.ResourceVersion}
	g.call(true, id)
	i, o := g.sim.st.getByName(ri, id.Namespace, id.Name)
	if o == nil {
		g.enqueueVirtualDeleteEvent(id, w)
		return enqueuedVirtualDeleteEventErr
	}
	err := g.sim.st.delete(rules.ActorGC, i, opts, why)
	if errors.Is(err, errConflict) && opts.precondRV != "" {
		return g.retryDeleteOnConflict(item, i, latest, opts, why, w, err)
	}
	return err
}

// retryDeleteOnConflict is deleteObject's answer to a conflict, upstream's
// recursive deleteObject without a resourceVersion: GET the object and,
// when what changed left the owner references alone, DELETE it again
// without that precondition, so that unrelated updates cannot starve the
// collector. Otherwise the conflict stands.
func (g *gc) retryDeleteOnConflict(item *node, i int32, latest *snapshot.Object, opts deleteOptions, why string, w int, conflict error) error {
	id := item.Identity()
	g.call(false, id)
	live := g.sim.st.objs[i]
	if live == nil || live.Metadata.UID != id.UID || live.Metadata.ResourceVersion == opts.precondRV ||
		!reflect.DeepEqual(live.Metadata.OwnerReferences, latest.Metadata.OwnerReferences) {
		return conflict
	}
	opts.precondRV = ""
	g.call(true, id)
	if g.sim.st.objs[i] == nil {
		g.enqueueVirtualDeleteEvent(id, w)
		return enqueuedVirtualDeleteEventErr
	}
	err := g.sim.st.delete(rules.ActorGC, i, opts, why)
	return err
}

// getObject follows its namesake (operations.go): a GET through the
// item's identity.
func (g *gc) getObject(id objectReference) (*snapshot.Object, error) {
	ri := g.sim.res.mapping(id.APIVersion, id.Kind)
	if ri == nil {
		return nil, newRESTMappingError(id.Kind, id.APIVersion)
	}
	if ri.namespaced && id.Namespace == "" {
		return nil, namespacedOwnerOfClusterScopedObjectErr
	}
	g.call(false, id)
	_, o, err := g.lookup(ri, id)
	return o, err
}

// lookup finds the object of id as a call the caller has made would: an
// object of a type kgc could not list is unknown, not absent.
func (g *gc) lookup(ri *resInfo, id objectReference) (int32, *snapshot.Object, error) {
	i, o := g.sim.st.getByName(ri, id.Namespace, id.Name)
	g.observeState(id.UID)
	if o != nil {
		g.observeState(o.Metadata.UID)
	}
	if o == nil {
		if !ri.listed {
			g.sim.unknown(id)
			return -1, nil, &unknownTypeError{id.Kind, id.APIVersion}
		}
		return -1, nil, errNotFound
	}
	return i, o, nil
}

// observeState moves the running worker's wave past the step that last
// changed or removed the object it read: a decision made on what it read
// ("its owner no longer exists") comes after the step that made it so,
// however early the worker's item was queued. Without it, a worker queued
// in wave 2 that reads an owner deleted in wave 3 would be listed in wave
// 2, before the delete it depends on.
func (g *gc) observeState(uid string) {
	if !g.sim.observeState(uid) {
		return
	}
	if t := g.sc.cur; t != nil {
		t.wave = g.sim.wave
	}
}

// removeFinalizer follows its namesake (operations.go): a GET, then a JSON
// merge patch of the finalizer list.
func (g *gc) removeFinalizer(n *node, f, why string) error {
	id := n.Identity()
	o, err := g.getObject(id)
	if errors.Is(err, errNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot finalize owner %s: %w", id, err)
	}
	if !hasFin(o, f) {
		return nil
	}
	g.call(true, id)
	var i int32
	if i, o, err = g.lookup(g.sim.res.mapping(id.APIVersion, id.Kind), id); err != nil {
		if errors.Is(err, errNotFound) {
			return nil
		}
		return fmt.Errorf("cannot finalize owner %s: %w", id, err)
	}
	// Upstream's patch carries the resourceVersion it read, so a write in
	// between conflicts and RetryOnConflict reads and patches again: the
	// finalizer goes from the object as it is now, which is what this does
	// without the retry's round trips.
	c := clone(o)
	c.Metadata.Finalizers = slices.DeleteFunc(c.Metadata.Finalizers, func(x string) bool { return x == f })
	g.sim.st.record(rules.ActorGC, ActionRemoveFin, c, "", joinWhy(f, why))
	g.sim.st.update(rules.ActorGC, i, c)
	return nil
}

// patchTarget is the round trips of upstream's patch (patch.go): a
// strategic merge patch or, for a type that answers it 415, a GET and a
// JSON merge patch. It returns the object the patch applies to, checked
// against the uid precondition the patch carries.
func (g *gc) patchTarget(n *node) (int32, *snapshot.Object, error) {
	id := n.Identity()
	ri := g.sim.res.mapping(id.APIVersion, id.Kind)
	if ri == nil {
		return -1, nil, newRESTMappingError(id.Kind, id.APIVersion)
	}
	g.call(true, id)
	if !g.sim.res.strategicMerge(ri) {
		// 415, then GET and a JSON merge patch (gc.patch).
		g.call(false, id)
		g.call(true, id)
	}
	return g.patchTargetNoCall(n)
}

// patchTargetNoCall is patchTarget for a caller that accounted for the
// round trips itself.
func (g *gc) patchTargetNoCall(n *node) (int32, *snapshot.Object, error) {
	id := n.Identity()
	ri := g.sim.res.mapping(id.APIVersion, id.Kind)
	if ri == nil {
		return -1, nil, newRESTMappingError(id.Kind, id.APIVersion)
	}
	i, o, err := g.lookup(ri, id)
	if err != nil {
		return -1, nil, err
	}
	if o.Metadata.UID != id.UID {
		return -1, nil, fmt.Errorf("%w: uid %s in the patch does not match %s", errConflict, id.UID, o.Metadata.UID)
	}
	return i, o, nil
}

// patchRemoveOwnerRefs is upstream's patch with
// GenerateDeleteOwnerRefStrategicMergeBytes and deleteOwnerRefJSONMergePatch
// (garbagecollector.go, patch.go): the references to uids go.
func (g *gc) patchRemoveOwnerRefs(n *node, uids []string, why string) error {
	i, o, err := g.patchTarget(n)
	if err != nil {
		return err
	}
	c := clone(o)
	c.Metadata.OwnerReferences = slices.DeleteFunc(c.Metadata.OwnerReferences, func(r snapshot.OwnerReference) bool { return slices.Contains(uids, r.UID) })
	if len(c.Metadata.OwnerReferences) == len(o.Metadata.OwnerReferences) {
		return nil
	}
	g.sim.st.record(rules.ActorGC, ActionRemoveOwner, c, "", fmt.Sprintf("removes the reference to %s: %s", strings.Join(uidsToNames(o, uids), ", "), why))
	g.sim.st.update(rules.ActorGC, i, c)
	return nil
}

// uidsToNames names o's references to uids, for the step.
func uidsToNames(o *snapshot.Object, uids []string) []string {
	var out []string
	for _, r := range o.Metadata.OwnerReferences {
		if slices.Contains(uids, r.UID) {
			out = append(out, refName(r))
		}
	}
	return out
}

// unblockOwnerReferences is upstream's patch with
// unblockOwnerReferencesStrategicMergePatch (patch.go), the cycle
// heuristic of attemptToDeleteItem: blockOwnerDeletion=false on the
// references the graph node has as blocking.
func (g *gc) unblockOwnerReferences(n *node, dep *node) error {
	var blocking []string
	for _, r := range n.Owners {
		if r.Blocking() {
			blocking = append(blocking, r.UID)
		}
	}
	i, o, err := g.patchTarget(n)
	if err != nil {
		return err
	}
	if len(blocking) == 0 {
		return nil
	}
	c := clone(o)
	f := false
	changed := false
	for k := range c.Metadata.OwnerReferences {
		r := &c.Metadata.OwnerReferences[k]
		if slices.Contains(blocking, r.UID) && r.Blocking() {
			r.BlockOwnerDeletion = &f
			changed = true
		}
	}
	if !changed {
		return nil
	}
	g.sim.st.record(rules.ActorGC, ActionUnblockOwner, c, "",
		fmt.Sprintf("its dependent %s is itself deleting dependents: a possible cycle, so the garbage collector stops this object from blocking its owners", dep.Identity()))
	g.sim.note(fmt.Sprintf("the garbage collector's cycle heuristic fired on %s; it has false positives and depends on worker timing in a real cluster", n.Identity()))
	g.sim.st.update(rules.ActorGC, i, c)
	return nil
}
