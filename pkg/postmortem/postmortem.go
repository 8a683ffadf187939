package postmortem

import (
	"cmp"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Input is what a post-mortem reads.
type Input struct {
	Log *audit.Log
	// Before and After are snapshots taken before and after the window;
	// either may be nil. BeforeName and AfterName say where they came
	// from, for the document.
	Before, After         *snapshot.Snapshot
	BeforeName, AfterName string
	Scope                 Scope
	PolicyFindings        []audit.PolicyFinding
	// Predict plans every root request on the before snapshot and
	// compares the plan with what happened.
	Predict bool
	// WhyStuck says, in one line, why an object of the after snapshot is
	// still terminating; nil when there is no after snapshot to diagnose.
	WhyStuck func(uid string) string
	// ApplyReports are kgc apply reports whose requests the log's root
	// requests are joined to by audit ID.
	ApplyReports []ApplyReport
}

// Scope says which chains to report: those touching an object, a
// namespace, or all of them.
type Scope struct {
	Namespace string
	// Object, when set, keeps the chain that holds it (matched by UID, or
	// by kind, namespace and name).
	Object *snapshot.ObjectRef
}

// Analyze rebuilds the chains of deletions the log shows.
func Analyze(in Input) *PostMortem {
	k := newKinds(in.Before, in.After)
	ix := newIndex(k, in.Before, in.After, len(in.Log.Events))
	for i := range in.Log.Events {
		ix.file(&in.Log.Events[i])
	}
	ix.attachSweeps()
	ch := buildChains(ix)
	pm := &PostMortem{APIVersion: snapshot.APIVersion, Kind: Kind, Before: in.BeforeName, After: in.AfterName,
		Roots: []Root{}, Unexplained: []Unexplained{}, StillGoing: []StillGoing{}, PolicyFindings: in.PolicyFindings}
	pm.Window = window(in.Log)
	for _, root := range ch.rootDocs() {
		if !in.Scope.keeps(&root) {
			continue
		}
		if in.Predict && in.Before != nil {
			root.Prediction = predict(in.Before, &root, ix, in.WhyStuck)
		}
		pm.Roots = append(pm.Roots, root)
	}
	slices.SortStableFunc(pm.Roots, func(a, b Root) int {
		if c := a.Request.Time.Compare(b.Request.Time); c != 0 {
			return c
		}
		return a.Request.Object.Compare(b.Request.Object.ObjectRef)
	})
	pm.Unexplained = ch.explainRest(in.Scope)
	pm.StillGoing = stillGoing(pm.Roots, ix, in.WhyStuck)
	pm.Warnings = append(warnings(in, ch), joinApplyReports(pm.Roots, in.ApplyReports, in.Log)...)
	pm.Complete = len(pm.Window.Gaps) == 0 && len(pm.Unexplained) == 0 && !anyHole(pm.Roots)
	return pm
}

// anyHole reports a root whose evidence is partial: its request is not in
// the log, or what some of its deletecollections removed is not known.
func anyHole(roots []Root) bool {
	return slices.ContainsFunc(roots, func(r Root) bool { return r.Request.Missing || len(r.Unitemized) > 0 })
}

// rootDocs builds the Root document of every root, a share of the roots
// per core: each root's tree reads the index and the chains, and writes
// nothing they hold once their caches are filled here.
func (ch *chains) rootDocs() []Root {
	for _, r := range ch.ix.all {
		r.start()
	}
	ch.ix.collectionFor(&record{})
	ch.indexSweeps()
	out := make([]Root, len(ch.roots))
	workers := max(1, min(runtime.GOMAXPROCS(0), len(ch.roots)/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(out); i += workers {
				out[i] = ch.root(ch.roots[i])
			}
		}()
	}
	wg.Wait()
	return out
}

// root is the Root document of a root record.
func (ch *chains) root(r *record) Root {
	link := ch.tree(r, map[*record]bool{})
	root := Root{Request: requestOf(r, ch.causes[r]), Cascade: []Link{link}}
	root.Summary = summarize(link)
	root.Unitemized = ch.unitemized(r)
	return root
}

// unitemized lists the deletecollections in a deleted namespace whose
// objects neither the log nor a before snapshot names: a post-mortem that
// counted only what it can name would read as less than what went.
func (ch *chains) unitemized(r *record) []Sweep {
	if r.key.typeKey != (typeKey{"", "namespaces"}) || ch.ix.before != nil {
		return nil
	}
	ch.indexSweeps()
	// A type of which some object is known to have gone is itemized,
	// however many times the namespace controller swept it.
	named := maps.Clone(ch.sweptTypes)
	var out []Sweep
	for _, e := range ch.collsByNS[r.key.name] {
		t := typeKey{e.Object.APIGroup, e.Object.Resource}
		if e.Response != nil || named[t] || !accepted(e) {
			continue
		}
		named[t] = true
		res := e.Object.Resource
		if e.Object.APIGroup != "" {
			res += "." + e.Object.APIGroup
		}
		out = append(out, Sweep{Resource: res, Namespace: e.Object.Namespace, User: userOf(e), AuditID: e.AuditID, Time: e.Time})
	}
	return out
}

// indexSweeps files, once for every deleted namespace, the types some
// swept object is known of and the deletecollections of each namespace.
func (ch *chains) indexSweeps() {
	if ch.collsByNS != nil {
		return
	}
	ch.sweptTypes, ch.collsByNS = map[typeKey]bool{}, map[string][]*audit.Event{}
	for _, o := range ch.ix.all {
		if o.sweep != nil {
			ch.sweptTypes[o.key.typeKey] = true
		}
	}
	for _, e := range ch.ix.colls {
		ch.collsByNS[e.Object.Namespace] = append(ch.collsByNS[e.Object.Namespace], e)
	}
}

func requestOf(r *record, c cause) Request {
	s := r.start()
	req := Request{Object: RequestObject{ObjectRef: r.ref, Resource: r.key.resource}, Actor: c.actor}
	if c.actor == ActorUser || s == nil {
		req.Actor = cmp.Or(req.Actor, "unknown")
	}
	if s == nil {
		req.Missing = true
		return req
	}
	req.AuditID, req.Time, req.Verb, req.URI = s.AuditID, s.Time, s.Verb, s.RequestURI
	req.User, req.Groups, req.UserAgent, req.SourceIPs = s.User.Username, s.User.Groups, s.UserAgent, s.SourceIPs
	if s.ImpersonatedUser != nil {
		req.ImpersonatedUser = s.ImpersonatedUser.Username
	}
	req.Code = s.Code
	if s.Decision != "" || s.AuthzReason != "" {
		req.Authorization = &Authorization{Decision: s.Decision, Reason: s.AuthzReason}
	}
	if d := s.Delete; d != nil {
		req.DeleteOptionsKnown = true
		req.DeleteOptions = &DeleteOptions{PropagationPolicy: d.PropagationPolicy, OrphanDependents: d.OrphanDependents,
			GracePeriodSeconds: d.GracePeriodSeconds, DryRun: d.DryRun}
		if d.PreconditionUID != "" || d.PreconditionRV != "" {
			req.DeleteOptions.Preconditions = &Preconditions{UID: d.PreconditionUID, ResourceVersion: d.PreconditionRV}
		}
	} else if s.Level == audit.LevelRequest || s.Level == audit.LevelRequestResponse {
		// Logged with its body, and the body had no options: a DELETE
		// without a body takes the type's defaults.
		req.DeleteOptionsKnown = true
	}
	return req
}

// summarize counts what went with the root, the root excluded.
func summarize(root Link) Summary {
	s := Summary{ByKind: []KindCount{}}
	byKind := map[string]int{}
	var walk func(l Link)
	walk = func(l Link) {
		for _, d := range l.Dependents {
			s.Objects++
			switch d.Result {
			case ResultDeleted:
				s.Deleted++
			case ResultOrphaned:
				s.Orphaned++
			case ResultTerminating:
				s.Terminating++
			}
			byKind[d.Object.Kind]++
			walk(d)
		}
	}
	walk(root)
	for k, n := range byKind {
		s.ByKind = append(s.ByKind, KindCount{Kind: k, Count: n})
	}
	slices.SortFunc(s.ByKind, func(a, b KindCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	return s
}

// keeps reports whether a root is in scope: its tree holds the object
// asked about, or an object of the namespace asked about.
func (s Scope) keeps(root *Root) bool {
	if s.Object == nil && s.Namespace == "" {
		return true
	}
	return anyLink(root.Cascade, func(l Link) bool { return s.matches(l.Object) })
}

func (s Scope) matches(o snapshot.ObjectRef) bool {
	if q := s.Object; q != nil {
		if q.UID != "" {
			return o.UID == q.UID
		}
		return o.Kind == q.Kind && o.Namespace == q.Namespace && o.Name == q.Name
	}
	return s.Namespace == "" || o.Namespace == s.Namespace || (o.Kind == "Namespace" && o.Name == s.Namespace)
}

func anyLink(ls []Link, f func(Link) bool) bool {
	for _, l := range ls {
		if f(l) || anyLink(l.Dependents, f) {
			return true
		}
	}
	return false
}

// explainRest lists the objects no chain holds, with their likely remover.
func (ch *chains) explainRest(s Scope) []Unexplained {
	out := []Unexplained{}
	for _, r := range ch.unexplained {
		if !s.matches(r.ref) {
			continue
		}
		out = append(out, ch.ix.unexplained(r))
	}
	slices.SortFunc(out, func(a, b Unexplained) int { return a.Object.Compare(b.Object) })
	return out
}
