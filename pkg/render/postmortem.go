package render

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/postmortem"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// PostMortemText writes a post-mortem for people: per root, one sentence
// (who deleted what, when, with what, and how much went with it), the
// request's details, the chain as a tree in time order with how each link
// is known, and the plan's comparison; then what the evidence cannot show.
func PostMortemText(w io.Writer, pm *postmortem.PostMortem, s Style) error {
	roots := func(emit func([]postmortem.Root) error) error { return emit(pm.Roots) }
	return writePostMortemText(w, pm, roots, func() {}, s)
}

// PostMortemTextStream writes what PostMortemText writes of the analysis'
// document, but builds its roots a batch at a time as it writes them: on
// a log of millions of events their documents are never all held.
func PostMortemTextStream(w io.Writer, a *postmortem.Analysis, s Style) error {
	roots := func(emit func([]postmortem.Root) error) error { return a.Roots(postmortem.RootBatch, emit) }
	return writePostMortemText(w, a.Document(), roots, a.Finish, s)
}

// writePostMortemText writes pm's window, the roots roots hands over as
// they come, then, once finish has filled pm's rest, what follows them.
func writePostMortemText(w io.Writer, pm *postmortem.PostMortem, roots func(func([]postmortem.Root) error) error, finish func(), s Style) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var b strings.Builder
	writeWindow(&b, pm.Window)
	n := 0
	err := roots(func(batch []postmortem.Root) error {
		for i := range batch {
			b.WriteString("\n")
			writeRoot(&b, &batch[i], s)
		}
		n += len(batch)
		_, err := bw.WriteString(b.String())
		b.Reset()
		return err
	})
	if err != nil {
		return err
	}
	finish()
	if n == 0 {
		b.WriteString(cmp.Or(pm.NoMatch, "No deletion in the window.\n"))
	}
	writeRest(&b, pm, s)
	if _, err := bw.WriteString(b.String()); err != nil {
		return err
	}
	return bw.Flush()
}

