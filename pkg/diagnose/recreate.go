package diagnose

import (
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// A foreground deletion that never ends because a controller creates the
// dependent again: the collector deletes the blocking dependent, the
// controller that reconciles it creates it anew (a new UID, often the same
// name), and the owner waits for ever. The evidence is the dependent's
// creationTimestamp, after the owner's deletionTimestamp, and its
// controller owner reference, which names who recreates it, and the
// manager of its oldest managedFields entry, which snapshots keep
// (ObjectMeta.Manager): the name the recreating controller wrote itself
// under. The root cause is the loop, never a stalled collector.

// recreation is the root cause of a recreated dependent and its ways out.
type recreation struct {
	rc       RootCause
	remedies []Remedy
}

// recreated reports whether d, a dependent blocking owner's foreground
// deletion, was created after that deletion began.
func (r *run) recreated(d, owner *snapshot.Object) (recreation, bool) {
	if d.Terminating() || owner.Metadata.DeletionTimestamp == nil || d.Metadata.CreationTimestamp == nil ||
		!d.Metadata.CreationTimestamp.After(*owner.Metadata.DeletionTimestamp) {
		return recreation{}, false
	}
	who, related := r.recreator(d, owner)
	subject := who
	if m := d.Metadata.Manager; m != "" {
		// The name it wrote itself under when it created d.
		who += ", managedFields manager \"" + m + "\""
		subject = who + ","
	}
	msg := d.Ref().String() + " was created at " + d.Metadata.CreationTimestamp.UTC().Format("2006-01-02T15:04:05Z") + ", after " + owner.Ref().String() +
		"'s foreground deletion began (" + owner.Metadata.DeletionTimestamp.UTC().Format("2006-01-02T15:04:05Z") + "): " + subject +
		" does not stop for the deletion and creates it again as the garbage collector deletes it, so the owner waits for ever; the collector is acting, this is a loop"
	rc := RootCause{Object: d.Ref(), Reason: ReasonDependentRecreated, RemovedBy: rules.ActorGC, Controller: who, Message: msg, Related: related}
	rems := []Remedy{
		{Action: ActionFixController, Description: "Stop what recreates it: scale down or pause " + who + " (or upgrade it to one that honours its owner's deletionTimestamp); the collector then deletes " + d.Ref().String() + " and " + owner.Ref().String() + " finishes"},
		{Action: ActionRemoveFinalizer, Description: "Finish " + owner.Ref().String() + " in the background instead: remove its foregroundDeletion finalizer; the collector then deletes its dependents as dangling, and what recreates them stops with its owner gone",
			Command: r.finalizerPatch(owner, rules.FinalizerForeground),
			Risk:    "the owner goes before its dependents; a controller that recreates them from another owner keeps doing so"},
	}
	return recreation{rc: rc, remedies: rems}, true
}

// recreator names who creates d again: its controller owner when that is
// not the owner being deleted (its controller survives), else the
// controller of the owner's kind (the project that serves it, when known).
func (r *run) recreator(d, owner *snapshot.Object) (string, []snapshot.ObjectRef) {
	for _, ref := range d.Metadata.OwnerReferences {
		if !ref.IsController() {
			continue
		}
		if ref.UID != owner.Metadata.UID {
			if c := r.ix.byUID(ref.UID); c != nil {
				return "the controller of its controller owner " + c.Ref().String(), []snapshot.ObjectRef{c.Ref()}
			}
			return "the controller of its controller owner " + ref.Kind + "/" + ref.Name, nil
		}
	}
	group := snapshot.GroupOf(owner.APIVersion)
	if p, ok := rules.ProjectOf(group); ok {
		return p.Controller + " (" + p.Name + ")", nil
	}
	return "the controller of " + owner.Kind, nil
}
