// Package diagnose explains why an object is stuck in Terminating: which
// finalizers (and, for pods, which kubelet) still hold it, who is supposed
// to remove each one, what that remover waits for, and, recursively, why
// those objects are stuck in turn. The leaves of that tree are the root
// causes; each comes with remedies ordered from least to most destructive.
// For an object that is not terminating it says whether the garbage
// collector will ever delete it.
//
// Like the rest of pkg/plan it is a pure function of a snapshot (and the
// graph built from it): no cluster access and no wall clock; ages are
// measured against the snapshot's capturedAt. The rules are those of
// docs/gc-semantics.md (foreground deletion, orphaning, pods, namespaces
// and the well-known finalizers), checked against k8s.io/kubernetes v1.36.3.
package diagnose

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// staleAfter is how long a step that should take seconds may stay
// undone before kgc says its actor is probably failing rather than busy.
// The garbage collector and the namespace controller act within seconds
// of an event and resync far more often than this.
const staleAfter = 5 * time.Minute

// Options tune a diagnosis.
type Options struct {
	// Finishes, when set, is asked which terminating objects a remedy would
	// let finish (the plan simulator). It receives the root cause and the
	// remedy; its answer fills Remedy.Finishes.
	Finishes func(rc RootCause, r Remedy) []snapshot.ObjectRef
}

// Diagnoser diagnoses objects of one snapshot. Build it once and ask it
// about as many objects as needed.
type Diagnoser struct {
	ix   *index
	opts Options
	// workloads caches the workloads matching a finalizer's evidence
	// (matchingWorkloads, run.workloads), by key.
	workloads map[string][]*snapshot.Object
	// roles are the Roles and ClusterRoles by kind/namespace/name
	// (roleMap), built on first use.
	roles map[string]*snapshot.Object
	// diagnosed counts Diagnose calls; findings holds the graph's
	// findings by UID once more than one object is diagnosed.
	diagnosed  int
	findings   map[string][]graph.Finding
	findingsOf *graph.Graph
}

// findingsAbout returns the graph's findings naming uid. One object asks
// the graph about that object only; from the second on (why-stuck -A),
// every finding of the graph is computed once and looked up, again when
// the graph grew.
func (d *Diagnoser) findingsAbout(uid string) []graph.Finding {
	d.diagnosed++
	g := d.ix.graphAbout(uid)
	if d.diagnosed == 1 {
		return g.FindingsAbout(nil, []string{uid}, nil)
	}
	if d.findings == nil || d.findingsOf != g {
		d.findings, d.findingsOf = map[string][]graph.Finding{}, g
		for _, f := range g.AllFindings() {
			for i, ref := range f.Objects {
				if !slices.ContainsFunc(f.Objects[:i], func(r snapshot.ObjectRef) bool { return r.UID == ref.UID }) {
					d.findings[ref.UID] = append(d.findings[ref.UID], f)
				}
			}
		}
	}
	return d.findings[uid]
}

// New prepares diagnoses of snap. g must be graph.Build(snap) or
// graph.Replay(snap) (findings are computed as asked); pass nil to have
// only the parts of the graph that diagnoses reach replayed.
func New(snap *snapshot.Snapshot, g *graph.Graph, opts Options) *Diagnoser {
	return &Diagnoser{ix: newIndex(snap, g), opts: opts, workloads: map[string][]*snapshot.Object{}}
}

// Diagnose explains the object with the given UID.
func (d *Diagnoser) Diagnose(uid string) (*Diagnosis, error) {
	o := d.ix.byUID(uid)
	if o == nil {
		return nil, unknownUID(uid)
	}
	r := newRun(d)
	diag := &Diagnosis{
		APIVersion:  snapshot.APIVersion,
		Kind:        KindDiagnosis,
		Object:      o.Ref(),
		Terminating: o.Terminating(),
		Blockers:    []Blocker{},
		RootCauses:  []RootCause{},
		Remedies:    []Remedy{},
		Cluster:     plan.ClusterOf(d.ix.snap),
	}
	if !o.Terminating() {
		c := r.collection(o)
		diag.GarbageCollection = &c
		diag.Summary = o.Ref().String() + " is not terminating. " + c.Message
		if rc, ok := r.unreclaimed(o); ok {
			diag.RootCauses = []RootCause{rc}
			for _, rem := range rc.Remedies {
				rem.RootCause = 1
				diag.Remedies = append(diag.Remedies, rem)
			}
			whose := "Its volume's storage"
			if rc.Object == o.Ref() {
				whose = "Its storage"
			}
			diag.Summary += " " + whose + " is not reclaimed: 1 root cause, " + rootCauseTitle(rc) + "."
		}
	} else {
		since := o.Metadata.DeletionTimestamp.UTC()
		diag.Since = &since
		diag.AgeSeconds = int64(d.ix.snap.CapturedAt.Sub(since) / time.Second)
		diag.Blockers = r.explain(o)
		diag.RootCauses = r.finish()
		for i, rc := range diag.RootCauses {
			for _, rem := range rc.Remedies {
				rem.RootCause = i + 1
				diag.Remedies = append(diag.Remedies, rem)
			}
		}
		diag.Summary = summary(o, d.ix.snap.CapturedAt, diag.RootCauses)
	}
	for _, f := range d.findingsAbout(uid) {
		if f.Type == graph.FindingStuckFinalizer {
			// That finding points at this very command.
			continue
		}
		diag.Findings = append(diag.Findings, f)
	}
	r.noteFailedDependentLists()
	diag.Notes = r.sortedNotes()
	diag.Complete = len(diag.Notes) == 0
	return diag, nil
}

