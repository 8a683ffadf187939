package postmortem

import (
	"fmt"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
)

// cause is why an object went: its parent in a chain and how the tie is
// known, or, for a root, nothing.
type cause struct {
	parent   *record
	via      string
	evidence string
	// actor carried out the deletion; likely is set when no request
	// shows it, so the actor is the model's answer, not a fact.
	actor  string
	likely bool
	detail string
	// modeled: the object's end is kgc's model's answer (model.go).
	modeled bool
	// whyUnknown: a root of the garbage collector's for which the
	// evidence does not show why it deleted the object.
	whyUnknown bool
}

// causeFound is which of its answers causeOf gives an object.
type causeFound uint8

const (
	// causeNone: nothing in the evidence says why the object went.
	causeNone causeFound = iota
	// causeRoot: the object is the root of its chain (no parent).
	causeRoot
	// causeParent: the object went for the cause's parent.
	causeParent
	// causeOwnerUnseen: the garbage collector deleted the object, and no
	// owner of it is seen going: the cause holds only the actor.
	causeOwnerUnseen
)

// causeOf decides an object's cause, and says which kind of answer it is.
func (ix *index) causeOf(r *record) (cause, causeFound) {
	s := r.start()
	if s == nil {
		return ix.silentCause(r)
	}
	a := ix.actorFor(s, r)
	c := cause{actor: a}
	switch a {
	case ActorGarbageCollector:
		if c, ok := ix.ownerCause(r, s.ReceivedAt(), c); ok {
			return c, causeParent
		}
		return c, causeOwnerUnseen
	case ActorNamespaceController:
		if c, ok := ix.namespaceCause(r, s, c); ok {
			return c, causeParent
		}
		return cause{}, causeNone
	case ActorKubelet, ActorAPIServer:
		// A kubelet or the API server finishes what someone started;
		// when the start is not in the log, look for who had reason to.
		if c, ok := ix.ownerCause(r, s.ReceivedAt(), c); ok {
			return c, causeParent
		}
		if c, ok := ix.namespaceCause(r, s, c); ok {
			return c, causeParent
		}
		if c, ok := ix.apiServiceCause(r, c); ok {
			return c, causeParent
		}
		return cause{}, causeNone
	}
	return cause{actor: a, via: ViaRoot, detail: ix.maybeDryRun(r, s)}, causeRoot
}

// actorFor names who deleted r with s. kube-controller-manager without
// its own service accounts is named from what the request did: a
// deletecollection or a delete in a namespace being emptied is the
// namespace controller's, a delete of a dependent whose owner went the
// garbage collector's.
func (ix *index) actorFor(s *audit.Event, r *record) string {
	a := actor(s)
	if a != ActorControllerManager {
		return a
	}
	if s.Verb == "deletecollection" {
		return ActorNamespaceController
	}
	if _, ok := ix.ownerWent(r, s.ReceivedAt()); ok || ix.absentOwners(r) != "" {
		return ActorGarbageCollector
	}
	if ns := ix.namespaceRecord(r.key.namespace); ns != nil && ns != r && ns.start() != nil {
		return ActorNamespaceController
	}
	return a
}

// ownerCause ties a dependent to the owner whose going made the garbage
// collector delete it: the owner that started going last before it did.
func (ix *index) ownerCause(r *record, at time.Time, c cause) (cause, bool) {
	o, ok := ix.ownerWent(r, at)
	if !ok {
		return c, false
	}
	c.parent, c.via, c.evidence = o, ViaOwnerReference, r.ownersFrom
	return c, true
}

// ownerWent finds, among r's owners, the one whose deletion started last
// at or before at; an owner known only as gone (absent from the after
// snapshot, or from the before one) counts, with no start.
func (ix *index) ownerWent(r *record, at time.Time) (*record, bool) {
	var best *record
	var bestAt time.Time
	for _, ref := range r.owners {
		o := ix.ownerOf(r, ref.UID)
		if o == nil || o == r {
			continue
		}
		st, ok := ix.wentAt(o)
		if !ok {
			continue
		}
		// Owners that went before at win, the latest first; one that
		// went after at only when none did: API servers' clocks differ,
		// and a dependent's deletion never comes before its owner's.
		switch {
		case best == nil,
			!st.After(at) && (bestAt.After(at) || st.After(bestAt)),
			st.After(at) && bestAt.After(at) && st.Before(bestAt):
			best, bestAt = o, st
		}
	}
	return best, best != nil
}