func writeWindow(b *strings.Builder, w postmortem.Window) {
	fmt.Fprintf(b, "Audit log: %s, %s to %s\n", words.Count(len(w.Files), "file"), stamp(w.From), stamp(w.To))
	for _, g := range w.Gaps {
		fmt.Fprintf(b, "  gap: %s\n", g.Message)
	}
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// RootSentence is the one-line summary of a root: who deleted what, when,
// with which client and policy, and what went with it.
func RootSentence(r *postmortem.Root) string {
	q := r.Request
	what := q.Object.String()
	switch {
	case q.Actor == postmortem.ActorGarbageCollector && q.Missing:
		return fmt.Sprintf("the garbage collector deleted %s on its own, by no logged request: %s", what, wentWith(r))
	case q.Actor == postmortem.ActorGarbageCollector && q.ReasonUnknown:
		return fmt.Sprintf("the garbage collector deleted %s at %s, for a reason the evidence does not show: %s", what, stamp(q.Time), wentWith(r))
	case q.Actor == postmortem.ActorGarbageCollector:
		return fmt.Sprintf("the garbage collector deleted %s on its own at %s: %s", what, stamp(q.Time), wentWith(r))
	case q.Missing:
		return fmt.Sprintf("%s was deleted by a request not in the log: %s", what, wentWith(r))
	}
	return fmt.Sprintf("%s %s %s at %s (%s%s): %s", who(q), verbPast(q.Verb), what, stamp(q.Time), client(q.UserAgent), policyWords(q), wentWith(r))
}

func who(q postmortem.Request) string {
	if q.ImpersonatedUser != "" {
		return fmt.Sprintf("%s as %s", q.User, q.ImpersonatedUser)
	}
	return q.User
}

func verbPast(v string) string {
	switch v {
	case "create":
		return "evicted"
	case "deletecollection":
		return "deleted (deletecollection)"
	}
	return "deleted"
}

// client names the user agent by its first word (kubectl/v1.36.3), as a
// client: a bare agent name would read like a policy.
func client(ua string) string {
	if f := strings.Fields(ua); len(f) > 0 {
		return "client " + f[0] + "; "
	}
	return ""
}

func policyWords(q postmortem.Request) string {
	d := q.DeleteOptions
	switch {
	case !q.DeleteOptionsKnown:
		return "propagation policy unknown: logged at Metadata level"
	case d == nil || (d.PropagationPolicy == "" && d.OrphanDependents == nil):
		return "propagation: the type's default"
	case d.PropagationPolicy != "":
		return "propagation: " + d.PropagationPolicy
	case *d.OrphanDependents:
		return "orphanDependents=true"
	}
	return "orphanDependents=false"
}

// fateWords are the phrases of what became of a root's dependents, in
// the order the summary says them: only what is gone went with it; what
// a finalizer still holds, or what the evidence does not see end, is
// counted apart.
var fateWords = []struct{ result, phrase string }{
	{postmortem.ResultDeleted, "went with it"},
	{postmortem.ResultTerminating, "still terminating, held by a finalizer"},
	{postmortem.ResultDeleting, "deleting, the evidence does not show its end"},
	{postmortem.ResultOrphaned, "orphaned"},
	{postmortem.HappenedExists, "still there"},
}

// wentWith says what went with a root, and apart what did not go.
func wentWith(r *postmortem.Root) string {
	byResult := map[string]map[string]int{}
	var walk func(l postmortem.Link)
	walk = func(l postmortem.Link) {
		for _, d := range l.Dependents {
			if byResult[d.Result] == nil {
				byResult[d.Result] = map[string]int{}
			}
			byResult[d.Result][d.Object.Kind]++
			walk(d)
		}
	}
	for _, l := range r.Cascade {
		walk(l)
	}
	var parts []string
	for _, f := range fateWords {
		if kinds, ok := byResult[f.result]; ok {
			parts = append(parts, fateCount(kinds, f.phrase, len(parts) == 0))
			delete(byResult, f.result)
		}
	}
	for _, res := range slices.Sorted(maps.Keys(byResult)) {
		parts = append(parts, fateCount(byResult[res], res, len(parts) == 0))
	}
	switch {
	case len(parts) == 0:
		return "nothing went with it"
	case !strings.Contains(parts[0], fateWords[0].phrase):
		parts = append([]string{"nothing went with it"}, parts...)
	}
	return strings.Join(parts, "; ")
}

// fateCount is "3 objects went with it: 2 ConfigMaps, 1 Pod", or without
// "objects" after the first phrase.
func fateCount(kinds map[string]int, phrase string, first bool) string {
	type kc struct {
		kind string
		n    int
	}
	var ks []kc
	total := 0
	for k, n := range kinds {
		ks = append(ks, kc{k, n})
		total += n
	}
	slices.SortFunc(ks, func(a, b kc) int { return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.kind, b.kind)) })
	list := make([]string, 0, len(ks))
	for _, k := range ks {
		list = append(list, fmt.Sprintf("%d %s", k.n, kindNoun(k.kind, k.n)))
	}
	count := strconv.Itoa(total)
	if first {
		count = words.Count(total, "object")
	}
	return fmt.Sprintf("%s %s: %s", count, phrase, strings.Join(list, ", "))
}

func kindNoun(kind string, n int) string {
	if n == 1 {
		return kind
	}
	return words.Plural(kind)
}

func refName(r snapshot.ObjectRef) string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