func unknownUID(uid string) error {
	return fmt.Errorf("no object with uid %q in the snapshot: check the name and namespace, or capture a fresh snapshot", uid)
}

// summary is the one-sentence verdict on a terminating object.
func summary(o *snapshot.Object, at time.Time, rcs []RootCause) string {
	s := o.Ref().String() + " has been terminating for " + Age(at.Sub(*o.Metadata.DeletionTimestamp))
	if at.Before(*o.Metadata.DeletionTimestamp) {
		s = o.Ref().String() + " is terminating (grace period ends in " + Age(o.Metadata.DeletionTimestamp.Sub(at)) + ")"
	}
	var stuck []RootCause
	for _, rc := range rcs {
		if rc.Reason != ReasonInProgress && rc.Reason != ReasonNoFinalizers {
			stuck = append(stuck, rc)
		}
	}
	switch {
	case len(stuck) == 0:
		return s + ": nothing is stuck, the deletion is progressing (" + plural(len(rcs), "step") + " pending)."
	case len(stuck) == 1:
		return s + ": 1 root cause, " + rootCauseTitle(stuck[0]) + "."
	}
	return s + ": " + plural(len(stuck), "root cause") + "."
}

// rootCauseTitle names a root cause in a few words.
func rootCauseTitle(rc RootCause) string {
	s := rc.Object.String()
	if rc.Finalizer != "" {
		s += " finalizer " + rc.Finalizer
	}
	return s + " (" + rc.Reason + ")"
}

// plural is n and the noun, in the one wording every command uses.
func plural(n int, noun string) string { return words.Count(n, noun) }

// Age renders a duration the way kubectl shows ages: the two largest units
// (words.Age, which every command uses for ages).
func Age(d time.Duration) string { return words.Age(d) }

// fgEdge is a blocking owner reference: dependent's ownerReferences[index]
// points at owner with blockOwnerDeletion=true, holding the owner's
// foreground deletion.
type fgEdge struct {
	owner *snapshot.Object
	index int
}

// leaf is a root cause being built: remedies are derived at the end, once
// every edge through which it holds something is known.
type leaf struct {
	rc    RootCause
	obj   *snapshot.Object // nil when the object is not in the snapshot
	edges []fgEdge
	// extra are remedies specific to the reason.
	extra []Remedy
	// index is the 1-based position in rootCauses.
	index int
}

// run is the state of one diagnosis.
type run struct {
	d      *Diagnoser
	ix     *index
	leaves []*leaf
	byKey  map[string]*leaf
	// byObject holds the leaves on each object, by UID.
	byObject map[string][]*leaf
	// path holds the objects being explained above the current one:
	// reaching one again is a cycle.
	path map[string]bool
	// explained holds objects already explained in this diagnosis, so a
	// shared dependent's subtree is shown once.
	explained map[string]bool
	notes     map[string]bool
	// chains says, for an object whose controller waits on held objects
	// below it, that chain in words.
	chains map[string]string
}

func newRun(d *Diagnoser) *run {
	return &run{d: d, ix: d.ix, byKey: map[string]*leaf{}, byObject: map[string][]*leaf{}, path: map[string]bool{}, explained: map[string]bool{}, notes: map[string]bool{}, chains: map[string]string{}}
}

func (r *run) note(format string, a ...any) { r.notes[fmt.Sprintf(format, a...)] = true }

func (r *run) sortedNotes() []string {
	out := make([]string, 0, len(r.notes))
	for n := range r.notes {
		out = append(out, n)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil
	}
	return out
}

// addLeaf records a root cause (merging with an identical one reached by
// another path) and returns its 1-based index in discovery order.
func (r *run) addLeaf(l leaf, held *snapshot.Object, edge *fgEdge) int {
	key := rootKey(l.rc)
	existing, ok := r.byKey[key]
	if !ok {
		cp := l
		cp.index = len(r.leaves) + 1
		existing = &cp
		r.byKey[key] = existing
		r.leaves = append(r.leaves, existing)
		r.byObject[l.rc.Object.UID] = append(r.byObject[l.rc.Object.UID], existing)
	}
	if held != nil {
		existing.rc.Holds = appendRef(existing.rc.Holds, held.Ref())
	}
	if edge != nil {
		existing.addEdge(*edge)
	}
	return existing.index
}

