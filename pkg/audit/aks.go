package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kgc-dev/kgc/internal/jsonscan"
)

// This file reads AKS's audit exports. A diagnostic setting with the
// category kube-audit (every request) or kube-audit-admin (no get, list
// or watch) sends records {"category":..., "properties":{"log":EVENT}} to
// a storage account (PT1H.json blobs, a record a line) or Event Hubs
// ({"records":[...]}, see convert.go), EVENT the native Event as a JSON
// string or, in some collectors' copies, as an object. Log Analytics
// splits the event into the AKSAudit and AKSAuditAdmin tables' columns
// (AuditId, Verb, ObjectRef, User, ...), rebuilt here into an Event.
//
// What it loses (see loss.go): AKS replaces a body over its size limit by
// the string "skipped-too-big-size-object"; kube-audit-admin logs no
// reads.

// skippedBody is what AKS writes in place of a body too big to log.
const skippedBody = "skipped-too-big-size-object"

// aksRecord returns the event a diagnostic record carries; a record of
// another category (guard, kube-apiserver) is passed over.
func (c *converter) aksRecord(v []byte) ([]byte, error) {
	r, err := c.aksWalk(v, false)
	if err != nil {
		return nil, err
	}
	return c.aksLog(r)
}

// aksFields are what a diagnostic record's walk found.
type aksFields struct {
	category string
	log      []byte
	found    bool
}

// errNativeKey stops the walk of a record that has a key the native
// prefilter reads.
var errNativeKey = errors.New("a native event's key")

// aksWalk reads a diagnostic record's category and properties.log. With
// native, it stops (errNativeKey) at a key the native prefilter reads.
func (c *converter) aksWalk(v []byte, native bool) (aksFields, error) {
	return c.aksWalkAt(&scanner{jsonscan.Cursor{Data: v}}, native)
}

// aksWalkAt is aksWalk of the record at s's cursor, which it leaves
// after the record.
func (c *converter) aksWalkAt(s *scanner, native bool) (aksFields, error) {
	var r aksFields
	err := s.Object(func(key []byte) error {
		switch string(key) {
		case "category":
			b, err := s.str()
			r.category = string(b)
			return err
		case "properties":
			return s.Object(func(key []byte) error {
				if string(key) != "log" {
					return s.Skip()
				}
				r.found = true
				var err error
				r.log, err = c.stringOrObject(s)
				return err
			})
		case "apiVersion", "verb", "user", "objectRef", "stageTimestamp":
			if native {
				return errNativeKey
			}
		}
		return s.Skip()
	})
	return r, err
}

// aksLog is the event of a record walked, counting what its category
// lacks.
func (c *converter) aksLog(r aksFields) ([]byte, error) {
	switch r.category {
	case "kube-audit":
	case "kube-audit-admin":
		c.acc.lost |= lostReads
	default:
		c.acc.passed++
		return nil, nil
	}
	if !r.found {
		return nil, notEvent("its properties have no log")
	}
	return r.log, nil
}

// aksLine reads a line that is one diagnostic record (a storage blob's)
// as the native reader's prefilter and then the converter would, walking
// it once: the prefilter would walk the whole record, the event string
// included, to find it has no verb. It declines (false, nothing read) a
// line that is no record, is malformed, or has a key the prefilter
// reads, which take that longer way.
func (c *converter) aksLine(l []byte, n int) bool {
	return c.depth == 0 && c.aksRead(&scanner{jsonscan.Cursor{Data: l}}, true, n, l)
}

// aksRecordAt reads the diagnostic record at s's cursor, an element of
// a list (an Event Hubs message's records), as value reads it, in one
// walk where value would read it after the list's skip over it; a record
// messageLine walked already is filed as walked. It declines (false,
// nothing read, s anywhere) a value that is no record, that value would
// refuse, or that the walk finds malformed: the caller reads it as a
// value, which says so as it always did.
func (c *converter) aksRecordAt(s *scanner, line int) bool {
	if c.depth == 0 {
		return false
	}
	if w, ok := c.walked.next(s); ok {
		c.aksFile(w.fields, line, s.Data[w.start:s.Pos])
		return true
	}
	return c.aksRead(s, false, line, nil)
}

