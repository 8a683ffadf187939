package postmortem

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/internal/parallel"
	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/rules"
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

// Analyze rebuilds the chains of deletions the log shows. A spilled log
// that cannot be read back gives a document saying so, incomplete.
func Analyze(in Input) *PostMortem {
	a, err := Prepare(in)
	if err != nil {
		doc := newDocument(in)
		doc.Warnings = []string{err.Error()}
		return doc
	}
	return a.Whole()
}

// RootBatch is how many roots an analysis is asked for at a time: enough
// for every core to encode several batches, few enough that their
// documents are a few megabytes beside the index.
const RootBatch = 2048

// newDocument is the document of in, before its roots and what follows
// them: the window the log covers, once the log is read.
func newDocument(in Input) *PostMortem {
	return &PostMortem{APIVersion: snapshot.APIVersion, Kind: Kind, Before: in.BeforeName, After: in.AfterName,
		Window: window(in.Log), Roots: []Root{}, Unexplained: []Unexplained{}, StillGoing: []StillGoing{}, PolicyFindings: in.PolicyFindings}
}

// Analysis is a post-mortem being written: what comes before its roots in
// the document is known, its roots are built in document order a batch at
// a time (Roots), and what comes after them once they are all built
// (Finish). A writer that writes each batch as it comes never holds every
// root's document beside the index: on a log of millions of events they
// are a sixth of what the analysis holds.
//
// The log is analyzed a part at a time (see merge.go): a log held whole is
// one part, whose roots are built as they are asked for; a spilled log's
// parts are analyzed in turn by Prepare, each part's roots kept in a
// temporary file. Roots merges the parts' roots in document order, and
// Finish writes what follows them from what every part left.
type Analysis struct {
	in  Input
	doc *PostMortem
	// parts hand over each part's roots in the part's document order.
	parts []rootSource
	rest  *rest
}

// Prepare files the log and decides every object's cause; the document it
// starts has no root yet. A spilled log is analyzed a part at a time here,
// its roots kept in temporary files; an error is one reading it back or
// writing them.
func Prepare(in Input) (*Analysis, error) {
	rest := newRest()
	if !in.Log.Spilled() {
		p := newPart(in, nil, window(in.Log).From, rest)
		return &Analysis{in: in, doc: newDocument(in), parts: []rootSource{p}, rest: rest}, nil
	}
	parts, err := spillParts(in, rest)
	if err != nil {
		return nil, err
	}
	// The log's files count what every part kept: the window is known now.
	return &Analysis{in: in, doc: newDocument(in), parts: parts, rest: rest}, nil
}

// Document is the document being written: Roots leaves its roots empty,
// Finish fills what follows them.
func (a *Analysis) Document() *PostMortem { return a.doc }

// Roots merges the parts' roots in document order, their unitemized
// sweeps settled against every part's, and hands them to emit batch at a
// time; emit owns each batch.
func (a *Analysis) Roots(batch int, emit func([]Root) error) error {
	batch = max(batch, 1)
	heads, err := openHeads(a.parts)
	defer func() {
		for _, p := range a.parts {
			p.close()
		}
	}()
	if err != nil {
		return err
	}
	out := make([]Root, 0, min(batch, RootBatch))
	for len(heads) > 0 {
		i := earliest(heads)
		root := heads[i].root
		root.Unitemized = unitemized(root.Unitemized, a.rest.swept)
		a.rest.kept++
		a.rest.hole = a.rest.hole || hasHole(&root)
		out = append(out, root)
		ok, err := heads[i].next()
		if err != nil {
			return err
		}
		if !ok {
			heads = slices.Delete(heads, i, i+1)
		}
		if len(out) == batch || len(heads) == 0 {
			if err := emit(out); err != nil {
				return err
			}
			out = make([]Root, 0, min(batch, RootBatch))
		}
	}
	return nil
}

// Whole builds every root, fills the rest of the document and returns it.
func (a *Analysis) Whole() *PostMortem {
	doc := a.Document()
	// Roots fails only when emit does, or a part's roots cannot be read
	// back.
	err := a.Roots(RootBatch, func(roots []Root) error {
		doc.Roots = append(doc.Roots, roots...)
		return nil
	})
	a.Finish()
	if err != nil {
		doc.Warnings, doc.Complete = append(doc.Warnings, err.Error()), false
	}
	return doc
}

