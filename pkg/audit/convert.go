package audit

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/kgc-dev/kgc/internal/jsonscan"
)

// This file reads audit events out of whatever JSON value carries them:
// a native Event, a list of them, or a platform's record wrapping one.
// Each value is classified by its top-level keys, then unwrapped (or, for
// GKE and Log Analytics, rebuilt) into the native Event JSON the
// accumulator reads; see the files named after each platform.

// converter feeds the events found in JSON values to an accumulator.
type converter struct {
	acc    *accumulator
	forced Family
	// yaml: the values were YAML documents (a native one is native-yaml).
	yaml bool
	// depth bounds wrappers within wrappers.
	depth int
	// seen: a value was read. The first value of a file that is no
	// audit record says the file is not an audit log.
	seen bool
	// buf is where a string holding an event is unescaped.
	buf []byte
	// active counts the values being converted: an event they yield that
	// is not native is bad, not converted again.
	active int
	// walked are the records of the message line being read, walked
	// before they are filed (see eventhubs.go).
	walked walkedRecords
	// pool converts the values of the file's lists at its depth: one
	// pool for a file's many short lists (Event Hubs messages), so that
	// their values are converted on every core (see listPool).
	pool *pool
}

// maxDepth bounds how deep wrappers may nest (a list of Event Hubs
// messages of records is three).
const maxDepth = 4

// classify says which form a JSON object is in, by its top-level keys,
// and for a wrapper of several events the key that lists them.
func classify(v []byte) (form, string, error) {
	f, list, _, err := classifyKey(v)
	return f, list, err
}

// classifyKey is classify, and where the value of the key that decided
// the form starts.
func classifyKey(v []byte) (form, string, int, error) {
	var f form
	var list string
	s := scanner{jsonscan.Cursor{Data: v}}
	err := s.Object(func(key []byte) error {
		f, list = formOfKey(string(key))
		if f == 0 && string(key) == "kind" {
			b, err := s.str()
			if errors.Is(err, errIncomplete) {
				return err
			}
			if err != nil {
				return notEvent("its kind is not a string")
			}
			switch string(b) {
			case "Event":
				f = formNative
			case "EventList":
				f, list = formNative, "items"
			default:
				return notEvent(fmt.Sprintf("its kind is %.40q, not Event or EventList", b))
			}
			return errDecided
		}
		if f != 0 {
			return errDecided
		}
		return s.Skip()
	})
	if errors.Is(err, errDecided) {
		return f, list, s.Pos, nil
	}
	if err != nil {
		return 0, "", 0, err
	}
	return 0, "", 0, notEvent("it has no verb, and none of the keys of a platform's audit record (protoPayload, properties.log, message, @message)")
}

// formOfKey is the form a top-level key proves, and the key listing the
// events of a wrapper.
func formOfKey(key string) (form, string) {
	switch key {
	case "verb", "auditID", "stage", "stageTimestamp", "objectRef":
		return formNative, ""
	case "items":
		return formNative, "items"
	case "protoPayload":
		return formGKE, ""
	case "properties", "category":
		return formAKSDiagnostics, ""
	case "records":
		return formAKSDiagnostics, "records"
	case "events":
		return formEKSCloudWatch, "events"
	case "logEvents":
		return formEKSSubscription, "logEvents"
	case "message":
		return formEKSCloudWatch, ""
	case "@message", "@logStream":
		return formEKSInsightsJSON, ""
	case "awslogs":
		return formEKSSubscription, "awslogs"
	case "Records":
		return formEKSSubscription, "Records" // aws kinesis get-records
	case "results":
		return formEKSInsightsJSON, "results" // aws logs get-query-results
	case "kubernetes":
		return formElasticECS, ""
	case "AuditId", "Verb", "ObjectRef":
		return formAKSLogAnalytics, ""
	}
	return 0, ""
}

// value reads the events of one JSON value, at line.
func (c *converter) value(v []byte, line int) {
	c.active++
	defer func() { c.active-- }()
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '[' {
		c.array(v, line)
		return
	}
	first := c.depth == 0 && !c.seen
	c.seen = true
	f, list, at, err := classifyKey(v)
	if err == nil && !allows(c.forced, f) {
		err = notEvent(fmt.Sprintf("it reads as %s, not %s as --audit-format says", formNames[f], c.forced))
		first = first || c.acc.events == 0 // a file of another platform altogether
	}
	if err != nil {
		c.acc.badLine(v, line, err, first)
		return
	}
	switch {
	case c.depth > 0 && f == formEKSCloudWatch && list == "":
		// A wrapper's log events are in its form, not CloudWatch's.
	case f == formEKSInsightsJSON:
		c.acc.insightsRows++
		c.acc.forms |= forms(f)
	case c.yaml && f == formNative:
		c.acc.forms |= forms(formNativeYAML)
	default:
		c.acc.forms |= forms(f)
	}
	if list != "" {
		c.wrapper(v, line, f, list)
		return
	}
	if f == formGKE { // read into a stage, not rebuilt as a native event
		if err := c.acc.logEntry(v, at, line); err != nil {
			c.acc.badLine(v, line, err, false)
		}
		return
	}
	native, err := c.unwrap(v, f)
	if err != nil {
		c.acc.badLine(v, line, err, false)
		return
	}
	if native != nil {
		c.acc.line(native, line, false)
	}
}

