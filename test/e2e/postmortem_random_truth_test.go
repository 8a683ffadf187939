package e2e

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// pmCause is who started an object's going, and from which root object:
// a person's request (Person is the name they acted as), or the garbage
// collector on its own (Person "garbagecollector", Root the object).
type pmCause struct {
	Person string
	Root   int
}

// pmTruth is what the test knows of one object, independently of kgc.
type pmTruth struct {
	Cause pmCause // Person "" and Root -1: nothing started its going
	Fate  string  // deleted, orphaned, terminating, exists
	// OrphanedBy: the object was orphaned in the first phase by another
	// chain than the one that later started its going.
	OrphanedBy *pmCause
	// Why says how the test knows (its reading of the audit log).
	Why string
	// Premise: the test could not establish the truth (a scenario the
	// generator should not make); the object is reported, not compared.
	Premise string
}

// pmStart is the request that started an object's going, as the test reads
// the audit log: the first successful, not dry-run DELETE naming it or
// deletecollection of its resource in its namespace, by receipt.
type pmStart struct {
	At      time.Time
	User    string // the effective user (impersonated, if any)
	Verb    string
	AuditID string
}

// pmLogEvent is the part of an event the test's own reading needs beyond
// framework.AuditEvent.
type pmLogEvent struct {
	RequestReceivedTimestamp time.Time `json:"requestReceivedTimestamp"`
	RequestObject            struct {
		DryRun []string `json:"dryRun"`
	} `json:"requestObject"`
}

// dryRun reports whether a request was a server dry run: DeleteOptions'
// dryRun, or dryRun in the URI's query.
func dryRun(e framework.AuditEvent) (bool, time.Time) {
	var x pmLogEvent
	_ = json.Unmarshal(e.Raw, &x)
	if len(x.RequestObject.DryRun) > 0 {
		return true, x.RequestReceivedTimestamp
	}
	if u, err := url.Parse(e.RequestURI); err == nil && len(u.Query()["dryRun"]) > 0 {
		return true, x.RequestReceivedTimestamp
	}
	return false, x.RequestReceivedTimestamp
}

// pmReading is the test's own reading of the window's audit log.
type pmReading struct {
	starts      map[string]pmStart // group/resource/ns/name
	collections map[string][]pmStart
	dryRunIDs   map[string]string // auditID: what
}

func readPMLog(events []framework.AuditEvent) pmReading {
	rd := pmReading{starts: map[string]pmStart{}, collections: map[string][]pmStart{}, dryRunIDs: map[string]string{}}
	for _, e := range events {
		r := e.ObjectRef
		if r == nil || r.Subresource != "" || (e.Verb != "delete" && e.Verb != "deletecollection") {
			continue
		}
		dry, received := dryRun(e)
		if dry {
			rd.dryRunIDs[e.AuditID] = fmt.Sprintf("%s dry-run %s %s %s/%s", e.Actor(), e.Verb, r.Resource, r.Namespace, r.Name)
			continue
		}
		if e.Stage != "ResponseComplete" || e.ResponseStatus == nil || e.ResponseStatus.Code < 200 || e.ResponseStatus.Code > 299 {
			continue
		}
		st := pmStart{At: received, User: e.Actor(), Verb: e.Verb, AuditID: e.AuditID}
		key := r.APIGroup + "/" + r.Resource + "/" + r.Namespace + "/" + r.Name
		if e.Verb == "deletecollection" {
			rd.collections[key] = append(rd.collections[key], st)
			continue
		}
		if cur, ok := rd.starts[key]; !ok || st.At.Before(cur.At) {
			rd.starts[key] = st
		}
	}
	return rd
}

// start is the first request that started object i's going, if any.
func (b *pmBatch) start(rd pmReading, i int) (pmStart, bool) {
	o := b.Objs[i]
	gvr := b.gvr(i)
	ns := o.ns
	if o.Kind == kNamespace {
		ns = o.name // the API server's request info names a namespace's namespace after it
	}
	st, ok := rd.starts[gvr.Group+"/"+gvr.Resource+"/"+ns+"/"+o.name]
	if o.ns != "" {
		for _, c := range rd.collections[gvr.Group+"/"+gvr.Resource+"/"+o.ns+"/"] {
			if c.At.Before(b.createdTime[i]) {
				continue
			}
			if !ok || c.At.Before(st.At) {
				st, ok = c, true
			}
		}
	}
	return st, ok
}