func writeRoot(b *strings.Builder, r *postmortem.Root, s Style) {
	b.WriteString(s.Paint(Bold, RootSentence(r)) + "\n")
	writeRequest(b, r.Request)
	for _, l := range r.Cascade {
		writeLink(b, l, "", "", s)
	}
	if n := len(r.Unitemized); n > 0 {
		res := make([]string, 0, min(n, maxListed))
		for _, u := range r.Unitemized[:min(n, maxListed)] {
			res = append(res, u.Resource)
		}
		if n > maxListed {
			res = append(res, fmt.Sprintf("+%d more", n-maxListed))
		}
		fmt.Fprintf(b, "  %s the deletecollections of %s in %s name no object, and no before snapshot shows what they removed: %s (--before names them)\n",
			s.Paint(Yellow, "not itemized:"), words.Count(n, "type"), r.Unitemized[0].Namespace, strings.Join(res, ", "))
	}
	if p := r.Prediction; p != nil {
		writePrediction(b, p, s)
	}
}

func writeRequest(b *strings.Builder, q postmortem.Request) {
	if q.Missing {
		return
	}
	fmt.Fprintf(b, "  request: audit ID %s, %s %s, code %d", q.AuditID, strings.ToUpper(q.Verb), q.URI, q.Code)
	if len(q.SourceIPs) > 0 {
		fmt.Fprintf(b, ", from %s", strings.Join(q.SourceIPs, ", "))
	}
	b.WriteString("\n")
	if a := q.Authorization; a != nil && a.Reason != "" {
		fmt.Fprintf(b, "  authorized: %s\n", a.Reason)
	}
	if r := q.ApplyReport; r != nil {
		fmt.Fprintf(b, "  sent by kgc apply: plan %s (report %s)\n", r.Digest, r.File)
	}
}

// writeLink draws one link and its dependents as a tree.
func writeLink(b *strings.Builder, l postmortem.Link, indent, branch string, s Style) {
	line := fmt.Sprintf("%s%s  %s", indent+branch, l.Object, resultWord(l.Result, s))
	if by := linkActors(l); by != "" {
		line += "  " + by
	}
	if l.Via != postmortem.ViaRoot {
		line += "  " + s.Paint(Dim, "("+howKnown(l)+")")
	}
	b.WriteString(line + "\n")
	if l.Detail != "" && l.Detail != postmortem.DetailNotLogged {
		fmt.Fprintf(b, "%s%s  %s\n", indent, continuation(branch), s.Paint(Dim, l.Detail))
	}
	for i, d := range l.Dependents {
		next := "├── "
		if i == len(l.Dependents)-1 {
			next = "└── "
		}
		writeLink(b, d, indent+continuation(branch), next, s)
	}
}

func continuation(branch string) string {
	switch branch {
	case "├── ":
		return "│   "
	case "└── ":
		return "    "
	}
	return ""
}

func resultWord(r string, s Style) string {
	switch r {
	case postmortem.ResultDeleted:
		return s.Paint(Red, r)
	case postmortem.ResultTerminating, postmortem.ResultDeleting:
		return s.Paint(Yellow, r)
	}
	return r
}

// linkActors says who acted on an object, in order: "by alice 10:02:11,
// then kubelet (system:node:n1) 10:02:15".
func linkActors(l postmortem.Link) string {
	var parts []string
	last := ""
	for _, st := range l.Steps {
		name := st.Actor
		if name == postmortem.ActorUser || name == postmortem.ActorKubelet {
			name = st.User
		}
		entry := fmt.Sprintf("%s %s", stepWords(st), st.Time.UTC().Format("15:04:05"))
		if name != last {
			entry = name + " " + entry
			last = name
		}
		parts = append(parts, entry)
	}
	if len(parts) == 0 {
		if l.Actor == "" {
			return ""
		}
		return "by " + l.Actor + ", no request logged"
	}
	return "by " + strings.Join(parts, ", ")
}

// stepWords says what a step did, for people: which finalizers it
// removed, and a 404 as what it means.
func stepWords(st postmortem.Step) string {
	switch {
	case st.What == postmortem.StepNotFound:
		return "not found (already gone)"
	case len(st.Finalizers) > 0:
		return st.What + " " + strings.Join(st.Finalizers, ",")
	}
	return st.What
}