// unwrap returns the native Event JSON a record of form f carries; nil
// when the record is not an audit event and was counted as passed over.
func (c *converter) unwrap(v []byte, f form) ([]byte, error) {
	switch f {
	case formNative, formNativeYAML:
		return v, nil
	case formEKSCloudWatch, formEKSSubscription:
		return c.member(v, "message")
	case formEKSInsightsJSON:
		return c.member(v, "@message")
	case formElasticECS:
		return elasticEvent(v)
	case formAKSDiagnostics:
		return c.aksRecord(v)
	case formAKSLogAnalytics:
		return logAnalyticsRow(v, c.acc)
	case formGKE, formEKSInsightsCSV, formEKSS3Export, formOpenShiftNodeLogs, formLast:
		// A GKE entry is read by value; the others are no JSON record.
	}
	return nil, notEvent("it is not a JSON record")
}

// wrapper reads each event a wrapper lists.
func (c *converter) wrapper(v []byte, line int, f form, list string) {
	if c.depth >= maxDepth {
		c.acc.badLine(v, line, notEvent("its records nest too deep"), false)
		return
	}
	switch {
	case f == formEKSSubscription && list != "logEvents":
		c.base64Payloads(v, line, list)
		return
	case list == "results":
		c.queryResults(v, line)
		return
	}
	if f == formEKSSubscription && controlMessage(v) {
		return // CloudWatch's health check of the destination: no events
	}
	s := scanner{jsonscan.Cursor{Data: v}}
	err := s.Object(func(key []byte) error {
		if string(key) == list {
			return c.items(&s, line, f)
		}
		return s.Skip()
	})
	if err != nil {
		c.acc.badLine(v, line, err, false)
	}
}

// controlMessage says whether a subscription payload is a control
// message, whatever the order of its keys.
func controlMessage(v []byte) bool {
	control := false
	s := scanner{jsonscan.Cursor{Data: v}}
	_ = s.Object(func(key []byte) error {
		if string(key) == "messageType" {
			b, err := s.str()
			control = string(b) == "CONTROL_MESSAGE"
			return err
		}
		return s.Skip()
	})
	return control
}

// items reads the array at s's cursor, each element a value; the
// records a wrapper of form f lists, an AKS record each, are read in
// one walk (aksRecordAt).
func (c *converter) items(s *scanner, line int, f form) error {
	if s.Peek() == 'n' {
		return s.Skip()
	}
	c.depth++
	defer func() { c.depth-- }()
	counted := 0 // the newlines before it are counted in line
	return s.Array(func(int) error {
		start := s.Pos
		line += bytes.Count(s.Data[counted:start], []byte{'\n'})
		counted = start
		if f == formAKSDiagnostics && c.aksRecordAt(s, line) {
			return nil
		}
		s.Pos = start
		if err := s.Skip(); err != nil {
			return err
		}
		c.value(s.Data[start:s.Pos], line)
		return nil
	})
}

// array reads a JSON array of records (gcloud's, a Log Analytics
// query's, a Logs Insights export's).
func (c *converter) array(v []byte, line int) {
	if c.depth >= maxDepth {
		c.acc.badLine(v, line, notEvent("its records nest too deep"), false)
		return
	}
	s := scanner{jsonscan.Cursor{Data: v}}
	if err := c.items(&s, line, 0); err != nil { // records of no one form
		c.acc.badLine(v, line, err, false)
	}
}

// member returns a record's key holding the native event: its text when
// it is a string (CloudWatch's message), the object itself when not.
func (c *converter) member(v []byte, key string) ([]byte, error) {
	var out []byte
	found := false
	s := scanner{jsonscan.Cursor{Data: v}}
	err := s.Object(func(k []byte) error {
		if string(k) != key {
			return s.Skip()
		}
		found = true
		var err error
		out, err = c.stringOrObject(&s)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !found || len(out) == 0 {
		return nil, notEvent(fmt.Sprintf("its %s is empty", key))
	}
	return out, nil
}

// stringOrObject reads a value holding an event: a string of JSON text
// (unescaped into the converter's buffer, which the event's reader is
// done with before the next) or the object itself.
func (c *converter) stringOrObject(s *scanner) ([]byte, error) {
	switch s.Peek() {
	case '"':
		b, err := s.text(c.buf)
		if err != nil {
			return nil, err
		}
		// The text is never the scanner's bytes (a string holding an
		// event has escapes), so a grown buffer is the converter's.
		if cap(b) > cap(c.buf) && len(b) <= maxKeptBuffer {
			c.buf = b[:0]
		}
		return bytes.TrimSpace(b), nil
	case '{':
		return s.Raw()
	}
	return nil, s.Expected("a string or an object holding the audit event")
}

// maxKeptBuffer bounds the buffer a converter keeps for the next event.
const maxKeptBuffer = 1 << 20
