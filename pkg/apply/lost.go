package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"reflect"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// ErrReplaced is Get's error when the name now holds another object (a
// new uid): the object asked for is gone.
var ErrReplaced = errors.New("the object was replaced")

// Verdicts on a request whose response was lost, as the report words them.
const (
	lostAccepted    = "accepted"
	lostNotAccepted = "not accepted"
)

// rereadAttempts and rereadPause bound how long kgc tries to re-read a
// target after a lost response: the connection that dropped may take the
// API server a moment to come back.
const (
	rereadAttempts = 5
	rereadPause    = 2 * time.Second
)

// lostRequest is a request that got no response, and how to tell from
// its object, re-read and still there, whether the API server took it.
type lostRequest struct {
	verb     string
	object   snapshot.ObjectRef
	resp     Response
	took     func(obj map[string]any) bool
	rejected string // what "not accepted" means for it, in the error
}

// settleLostDelete decides what became of a DELETE that got no response
// (status 0: the connection dropped once it was sent, or the client timed
// out). Sending it again blindly could delete what replaced the object,
// so kgc re-reads the target instead: gone, replaced or terminating means
// the API server accepted it, there without a deletionTimestamp means it
// did not (no accepted DELETE leaves an object so). It returns the
// response to judge: 200 when accepted, the lost one otherwise.
func (a *Applier) settleLostDelete(ctx context.Context, req DeleteRequest, resp Response, rep *report.Report) (Response, error) {
	if resp.Status != 0 || req.DryRun {
		return resp, nil
	}
	return a.settleLost(ctx, lostRequest{verb: "DELETE", object: req.Object, resp: resp, took: deletionRequested,
		rejected: "nothing was deleted: run kgc apply again"}, rep)
}

// settleLostRemedy does for a remedy's PATCH or DELETE what
// settleLostDelete does for a plan's: a PATCH was taken when its
// operations show on the object re-read, a DELETE when its object is gone
// or its deletion started or was shortened since the review (was).
func (a *Applier) settleLostRemedy(ctx context.Context, req diagnose.RemedyRequest, was *snapshot.Object, resp Response, rep *report.Report) (Response, error) {
	if resp.Status != 0 || a.Options.DryRun {
		return resp, nil
	}
	l := lostRequest{verb: req.Verb, object: req.Object, resp: resp, rejected: "nothing was changed: run kgc why-stuck again"}
	switch req.Verb {
	case diagnose.VerbPatch:
		l.took = func(obj map[string]any) bool { return patchShows(obj, req.Patch) }
	default:
		l.took = func(obj map[string]any) bool { return deleteShows(obj, was, req.GracePeriodSeconds) }
	}
	return a.settleLost(ctx, l, rep)
}

func (a *Applier) settleLost(ctx context.Context, l lostRequest, rep *report.Report) (Response, error) {
	ref := refString(l.object)
	verdict, err := a.reread(ctx, l.object, l.took)
	if err != nil {
		rep.Outcome = report.OutcomeUnknown
		rep.Notes = append(rep.Notes, "outcome of the "+l.verb+" unknown: it got no response and "+ref+" could not be re-read")
		return l.resp, fmt.Errorf("the %s of %s got no response (%s) and re-reading it failed: %w; check it with kubectl get before applying again",
			l.verb, ref, l.resp.Message, err)
	}
	rep.Notes = append(rep.Notes, "outcome of the "+l.verb+" unknown until re-read: "+verdict)
	if verdict == lostAccepted {
		return Response{Status: 200, Message: "no response; re-read: accepted", AuditID: l.resp.AuditID}, nil
	}
	rep.Outcome = report.OutcomeRejected
	return l.resp, fmt.Errorf("the %s of %s got no response (%s), and %s shows no sign of it: the API server did not accept it and %s",
		l.verb, ref, l.resp.Message, ref, l.rejected)
}

// reread reads the target of a lost request, retrying while the API
// server does not answer, and returns the verdict: gone or replaced is
// accepted (what both a DELETE and a finalizer's removal lead to), else
// took decides.
func (a *Applier) reread(ctx context.Context, ref snapshot.ObjectRef, took func(map[string]any) bool) (string, error) {
	var err error
	for i := range rereadAttempts {
		if i > 0 {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(rereadPause):
			}
		}
		var obj map[string]any
		obj, err = a.Cluster.Get(ctx, ref)
		switch {
		case apierrors.IsNotFound(err) || errors.Is(err, ErrReplaced):
			return lostAccepted, nil
		case err == nil && took(obj):
			return lostAccepted, nil
		case err == nil:
			return lostNotAccepted, nil
		}
	}
	return "", err
}

// deletionRequested reports whether obj carries a deletionTimestamp.
func deletionRequested(obj map[string]any) bool {
	m, _ := obj["metadata"].(map[string]any)
	ts, _ := m["deletionTimestamp"].(string)
	return ts != ""
}

// deleteShows reports whether a remedy's DELETE shows on obj: its
// deletion started since the review, or its grace period is now the one
// the DELETE asked for (a force delete of an object already terminating).
func deleteShows(obj map[string]any, was *snapshot.Object, grace *int64) bool {
	if !deletionRequested(obj) {
		return false
	}
	if was == nil || !was.Terminating() {
		return true
	}
	m, _ := obj["metadata"].(map[string]any)
	now, ok := m["deletionGracePeriodSeconds"].(float64)
	before := was.Metadata.DeletionGracePeriodSeconds
	return grace != nil && ok && int64(now) == *grace && (before == nil || *before != *grace)
}

// patchShows reports whether every operation of a JSON patch, other than
// its tests, shows on obj: a replaced or added value is there, an
// appended one is in its list, a removed one is gone.
func patchShows(obj map[string]any, patch []diagnose.PatchOp) bool {
	for _, op := range patch {
		path, appended := strings.CutSuffix(op.Path, "/-")
		got, found := pointer(obj, path)
		var shows bool
		switch {
		case op.Op == "test":
			continue
		case op.Op == "remove":
			shows = !found
		case appended:
			list, _ := got.([]any)
			shows = containsValue(list, op.Value)
		default:
			// An emptied list is dropped from the object's JSON.
			shows = found && sameJSON(got, op.Value) || !found && sameJSON(op.Value, []any{})
		}
		if !shows {
			return false
		}
	}
	return true
}

// pointer resolves a JSON pointer made of object keys in obj.
func pointer(obj map[string]any, path string) (any, bool) {
	var cur any = obj
	for _, key := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		key = strings.ReplaceAll(strings.ReplaceAll(key, "~1", "/"), "~0", "~")
		if cur, ok = m[key]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func containsValue(list []any, v any) bool {
	for _, x := range list {
		if sameJSON(x, v) {
			return true
		}
	}
	return false
}

// sameJSON compares two values as JSON documents: a patch's values come
// typed ([]string) or decoded ([]any).
func sameJSON(a, b any) bool {
	var x, y any
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil || json.Unmarshal(ja, &x) != nil || json.Unmarshal(jb, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