// pmTruthTable derives every object's truth from the test's reading of the
// log and the settled states: before the window, after the first phase
// (mid) and at the end.
type pmTruthTable struct {
	b       *pmBatch
	rd      pmReading
	causes  map[int]*pmCause
	whys    map[int]string
	premise map[int]string
}

func (b *pmBatch) truth(rd pmReading, mid, after map[string]framework.ObjState) map[int]pmTruth {
	tt := &pmTruthTable{b: b, rd: rd, causes: map[int]*pmCause{}, whys: map[int]string{}, premise: map[int]string{}}
	out := map[int]pmTruth{}
	for i, o := range b.Objs {
		if o.uid == "" {
			continue // never created: its act failed, reported with the batch
		}
		tr := pmTruth{Cause: pmCause{Root: -1}, Fate: b.fate(i, after)}
		switch tr.Fate {
		case "deleted", "terminating":
			c := tt.cause(i, 0)
			if c == nil {
				tr.Premise = fmt.Sprintf("%s, and the test finds no request that started it in the log", tr.Fate)
			} else {
				tr.Cause = *c
			}
			if oc := tt.orphaning(i, mid); oc != nil && c != nil && oc.Root != c.Root {
				tr.OrphanedBy = oc
			}
		case "orphaned":
			if oc := tt.orphaning(i, after); oc != nil {
				tr.Cause = *oc
			} else {
				tr.Premise = "orphaned, and the test finds none of its lost owners' going in the log"
			}
		}
		tr.Why = tt.whys[i]
		if p := tt.premise[i]; p != "" && tr.Premise == "" {
			tr.Premise = p
		}
		out[i] = tr
	}
	return out
}

// fate is the object's fate in the end state.
func (b *pmBatch) fate(i int, states map[string]framework.ObjState) string {
	o := b.Objs[i]
	s, ok := states[o.uid]
	switch {
	case !ok:
		return "deleted"
	case s.Terminating:
		return "terminating"
	case len(s.OwnerUIDs) < b.refCount(i):
		return "orphaned"
	}
	return "exists"
}

func (b *pmBatch) refCount(i int) int {
	o := b.Objs[i]
	n := len(o.Owners)
	if o.Cross >= 0 || o.Ghost {
		n++
	}
	return n
}

// cause attributes object i's going: a person's request names it, or the
// namespace controller swept its namespace (the namespace's cause), or the
// garbage collector deleted it (the cause of its owner that went first;
// on its own when no owner of it, in the collector's sense, went), or its
// CRD went (the CRD's cause).
func (tt *pmTruthTable) cause(i, depth int) *pmCause {
	if c, ok := tt.causes[i]; ok {
		return c
	}
	b := tt.b
	o := b.Objs[i]
	var c *pmCause
	st, ok := b.start(tt.rd, i)
	switch {
	case !ok && o.Kind == kSprocket && b.CRD >= 0:
		if cc := tt.cause(b.CRD, depth+1); cc != nil {
			c = cc
			tt.whys[i] = "no request names it; its CRD went"
		}
	case !ok || depth > len(b.Objs):
	default:
		actor := framework.Actor(st.User)
		tt.whys[i] = fmt.Sprintf("first %s by %s at %s (audit ID %s)", st.Verb, st.User, st.At.Format("15:04:05.000"), st.AuditID)
		switch actor {
		case "user":
			c = &pmCause{Person: st.User, Root: i}
		case "namespace-controller":
			c = tt.cause(b.nsOf(i), depth+1)
		case "garbagecollector":
			c = tt.gcCause(i, st, depth)
		case "apiserver":
			if o.Kind == kAPIService && b.CRD >= 0 {
				c = tt.cause(b.CRD, depth+1) // autoregister follows the CRD
			} else {
				tt.premise[i] = "deleted by the API server, which the test does not expect"
			}
		default:
			tt.premise[i] = "started by " + st.User + ", whom the test does not expect"
		}
	}
	tt.causes[i] = c
	return c
}