// Finish fills what follows the roots in the document from what every
// part left, once Roots has handed every root over.
func (a *Analysis) Finish() {
	pm, in, r := a.doc, a.in, a.rest
	slices.SortFunc(r.unexplained, func(a, b Unexplained) int { return a.Object.Compare(b.Object) })
	pm.Unexplained = append(pm.Unexplained, r.unexplained...)
	slices.SortFunc(r.stillGoing, func(a, b StillGoing) int { return a.Object.Compare(b.Object) })
	pm.StillGoing = append(pm.StillGoing, r.stillGoing...)
	sortDryRuns(r.dryRuns)
	pm.DryRuns = r.dryRuns
	pm.NoMatch = noMatch(in.Scope, r.all-r.kept, r.known)
	slices.SortStableFunc(r.missing, func(a, b rootStart) int { return a.compare(b) })
	pm.Warnings = snapshotWarnings(in)
	for _, m := range r.missing {
		pm.Warnings = append(pm.Warnings, missingWarning(m.object))
	}
	pm.Warnings = append(pm.Warnings, unappliedReports(in.ApplyReports, r.applied, r.logged)...)
	pm.Complete = len(pm.Window.Gaps) == 0 && len(pm.Unexplained) == 0 && !r.hole
}

// hasHole reports a root whose evidence is partial: its request is not in
// the log, or what some of its deletecollections removed is not known.
func hasHole(r *Root) bool { return r.Request.Missing || len(r.Unitemized) > 0 }

// rootStart is where a root stands in the document: roots are ordered by
// the time their deletion started (zero when the log does not hold it),
// then by object.
type rootStart struct {
	at     time.Time
	object snapshot.ObjectRef
}

func (s rootStart) compare(o rootStart) int {
	if c := s.at.Compare(o.at); c != 0 {
		return c
	}
	return s.object.Compare(o.object)
}

// rootOrder lists the roots in document order. It fills the caches every
// root's tree reads, so that the trees can be built a share per core,
// writing nothing they share.
func (ch *chains) rootOrder() []*record {
	for _, r := range ch.ix.all {
		r.start()
	}
	ch.ix.indexCollections()
	ch.indexSweeps()
	return sortedRecords(ch.roots)
}

// rootDocs builds the Root document of every root given, a share of them
// per core: each root's tree reads the index and the chains, and writes
// nothing they hold once rootOrder has filled their caches.
func (ch *chains) rootDocs(roots []*record) []Root {
	out := make([]Root, len(roots))
	parallel.Do(len(roots), func(_, from, to int) {
		for i := from; i < to; i++ {
			out[i] = ch.root(roots[i])
		}
	})
	return out
}

// root is the Root document of a root record.
func (ch *chains) root(r *record) Root {
	link := ch.tree(r, map[*record]bool{}, r.startTime())
	root := Root{Request: requestOf(r, r.cause), Cascade: []Link{link}}
	root.Summary = summarize(link)
	root.Unitemized = unitemized(ch.unitemizedCandidates(r), ch.sweptTypes)
	return root
}

// unitemizedCandidates lists, for a deleted namespace, the first
// accepted deletecollection of each type in it whose objects neither the
// log nor a before snapshot names; unitemized drops those of a type some
// object of which is known to have gone.
func (ch *chains) unitemizedCandidates(r *record) []Sweep {
	if r.key.typeKey != (typeKey{"", "namespaces"}) || ch.ix.before != nil {
		return nil
	}
	ch.indexSweeps()
	seen := map[typeKey]bool{}
	var out []Sweep
	for _, e := range ch.collsByNS[r.key.name] {
		t := typeKey{e.Object.APIGroup, e.Object.Resource}
		if e.Response != nil || seen[t] || !accepted(e) {
			continue
		}
		seen[t] = true
		res := e.Object.Resource
		if e.Object.APIGroup != "" {
			res += "." + e.Object.APIGroup
		}
		out = append(out, Sweep{Resource: res, Namespace: e.Object.Namespace, User: userOf(e), AuditID: e.AuditID, Time: e.Time})
	}
	return out
}

// unitemized is what of the sweeps a post-mortem that counted only what
// it can name would miss: a type of which some object is known to have
// gone is itemized, however many times the namespace controller swept it.
func unitemized(sweeps []Sweep, swept map[typeKey]bool) []Sweep {
	var out []Sweep
	for _, s := range sweeps {
		res, group, _ := strings.Cut(s.Resource, ".")
		if !swept[typeKey{group, res}] {
			out = append(out, s)
		}
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
	req := Request{Object: RequestObject{ObjectRef: r.ref(), Resource: r.key.resource}, Actor: c.actor, ReasonUnknown: c.whyUnknown}
	if s == nil {
		req.Actor, req.Missing = cmp.Or(req.Actor, rules.ActorUnknown), true
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

// explainRest lists the objects no chain holds, with their likely
// remover; Finish sorts them with every part's.
func (ch *chains) explainRest(s Scope) []Unexplained {
	out := []Unexplained{}
	for _, r := range ch.unexplained {
		if !s.matches(r.ref()) {
			continue
		}
		out = append(out, ch.ix.unexplained(r))
	}
	return out
}