// wentAt is when an object started going: its first accepted delete, or
// the deletecollection that swept it; an object known only as gone went
// at an unknown time (zero, ok).
func (ix *index) wentAt(r *record) (time.Time, bool) {
	if s := ix.sweepOrStart(r); s != nil {
		return s.ReceivedAt(), true
	}
	g := ix.gone(r)
	return time.Time{}, g && r.before != nil
}

// sweepOrStart is the request that started r going: its own, or the
// deletecollection of its type in its namespace.
func (ix *index) sweepOrStart(r *record) *audit.Event {
	if s := r.start(); s != nil {
		return s
	}
	if ix.gone(r) {
		return ix.collectionFor(r)
	}
	return nil
}

// namespaceCause ties an object to its namespace being deleted.
func (ix *index) namespaceCause(r *record, s *audit.Event, c cause) (cause, bool) {
	// Only a namespace being deleted makes the namespace controller
	// delete its content, so no clock is consulted: API servers' clocks
	// differ, and a response can be logged after the controller acted.
	ns := ix.namespaceRecord(r.key.namespace)
	if ns == nil || ns == r || ns.start() == nil {
		return c, false
	}
	c.parent, c.via = ns, ViaNamespace
	c.evidence = EvidenceAudit // the request itself names the namespace
	switch {
	case s.Verb == "deletecollection" && !r.sweptByID && len(r.events) > 0:
		c.detail = fmt.Sprintf("%s's deletecollection of %s in %s (audit ID %s) names no object; the object's own later requests name it there", actor(s), s.Object.Resource, r.key.namespace, s.AuditID)
	case s.Verb == "deletecollection" && !r.sweptByID:
		c.evidence = EvidenceSnapshot
		c.detail = fmt.Sprintf("no request names it: %s swept %s in %s (deletecollection, audit ID %s)", actor(s), s.Object.Resource, r.key.namespace, s.AuditID)
	}
	return c, true
}

// silentCause explains an object that went with no request naming it: a
// namespace's deletecollection, a CRD's storage delete, or an owner that
// went, known from the snapshots; nothing else is guessed.
func (ix *index) silentCause(r *record) (cause, causeFound) {
	if c, ok := ix.modelCause(r); ok {
		return c, causeParent
	}
	known := r.before != nil || r.createdInWindow()
	if !known || (!ix.gone(r) && !ix.startedSilently(r)) {
		return cause{}, causeNone
	}
	if crd := ix.crdOf(r); crd != nil {
		// The CRD finalizer deletes the instances through storage, with no
		// request: the tie is kgc's model of it.
		return cause{parent: crd, via: ViaCRD, evidence: EvidenceModel, actor: ActorAPIServer, likely: true,
			detail: "no request names it: the API server's CRD finalizer deletes every instance of a CRD, from storage, before the CRD goes"}, causeParent
	}
	swept := ix.sweptAt(r)
	c, says := ix.plannedCause(r, swept)
	if says == planDeletes {
		return c, causeParent
	}
	if o, ok := ix.ownerWent(r, farFuture); ok && says != planKeeps && ix.ownerFirst(o, r) {
		return cause{parent: o, via: ViaOwnerReference, evidence: r.ownersFrom, actor: ActorGarbageCollector, likely: true,
			detail: "no request names it (the audit policy did not log it): the garbage collector deletes the dependents of a deleted owner, and its owner's delete came before its namespace's"}, causeParent
	}
	why := ix.absentOwners(r)
	if why != "" && ix.madeBefore(r, swept) {
		// The collector deletes such an object as soon as it sees it.
		return absentRoot(why), causeRoot
	}
	if ns := ix.namespaceRecord(r.key.namespace); ns != nil && ns != r && ns.start() != nil {
		c := cause{parent: ns, via: ViaNamespace, evidence: EvidenceSnapshot, actor: ActorNamespaceController, likely: true}
		c.detail = DetailNotLogged
		if coll := ix.collectionFor(r); coll != nil {
			c.likely = false
			c.detail = fmt.Sprintf("no request names it: %s swept %s in %s (deletecollection, audit ID %s)", actor(coll), coll.Object.Resource, r.key.namespace, coll.AuditID)
		}
		return c, causeParent
	}
	// Its namespace did not take it: an owner that went did, even where
	// kgc's plan kept it (a finalizer the collector set, removed by hand).
	if o, ok := ix.ownerWent(r, farFuture); ok {
		return cause{parent: o, via: ViaOwnerReference, evidence: EvidenceSnapshot, actor: ActorGarbageCollector, likely: true,
			detail: "no request names it (the audit policy did not log it): the garbage collector deletes the dependents of a deleted owner"}, causeParent
	}
	if why != "" {
		return absentRoot(why), causeRoot
	}
	return cause{}, causeNone
}

