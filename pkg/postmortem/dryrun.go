package postmortem

import (
	"fmt"
	"slices"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
)

// A DELETE sent with dryRun only in its DeleteOptions (kgc apply
// --dry-run=server, client libraries) says so only in its body, which a
// Metadata-level log does not keep. The snapshots tell it apart: the API
// server answered 200, yet the after snapshot holds the same incarnation
// the before one did, not being deleted, and no request made it again. A
// DELETE that is accepted removes the object or marks it, so that one
// changed nothing: it is filed with the dry runs, never as a deletion.

// fileUnloggedDryRuns moves such DELETEs to the dry runs.
func (ix *index) fileUnloggedDryRuns() {
	for _, r := range ix.all {
		if !untouched(r) {
			continue
		}
		kept := r.events[:0]
		moved := false
		for _, e := range r.events {
			if e.Verb == "delete" && accepted(e) && e.Level == audit.LevelMetadata && e.Delete == nil {
				ix.dryRuns = append(ix.dryRuns, e)
				moved = true
				continue
			}
			kept = append(kept, e)
		}
		r.events = kept
		if moved {
			r.startKnown = false
		}
	}
}

// untouched: the after snapshot holds the incarnation of r the before one
// did, not being deleted, and no logged request created it again.
func untouched(r *record) bool {
	if r.before == nil || r.after == nil || r.after.Terminating() || r.after.Metadata.UID != r.before.Metadata.UID {
		return false
	}
	return !slices.ContainsFunc(r.events, func(e *audit.Event) bool { return e.Verb == "create" && e.Object.Subresource == "" })
}

// maybeDryRun says, of a root's DELETE logged at Metadata level, that a
// later DELETE of the object by someone else was accepted too: had the
// first removed it, the second would have found nothing, so the first may
// have been a dry run sent in its options, which the log does not keep.
func (ix *index) maybeDryRun(r *record, s *audit.Event) string {
	if s.Verb != "delete" || s.Level != audit.LevelMetadata {
		return ""
	}
	for _, e := range r.events {
		if e != s && e.Verb == "delete" && accepted(e) && e.ReceivedAt().After(s.ReceivedAt()) && userOf(e) != userOf(s) && actor(e) == ActorUser {
			return fmt.Sprintf("%s's DELETE of it %s later was accepted too; a Metadata-level log keeps no DeleteOptions, so whether this one was a dry run (dryRun in its options) is not known",
				userOf(e), e.ReceivedAt().Sub(s.ReceivedAt()).Round(time.Millisecond))
		}
	}
	return ""
}