func howKnown(l postmortem.Link) string {
	via := map[string]string{
		postmortem.ViaOwnerReference: "owner reference",
		postmortem.ViaNamespace:      "in the namespace",
		postmortem.ViaCRD:            "instance of the CRD",
	}[l.Via]
	return via + ", known from " + evidenceWords(l.Evidence)
}

func evidenceWords(e string) string {
	switch e {
	case postmortem.EvidenceAudit:
		return "the audit log"
	case postmortem.EvidenceSnapshot:
		return "the before snapshot"
	case postmortem.EvidenceModel:
		return "kgc's model"
	case postmortem.EvidenceTiming:
		return "timing only: a guess"
	}
	return "nothing"
}

func writePrediction(b *strings.Builder, p *postmortem.Prediction, s Style) {
	if p.Error != "" {
		fmt.Fprintf(b, "  plan: %s\n", p.Error)
		return
	}
	policy := p.PropagationPolicy
	if policy == "" {
		policy = "the type's default policy"
	}
	if !p.PolicyKnown {
		policy += ", assumed: the log does not say"
	}
	fmt.Fprintf(b, "  plan (kgc plan delete on the before snapshot, %s): %d as predicted, %d not predicted, %d predicted but did not happen\n",
		policy, p.AsPredicted, p.NotPredicted, p.PredictedNotHappened)
	for _, o := range p.Objects {
		if o.Result == postmortem.PredictionAsPredicted {
			continue
		}
		line := fmt.Sprintf("    %s  %s: %s", s.Paint(Yellow, o.Result), o.Object, o.Detail)
		if o.WhyStuck != "" {
			line += "; why-stuck: " + o.WhyStuck
		}
		b.WriteString(line + "\n")
	}
}

func writeRest(b *strings.Builder, pm *postmortem.PostMortem, s Style) {
	writeDryRuns(b, pm.DryRuns, s)
	if len(pm.StillGoing) > 0 {
		b.WriteString("\n" + s.Paint(Bold, "Still terminating") + "\n")
		for _, g := range pm.StillGoing {
			fmt.Fprintf(b, "  %s since %s: %s\n", g.Object, stamp(g.Since), g.RootCause)
		}
	}
	if len(pm.Unexplained) > 0 {
		b.WriteString("\n" + s.Paint(Bold, "Gone, and the evidence cannot show how") + "\n")
		for _, u := range pm.Unexplained {
			fmt.Fprintf(b, "  %s: %s (likely remover: %s)\n", u.Object, u.Message, u.LikelyRemover)
		}
	}
	if len(pm.PolicyFindings) > 0 {
		b.WriteString("\n" + s.Paint(Bold, "What the audit policy hides") + "\n")
		for _, f := range pm.PolicyFindings {
			fmt.Fprintf(b, "  rule %d: %s: %s\n", f.Rule, f.Problem, f.Message)
		}
	}
	for _, w := range pm.Warnings {
		fmt.Fprintf(b, "note: %s\n", w)
	}
	if !pm.Complete {
		b.WriteString(s.Paint(Yellow, "incomplete:") + " the evidence has holes (above): what it does not show may have happened too\n")
	}
}

// writeDryRuns lists the requests that only asked "what if".
func writeDryRuns(b *strings.Builder, ds []postmortem.DryRun, s Style) {
	if len(ds) == 0 {
		return
	}
	b.WriteString("\n" + s.Paint(Bold, "Dry runs in the window (dryRun=All: they changed nothing)") + "\n")
	for _, d := range ds {
		user := d.User
		if d.ImpersonatedUser != "" {
			user += " as " + d.ImpersonatedUser
		}
		fmt.Fprintf(b, "  %s %s %s at %s (audit ID %s, code %d)\n", user, d.Verb, d.Object.String(), stamp(d.Time), d.AuditID, d.Code)
	}
}
