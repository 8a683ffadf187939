package apply

import (
	"fmt"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// reviewedPins is what a saved remedy's request pins of its object: the
// uid, resourceVersion and finalizer list the diagnosis read. A reviewed
// remedy is a contract on that state, as a reviewed plan is on its basis.
type reviewedPins struct {
	uid, resourceVersion string
	finalizers           []string
	hasFinalizers        bool
}

// pinsOf reads the pins of req: a DELETE's preconditions, a PATCH's test
// operations.
func pinsOf(req diagnose.RemedyRequest) reviewedPins {
	var p reviewedPins
	if pre := req.Preconditions; pre != nil {
		p.uid, p.resourceVersion = pre.UID, pre.ResourceVersion
	}
	for _, op := range req.Patch {
		if op.Op != "test" {
			continue
		}
		switch op.Path {
		case "/metadata/uid":
			p.uid, _ = op.Value.(string)
		case "/metadata/resourceVersion":
			p.resourceVersion, _ = op.Value.(string)
		case "/metadata/finalizers":
			p.finalizers, p.hasFinalizers = stringList(op.Value), true
		}
	}
	return p
}

// stringList is a test operation's list value, as written ([]string) or
// as read back from a saved document ([]any).
func stringList(v any) []string {
	switch l := v.(type) {
	case []string:
		return l
	case []any:
		out := make([]string, 0, len(l))
		for _, x := range l {
			s, _ := x.(string)
			out = append(out, s)
		}
		return out
	}
	return nil
}

// checkReviewed refuses a remedy whose object is no longer in the state
// the diagnosis reviewed (now is the object with the pinned uid, nil when
// gone), saying what differs: sending the request then would do something
// nobody reviewed, even if the API server accepted it.
func checkReviewed(req diagnose.RemedyRequest, now *snapshot.Object) error {
	p := pinsOf(req)
	if p.uid == "" {
		return refuse(report.ReasonNoBasis, "the remedy's request pins no uid of %s: run kgc why-stuck again on a live cluster", refString(req.Object))
	}
	if now == nil {
		return refuse(report.ReasonStale, "%s (uid %s) reviewed in the diagnosis no longer exists: it was deleted or re-created; nothing was sent: run kgc why-stuck again",
			refString(req.Object), p.uid)
	}
	var diffs []string
	if p.hasFinalizers && !slices.Equal(p.finalizers, now.Metadata.Finalizers) {
		diffs = append(diffs, fmt.Sprintf("finalizers were %v when reviewed, now %v", p.finalizers, now.Metadata.Finalizers))
	}
	if p.resourceVersion != "" && p.resourceVersion != now.Metadata.ResourceVersion {
		diffs = append(diffs, fmt.Sprintf("resourceVersion was %s when reviewed, now %s", p.resourceVersion, now.Metadata.ResourceVersion))
	}
	if len(diffs) == 0 {
		return nil
	}
	return refuse(report.ReasonStale, "%s changed since the diagnosis was reviewed: %s; nothing was sent: run kgc why-stuck again and review its remedy",
		refString(req.Object), strings.Join(diffs, "; "))
}
