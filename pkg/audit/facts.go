package audit

import (
	"strings"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// This file holds what a request says of its object, as a post-mortem
// reads it: one definition for the analysis and for the reader's fold.

// ObjectUID is the UID a request shows for its object: its objectRef's,
// a DELETE's precondition (the garbage collector always sets one), or a
// logged object's.
func (e *Event) ObjectUID() string {
	if e.Object.UID != "" {
		return e.Object.UID
	}
	if e.Delete != nil && e.Delete.PreconditionUID != "" {
		return e.Delete.PreconditionUID
	}
	for _, m := range []*Meta{e.Response, e.Request} {
		if m != nil && m.UID != "" && m.Name == e.Object.Name {
			return m.UID
		}
	}
	return ""
}

// ObjectState is the body a request shows its object's state in: the
// response when it is the object, else the request (not a patch's, which
// says only what changes); nil when neither is.
func (e *Event) ObjectState() *Meta {
	if m := e.Response; m != nil && m.Kind != "Status" && m.Name == e.Object.Name {
		return m
	}
	if m := e.Request; m != nil && m.Name == e.Object.Name && e.Verb != "patch" {
		return m
	}
	return nil
}

// ReceivedAt is when the API server received the request: the order in
// which requests can cause each other. Its stage time when not logged.
func (e *Event) ReceivedAt() time.Time {
	if e.Received.IsZero() {
		return e.Time
	}
	return e.Received
}

// ObjectKind reports whether a logged body's kind is its object's: the
// garbage collector reads and writes through the metadata client, so the
// API server logs its responses as meta.k8s.io PartialObjectMetadata, and
// a DELETE may answer with a Status.
func ObjectKind(apiVersion, kind string) bool {
	group, _ := snapshot.SplitAPIVersion(apiVersion)
	return kind != "" && apiVersion != "" && group != "meta.k8s.io" && kind != "Status"
}

// DryRun reports a request sent with dryRun=All (in its URI, as kubectl
// --dry-run=server sends it, or in its DeleteOptions): the API server ran
// admission and validation and answered as if it had acted, and changed
// nothing. Its response may even show the object deleting.
func (e *Event) DryRun() bool {
	if e.Delete != nil && len(e.Delete.DryRun) > 0 {
		return true
	}
	_, query, ok := strings.Cut(e.RequestURI, "?")
	if !ok {
		return false
	}
	for kv := range strings.SplitSeq(query, "&") {
		if k, v, _ := strings.Cut(kv, "="); k == "dryRun" && v != "" {
			return true
		}
	}
	return false
}
