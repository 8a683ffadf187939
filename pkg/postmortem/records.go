package postmortem

import (
	"cmp"
	"slices"
	"time"

	"github.com/kgc-dev/kgc/internal/parallel"
	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// objKey names an object as audit events do.
type objKey struct {
	typeKey
	namespace, name string
}

// record is everything known of one object (one incarnation: an object
// deleted and created again under its name is two records).
type record struct {
	key objKey
	uid string
	// apiVersion and kind name the object's type in its ref (see ref):
	// a log of millions of events files hundreds of thousands of
	// records, which would otherwise hold their names twice.
	apiVersion, kind string
	// owners and where they are known from: EvidenceAudit when the log
	// showed them (learnMeta, fileItems), else EvidenceSnapshot.
	owners     []audit.OwnerRef
	ownersFrom string
	before     *snapshot.Object
	after      *snapshot.Object
	events     []*audit.Event
	// sweep is the deletecollection that removed the object, when no
	// event names it.
	sweep *audit.Event
	// lastMeta is the latest logged state of the object.
	lastMeta *audit.Meta
	// started caches start(), which every sort and walk asks for; it is
	// valid while startKnown, reset when an event or a sweep is filed.
	started    *audit.Event
	startKnown bool
	sweptByID  bool // the deletecollection's response listed it
	// cause is what deleted the object, once caused is set (buildChains):
	// held here rather than in a map by record, which on a log of
	// millions of events would be twice the size.
	cause  cause
	caused bool
}

func (r *record) setCause(c cause) { r.cause, r.caused = c, true }

// ref names the object as the document does.
func (r *record) ref() snapshot.ObjectRef {
	return snapshot.ObjectRef{APIVersion: r.apiVersion, Kind: r.kind, Namespace: r.key.namespace, Name: r.key.name, UID: r.uid}
}

// setType sets the type the object's ref names.
func (r *record) setType(apiVersion, kind string) { r.apiVersion, r.kind = apiVersion, kind }

// index files every object the snapshots and the log know.
type index struct {
	kinds *kinds
	// byKey is the latest incarnation of each name: all that is asked
	// of it, and a slice per name would hold hundreds of thousands more.
	byKey map[objKey]*record
	byUID map[string]*record
	// foreign are the owners a dependent names by a UID that an object
	// of another namespace holds, by the dependent's namespace and the
	// UID: not that object (see ownerOf).
	foreign map[[2]string]*record
	all     []*record
	colls   []*audit.Event // deletecollections, in time order
	// dryRuns are the requests sent with dryRun=All, in time order:
	// filed apart, so that no chain ever reads them.
	dryRuns []*audit.Event
	// firstColl is the first accepted deletecollection of each type in
	// each namespace, built from colls when first asked.
	firstColl map[collKey]*audit.Event
	before    *snapshot.Snapshot
	after     *snapshot.Snapshot
	// logFrom is when the whole log begins (every part's alike).
	logFrom time.Time
	// plans and released are kgc's model of the collector for objects no
	// request names (planned.go), built when first asked.
	plans    map[planKey]map[string]plan.ObjectFate
	released map[time.Time]*snapshot.Snapshot
	// gcEvents are the Events the garbage collector created, by
	// namespace and the name of the object they are about (absent.go).
	gcEvents map[[2]string]*audit.Event
}

// share is which objects of the before and after snapshots an index
// files, by their place in each: a part of a spilled log holds those of
// its namespaces. A nil share holds every object.
type share struct{ before, after []int32 }

// objects yields the objects of s the share holds, in s's order.
func (sh *share) objects(s *snapshot.Snapshot, of []int32) func(func(*snapshot.Object) bool) {
	return func(yield func(*snapshot.Object) bool) {
		if s == nil {
			return
		}
		if sh == nil {
			for i := range s.Objects {
				if !yield(&s.Objects[i]) {
					return
				}
			}
			return
		}
		for _, i := range of {
			if !yield(&s.Objects[i]) {
				return
			}
		}
	}
}

// newIndex files the snapshots' objects sh holds; events is how many
// events will be filed, to size the maps once.
func newIndex(k *kinds, before, after *snapshot.Snapshot, events int, sh *share) *index {
	n := events / 2
	switch {
	case sh != nil:
		n += len(sh.before) + len(sh.after)
	default:
		for _, s := range []*snapshot.Snapshot{before, after} {
			if s != nil {
				n += len(s.Objects)
			}
		}
	}
	ix := &index{kinds: k, byKey: make(map[objKey]*record, n), byUID: make(map[string]*record, n),
		foreign: map[[2]string]*record{}, before: before, after: after}
	var ofBefore, ofAfter []int32
	if sh != nil {
		ofBefore, ofAfter = sh.before, sh.after
	}
	for o := range sh.objects(before, ofBefore) {
		if r := ix.fromSnapshot(o); r != nil {
			r.before = o
			r.owners, r.ownersFrom = ownersOf(o), EvidenceSnapshot
		}
	}
	for o := range sh.objects(after, ofAfter) {
		if r := ix.fromSnapshot(o); r != nil {
			r.after = o
			if r.ownersFrom == "" {
				r.owners, r.ownersFrom = ownersOf(o), EvidenceSnapshot
			}
		}
	}
	return ix
}

func (ix *index) fromSnapshot(o *snapshot.Object) *record {
	t, ok := ix.kinds.typeOf(o.APIVersion, o.Kind)
	if !ok {
		return nil
	}
	key := objKey{t, o.Metadata.Namespace, o.Metadata.Name}
	if r := ix.byUID[o.Metadata.UID]; r != nil && o.Metadata.UID != "" {
		return r
	}
	r := ix.add(key, o.Metadata.UID)
	r.setType(o.APIVersion, o.Kind)
	return r
}

func (ix *index) add(key objKey, uid string) *record {
	r := &record{key: key, uid: uid}
	r.setType(ix.kinds.typeRef(key.typeKey, ""))
	ix.byKey[key] = r
	switch held := ix.byUID[uid]; {
	case uid == "":
	case held != nil && rules.InvalidOwnerNamespace(held.key.namespace, key.namespace):
		ix.foreign[[2]string{key.namespace, uid}] = r
	default:
		ix.byUID[uid] = r
	}
	ix.all = append(ix.all, r)
	return r
}

// ownerOf is the owner a dependent's reference names by uid, as the
// garbage collector finds it: an object holding the UID in another
// namespace is not it (upstream's addDependentToOwners looks a namespaced
// dependent's owner up in its own namespace, or the cluster's), so that
// such an owner is one of its own, absent, whatever else the log holds.
func (ix *index) ownerOf(dependent *record, uid string) *record {
	if o := ix.byUID[uid]; o != nil && !rules.InvalidOwnerNamespace(o.key.namespace, dependent.key.namespace) {
		return o
	}
	return ix.foreign[[2]string{dependent.key.namespace, uid}]
}

// ownersOf is a snapshot object's owner references, shared: read-only.
func ownersOf(o *snapshot.Object) []audit.OwnerRef { return o.Metadata.OwnerReferences }

// file attaches an event to the object it is about. What it and
// learnMeta read of a create, update or patch is what audit's foldMask
// keeps of an object's writes (audit/fold.go), which the command folds by
// default: reading more here needs a rule there, and fold_test.go's
// TestFoldKeepsWhatAPostMortemReads a case for it.
func (ix *index) file(e *audit.Event) {
	t := typeKey{e.Object.APIGroup, e.Object.Resource}
	for _, m := range []*audit.Meta{e.Response, e.Request} {
		if m != nil {
			ix.kinds.learn(t, m.APIVersion, m.Kind)
		}
	}
	if e.DryRun() {
		ix.dryRuns = append(ix.dryRuns, e)
		return
	}
	if e.Verb == "deletecollection" {
		ix.colls = append(ix.colls, e)
		ix.firstColl = nil
		ix.fileItems(e, t)
		return
	}
	if e.Object.Name == "" {
		return
	}
	key := eventKey(e)
	if e.Code == audit.CodeNotFound && !deletes(e) {
		// A write that found no object says only that a known one was
		// gone by then.
		if r := ix.byKey[key]; r != nil {
			r.events = append(r.events, e)
		}
		return
	}
	r := ix.recordFor(key, e.ObjectUID(), e.Verb == "create" && e.Object.Subresource == "")
	r.events = append(r.events, e)
	r.startKnown = false
	ix.learnMeta(r, e)
}

// fileItems names the objects a deletecollection's response listed.
func (ix *index) fileItems(e *audit.Event, t typeKey) {
	if e.Response == nil {
		return
	}
	items := e.Response.ListItems()
	for i := range items {
		it := &items[i]
		r := ix.recordFor(objKey{t, it.Namespace, it.Name}, it.UID, false)
		r.sweep, r.sweptByID, r.startKnown = e, true, false
		r.lastMeta = it
		if len(it.OwnerReferences) > 0 {
			r.owners, r.ownersFrom = it.OwnerReferences, EvidenceAudit
		}
	}
}

// recordFor finds the incarnation an event is about: by UID when it says,
// else the latest of its name; a create starts a new one once the last is
// gone.
func (ix *index) recordFor(key objKey, uid string, create bool) *record {
	if uid != "" {
		if r := ix.byUID[uid]; r != nil {
			return r
		}
	}
	if last := ix.byKey[key]; last != nil {
		switch {
		case last.uid == "" && uid != "":
			last.uid = uid
			ix.byUID[uid] = last
			return last
		case uid == "" && (!create || !last.startedDeleting()):
			return last
		}
	}
	return ix.add(key, uid)
}

// learnMeta keeps the latest logged state, and the owner references a
// logged object shows: evidence from the log itself.
func (ix *index) learnMeta(r *record, e *audit.Event) {
	m := e.ObjectState()
	if m == nil || (e.Code >= 400) {
		return
	}
	r.lastMeta = m
	if audit.ObjectKind(m.APIVersion, m.Kind) {
		r.setType(m.APIVersion, m.Kind)
	}
	if len(m.OwnerReferences) > 0 && r.ownersFrom != EvidenceAudit {
		r.owners, r.ownersFrom = m.OwnerReferences, EvidenceAudit
	}
}

// attachSweeps ties a pod whose first logged DELETE is its kubelet's to
// the deletecollection of its type in its namespace that came before it
// (at Metadata level the collection names no object): the namespace
// controller started that pod's deletion, its kubelet finished it.
func (ix *index) attachSweeps() {
	// Each record's start is found a share of records per core first, as
	// sortedRecords places them: it walks the record's requests, and is
	// cached on the record, which only its share touches.
	parallel.Do(len(ix.all), func(_, from, to int) {
		for _, r := range ix.all[from:to] {
			r.start()
		}
	})
	for _, r := range ix.all {
		s := r.start()
		if s == nil || r.sweep != nil || actor(s) != ActorKubelet {
			continue
		}
		if c := ix.collectionFor(r); c != nil && !c.ReceivedAt().After(s.ReceivedAt()) {
			r.sweep, r.startKnown = c, false
		}
	}
}

// startedDeleting reports whether an accepted request started deleting r.
func (r *record) startedDeleting() bool { return r.start() != nil }

// start is the first accepted request that deleted, evicted or swept the
// object. A kubelet's DELETE finishes a pod someone else started
// deleting, so it is the start only when no other request is logged.
func (r *record) start() *audit.Event {
	if !r.startKnown {
		r.started, r.startKnown = r.findStart(), true
	}
	return r.started
}

func (r *record) findStart() *audit.Event {
	var kubelet *audit.Event
	for _, e := range r.events {
		if !accepted(e) || !deletes(e) {
			continue
		}
		if actor(e) != ActorKubelet {
			return e
		}
		if kubelet == nil {
			kubelet = e
		}
	}
	if r.sweep != nil {
		return r.sweep
	}
	return kubelet
}

// deletes reports whether an event is a request to delete its object.
func deletes(e *audit.Event) bool {
	return (e.Verb == "delete" && e.Object.Subresource == "") ||
		(e.Verb == "create" && e.Object.Subresource == "eviction")
}

// accepted: the request was not refused and was not a dry run. An event
// logged before its response (no code) counts as accepted: the log cannot
// say otherwise.
func accepted(e *audit.Event) bool { return e.Code < 300 && !e.DryRun() }

// sortedRecords lists records in the order of roots in the document
// (rootStart), for deterministic walks.
func sortedRecords(rs []*record) []*record {
	// Each record's place is read once, not at every comparison, and
	// ties keep the records' order, as a stable sort would. The places
	// are read a share of records per core: finding a record's start
	// walks its requests (and caches it on the record, which only its
	// share touches).
	type placed struct {
		at rootStart
		i  int
	}
	ps := make([]placed, len(rs))
	parallel.Do(len(rs), func(_, from, to int) {
		for i := from; i < to; i++ {
			ps[i] = placed{rootStart{rs[i].startTime(), rs[i].ref()}, i}
		}
	})
	slices.SortFunc(ps, func(a, b placed) int {
		if c := a.at.compare(b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	out := make([]*record, len(rs))
	for j, p := range ps {
		out[j] = rs[p.i]
	}
	return out
}

func (r *record) startTime() time.Time {
	if s := r.start(); s != nil {
		return s.Time
	}
	return time.Time{}
}

// eventKey names the object an event is about: the API server names a
// namespace's own namespace in its objectRef.
func eventKey(e *audit.Event) objKey {
	t := typeKey{e.Object.APIGroup, e.Object.Resource}
	ns := e.Object.Namespace
	if t == namespaceType {
		ns = ""
	}
	return objKey{t, ns, e.Object.Name}
}
