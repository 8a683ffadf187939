package postmortem

import (
	"fmt"

	"github.com/kgc-dev/kgc/internal/words"
)

// This file says, when no chain is in scope, where kgc looked and what it
// knows of the object asked about, as kubectl says "No resources found in
// default namespace.": an empty answer that reads as an all-clear is worse
// than none.

// noMatch is what an empty answer says: the scope searched, how many
// chains lie outside it, and what the evidence shows of the object asked
// about (known, from the part that holds it).
func noMatch(s Scope, outside int, known string) string {
	var msg, elsewhere string
	switch {
	case s.Object != nil:
		msg = fmt.Sprintf("No deletion in the window names %s", s.Object.String())
		if known != "" {
			msg += ": " + known
		}
		elsewhere = "; the window holds " + words.Count(outside, "other chain")
	case s.Namespace != "":
		msg = "No deletion in the window matches in namespace " + s.Namespace
		elsewhere = "; " + words.Count(outside, "chain") + " in other namespaces"
	default:
		return "No deletion in the window.\n"
	}
	if outside > 0 {
		msg += elsewhere + " (kgc postmortem -A)"
	}
	return msg + ".\n"
}

// knownOf says what the evidence shows of the object s asks about, when
// no chain holds it; "" when this index does not know it.
func (ix *index) knownOf(s Scope) string {
	q := s.Object
	if q == nil {
		return ""
	}
	var r *record
	if q.UID != "" {
		r = ix.byUID[q.UID]
	}
	for _, o := range ix.all {
		if r != nil {
			break
		}
		if o.kind == q.Kind && o.key.namespace == q.Namespace && o.key.name == q.Name {
			r = o
		}
	}
	switch {
	case r == nil:
		return ""
	case r.after != nil && r.after.Terminating():
		return "it is still terminating at the end (after snapshot), and no logged request started its deletion"
	case r.after != nil:
		return "it still exists at the end (after snapshot)"
	case ix.endUnseen(r):
		return "it was in the before snapshot; no logged request names its going, no after snapshot lists its type, and no owner of it went in a way kgc's model can follow"
	case r.before == nil && r.start() == nil:
		return "the log names it, but no request deleted it"
	}
	return "the evidence shows nothing of its going"
}
