// Package audit reads the kube-apiserver's audit log (audit.k8s.io/v1
// Events, one JSON object per line as --audit-log-format=json writes
// them, or an EventList as the webhook backend sends it) into the few
// facts a post-mortem needs, and nothing else.
//
// An audit log written at RequestResponse level holds Secret data, tokens
// and every object's full body. This package keeps metadata only: who sent
// which request about which object, when, with which DeleteOptions, and
// from the request and response objects their identity, owner references,
// finalizers and deletion state. No other field of a body survives the
// reader, so nothing secret can reach an output.
//
// The package is pure: it never talks to a cluster.
package audit

import (
	"iter"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Levels of an audit event, as the policy set them.
const (
	LevelNone            = "None"
	LevelMetadata        = "Metadata"
	LevelRequest         = "Request"
	LevelRequestResponse = "RequestResponse"
)

// Stages of an audit event.
const (
	StageRequestReceived  = "RequestReceived"
	StageResponseStarted  = "ResponseStarted"
	StageResponseComplete = "ResponseComplete"
	StagePanic            = "Panic"
)

// Event is one request, its stages collapsed: the metadata of the audit
// events sharing one auditID. Bodies are reduced to Meta.
type Event struct {
	AuditID string `json:"auditID"`
	// Level is the level the policy logged the request at.
	Level string `json:"level"`
	// Stage is the last stage seen for this auditID; a request seen only
	// at RequestReceived has no response code.
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	User       User   `json:"user"`
	// ImpersonatedUser is who the request acted as (kubectl --as).
	ImpersonatedUser *User    `json:"impersonatedUser,omitempty"`
	SourceIPs        []string `json:"sourceIPs,omitempty"`
	UserAgent        string   `json:"userAgent,omitempty"`
	Object           Ref      `json:"objectRef"`
	// Code is the response's HTTP status code (0 when not logged).
	Code int `json:"code,omitempty"`
	// Reason is the response status's reason or message, short.
	Reason string `json:"reason,omitempty"`
	// Received is requestReceivedTimestamp; Time is the last stage's
	// stageTimestamp, the order events are merged in.
	Received time.Time `json:"received"`
	Time     time.Time `json:"time"`
	// Decision and AuthzReason are the authorization.k8s.io/decision
	// and authorization.k8s.io/reason annotations.
	Decision    string `json:"decision,omitempty"`
	AuthzReason string `json:"authzReason,omitempty"`
	// Delete is the DeleteOptions of a delete or deletecollection logged
	// at Request level or above; nil when the body is not in the log.
	Delete *DeleteOptions `json:"deleteOptions,omitempty"`
	// Request and Response are the identity, owner references and
	// finalizers of the request and response objects, when logged and
	// when they are objects (not DeleteOptions or a Status). For a PATCH,
	// Request is read from the patch body as far as it says (a strategic
	// merge patch's $patch:delete of an owner reference, a finalizer list).
	// Request is nil when Response names the same object with its kind
	// and UID and the request removes nothing: it would say no more.
	Request  *Meta `json:"request,omitempty"`
	Response *Meta `json:"response,omitempty"`
	// Source is where the event was read: file and line of its last stage.
	Source Position `json:"source"`
}

// User is an authenticated identity (userInfo).
type User struct {
	Username string   `json:"username"`
	UID      string   `json:"uid,omitempty"`
	Groups   []string `json:"groups,omitempty"`
}

// Ref is an event's objectRef.
type Ref struct {
	Resource    string `json:"resource,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name,omitempty"`
	UID         string `json:"uid,omitempty"`
	APIGroup    string `json:"apiGroup,omitempty"`
	Subresource string `json:"subresource,omitempty"`
}

// DeleteOptions are the fields of a DELETE's body a post-mortem reports.
type DeleteOptions struct {
	PropagationPolicy  string   `json:"propagationPolicy,omitempty"`
	OrphanDependents   *bool    `json:"orphanDependents,omitempty"`
	GracePeriodSeconds *int64   `json:"gracePeriodSeconds,omitempty"`
	DryRun             []string `json:"dryRun,omitempty"`
	PreconditionUID    string   `json:"preconditionUID,omitempty"`
	PreconditionRV     string   `json:"preconditionResourceVersion,omitempty"`
}

// Meta is what the reader keeps of a request or response object.
type Meta struct {
	APIVersion        string     `json:"apiVersion,omitempty"`
	Kind              string     `json:"kind,omitempty"`
	Namespace         string     `json:"namespace,omitempty"`
	Name              string     `json:"name,omitempty"`
	UID               string     `json:"uid,omitempty"`
	DeletionTimestamp *time.Time `json:"deletionTimestamp,omitempty"`
	// Finalizers is nil when the body does not say (a patch that leaves
	// them), empty when it says there are none. For a strategic merge
	// patch it is the list of $setElementOrder/finalizers when given (the
	// finalizers left after the patch), else the patch's finalizers list.
	Finalizers      []string   `json:"finalizers"`
	OwnerReferences []OwnerRef `json:"ownerReferences,omitempty"`
	// MetaExtras, nil when the body has none, holds what few bodies
	// carry: a log of millions of events keeps hundreds of thousands of
	// Metas, and each would otherwise hold three empty slices.
	*MetaExtras
}

// MetaExtras are the fields of a Meta that only a patch removing owner
// references or finalizers, or a List, sets.
type MetaExtras struct {
	// RemovedFinalizers are the finalizers a strategic merge patch
	// deletes ($deleteFromPrimitiveList/finalizers).
	RemovedFinalizers []string `json:"removedFinalizers,omitempty"`
	// RemovedOwnerUIDs are the owner references a strategic merge patch
	// deletes ({"$patch":"delete","uid":U}), as the garbage collector
	// orphans a dependent.
	RemovedOwnerUIDs []string `json:"removedOwnerUIDs,omitempty"`
	// Items are the objects of a List response (a deletecollection's).
	Items []Meta `json:"items,omitempty"`
}

// extras returns m's MetaExtras, made when m has none, to set.
func (m *Meta) extras() *MetaExtras {
	if m.MetaExtras == nil {
		m.MetaExtras = &MetaExtras{}
	}
	return m.MetaExtras
}

// OwnersRemoved is RemovedOwnerUIDs, nil when m has no MetaExtras.
func (m *Meta) OwnersRemoved() []string {
	if m.MetaExtras == nil {
		return nil
	}
	return m.RemovedOwnerUIDs
}

// Removes reports whether m removes an owner reference or a finalizer.
func (m *Meta) Removes() bool {
	return m.MetaExtras != nil && (len(m.RemovedOwnerUIDs) > 0 || len(m.RemovedFinalizers) > 0)
}

// ListItems is Items, nil when m has no MetaExtras.
func (m *Meta) ListItems() []Meta {
	if m.MetaExtras == nil {
		return nil
	}
	return m.Items
}

// OwnerRef is one owner reference of a Meta: the snapshot model's own, so
// that an owner reference read from the log and one read from a snapshot
// are the same value.
type OwnerRef = snapshot.OwnerReference

// Position is a file and a 1-based line.
type Position struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

// File is what was read from one input file.
type File struct {
	Path string `json:"path"`
	// Format is the form its events were read in (native,
	// eks-cloudwatch, gke-logentry, aks-diagnostics, ...; several joined
	// by "+"), empty when it held none.
	Format string `json:"format,omitempty"`
	// Events counts the audit events read (stages, before collapsing);
	// Kept the requests kept after filtering.
	Events int `json:"events"`
	Kept   int `json:"kept"`
	// First and Last are the earliest and latest stageTimestamp read:
	// the window this file covers.
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
	// Bad counts lines that could not be read as audit events.
	Bad int `json:"bad,omitempty"`
	// Losses say what the form it was read in loses compared with the
	// kube-apiserver's own log, and what that costs the answer.
	Losses []string `json:"losses,omitempty"`
}

// Warning is one problem met while reading, at a position.
type Warning struct {
	Position Position `json:"position"`
	Message  string   `json:"message"`
}

// Log is what Read returns: the kept requests in stageTimestamp order
// (ties by auditID; Len, At and All read them), the files read, and the
// warnings.
type Log struct {
	// chunks hold the requests, per in each but the last: Read leaves
	// them in the blocks it filed them in rather than copy them into one
	// slice, which on a log of millions of events would be a few hundred
	// megabytes held beside the blocks.
	chunks [][]Event
	per, n int
	// spill holds the requests instead, when the log was too big to hold.
	spill    *spill
	Files    []File    `json:"files"`
	Warnings []Warning `json:"warnings,omitempty"`
	// Dropped counts events filtered out as irrelevant to a post-mortem
	// (reads, watches, requests that changed nothing a chain needs).
	Dropped int `json:"dropped"`
}

// SetEvents makes events, in stageTimestamp order, the log's requests:
// for a log built in memory.
func (l *Log) SetEvents(events []Event) {
	l.chunks, l.per, l.n = [][]Event{events}, max(1, len(events)), len(events)
}

// Len is how many requests the log holds.
func (l *Log) Len() int { return l.n }

// At is the log's i-th request.
func (l *Log) At(i int) *Event { return &l.chunks[i/l.per][i%l.per] }

// All yields the log's requests in order.
func (l *Log) All() iter.Seq[*Event] {
	return func(yield func(*Event) bool) {
		for _, c := range l.chunks {
			for i := range c {
				if !yield(&c[i]) {
					return
				}
			}
		}
	}
}