// absentRoot is the garbage collector's root, with no request logged, of
// an object whose owners are absent for why.
func absentRoot(why string) cause {
	return cause{via: ViaRoot, evidence: EvidenceSnapshot, actor: ActorGarbageCollector, likely: true,
		detail: why + "; no request names its deletion (the audit policy did not log it)"}
}

// madeBefore: r was in the before snapshot, or made before at.
func (ix *index) madeBefore(r *record, at time.Time) bool {
	made, ok := r.madeAt()
	return r.before != nil || (ok && made.Before(at))
}

// sweptAt is when r's namespace, or a deletecollection of its type,
// started sweeping it, or far in the future.
func (ix *index) sweptAt(r *record) time.Time {
	at := farFuture
	if ns := ix.namespaceRecord(r.key.namespace); ns != nil && ns != r && ns.start() != nil {
		at = ns.start().ReceivedAt()
	}
	if coll := ix.collectionFor(r); coll != nil && coll.ReceivedAt().Before(at) {
		at = coll.ReceivedAt()
	}
	return at
}

// ownerFirst: o's logged DELETE, which deletes its dependents, came
// before any delete of r's namespace, so the collector took r first.
func (ix *index) ownerFirst(o, r *record) bool {
	if o.start() == nil || !ix.deletesDependents(o) {
		return false
	}
	ns := ix.namespaceRecord(r.key.namespace)
	return ns == nil || ns == r || ns.start() == nil || o.start().ReceivedAt().Before(ns.start().ReceivedAt())
}

// DetailNotLogged is the detail of a link no request shows, which the
// text output says in its actor column instead.
const DetailNotLogged = "no request names it (the audit policy did not log it)"

var farFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// collectionFor is the namespace controller's deletecollection of r's
// type in r's namespace, if logged.
func (ix *index) collectionFor(r *record) *audit.Event {
	ix.indexCollections()
	return ix.firstColl[collKey{r.key.typeKey, r.key.namespace}]
}

// indexCollections files, once, the first accepted deletecollection of
// each type in each namespace: collectionFor is asked for every object
// gone without a request of its own, and a map built once spares a walk
// of every deletecollection each time.
func (ix *index) indexCollections() {
	if ix.firstColl != nil {
		return
	}
	ix.firstColl = make(map[collKey]*audit.Event, len(ix.colls))
	for _, e := range ix.colls {
		k := collKeyOf(e)
		if _, ok := ix.firstColl[k]; !ok && accepted(e) {
			ix.firstColl[k] = e
		}
	}
}

// collKey names the deletecollections of one type in one namespace.
type collKey struct {
	typeKey
	namespace string
}

func collKeyOf(e *audit.Event) collKey {
	return collKey{typeKey{e.Object.APIGroup, e.Object.Resource}, e.Object.Namespace}
}

// crdOf is the CRD record of a custom resource, when it went.
func (ix *index) crdOf(r *record) *record {
	if r.key.group == "" {
		return nil
	}
	crd := ix.crdRecord(r)
	if crd == nil {
		return nil
	}
	if crd.start() == nil {
		if !ix.gone(crd) {
			return nil
		}
	}
	return crd
}

// apiServiceCause ties an APIService the API server removed to the CRD of
// its group that went: the API server registers an APIService for each
// group version its CRDs serve, and removes it when none serves it any
// more (kube-aggregator's autoregister controller). The tie is kgc's
// model of that controller, not something a request shows.
func (ix *index) apiServiceCause(r *record, c cause) (cause, bool) {
	if r.key.typeKey != (typeKey{"apiregistration.k8s.io", "apiservices"}) {
		return c, false
	}
	_, group, ok := strings.Cut(r.key.name, ".")
	if !ok {
		return c, false
	}
	for _, crd := range ix.all {
		if crd.key.typeKey != crdType || !strings.HasSuffix(crd.key.name, "."+group) {
			continue
		}
		if crd.start() != nil || ix.gone(crd) {
			c.parent, c.via, c.evidence = crd, ViaCRD, EvidenceModel
			c.detail = "the API server removes the APIService of a group version when no CRD serves it any more"
			return c, true
		}
	}
	return c, false
}

// crdType is the type of CustomResourceDefinitions.
var crdType = typeKey{"apiextensions.k8s.io", "customresourcedefinitions"}

// crdRecord is the record of the CRD that defines r's type, if known.
func (ix *index) crdRecord(r *record) *record {
	return ix.byKey[objKey{crdType, "", r.key.resource + "." + r.key.group}]
}

func (ix *index) namespaceRecord(ns string) *record {
	if ns == "" {
		return nil
	}
	return ix.byKey[objKey{typeKey{"", "namespaces"}, "", ns}]
}
