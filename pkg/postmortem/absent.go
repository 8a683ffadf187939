package postmortem

import (
	"fmt"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
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
	if o := ix.byUID[ref.UID]; o != nil && o != r && !sameScope(o, r.key.namespace) {
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
	t, ok := ix.kinds.byKind[[2]string{group, ref.Kind}]
	if !ok || ix.before == nil {
		return ""
	}
	ns := r.key.namespace
	if res := ix.kinds.byResource[t]; !res.Namespaced {
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
	case ix.byKey[objKey{t, ns, ref.Name}] == nil && !ix.logFrom.IsZero() && !ix.logFrom.Truncate(time.Second).After(ix.before.CapturedAt):
		return fmt.Sprintf("no %s %s was in the before snapshot, and no logged request names one since", ref.Kind, ref.Name)
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
