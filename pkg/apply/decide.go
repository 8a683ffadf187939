package apply

import (
	"fmt"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// CheckDocument refuses a plan that cannot be applied whatever the
// cluster: one written before plans carried a basis, or one whose digest
// does not match its content (edited by hand).
func CheckDocument(p *plan.Plan) error {
	if p.Request == nil || len(p.Basis) == 0 || p.Digest == "" {
		return refuse(report.ReasonNoBasis, "the plan has no basis (it was written by an older kgc): re-plan with kgc plan delete … -o json")
	}
	if got := plan.Digest(p); got != p.Digest {
		return refuse(report.ReasonNoBasis, "the plan's digest %s does not match its content (%s): it was edited; re-plan", p.Digest, got)
	}
	if err := checkOneDelete(p); err != nil {
		return err
	}
	if basisOf(p, p.Request.Target.UID) == nil {
		return refuse(report.ReasonNoBasis, "the plan's basis lacks its target %s: re-plan", refString(p.Request.Target))
	}
	return nil
}

// CheckCluster refuses a plan made from files or against another cluster
// than the one src was captured from.
func CheckCluster(p *plan.Plan, src snapshot.Source) error {
	return checkFingerprint(p.Cluster, src, "plan")
}

// checkFingerprint refuses a document (a plan, a diagnosis) made from
// files, or against another cluster than the one src was captured from.
func checkFingerprint(c *plan.Cluster, src snapshot.Source, doc string) error {
	if err := checkMadeLive(c, doc); err != nil {
		return err
	}
	if src.KubeSystemUID == "" {
		return refuse(report.ReasonOtherCluster, "cannot read this cluster's fingerprint (the kube-system namespace): apply needs get on namespaces/kube-system")
	}
	if c.KubeSystemUID != src.KubeSystemUID {
		return refuse(report.ReasonOtherCluster, "the %s was made against another cluster (%s, kube-system %s), this is %s (kube-system %s): switch context, or make it on this cluster",
			doc, c.Server, c.KubeSystemUID, src.Server, src.KubeSystemUID)
	}
	return nil
}

// checkMadeLive refuses a document that no cluster can accept: made from
// files, or without a fingerprint.
func checkMadeLive(c *plan.Cluster, doc string) error {
	if c == nil {
		return refuse(report.ReasonOtherCluster, "the %s was made from files, not against a cluster: make it live (without -f) on the cluster to change, then apply that %s", doc, doc)
	}
	if c.KubeSystemUID == "" {
		return refuse(report.ReasonOtherCluster, "the %s has no cluster fingerprint (the kube-system namespace could not be read when it was made): make it again with get access to namespaces/kube-system", doc)
	}
	return nil
}

// CheckApplied refuses a plan whose delete has already happened: its
// target and every object it deletes are gone from snap. A plan is single
// use; saying "stale" there would send the user to re-plan a delete that
// is done.
func CheckApplied(saved *plan.Plan, snap *snapshot.Snapshot) error {
	live := make(map[string]bool, len(snap.Objects))
	for i := range snap.Objects {
		live[snap.Objects[i].Metadata.UID] = true
	}
	if live[saved.Request.Target.UID] {
		return nil
	}
	if err := checkReplaced(saved.Request.Target, snap); err != nil {
		return err
	}
	gone := 0
	for _, of := range saved.Objects {
		if (of.Fate != plan.FateDeleted && of.Fate != plan.FateRecreated) || of.Object.UID == saved.Request.Target.UID {
			continue
		}
		if live[of.Object.UID] {
			return nil // partly done: CheckStale says what is left
		}
		gone++
	}
	return refuse(report.ReasonApplied, "the plan was already applied: %s and the %d object(s) it deletes are gone; nothing to do",
		refString(saved.Request.Target), gone)
}

// checkReplaced refuses, as stale, a plan whose target is gone but
// another object of its name stands in its place: deleted and re-created
// since the plan was made, the world moved, and "already applied" would
// tell a script there is nothing to do about an object the plan never saw.
func checkReplaced(target snapshot.ObjectRef, snap *snapshot.Snapshot) error {
	group, _ := snapshot.SplitAPIVersion(target.APIVersion)
	for i := range snap.Objects {
		o := &snap.Objects[i]
		if g, _ := snapshot.SplitAPIVersion(o.APIVersion); g != group || o.Kind != target.Kind ||
			o.Metadata.Namespace != target.Namespace || o.Metadata.Name != target.Name {
			continue
		}
		return refuse(report.ReasonStale, "%s was deleted and re-created since the plan was made (uid %s, now %s, created %s): the plan is about the object that is gone; re-plan to delete the new one",
			refString(target), target.UID, o.Metadata.UID, o.Metadata.CreationTimestamp)
	}
	return nil
}

// CheckStale refuses the saved plan when the fresh one, made from the
// cluster as it is now, no longer holds: the target was replaced or
// changed, or an object's outcome differs. Alternatives count only where
// the fresh plan shows an outcome the saved one did not allow.
func CheckStale(saved, fresh *plan.Plan) error {
	target := saved.Request.Target
	now := basisOf(fresh, target.UID)
	if now == nil {
		return refuse(report.ReasonStale, "%s (uid %s) no longer exists: the plan was already applied, or the object was deleted or re-created; re-plan", refString(target), target.UID)
	}
	if was := basisOf(saved, target.UID); was.ResourceVersion != now.ResourceVersion {
		r := refuse(report.ReasonStale, "%s changed since it was planned (resourceVersion %s, now %s): review it and re-plan", refString(target), was.ResourceVersion, now.ResourceVersion)
		r.Diff = DiffPlans(saved, fresh)
		return r
	}
	if d := DiffPlans(saved, fresh); len(d) > 0 {
		r := refuse(report.ReasonStale, "the cluster changed since the plan was made, and the delete would now end differently for %d object(s): review the difference and re-plan", len(d))
		r.Diff = d
		return r
	}
	return nil
}

// kept is the outcome of an object the plan leaves alone.
const kept = "kept"

// outcomes is an object's fate and alternative fates, with the fates that
// leave the object in place folded into "kept": apply holds the plan to
// what it deletes, orphans and leaves blocked.
type outcomes struct {
	fate string
	all  []string
}

func fateClass(f string) string {
	switch f {
	case plan.FateDeleted, plan.FateOrphaned, plan.FateBlocked, plan.FateRecreated:
		return f
	}
	return kept
}

func outcomesOf(p *plan.Plan) map[string]outcomes {
	m := make(map[string]outcomes, len(p.Objects))
	for _, of := range p.Objects {
		o := outcomes{fate: fateClass(of.Fate), all: []string{fateClass(of.Fate)}}
		for _, a := range of.Alternatives {
			if f := fateClass(a.Fate); !slices.Contains(o.all, f) {
				o.all = append(o.all, f)
			}
		}
		m[of.Object.UID] = o
	}
	return m
}

func (o outcomes) String() string {
	if len(o.all) == 1 {
		return o.fate
	}
	return strings.Join(o.all, "|")
}

// DiffPlans lists, object by object, where the fresh plan's outcome is not
// the saved one's: a fate the saved plan did not allow (alternatives
// included), or a saved fate the fresh plan no longer allows.
func DiffPlans(saved, fresh *plan.Plan) []report.ObjectDiff {
	was, now := outcomesOf(saved), outcomesOf(fresh)
	refs := map[string]snapshot.ObjectRef{}
	for _, of := range saved.Objects {
		refs[of.Object.UID] = of.Object
	}
	for _, of := range fresh.Objects {
		refs[of.Object.UID] = of.Object
	}
	keptOnly := outcomes{fate: kept, all: []string{kept}}
	var out []report.ObjectDiff
	for uid, ref := range refs {
		w, inSaved := was[uid]
		if !inSaved {
			w = keptOnly
		}
		n, ok := now[uid]
		if !ok {
			n = keptOnly
		}
		if d := diffOutcomes(w, n); d != "" {
			out = append(out, report.ObjectDiff{Object: ref, Planned: plannedOutcome(w, inSaved), Now: n.String(), Detail: d})
		}
	}
	slices.SortFunc(out, func(a, b report.ObjectDiff) int { return a.Object.Compare(b.Object) })
	return out
}

func diffOutcomes(was, now outcomes) string {
	for _, f := range now.all {
		if f != kept && !slices.Contains(was.all, f) {
			return "newly " + f
		}
	}
	if !slices.Contains(now.all, was.fate) {
		return "no longer " + was.fate
	}
	if !slices.Contains(was.all, kept) && slices.Contains(now.all, kept) {
		return "may now be kept"
	}
	return ""
}

// Limits are the blast-radius checks on the fresh plan.
type Limits struct {
	// MaxDeletions refuses a plan deleting more (alternatives included);
	// negative means no cap.
	MaxDeletions int
	// AllowBlocked lets a plan proceed that leaves objects terminating.
	AllowBlocked bool
	// AllowKept names the objects (KeptName) that the plan may delete
	// although they carry a keep marker.
	AllowKept []string
}

// CheckLimits refuses the fresh plan when it deletes more than the cap, is
// predicted to hang or deletes what is marked to be kept, counting every
// alternative outcome: what could happen is what a safety check must
// assume. Each that holds is one refusal (report.Join).
func CheckLimits(fresh *plan.Plan, l Limits) error {
	worst := fresh.WorstCase()
	var errs []error
	// A recreated object is deleted all the same (its replacement is new).
	if n := worst.Deleted + worst.Recreated; l.MaxDeletions >= 0 && n > l.MaxDeletions {
		errs = append(errs, refuse(report.ReasonMaxDeletions, "the delete would delete %d object(s), more than --max-deletions=%d: review the plan and raise the cap if that is intended", n, l.MaxDeletions))
	}
	if worst.Blocked > 0 && !l.AllowBlocked {
		errs = append(errs, refuse(report.ReasonBlocked, "the delete is predicted to leave %d object(s) terminating (%s): remove what blocks them first, or pass --allow-blocked", worst.Blocked, blockedNames(fresh)))
	}
	// Every limit that holds is said, so that one run lists every flag
	// the plan needs.
	return report.Join(append(errs, CheckKept(fresh, l.AllowKept))...)
}

// CheckKept refuses a plan that deletes an object marked to be kept
// (Helm's resource-policy, Argo CD's or Flux's prune options) unless
// --allow-kept names every such object: someone asked for it to survive
// uninstalls and prunes, and the garbage collector does not ask.
func CheckKept(fresh *plan.Plan, allowed []string) error {
	var missing, flags []string
	for _, of := range fresh.KeptAndDeleted() {
		name := KeptName(of.Object)
		if !slices.ContainsFunc(allowed, func(a string) bool { return strings.EqualFold(a, name) }) {
			missing = append(missing, fmt.Sprintf("%s (%s)", refString(of.Object), of.Keep))
			flags = append(flags, "--allow-kept "+name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return refuse(report.ReasonKept, "the delete would delete %d object(s) marked to be kept: %s; if that is intended, pass %s",
		len(missing), strings.Join(missing, ", "), strings.Join(flags, " "))
}

// KeptName is how --allow-kept names an object: KIND/NAMESPACE/NAME, or
// KIND/NAME for a cluster-scoped one (the kind matched in any case).
func KeptName(r snapshot.ObjectRef) string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

func blockedNames(p *plan.Plan) string {
	var names []string
	for _, of := range p.Objects {
		if of.Fate == plan.FateBlocked {
			names = append(names, refString(of.Object))
		}
	}
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("and %d more", len(names)-3))
	}
	return strings.Join(names, ", ")
}

// Consent is how the person or pipeline running apply approved it.
type Consent struct {
	Yes     bool   // --yes
	Digest  string // --confirm DIGEST
	Prompts bool   // a terminal is there to ask on
}

// NeedsPrompt says whether to ask on the terminal, or refuses: --confirm
// must name this plan's digest, and without --yes or --confirm someone
// has to be there to answer. typed, when not empty, says why --yes is not
// enough for this plan: only the typed name or the digest approves it.
func (c Consent) NeedsPrompt(digest, typed string) (bool, error) {
	switch {
	case c.Digest != "" && c.Digest != digest:
		return false, refuse(report.ReasonNotConfirmed, "--confirm %s does not approve this plan, whose digest is %s: the plan or the cluster changed since it was approved; review it again", c.Digest, digest)
	case c.Digest != "":
		return false, nil
	case c.Yes && typed != "" && !c.Prompts:
		return false, refuse(report.ReasonNotConfirmed, "not confirmed: %s, so --yes is not enough: type its name on a terminal, or pass --confirm with the plan digest to approve exactly this plan", typed)
	case c.Yes && typed == "":
		return false, nil
	case c.Prompts:
		return true, nil
	}
	return false, refuse(report.ReasonNotConfirmed, "not confirmed: there is no terminal to ask on; pass --yes, or --confirm with the plan digest to approve exactly this plan")
}

// typedOnly says why a plan needs the typed name (or its digest) even
// with --yes: deleting a CustomResourceDefinition deletes every instance
// of it, in every namespace, with no owner reference to show for it.
func typedOnly(p *plan.Plan) string {
	t := p.Request.Target
	if snapshot.GroupOf(t.APIVersion) != "apiextensions.k8s.io" || t.Kind != "CustomResourceDefinition" {
		return ""
	}
	n := 0
	for _, of := range p.Objects {
		if of.Fate == plan.FateDeleted && of.Object.UID != t.UID {
			n++
		}
	}
	return fmt.Sprintf("deleting %s deletes every instance of it (%d in the plan)", t, n)
}

func basisOf(p *plan.Plan, uid string) *plan.BasisEntry {
	for i := range p.Basis {
		if p.Basis[i].Object.UID == uid {
			return &p.Basis[i]
		}
	}
	return nil
}

// CheckRead refuses a fresh capture that could not read every type for
// another reason than RBAC (which the plan itself accounts for): a type
// left unread could hide dependents, or the target itself, and a re-plan
// without it would approve what nobody checked.
func CheckRead(snap *snapshot.Snapshot) error {
	var failed []string
	for _, r := range snap.Resources {
		if r.Listed || r.Error == "" || r.Forbidden() {
			continue
		}
		name := r.Resource
		if r.Group != "" {
			name += "." + r.Group
		}
		failed = append(failed, name+" ("+r.Error+")")
	}
	if len(failed) == 0 {
		return nil
	}
	slices.Sort(failed)
	return refuse(report.ReasonIncomplete, "the check could not be completed: the API server did not answer the list of %s after retries; nothing was sent: try again when it answers",
		strings.Join(failed, ", "))
}