// gcCause: the collector deletes a dependent once every owner of it (in
// its sense: same namespace, or cluster scope) is gone or being deleted, so
// the owner whose going started last before the collector's DELETE made it
// act (an owner whose reference it had removed before went earlier). None:
// the collector on its own.
func (tt *pmTruthTable) gcCause(i int, st pmStart, depth int) *pmCause {
	b := tt.b
	best, bestAt, later := -1, time.Time{}, -1
	for _, ow := range b.Objs[i].Owners {
		ost, ok := b.start(tt.rd, ow)
		switch {
		case !ok:
		case ost.At.After(st.At):
			later = ow
		case best < 0 || ost.At.After(bestAt):
			best, bestAt = ow, ost.At
		}
	}
	if best < 0 {
		if later >= 0 {
			tt.premise[i] = fmt.Sprintf("deleted by the garbage collector before its owner %s went", b.Objs[later].ID)
		} else if len(b.Objs[i].Owners) > 0 {
			tt.premise[i] = "deleted by the garbage collector though none of its owners went"
		}
		tt.whys[i] += "; no owner of it in its namespace: the collector on its own"
		return &pmCause{Person: "garbagecollector", Root: i}
	}
	tt.whys[i] += "; its owner " + b.Objs[best].ID + " went last before it"
	return tt.cause(best, depth+1)
}

// orphaning: object i lost owner references by the time of states; the
// cause of the lost owner that went first.
func (tt *pmTruthTable) orphaning(i int, states map[string]framework.ObjState) *pmCause {
	b := tt.b
	s, ok := states[b.Objs[i].uid]
	if !ok || len(s.OwnerUIDs) >= b.refCount(i) {
		return nil
	}
	best, bestAt := -1, time.Time{}
	owners := b.Objs[i].Owners
	if c := b.Objs[i].Cross; c >= 0 {
		// The collector's graph is keyed by UID: an owner in another
		// namespace that is deleted with Orphan has its reference removed
		// from this dependent too, if the collector gets there first.
		owners = append(slices.Clone(owners), c)
	}
	for _, ow := range owners {
		if slices.Contains(s.OwnerUIDs, b.Objs[ow].uid) {
			continue
		}
		if ost, ok := b.start(tt.rd, ow); ok && (best < 0 || ost.At.Before(bestAt)) {
			best, bestAt = ow, ost.At
		}
	}
	if best < 0 {
		return nil
	}
	if tt.whys[i] == "" {
		tt.whys[i] = "lost its owner reference to " + b.Objs[best].ID + ", which went"
	} else {
		tt.whys[i] += "; earlier lost its owner reference to " + b.Objs[best].ID
	}
	return tt.cause(best, 0)
}

// nsOf is the index of object i's Namespace object.
func (b *pmBatch) nsOf(i int) int {
	w := b.Worlds[b.Objs[i].World]
	if b.Objs[i].Second {
		return w.Second
	}
	return w.Namespace
}

// causeString renders a cause for reports.
func (b *pmBatch) causeString(c pmCause) string {
	switch {
	case c.Person == "" && c.Root < 0:
		return "no one"
	case c.Root < 0:
		return c.Person + "'s request of nothing the test knows"
	case c.Person == "garbagecollector":
		return "the garbage collector on its own"
	}
	return fmt.Sprintf("%s's delete of %s %s", c.Person, b.Objs[c.Root].Kind, b.where(c.Root))
}

func (b *pmBatch) truthString(t pmTruth) string {
	s := fmt.Sprintf("%s, started by %s", t.Fate, b.causeString(t.Cause))
	if t.Fate == "exists" {
		s = "exists, untouched"
	}
	if t.OrphanedBy != nil {
		s += fmt.Sprintf("; orphaned first by %s", b.causeString(*t.OrphanedBy))
	}
	return s
}
