package e2e

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// pmAnswer is what one kgc post-mortem document says of one object, in the
// truth's terms.
type pmAnswer struct {
	Cause string // "person|Kind|ns/name", "" for none
	Fate  string
	Still bool // listed as still going
	Notes []string
}

// pmRootKey names a cause as the answers do: who, and the root object.
func pmRootKey(person, kind, where string) string { return person + "|" + kind + "|" + where }

func (b *pmBatch) truthKey(c pmCause) string {
	if c.Root < 0 {
		return ""
	}
	return pmRootKey(c.Person, b.Objs[c.Root].Kind, b.where(c.Root))
}

// kgcRootKey is a kgc root's cause: the person it acted as, or the
// controller that acted on its own, and its object.
func kgcRootKey(r framework.PMRoot) string {
	q := r.Request
	person := q.ImpersonatedUser
	if person == "" {
		person = q.User
		if q.Actor != "user" || q.Missing {
			person = q.Actor
		}
	}
	where := q.Object.Name
	if q.Object.Namespace != "" {
		where = q.Object.Namespace + "/" + q.Object.Name
	}
	return pmRootKey(person, q.Object.Kind, where)
}

// is reports whether ref names object i: by UID, or by kind, namespace
// and name when kgc knows no UID.
func (b *pmBatch) is(ref framework.ObjectRef, i int) bool {
	o := b.Objs[i]
	if ref.UID != "" {
		return ref.UID == o.uid
	}
	return ref.Kind == o.Kind && ref.Namespace == o.ns && ref.Name == o.name
}

// answer reads what pm says of object i: the links naming it, by result.
// Several roots that each say they started its going are reported as such.
func (b *pmBatch) answer(pm framework.PostMortem, i int) pmAnswer {
	var a pmAnswer
	var going, orphans []string
	fates := map[string]string{}
	for _, r := range pm.Roots {
		key := kgcRootKey(r)
		framework.Walk(r.Cascade, nil, func(l, _ *framework.PMLink) {
			if !b.is(l.Object, i) {
				return
			}
			a.Notes = append(a.Notes, fmt.Sprintf("in %s's chain: %s by %s (via %s, evidence %s)", strings.ReplaceAll(key, "|", " "), l.Result, linkWho(l), l.Via, l.Evidence))
			switch l.Result {
			case "deleted", "terminating", "deleting":
				if !slices.Contains(going, key) {
					going = append(going, key)
				}
				fates[key] = l.Result
			case "orphaned":
				if !slices.Contains(orphans, key) {
					orphans = append(orphans, key)
				}
			}
		})
	}
	switch {
	case len(going) == 1:
		a.Cause, a.Fate = going[0], fates[going[0]]
	case len(going) > 1:
		a.Cause, a.Fate = "several: "+strings.Join(going, ", "), "deleted"
	case len(orphans) == 1:
		a.Cause, a.Fate = orphans[0], "orphaned"
	case len(orphans) > 1:
		a.Cause, a.Fate = "several: "+strings.Join(orphans, ", "), "orphaned"
	default:
		a.Fate = "exists"
	}
	for _, u := range pm.Unexplained {
		if b.is(u.Object, i) {
			a.Notes = append(a.Notes, fmt.Sprintf("unexplained: likely remover %s (%s)", u.LikelyRemover, u.Message))
			if a.Cause == "" {
				a.Cause, a.Fate = "unexplained (likely "+u.LikelyRemover+")", "deleted"
			}
		}
	}
	for _, s := range pm.StillGoing {
		if b.is(s.Object, i) {
			a.Still = true
			a.Notes = append(a.Notes, "still going: "+s.RootCause)
		}
	}
	return a
}

func linkWho(l *framework.PMLink) string {
	if l.User != "" {
		return l.Actor + " " + l.User
	}
	return l.Actor
}

func (a pmAnswer) String() string {
	s := a.Fate
	if a.Cause != "" {
		s += ", started by " + strings.ReplaceAll(a.Cause, "|", " ")
	}
	if a.Still {
		s += " (listed still going)"
	}
	if len(a.Notes) > 0 {
		s += " [" + strings.Join(a.Notes, "; ") + "]"
	}
	return s
}

// disagrees says how answer a differs from truth t, "" when it agrees.
func (b *pmBatch) disagrees(pm framework.PostMortem, i int, t pmTruth, a pmAnswer) string {
	var d []string
	if want := b.truthKey(t.Cause); a.Cause != want || a.Fate != t.Fate {
		d = append(d, "chain or fate")
	}
	if (t.Fate == "terminating") != a.Still {
		d = append(d, "stillGoing")
	}
	if t.OrphanedBy != nil && !b.orphanedIn(pm, *t.OrphanedBy, i) {
		d = append(d, "not orphaned in "+b.causeString(*t.OrphanedBy))
	}
	return strings.Join(d, ", ")
}

// orphanedIn: the root of cause c lists the object orphaned, as a link or
// as what happened first in its prediction.
func (b *pmBatch) orphanedIn(pm framework.PostMortem, c pmCause, i int) bool {
	want := b.truthKey(c)
	for _, r := range pm.Roots {
		if kgcRootKey(r) != want {
			continue
		}
		found := false
		framework.Walk(r.Cascade, nil, func(l, _ *framework.PMLink) {
			if l.Result == "orphaned" && b.is(l.Object, i) {
				found = true
			}
		})
		if found {
			return true
		}
		if r.Prediction != nil {
			for _, po := range r.Prediction.Objects {
				if po.Happened == "orphaned" && b.is(po.Object, i) {
					return true
				}
			}
		}
	}
	return false
}