// rootKey identifies a root cause across paths and, in -A, across
// diagnoses: one failing API group is one root cause for every namespace.
func rootKey(rc RootCause) string {
	switch rc.Reason {
	case ReasonDiscoveryFailure, ReasonAPIServiceUnavailable, ReasonNamespaceBlocksItself:
		if name := relatedName(rc, "APIService"); name != "" {
			return rc.Reason + "|" + name
		}
	}
	return rc.Object.UID + "|" + rc.Finalizer + "|" + rc.Reason + "|" + rc.Object.String()
}

func appendRef(refs []snapshot.ObjectRef, ref snapshot.ObjectRef) []snapshot.ObjectRef {
	for _, x := range refs {
		if x == ref {
			return refs
		}
	}
	refs = append(refs, ref)
	sort.Slice(refs, func(i, j int) bool { return refs[i].Less(refs[j]) })
	return refs
}

// finish turns the leaves into root causes with remedies, in discovery
// order (which is the tree's depth-first order, itself sorted).
func (r *run) finish() []RootCause {
	out := make([]RootCause, 0, len(r.leaves))
	for _, l := range r.leaves {
		rc := l.rc
		rc.Remedies = r.remedies(l)
		if f := r.d.opts.Finishes; f != nil {
			for i := range rc.Remedies {
				rc.Remedies[i].Finishes = f(rc, rc.Remedies[i])
			}
		}
		out = append(out, rc)
	}
	return out
}

// explain returns the blockers holding a terminating object, with the
// nested blockers of everything they wait on.
func (r *run) explain(o *snapshot.Object) []Blocker {
	uid := o.Metadata.UID
	if r.explained[uid] {
		return []Blocker{{Object: o.Ref(), Finalizer: "", RemovedBy: "", WaitingFor: "explained above", Repeated: true}}
	}
	r.explained[uid] = true
	r.path[uid] = true
	defer delete(r.path, uid)

	var bs []Blocker
	if isKind(o, "", "Namespace") {
		bs = append(bs, r.namespaceSpec(o)...)
	}
	for _, f := range o.Metadata.Finalizers {
		bs = append(bs, r.finalizer(o, f))
	}
	if isKind(o, "", "Pod") {
		if b, ok := r.kubelet(o); ok {
			bs = append(bs, b)
		}
	}
	if len(bs) == 0 {
		b := Blocker{Object: o.Ref(), RemovedBy: rules.ActorAPIServer,
			WaitingFor: "nothing: no finalizer holds it, so the API server removes it (the snapshot was taken a moment before)"}
		b.RootCause = r.addLeaf(leaf{obj: o, rc: RootCause{Object: o.Ref(), Reason: ReasonNoFinalizers, RemovedBy: rules.ActorAPIServer,
			Message: "it has a deletionTimestamp and no finalizers: it is being removed"}}, nil, nil)
		bs = append(bs, b)
	}
	return bs
}

// explainHeld explains o as something parent waits on. Every root cause on
// o itself (found now, or earlier through another path) then also holds
// parent, and a foreground edge (o blocks parent) is recorded so that its
// remedies can offer to unblock or remove that owner reference.
func (r *run) explainHeld(o, parent *snapshot.Object, edge *fgEdge) []Blocker {
	bs := r.explain(o)
	for _, l := range r.byObject[o.Metadata.UID] {
		l.rc.Holds = appendRef(l.rc.Holds, parent.Ref())
		if edge != nil {
			l.addEdge(*edge)
		}
	}
	return bs
}

func (l *leaf) addEdge(e fgEdge) {
	for _, x := range l.edges {
		if x.owner == e.owner && x.index == e.index {
			return
		}
	}
	l.edges = append(l.edges, e)
}

func isKind(o *snapshot.Object, group, kind string) bool {
	return o.Kind == kind && snapshot.GroupOf(o.APIVersion) == group
}

