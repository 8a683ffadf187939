package framework

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// AuditPolicy is the audit policy a control plane's API server logs with.
// Both write JSON lines (--audit-log-format=json) to ControlPlane.AuditLog.
type AuditPolicy int

const (
	// AuditRequestResponse logs every change (create, update, patch,
	// delete, deletecollection) with its request and response bodies, and
	// the rest at Metadata level; the standard planes run it. It leaves
	// out the RequestReceived stage, as many production policies do.
	AuditRequestResponse AuditPolicy = iota
	// AuditMetadata logs every request at Metadata level, every stage:
	// who did what to which object, no body, so no DeleteOptions and no
	// owner reference is in the log.
	AuditMetadata
)

func (p AuditPolicy) String() string {
	if p == AuditMetadata {
		return "Metadata"
	}
	return "RequestResponse"
}

// Option changes how Start sets a control plane up.
type Option func(*ControlPlane)

// WithAuditPolicy makes the API server log with policy p.
func WithAuditPolicy(p AuditPolicy) Option {
	return func(cp *ControlPlane) { cp.Audit = p }
}

// quietRules drop what a post-mortem never reads and what would swamp the
// log: reads of leases and events (every node and controller renews a
// lease every few seconds), and the health checks the harness polls.
const quietRules = `- level: None
  verbs: [get, list, watch]
  resources:
  - group: coordination.k8s.io
    resources: [leases]
  - group: ""
    resources: [events]
  - group: events.k8s.io
    resources: [events]
- level: None
  nonResourceURLs: [/healthz*, /readyz*, /livez*, /metrics, /version]
`

// policyText is the policy file of p.
func (p AuditPolicy) policyText() string {
	head := "apiVersion: audit.k8s.io/v1\nkind: Policy\n"
	if p == AuditMetadata {
		return head + "rules:\n" + quietRules + "- level: Metadata\n"
	}
	return head + "omitStages: [RequestReceived]\nrules:\n" + quietRules +
		// A TokenRequest's response is a bearer token: never log a body.
		`- level: Metadata
  resources:
  - group: ""
    resources: [serviceaccounts/token]
- level: RequestResponse
  verbs: [create, update, patch, delete, deletecollection]
- level: Metadata
`
}

// auditArgs writes the policy file and returns the API server's audit
// flags. The log lives in a directory of its own, so that the directory
// holds the log and its rotated siblings only (kgc reads a folder).
// Rotation at 100 MB, three kept: a full suite run stays well below.
func (cp *ControlPlane) auditArgs() ([]string, error) {
	policy := filepath.Join(cp.Dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(cp.Audit.policyText()), 0o600); err != nil {
		return nil, fmt.Errorf("writing audit policy: %w", err)
	}
	dir := filepath.Join(cp.Dir, "audit")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating audit log dir: %w", err)
	}
	cp.AuditLog = filepath.Join(dir, "audit.log")
	return []string{
		"--audit-policy-file=" + policy,
		"--audit-log-path=" + cp.AuditLog,
		"--audit-log-format=json",
		"--audit-log-maxsize=100",
		"--audit-log-maxbackup=3",
	}, nil
}

// AuditLogFiles are the audit log and its rotated siblings, oldest first
// (the rotated ones carry their rotation time in their names).
func (cp *ControlPlane) AuditLogFiles() ([]string, error) {
	entries, err := os.ReadDir(filepath.Dir(cp.AuditLog))
	if err != nil {
		return nil, fmt.Errorf("listing audit logs: %w", err)
	}
	var rotated []string
	for _, e := range entries {
		if e.Name() != filepath.Base(cp.AuditLog) {
			rotated = append(rotated, filepath.Join(filepath.Dir(cp.AuditLog), e.Name()))
		}
	}
	sort.Strings(rotated)
	return append(rotated, cp.AuditLog), nil
}

// AuditUser is an audit event's user or impersonatedUser.
type AuditUser struct {
	Username string   `json:"username"`
	Groups   []string `json:"groups"`
}

// AuditEvent is the part of an audit.k8s.io/v1 Event the tests read to
// check what the real control plane did, independently of kgc.
type AuditEvent struct {
	Level            string     `json:"level"`
	AuditID          string     `json:"auditID"`
	Stage            string     `json:"stage"`
	RequestURI       string     `json:"requestURI"`
	Verb             string     `json:"verb"`
	User             AuditUser  `json:"user"`
	ImpersonatedUser *AuditUser `json:"impersonatedUser"`
	UserAgent        string     `json:"userAgent"`
	ObjectRef        *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestObject  json.RawMessage `json:"requestObject"`
	StageTimestamp time.Time       `json:"stageTimestamp"`
	// Raw is the event's line as the API server wrote it.
	Raw []byte `json:"-"`
}

// Actor is who the request acted as: the impersonated user if any.
func (e AuditEvent) Actor() string {
	if e.ImpersonatedUser != nil {
		return e.ImpersonatedUser.Username
	}
	return e.User.Username
}

// Is reports whether the event is a verb on resource (plural, "" group
// for core) in namespace ns named name ("" matches any).
func (e AuditEvent) Is(verb, resource, ns, name string) bool {
	r := e.ObjectRef
	return r != nil && e.Verb == verb && r.Resource == resource && r.Subresource == "" &&
		(ns == "" || r.Namespace == ns) && (name == "" || r.Name == name)
}

// ReadAuditLog reads audit events (JSON lines, gzipped or not) from files,
// in their order. A line that is not an event fails: the API server writes
// only events.
func ReadAuditLog(files ...string) ([]AuditEvent, error) {
	var out []AuditEvent
	for _, f := range files {
		data, err := readMaybeGzip(f)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for line := 1; sc.Scan(); line++ {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			var ev AuditEvent
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				return nil, fmt.Errorf("%s:%d: not an audit event: %w", f, line, err)
			}
			ev.Raw = slices.Clone(sc.Bytes())
			out = append(out, ev)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("reading %s: %w", f, err)
		}
	}
	return out, nil
}

func readMaybeGzip(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading audit log: %w", err)
	}
	if !strings.HasSuffix(path, ".gz") {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer zr.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(zr); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return b.Bytes(), nil
}

// WriteAuditLog writes events as the API server does (one JSON line
// each, their raw text), gzipped when path ends in .gz.
func WriteAuditLog(path string, events []AuditEvent) error {
	var b bytes.Buffer
	for _, e := range events {
		b.Write(e.Raw)
		b.WriteByte('\n')
	}
	data := b.Bytes()
	if strings.HasSuffix(path, ".gz") {
		var z bytes.Buffer
		zw, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
		if err != nil {
			return err
		}
		zw.ModTime = time.Time{}
		if _, err := zw.Write(data); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		data = z.Bytes()
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("writing audit log %s: %w", path, err)
	}
	return nil
}

// AuditWindow is the events of files whose stageTimestamp is in
// [from, to], for a test that hands kgc the part of the log its scenario
// wrote (as an operator cuts a window out of a big log).
func AuditWindow(events []AuditEvent, from, to time.Time) []AuditEvent {
	var out []AuditEvent
	for _, e := range events {
		if !e.StageTimestamp.Before(from) && !e.StageTimestamp.After(to) {
			out = append(out, e)
		}
	}
	return out
}