// objOf is the index of the batch's object ref names, -1 if none.
func (b *pmBatch) objOf(ref framework.ObjectRef) int {
	for i := range b.Objs {
		if b.Objs[i].uid != "" && b.is(ref, i) {
			return i
		}
	}
	return -1
}

// mine reports whether ref is in one of the batch's namespaces or is
// one of its cluster-scoped objects by name.
func (b *pmBatch) mine(ref framework.ObjectRef) bool {
	for _, w := range b.Worlds {
		if ref.Namespace != "" && (ref.Namespace == w.ns || ref.Namespace == w.ns2) {
			return true
		}
		if ref.Namespace == "" && strings.HasPrefix(ref.Name, w.ns+".") {
			return true
		}
	}
	return false
}

// docProblems are what a document says that no object's answer shows: a
// dry run as a root or a step, an object invented (a UID of the batch
// under another name or namespace, or a name in the batch's namespaces that
// never existed), a root's summary or prediction that disagrees with the
// truth.
func (b *pmBatch) docProblems(pm framework.PostMortem, rd pmReading, truth map[int]pmTruth) []string {
	var out []string
	for _, r := range pm.Roots {
		if !b.touches(r) {
			continue // another batch's, in the same window
		}
		key := strings.ReplaceAll(kgcRootKey(r), "|", " ")
		if what, ok := rd.dryRunIDs[r.Request.AuditID]; ok {
			out = append(out, fmt.Sprintf("dry run counted as a deletion: root %s is the request %s (audit ID %s)", key, what, r.Request.AuditID))
		} else if q := r.Request.DeleteOptions; q != nil && len(q.DryRun) > 0 {
			out = append(out, fmt.Sprintf("dry run counted as a deletion: root %s has deleteOptions.dryRun %v", key, q.DryRun))
		}
		framework.Walk(r.Cascade, nil, func(l, _ *framework.PMLink) {
			for _, s := range l.Steps {
				if what, ok := rd.dryRunIDs[s.AuditID]; ok {
					out = append(out, fmt.Sprintf("dry run counted as a step of %s in %s's chain: %s (audit ID %s, what %q)", l.Object, key, what, s.AuditID, s.What))
				}
			}
			out = append(out, b.invented(l.Object, key)...)
		})
		out = append(out, b.rootProblems(r, key, truth)...)
	}
	return out
}

// touches reports whether a root's request or any link of it names an
// object of the batch or one in its namespaces.
func (b *pmBatch) touches(r framework.PMRoot) bool {
	found := b.objOf(r.Request.Object.ObjectRef) >= 0 || b.mine(r.Request.Object.ObjectRef)
	framework.Walk(r.Cascade, nil, func(l, _ *framework.PMLink) {
		found = found || b.objOf(l.Object) >= 0 || b.mine(l.Object)
	})
	return found
}

// invented: a link naming an object the batch never had.
func (b *pmBatch) invented(ref framework.ObjectRef, key string) []string {
	for i, o := range b.Objs {
		if ref.UID != "" && ref.UID == o.uid && (ref.Kind != o.Kind || ref.Namespace != o.ns || ref.Name != o.name) {
			return []string{fmt.Sprintf("invented object: %s's chain names %s, but uid %s is %s %s", key, ref, ref.UID, o.Kind, b.where(i))}
		}
	}
	if b.mine(ref) && b.objOf(ref) < 0 {
		return []string{fmt.Sprintf("invented object: %s's chain names %s, which the batch never had", key, ref)}
	}
	return nil
}

// rootProblems: a root the truth knows must count what went with it as
// the truth does, and its prediction must say what happened first.
func (b *pmBatch) rootProblems(r framework.PMRoot, key string, truth map[int]pmTruth) []string {
	want := kgcRootKey(r)
	var deleted, terminating, orphaned int
	for i, t := range truth {
		if b.truthKey(t.Cause) == want && t.Cause.Root != i {
			switch t.Fate {
			case "deleted":
				deleted++
			case "terminating":
				terminating++
			case "orphaned":
				orphaned++
			}
		}
		if t.OrphanedBy != nil && b.truthKey(*t.OrphanedBy) == want {
			orphaned++
		}
	}
	root := -1
	for i, t := range truth {
		if b.truthKey(t.Cause) == want && t.Cause.Root == i {
			root = i
		}
	}
	if root < 0 {
		return nil // not a root of the batch's truth
	}
	var out []string
	if s := r.Summary; s.Deleted != deleted || s.Terminating != terminating || s.Orphaned != orphaned {
		out = append(out, fmt.Sprintf("summary of %s: deleted %d, terminating %d, orphaned %d; the truth: deleted %d, terminating %d, orphaned %d",
			key, s.Deleted, s.Terminating, s.Orphaned, deleted, terminating, orphaned))
	}
	if r.Prediction == nil {
		return out
	}
	for _, po := range r.Prediction.Objects {
		i := b.objOf(po.Object)
		if i < 0 {
			continue
		}
		t, ok := truth[i]
		if !ok || t.Premise != "" {
			continue
		}
		happened := ""
		switch {
		case b.truthKey(t.Cause) == want:
			happened = t.Fate
		case t.OrphanedBy != nil && b.truthKey(*t.OrphanedBy) == want:
			happened = "orphaned"
		case t.Fate == "exists":
			happened = "exists"
		}
		if happened != "" && po.Happened != happened {
			out = append(out, fmt.Sprintf("prediction of %s: %s happened %q (result %q: %s); the truth: %s", key, b.Objs[i].ID, po.Happened, po.Result, po.Detail, happened))
		}
	}
	return out
}
