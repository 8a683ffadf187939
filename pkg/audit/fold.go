package audit

import (
	"iter"
	"time"

	"github.com/kgc-dev/kgc/internal/parallel"
)

// This file folds, when Options.Fold asks, an object's creates, updates
// and patches that no post-mortem reads. A post-mortem reads of an
// object's writes only: its latest logged state (owner references,
// finalizers, deletion, kind), the first owner references logged, the
// UIDs that tell its incarnations apart, the first kind logged for each
// type, and every write from when its deletion may have started
// (a delete or eviction of its name, a deletecollection of its type in
// its namespace, a deletion timestamp), the garbage collector's and an
// orphaning or finalizer-removing patch whenever they come. The others
// are most of a log's writes: status-like updates of objects that live
// on, which a log of millions of events holds by the hundred thousand.
// They are counted as kept in their file; only their memory goes.
//
// What a post-mortem reads of a write is defined in pkg/postmortem's
// records.go (index.file, learnMeta, recordFor): a read added there is a
// rule to add here. pkg/postmortem's fold_test.go proves the two agree:
// TestFoldKeepsWhatAPostMortemReads, a log per rule of foldMask in which
// the write it keeps decides the post-mortem, and TestFoldChangesNothing,
// a generated log, each analyzed folded and not.

// GarbageCollectorUser is the garbage collector's user: its writes are
// orphanings, never folded.
const GarbageCollectorUser = "system:serviceaccount:kube-system:generic-garbage-collector"

// foldKey names an object as a post-mortem files it: a namespace's own
// objectRef may name it as its namespace.
type foldKey struct {
	group, resource, namespace, name string
}

func foldKeyOf(e *Event) foldKey {
	k := foldKey{e.Object.APIGroup, e.Object.Resource, e.Object.Namespace, e.Object.Name}
	if k.group == "" && k.resource == "namespaces" {
		k.namespace = ""
	}
	return k
}

// collScope is one type in one namespace, as a deletecollection sweeps.
type collScope struct {
	group, resource, namespace string
}

// run is a stretch of an object's requests showing one UID (or none):
// what a post-mortem files under one incarnation.
type run struct {
	uid              string
	lastMeta, lastKd int // the latest write whose state or kind it reads; -1 when none
	ownersSeen       bool
}

type foldObject struct {
	run     run
	started bool // a delete or eviction of its name came
}

// fold reports, for events in stageTimestamp order, which ones a
// post-mortem reads; the rest can go. Every rule but the first kind of
// a type is about one object, so the objects are folded a share per
// core: each share reads its objects' requests in order, as one loop
// over every request would.
func foldMask(evs []*Event) []bool { return foldShares(evs, parallel.Parts(len(evs))) }

// foldShares is foldMask with the requests scanned in n stretches, and
// their objects folded in n shares.
func foldShares(evs []*Event, n int) []bool {
	keep := make([]bool, len(evs))
	sweeps := sweepsFrom(evs)
	scans := make([]foldScan, n)
	parallel.Do(n, func(_, from, to int) {
		for p := from; p < to; p++ {
			scans[p] = scanStretch(evs, len(evs)*p/n, len(evs)*(p+1)/n, n, keep)
		}
	})
	keepFirstKinds(scans, keep)
	parallel.Do(n, func(_, from, to int) {
		for share := from; share < to; share++ {
			foldObjects(evs, scans, share, sweeps, keep)
		}
	})
	return keep
}

// foldScan is what a stretch of consecutive requests holds: the first
// request of each type to show its kind, and the requests that name an
// object, by share, each in order.
type foldScan struct {
	firstKinds map[[2]string]int
	shares     [][]int32
}

// scanStretch scans the requests [from, to) for foldScan, into n shares:
// an object's requests share its name, which picks the share. A request
// that names no object is kept.
func scanStretch(evs []*Event, from, to, n int, keep []bool) foldScan {
	sc := foldScan{firstKinds: map[[2]string]int{}, shares: make([][]int32, n)}
	for i := from; i < to; i++ {
		e := evs[i]
		t := [2]string{e.Object.APIGroup, e.Object.Resource}
		if _, ok := sc.firstKinds[t]; !ok && showsKind(e) {
			sc.firstKinds[t] = i
		}
		if e.Object.Name == "" {
			keep[i] = true
			continue
		}
		s := 0
		if n > 1 {
			s = int(fnv1a(e.Object.Name) % uint32(n))
		}
		sc.shares[s] = append(sc.shares[s], int32(i))
	}
	return sc
}

