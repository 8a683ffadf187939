package postmortem

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// quietLimit is the longest silence a live API server's log keeps: the
// controllers' leader-election and node leases alone write every few
// seconds, so minutes without any event are time the log does not cover.
const quietLimit = 5 * time.Minute

// window is the time the files cover and the gaps between them.
func window(log *audit.Log) Window {
	w := Window{Files: log.Files}
	if w.Files == nil {
		w.Files = []audit.File{}
	}
	type span struct{ from, to time.Time }
	var spans []span
	for _, f := range log.Files {
		if f.Events == 0 {
			continue
		}
		spans = append(spans, span{f.First, f.Last})
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from.Compare(b.from) })
	for i, s := range spans {
		if i == 0 || s.from.Before(w.From) {
			w.From = s.from
		}
		if i > 0 && s.from.Sub(w.To) > quietLimit {
			w.Gaps = append(w.Gaps, Gap{From: w.To, To: s.from,
				Message: fmt.Sprintf("no file covers %s to %s: a file rotated away or missing, or the API server was down; nothing can be said of that time", stamp(w.To), stamp(s.from))})
		}
		if s.to.After(w.To) {
			w.To = s.to
		}
	}
	return w
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// missingWarning says that a root's own deletion is not in the log.
func missingWarning(r snapshot.ObjectRef) string {
	return fmt.Sprintf("the request that deleted %s is not in the log: it came before the window, or through an API server whose log was not given; its dependents are listed under it", r)
}

// snapshotWarnings say which snapshots do not bracket the log.
func snapshotWarnings(in Input) []string {
	var out []string
	w := window(in.Log)
	if b := in.Before; b != nil && !w.From.IsZero() && b.CapturedAt.After(w.From) {
		out = append(out, fmt.Sprintf("the before snapshot was taken at %s, after the log begins (%s): objects created and deleted in between are not in it", stamp(b.CapturedAt), stamp(w.From)))
	}
	if a := in.After; a != nil && !w.To.IsZero() && a.CapturedAt.Before(w.To) && in.AfterName != "live" {
		out = append(out, fmt.Sprintf("the after snapshot was taken at %s, before the log ends (%s): what went later is not confirmed by it", stamp(a.CapturedAt), stamp(w.To)))
	}
	return out
}

// unexplained says what is known of an object that went with no chain.
func (ix *index) unexplained(r *record) Unexplained {
	u := Unexplained{Object: r.ref(), LikelyRemover: rules.ActorUnknown, Evidence: "none"}
	s := r.start()
	switch {
	case s != nil && actor(s) == ActorKubelet:
		u.LikelyRemover, u.Evidence = ActorKubelet, EvidenceAudit
		u.Message = fmt.Sprintf("%s finished its deletion (audit ID %s), but the request that started it is not in the log", userOf(s), s.AuditID)
	case s != nil:
		u.LikelyRemover, u.Evidence = actor(s), EvidenceAudit
		u.Message = fmt.Sprintf("deleted by %s (audit ID %s), whose reason kgc cannot tie to another deletion", userOf(s), s.AuditID)
	default:
		u.Message = "present before and gone after, and no logged request names it: the audit policy may log nothing for its type or user"
	}
	return u
}

// stillGoing lists the objects of a root's chain still terminating at the
// end, with why-stuck's root cause when an after state is known.
func stillGoing(root *Root, ix *index, whyStuck func(string) string) []StillGoing {
	var out []StillGoing
	walkLinks(root.Cascade, func(l Link) {
		if l.Result != ResultTerminating {
			return
		}
		sg := StillGoing{Object: l.Object, Since: l.Time, RootAuditID: root.Request.AuditID, RootCause: "unknown: no after state to diagnose"}
		r := ix.byUID[l.Object.UID]
		if r != nil && r.after != nil && whyStuck != nil {
			sg.RootCause = whyStuck(l.Object.UID)
		}
		if dt := r.deletedAt(); sg.Since.IsZero() && dt != nil {
			// No request is logged: the after snapshot says since when.
			sg.Since = *dt
		}
		out = append(out, sg)
	})
	return out
}

// dryRunDocs lists the dry runs in scope; Finish sorts them with every
// part's.
func (ix *index) dryRunDocs(s Scope) []DryRun {
	var out []DryRun
	for _, e := range ix.dryRuns {
		k := eventKey(e)
		apiVersion, kind := ix.kinds.typeRef(k.typeKey, "")
		obj := RequestObject{ObjectRef: snapshot.ObjectRef{APIVersion: apiVersion, Kind: kind, Namespace: k.namespace, Name: k.name, UID: e.ObjectUID()}, Resource: e.Object.Resource}
		if !s.matches(obj.ObjectRef) {
			continue
		}
		d := DryRun{Time: e.Time, User: e.User.Username, UserAgent: e.UserAgent, Verb: e.Verb, Object: obj, AuditID: e.AuditID, Code: e.Code}
		if e.ImpersonatedUser != nil {
			d.ImpersonatedUser = e.ImpersonatedUser.Username
		}
		out = append(out, d)
	}
	return out
}

// sortDryRuns orders dry runs by time, then audit ID.
func sortDryRuns(ds []DryRun) {
	slices.SortFunc(ds, func(a, b DryRun) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return strings.Compare(a.AuditID, b.AuditID)
	})
}
