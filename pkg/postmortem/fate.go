package postmortem

import (
	"slices"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// ResultDeleting is a link whose deletion was accepted when neither the
// log nor an after snapshot shows whether it finished.
const ResultDeleting = "deleting"

// covers reports whether the after snapshot would hold the object if it
// still existed: its type was listed, in its namespace.
func (ix *index) covers(r *record) bool { return ix.lists(ix.after, r.key.typeKey, r.key.namespace) }

// lists reports whether snapshot s would hold an object of type t in
// namespace ns if one existed: s listed the type, in that namespace.
func (ix *index) lists(s *snapshot.Snapshot, t typeKey, ns string) bool {
	if s == nil {
		return false
	}
	if s.Source.Namespace != "" && ns != "" && s.Source.Namespace != ns {
		return false
	}
	res, ok := ix.kinds.resource(t)
	if !ok {
		return false
	}
	for _, l := range s.Resources {
		if l.Group == res.Group && l.Resource == res.Resource {
			return l.Listed
		}
	}
	return false
}

// gone reports whether the object no longer exists at the end: the after
// snapshot would list it and does not, or a logged request removed it.
func (ix *index) gone(r *record) bool {
	if r.after != nil {
		return false
	}
	if ix.covers(r) {
		return true
	}
	if r.before != nil && ix.instanceOfGoneCRD(r) {
		return true
	}
	started := r.start()
	for _, e := range r.events {
		if accepted(e) && removedIt(e) {
			return true
		}
		// Once its deletion started, a request answered 404 finds it gone.
		if started != nil && e.Code == audit.CodeNotFound && !e.ReceivedAt().Before(started.ReceivedAt()) {
			return true
		}
	}
	return r.sweptByID && r.lastMeta != nil && r.lastMeta.DeletionTimestamp == nil
}

// instanceOfGoneCRD: a custom resource whose CRD is gone (the after
// snapshot lists CRDs and not it, or the log shows it removed) went with
// it: the API server's CRD finalizer deletes every instance before it
// lets the CRD go.
func (ix *index) instanceOfGoneCRD(r *record) bool {
	if r.key.group == "" || r.key.typeKey == crdType {
		return false
	}
	crd := ix.crdRecord(r)
	return crd != nil && ix.gone(crd)
}

// removedIt reports whether a logged request removed its object: a
// DELETE whose response shows it gone rather than marked, or an update
// that left a deleting object no finalizers.
func removedIt(e *audit.Event) bool {
	m := e.Response
	switch {
	case m == nil:
		return false
	case e.Verb == "delete":
		// A DELETE answers with a Status, or with the object as it was
		// removed, or, when it only marked it, with its deletionTimestamp
		// set; a zero grace period on an object left no finalizers
		// removes it at once.
		zeroGrace := e.Delete != nil && e.Delete.GracePeriodSeconds != nil && *e.Delete.GracePeriodSeconds == 0
		return m.Kind == "Status" || m.DeletionTimestamp == nil || (zeroGrace && len(m.Finalizers) == 0)
	case e.Object.Subresource == "finalize":
		// The namespace controller's finalize removes the last spec
		// finalizer; the API server deletes the namespace in that update
		// when no metadata finalizer is left.
		return m.DeletionTimestamp != nil && len(m.Finalizers) == 0
	case e.Verb == "update" || e.Verb == "patch":
		// The response is the object: no finalizers field is none. The
		// API server deletes an object being deleted in the update that
		// leaves it no finalizer (the registry's shouldDeleteDuringUpdate),
		// but for a pod in graceful deletion, which its kubelet's last
		// DELETE removes.
		return m.DeletionTimestamp != nil && len(m.Finalizers) == 0 && (e.Object.APIGroup != "" || e.Object.Resource != "pods")
	}
	return false
}

// result is what happened to a deleted or swept object by the end.
func (ix *index) result(r *record) string {
	if ix.gone(r) {
		return ResultDeleted
	}
	if r.after != nil {
		if r.after.Terminating() {
			return ResultTerminating
		}
		return HappenedExists
	}
	// The log's last state of it may show it deleting, but not how it
	// ended: without an after state that lists it, its end is unknown.
	return ResultDeleting
}

// startedSilently: the after snapshot shows r deleting, the before one
// did not, and no logged request started it: a CRD's finalizer, the
// namespace controller or the collector did, unlogged.
func (ix *index) startedSilently(r *record) bool {
	was := (r.before != nil && !r.before.Terminating()) || (r.before == nil && r.createdInWindow())
	return was && r.after != nil && r.after.Terminating() && r.start() == nil
}

// createdInWindow: a logged request created r.
func (r *record) createdInWindow() bool {
	_, ok := r.madeAt()
	return ok
}

// madeAt is when the API server received the request that created r.
func (r *record) madeAt() (time.Time, bool) {
	for _, e := range r.events {
		if e.Verb == "create" && e.Object.Subresource == "" && accepted(e) {
			return e.ReceivedAt(), true
		}
	}
	return time.Time{}, false
}

// orphanedFrom returns the owner UIDs the garbage collector removed from
// the object, from the log (its PATCH names them) or from the snapshots
// (before had them, after has not), with the request when logged.
func (ix *index) orphanedFrom(r *record) (uids []string, e *audit.Event, evidence string) {
	for _, ev := range r.events {
		if ev.Verb != "patch" && ev.Verb != "update" || !accepted(ev) || actor(ev) != ActorGarbageCollector {
			continue
		}
		if ev.Request != nil && len(ev.Request.OwnersRemoved()) > 0 {
			return ev.Request.OwnersRemoved(), ev, EvidenceAudit
		}
		if e == nil && ev.Object.Subresource == "" {
			e = ev
		}
	}
	if r.before == nil || r.after == nil {
		if e != nil {
			return nil, e, EvidenceTiming
		}
		return nil, nil, ""
	}
	for _, o := range r.before.Metadata.OwnerReferences {
		if !slices.ContainsFunc(r.after.Metadata.OwnerReferences, func(a snapshot.OwnerReference) bool { return a.UID == o.UID }) {
			uids = append(uids, o.UID)
		}
	}
	if len(uids) == 0 {
		return nil, nil, ""
	}
	return uids, e, EvidenceSnapshot
}

// deletedAt is the deletion timestamp the after snapshot shows, if any.
func (r *record) deletedAt() *time.Time {
	if r == nil || r.after == nil {
		return nil
	}
	return r.after.Metadata.DeletionTimestamp
}