// aksRead reads the diagnostic record at s's cursor in one walk, for
// aksLine (native: declining a record with a key the prefilter reads)
// and aksRecordAt; a warning names v, or the record walked when nil.
func (c *converter) aksRead(s *scanner, native bool, line int, v []byte) bool {
	start := s.Pos
	r, ok := c.aksWalkRecord(s, native)
	if !ok {
		return false
	}
	if v == nil {
		v = s.Data[start:s.Pos]
	}
	c.aksFile(r, line, v)
	return true
}

// aksWalkRecord walks the diagnostic record at s's cursor. It declines
// (false) a value that is no record, one --audit-format refuses, or one
// the walk finds malformed.
func (c *converter) aksWalkRecord(s *scanner, native bool) (aksFields, bool) {
	f, list, _, err := classifyKey(s.Data[s.Pos:])
	if err != nil || f != formAKSDiagnostics || list != "" || !allows(c.forced, f) {
		return aksFields{}, false
	}
	r, err := c.aksWalkAt(s, native)
	return r, err == nil
}

// aksFile files the event of record v walked, at line.
func (c *converter) aksFile(r aksFields, line int, v []byte) {
	c.active++
	defer func() { c.active-- }()
	c.seen = true
	c.acc.forms |= forms(formAKSDiagnostics)
	log, err := c.aksLog(r)
	switch {
	case err != nil:
		c.acc.badLine(v, line, err, false)
	case log != nil:
		c.acc.line(log, line, false)
	}
}

// logAnalyticsColumns are the AKSAudit and AKSAuditAdmin columns and the
// Event fields they hold.
var logAnalyticsColumns = map[string]string{
	"AuditId": "auditID", "Level": "level", "Stage": "stage", "RequestUri": "requestURI", "Verb": "verb",
	"User": "user", "ImpersonatedUser": "impersonatedUser", "SourceIps": "sourceIPs", "UserAgent": "userAgent",
	"ObjectRef": "objectRef", "ResponseStatus": "responseStatus", "RequestObject": "requestObject",
	"ResponseObject": "responseObject", "RequestReceivedTime": "requestReceivedTimestamp",
	"StageReceivedTime": "stageTimestamp", "Annotations": "annotations",
}

// logAnalyticsRow rebuilds the event of an AKSAudit or AKSAuditAdmin row,
// as `az monitor log-analytics query -o json` or a portal export gives it:
// its dynamic columns are objects, or JSON text in a CSV.
func logAnalyticsRow(v []byte, acc *accumulator) ([]byte, error) {
	var row map[string]any
	if err := json.Unmarshal(v, &row); err != nil {
		return nil, err
	}
	return rowEvent(row, acc)
}

// rowEvent rebuilds an event from a Log Analytics row's columns.
func rowEvent(row map[string]any, acc *accumulator) ([]byte, error) {
	ev := map[string]any{"kind": "Event", "apiVersion": "audit.k8s.io/v1"}
	for col, val := range row {
		field, ok := logAnalyticsColumns[col]
		if !ok {
			continue
		}
		if s, isStr := val.(string); isStr {
			switch {
			case s == skippedBody:
				acc.skippedBodies++
				continue
			case strings.HasPrefix(s, "{") || strings.HasPrefix(s, "["):
				var dyn any
				if err := json.Unmarshal([]byte(s), &dyn); err != nil {
					return nil, notEvent(fmt.Sprintf("its %s column is not JSON: %v", col, err))
				}
				val = dyn
			case s == "" && field != "verb":
				continue // an empty dynamic column
			}
		}
		ev[field] = val
	}
	if t, _ := row["Type"].(string); t == "AKSAuditAdmin" {
		acc.lost |= lostReads
	}
	return json.Marshal(ev)
}

// elasticEvent returns the event of an Elastic kubernetes.audit_logs
// document: kubernetes.audit is the event, its annotation keys rewritten
// (dots to underscores), so the authorizer's decision is not read.
func elasticEvent(v []byte) ([]byte, error) {
	var doc struct {
		Kubernetes struct {
			Audit json.RawMessage `json:"audit"`
		} `json:"kubernetes"`
	}
	if err := json.Unmarshal(v, &doc); err != nil {
		return nil, err
	}
	if len(doc.Kubernetes.Audit) == 0 || doc.Kubernetes.Audit[0] != '{' {
		return nil, notEvent("it is an Elastic document with no kubernetes.audit event")
	}
	return doc.Kubernetes.Audit, nil
}
