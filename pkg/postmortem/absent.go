package postmortem

import (
	"fmt"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// This file holds the one case in which the garbage collector starts a
// deletion on its own: every owner reference of a dependent names no
// object where the collector looks for it. Upstream's attemptToDeleteItem
// classifies such owners as dangling and deletes the dependent; no person's
// request is behind it, so it is a root of its own, and no owner is made
// up for it.

// absentOwners says why every owner reference of r names no object the
// garbage collector can find, or "" when one of them may name one. The
// collector looks a namespaced dependent's owner up in its own namespace
// and a cluster-scoped dependent's in the cluster's scope
// (addDependentToOwners), so an owner UID held by an object elsewhere
// names nothing; an owner whose type the before snapshot listed in that
// scope, without that UID, named nothing when the window began.
func (ix *index) absentOwners(r *record) string {
	if len(r.owners) == 0 {
		return ""
	}
	why := make([]string, 0, len(r.owners))
	for _, ref := range r.owners {
		w := ix.absentOwner(r, ref)
		if w == "" {
			return ""
		}
		why = append(why, w)
	}
	return "its owner reference names no object in its namespace: " + strings.Join(why, "; ")
}

// absentOwner says why one owner reference of r names no object, or "".
func (ix *index) absentOwner(r *record, ref audit.OwnerRef) string {
	if o := ix.byUID[ref.UID]; o != nil && o != r && rules.InvalidOwnerNamespace(o.key.namespace, r.key.namespace) {
		// The collector finds no owner by that UID where it looks.
		if r.key.namespace == "" {
			return fmt.Sprintf("UID %s is %s's, and a cluster-scoped object cannot be owned by a namespaced one", ref.UID, o.ref().String())
		}
		return fmt.Sprintf("UID %s is %s's, and an owner reference cannot cross namespaces", ref.UID, o.ref().String())
	}
	if ix.ownerOf(r, ref.UID) != nil {
		return ""
	}
	group, _ := snapshot.SplitAPIVersion(ref.APIVersion)
	t, ok := ix.kinds.typeOfKind(group, ref.Kind)
	if !ok || ix.before == nil {
		return ""
	}
	ns := r.key.namespace
	if !ix.kinds.namespaced(t) {
		ns = ""
	}
	if !ix.lists(ix.before, t, ns) {
		return ""
	}
	// The dependent was there when the snapshot was taken, and its owner
	// was not: a UID is never reused, so the owner never came. Or the log
	// covers the snapshot's time and after, and no request names the
	// owner: it was not there, and was not made since. A snapshot's time is
	// kept to the second, so the log's start is compared to the second.
	switch {
	case r.before != nil:
		return fmt.Sprintf("no %s with UID %s was in the before snapshot", ref.Kind, ref.UID)
	case ix.byKey[objKey{t, ns, ref.Name}] != nil:
	case !ix.logFrom.IsZero() && !ix.logFrom.Truncate(time.Second).After(ix.before.CapturedAt):
		return fmt.Sprintf("no %s %s was in the before snapshot, and no logged request names one since", ref.Kind, ref.Name)
	case r.createdInWindow() && ix.lists(ix.after, t, ns):
		// Made in the window, by an owner in neither snapshot that no
		// request names: had it been there when the dependent was made,
		// its going would be logged, or the after snapshot would list it.
		return fmt.Sprintf("no %s %s was in either snapshot, and no logged request names one", ref.Kind, ref.Name)
	}
	return ""
}

// onItsOwn makes r, deleted by the garbage collector because its owners
// are absent, the root of its own chain.
func (ch *chains) onItsOwn(r *record, c cause, why string) {
	c.parent, c.via, c.evidence, c.detail = nil, ViaRoot, EvidenceAudit, why
	if r.start() == nil {
		c.evidence, c.likely = EvidenceSnapshot, true
	}
	ch.roots = append(ch.roots, r)
	r.setCause(c)
}

// invalidOwnerEvent is the Event the garbage collector created on r
// before deleting it: the only one it records is OwnerRefInvalidNamespace
// (upstream's graph builder, when an owner UID names an object of another
// namespace). A Metadata-level log keeps no body, so the event is known
// by its name, "<object name>.<suffix>", in r's namespace ("default" for
// a cluster-scoped object).
func (ix *index) invalidOwnerEvent(r *record) *audit.Event {
	if ix.gcEvents == nil {
		ix.gcEvents = map[[2]string]*audit.Event{}
		for _, o := range ix.all {
			if o.key.resource != "events" || (o.key.group != "" && o.key.group != "events.k8s.io") {
				continue
			}
			name, _, ok := cutLast(o.key.name, ".")
			if !ok {
				continue
			}
			for _, e := range o.events {
				if e.Verb == "create" && accepted(e) && actor(e) == ActorGarbageCollector {
					ix.gcEvents[[2]string{o.key.namespace, name}] = e
					break
				}
			}
		}
	}
	ns := r.key.namespace
	if ns == "" {
		ns = "default"
	}
	e := ix.gcEvents[[2]string{ns, r.key.name}]
	if e == nil || r.start() == nil || e.ReceivedAt().After(r.start().ReceivedAt()) {
		return nil
	}
	return e
}

// cutLast slices s around the last instance of sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}