// finalizer explains one metadata.finalizers entry.
func (r *run) finalizer(o *snapshot.Object, f string) Blocker {
	info := rules.LookupFinalizer(f)
	b := Blocker{Object: o.Ref(), Finalizer: f, RemovedBy: info.RemovedBy, WaitingFor: info.Condition}
	if hooks := r.webhooksHolding(o, f); len(hooks) > 0 {
		// Whoever removes it sends an UPDATE, and the API server rejects
		// it: that, not the remover, is what to fix first.
		if !info.WellKnown {
			b.RemovedBy = rules.ActorUnknown
		}
		b.WaitingFor = "an UPDATE removing " + f + " to be admitted: every one is rejected by " + plural(len(hooks), "webhook") + " that cannot be called"
		b.Blockers = hooks
		return b
	}
	if ps := r.policiesHolding(o, f); len(ps) > 0 {
		b.WaitingFor = "an UPDATE removing " + f + " to be admitted: " + plural(len(ps), "admission policy") + " bound with validationActions Deny " + words.Agree(len(ps), "denies", "deny") + " it"
		b.Blockers = ps
		return b
	}
	switch {
	case f == rules.FinalizerForeground:
		r.foreground(o, &b)
	case f == rules.FinalizerOrphan:
		r.orphan(o, &b)
	case f == rules.FinalizerCRD && isKind(o, "apiextensions.k8s.io", "CustomResourceDefinition"):
		r.crd(o, &b)
	case f == rules.FinalizerPVC && isKind(o, "", "PersistentVolumeClaim"):
		r.pvc(o, &b)
	case f == rules.FinalizerPV && isKind(o, "", "PersistentVolume"):
		r.pv(o, &b)
	default:
		r.controller(o, f, false, &b)
	}
	return b
}

// inProgress records a leaf where nothing is stuck yet: actor should act
// on its next pass. Past staleAfter, the message says it probably is not.
func (r *run) inProgress(o *snapshot.Object, finalizer, actor, msg string, held *snapshot.Object) int {
	if age, stale := r.staleFor(o); stale {
		msg += fmt.Sprintf("; it has been %s since the deletion, so the %s is probably not running or failing: check its logs", Age(age), actor)
	}
	return r.addLeaf(leaf{obj: o, rc: RootCause{Object: o.Ref(), Finalizer: finalizer, Reason: ReasonInProgress, RemovedBy: actor, Message: msg}}, held, nil)
}

// progress is a step the deletion of since started and that its actor
// takes within seconds, nothing standing in its way: the garbage collector
// removing its finalizers or deleting dependents, the namespace controller
// deleting content, the pod garbage collector deleting an unscheduled pod,
// the CRD finalizer deleting instances. Past staleAfter it is not in
// progress: the actor is stalled. (Steps that wait for something whose
// time the input does not show, such as a pod that stopped using a claim
// or a taint added later, stay inProgress.)
func (r *run) progress(o, since *snapshot.Object, finalizer, actor, msg string, held *snapshot.Object, edge *fgEdge) int {
	rc := RootCause{Object: o.Ref(), Finalizer: finalizer, Reason: ReasonInProgress, RemovedBy: actor, Message: msg}
	if age, stale := r.staleFor(since); stale {
		rc.Reason = ReasonControllerStalled
		rc.Message = msg + fmt.Sprintf(", yet it has waited %s since %s was deleted, where this takes seconds: the %s is not acting%s",
			Age(age), since.Ref(), actor, r.stallEvidence(actor))
	}
	return r.addLeaf(leaf{obj: o, rc: rc}, held, edge)
}

// staleFor says how long o has been terminating, and whether that is past
// staleAfter.
func (r *run) staleFor(o *snapshot.Object) (time.Duration, bool) {
	if !o.Terminating() {
		return 0, false
	}
	age := r.ix.snap.CapturedAt.Sub(*o.Metadata.DeletionTimestamp)
	return age, age > staleAfter
}

// stallEvidence is what in the input explains a stalled actor: for the
// garbage collector and the namespace controller, the types that cannot be
// listed or discovered, which keep the collector's informers from syncing
// and the namespace controller from finishing a pass.
func (r *run) stallEvidence(actor string) string {
	var gone []string
	for _, f := range r.ix.cat.DiscoveryFailures() {
		gone = append(gone, f.GroupVersion+" (discovery fails)")
	}
	if actor == rules.ActorGC {
		for _, res := range r.ix.snap.Resources {
			if !res.Listed && res.Error != "" && rules.MonitoredByGC(res) && !rules.IsDiscoveryError(res.Error) {
				gone = append(gone, qualifiedResource(res)+" ("+res.Error+")")
			}
		}
	}
	if len(gone) == 0 || (actor != rules.ActorGC && actor != rules.ActorNamespace) {
		return " (kube-controller-manager down, or failing: its logs say why)"
	}
	return " (kube-controller-manager down, or blocked on types that cannot be read: " + shortList(gone) + ")"
}

func refsOf(objs []*snapshot.Object) []snapshot.ObjectRef {
	out := make([]snapshot.ObjectRef, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.Ref())
	}
	return out
}

func countKinds(objs []*snapshot.Object) string {
	counts := map[string]int{}
	for _, o := range objs {
		counts[o.Kind]++
	}
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, plural(counts[k], k))
	}
	return strings.Join(parts, ", ")
}
