package apply

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// ErrReplaced is Get's error when the name now holds another object (a
// new uid): the object asked for is gone.
var ErrReplaced = errors.New("the object was replaced")

// Verdicts on a DELETE whose response was lost, as the report words them.
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

// settleLostDelete decides what became of a DELETE that got no response
// (status 0: the connection dropped once it was sent, or the client timed
// out). Sending it again blindly could delete what replaced the object,
// so kgc re-reads the target instead: gone, replaced or terminating means
// the API server accepted it, there without a deletionTimestamp means it
// did not (no accepted DELETE leaves an object so). It returns the
// response to judge: 200 when accepted, the lost one otherwise.
func (a *Applier) settleLostDelete(ctx context.Context, req DeleteRequest, resp Response, rep *Report) (Response, error) {
	if resp.Status != 0 || req.DryRun {
		return resp, nil
	}
	verdict, err := a.reread(ctx, req)
	if err != nil {
		rep.Outcome = OutcomeUnknown
		rep.Notes = append(rep.Notes, "outcome of the DELETE unknown: it got no response and "+refString(req.Object)+" could not be re-read")
		return resp, fmt.Errorf("the DELETE of %s got no response (%s) and re-reading it failed: %w; check it with kubectl get before applying again",
			refString(req.Object), resp.Message, err)
	}
	rep.Notes = append(rep.Notes, "outcome of the DELETE unknown until re-read: "+verdict)
	if verdict == lostAccepted {
		return Response{Status: 200, Message: "no response; re-read: accepted"}, nil
	}
	rep.Outcome = OutcomeRejected
	return resp, fmt.Errorf("the DELETE of %s got no response (%s), and %s is there unchanged: the API server did not accept it and nothing was deleted; run kgc apply again",
		refString(req.Object), resp.Message, refString(req.Object))
}

// reread reads the target of a lost DELETE, retrying while the API server
// does not answer, and returns the verdict.
func (a *Applier) reread(ctx context.Context, req DeleteRequest) (string, error) {
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
		obj, err = a.Cluster.Get(ctx, req.Object)
		switch {
		case apierrors.IsNotFound(err) || errors.Is(err, ErrReplaced):
			return lostAccepted, nil
		case err == nil && deletionRequested(obj):
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