// keepFirstKinds keeps the first request of each type to show its kind,
// which a post-mortem learns the type's kind from: the first in the
// first stretch that has one.
func keepFirstKinds(scans []foldScan, keep []bool) {
	learned := map[[2]string]bool{}
	for _, sc := range scans {
		for t, i := range sc.firstKinds {
			if !learned[t] {
				learned[t] = true
				keep[i] = true
			}
		}
	}
}

// fnv1a is the 32-bit FNV-1a hash of s: cheap, and the same on every run.
func fnv1a(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}

// foldObjects marks in keep which of the requests of a share (every
// request of its objects, stretch after stretch, each in order) a
// post-mortem reads, for their objects' sake.
func foldObjects(evs []*Event, scans []foldScan, share int, sweeps map[collScope]sweep, keep []bool) {
	objs := map[foldKey]*foldObject{}
	end := func(r *run) {
		for _, i := range []int{r.lastMeta, r.lastKd} {
			if i >= 0 {
				keep[i] = true
			}
		}
	}
	for i32 := range shareOf(scans, share) {
		i := int(i32)
		e := evs[i]
		k := foldKeyOf(e)
		o := objs[k]
		uid := e.ObjectUID()
		switch {
		case o == nil:
			o = &foldObject{run: run{uid: uid, lastMeta: -1, lastKd: -1}}
			objs[k] = o
			keep[i] = true
		case uid != o.run.uid:
			end(&o.run)
			o.run = run{uid: uid, lastMeta: -1, lastKd: -1}
			keep[i] = true
		}
		if startsDeleting(e) {
			o.started = true
		}
		if o.started || !foldable(e, sweeps) {
			keep[i] = true
			continue
		}
		m := e.ObjectState()
		if m == nil {
			continue
		}
		o.run.lastMeta = i
		if ObjectKind(m.APIVersion, m.Kind) {
			o.run.lastKd = i
		}
		if len(m.OwnerReferences) > 0 && !o.run.ownersSeen {
			o.run.ownersSeen = true
			keep[i] = true
		}
	}
	for _, o := range objs {
		end(&o.run)
	}
}

// sweep is the earliest deletecollection of a type in a namespace, by
// stageTimestamp and by the time the API server received it.
type sweep struct{ at, received time.Time }

// sweepsFrom finds the first deletecollection of every type in every
// namespace, and in every namespace its response lists an item of.
func sweepsFrom(evs []*Event) map[collScope]sweep {
	out := map[collScope]sweep{}
	add := func(s collScope, e *Event) {
		w, ok := out[s]
		if !ok || e.Time.Before(w.at) {
			w.at = e.Time
		}
		if r := e.ReceivedAt(); !ok || r.Before(w.received) {
			w.received = r
		}
		out[s] = w
	}
	for _, e := range evs {
		if e.Verb != "deletecollection" {
			continue
		}
		add(collScope{e.Object.APIGroup, e.Object.Resource, e.Object.Namespace}, e)
		if e.Response != nil {
			for _, it := range e.Response.ListItems() {
				add(collScope{e.Object.APIGroup, e.Object.Resource, it.Namespace}, e)
			}
		}
	}
	return out
}

// foldable: a create, update or patch of the object itself, by anyone
// but the garbage collector, that neither orphans nor removes a
// finalizer, shows no deletion, and came before any sweep of its type
// in its namespace.
func foldable(e *Event, sweeps map[collScope]sweep) bool {
	switch e.Verb {
	case "create", "update", "patch":
	default:
		return false
	}
	if e.Object.Subresource != "" || e.User.Username == GarbageCollectorUser || (e.ImpersonatedUser != nil && e.ImpersonatedUser.Username == GarbageCollectorUser) {
		return false
	}
	for _, m := range []*Meta{e.Request, e.Response} {
		if m != nil && (m.DeletionTimestamp != nil || m.Removes()) {
			return false
		}
	}
	for _, ns := range []string{e.Object.Namespace, ""} {
		if w, ok := sweeps[collScope{e.Object.APIGroup, e.Object.Resource, ns}]; ok && (!e.Time.Before(w.at) || !e.ReceivedAt().Before(w.received)) {
			return false
		}
	}
	return true
}

// startsDeleting: a delete or an eviction of the object's name.
func startsDeleting(e *Event) bool {
	return deleteVerb(e.Verb) || (e.Verb == "create" && e.Object.Subresource == "eviction")
}

// showsKind: the request's response or request object says its kind.
func showsKind(e *Event) bool {
	for _, m := range []*Meta{e.Response, e.Request} {
		if m != nil && ObjectKind(m.APIVersion, m.Kind) {
			return true
		}
	}
	return false
}

// shareOf yields the requests of a share, stretch after stretch.
func shareOf(scans []foldScan, share int) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		for _, sc := range scans {
			for _, i := range sc.shares[share] {
				if !yield(i) {
					return
				}
			}
		}
	}
}
