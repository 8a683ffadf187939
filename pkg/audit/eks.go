package audit

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/klauspost/compress/gzip"

	"github.com/kgc-dev/kgc/internal/jsonscan"
	"github.com/kgc-dev/kgc/internal/jsonskip"
)

// This file reads what EKS's CloudWatch Logs group /aws/eks/CLUSTER/cluster
// gives. Every form carries the kube-apiserver's Event JSON unchanged as a
// log event's message: `aws logs filter-log-events` and `get-log-events`
// ({"events":[{"message":...}]}, see convert.go), Logs Insights results
// (JSON rows with @message, or CSV: csv.go), a subscription filter's
// payloads (base64 of gzip of {"logEvents":[...]}, here), and an export
// to S3 (lines "TIMESTAMP MESSAGE", see prefix.go).
//
// What it loses: nothing of the event. CloudWatch orders and pages log
// events by a millisecond timestamp, so an export cut by time may miss
// events sharing the millisecond at its edge; Logs Insights returns at
// most 10,000 rows a query (see loss.go).

// maxPayload bounds one decompressed subscription payload: CloudWatch
// sends at most 1 MB of log events a payload.
const maxPayload = 64 << 20

// base64Gzip is how base64 of gzip data starts: the magic 1f 8b 08.
const base64Gzip = "H4sI"

// base64Payloads reads the payloads a wrapper holds in base64: a Lambda
// subscription event {"awslogs":{"data":B64}}, or `aws kinesis
// get-records` output {"Records":[{"Data":B64}, ...]}.
func (c *converter) base64Payloads(v []byte, line int, list string) {
	var data [][]byte
	s := scanner{jsonscan.Cursor{Data: v}}
	field := func(want string) func(key []byte) error {
		return func(key []byte) error {
			if string(key) != want {
				return s.Skip()
			}
			b, err := s.str()
			data = append(data, bytes.Clone(b))
			return err
		}
	}
	err := s.Object(func(key []byte) error {
		switch {
		case string(key) != list:
			return s.Skip()
		case list == "awslogs":
			return s.Object(field("data"))
		}
		return s.Array(func(int) error { return s.Object(field("Data")) })
	})
	for _, d := range data {
		if err == nil {
			err = c.payload(d, line)
		}
	}
	if err != nil {
		c.acc.badLine(v, line, err, false)
	}
}

// queryResults reads `aws logs get-query-results` output: each result a
// list of {"field":..., "value":...}, @message the event.
func (c *converter) queryResults(v []byte, line int) {
	var out struct {
		Results [][]struct{ Field, Value string } `json:"results"`
	}
	if err := json.Unmarshal(v, &out); err != nil {
		c.acc.badLine(v, line, notEvent("its results are not Logs Insights fields: "+err.Error()), false)
		return
	}
	for _, r := range out.Results {
		c.acc.insightsRows++
		i := slices.IndexFunc(r, func(f struct{ Field, Value string }) bool { return f.Field == "@message" })
		if i < 0 {
			c.acc.badLine(nil, line, notEvent("a result has no @message field: add it to the query's fields"), false)
			continue
		}
		c.acc.line([]byte(r[i].Value), line, false)
	}
}

// payload reads one base64 subscription payload.
func (c *converter) payload(b64 []byte, line int) error {
	raw, err := base64.StdEncoding.AppendDecode(nil, bytes.TrimSpace(b64))
	if err != nil {
		return notEvent(fmt.Sprintf("its base64 does not decode: %v", err))
	}
	gz, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return notEvent(fmt.Sprintf("its payload is not gzip: %v", err))
	}
	data, err := io.ReadAll(io.LimitReader(gz, maxPayload+1))
	if err != nil {
		return notEvent(fmt.Sprintf("its payload does not decompress: %v", err))
	}
	if len(data) > maxPayload {
		return notEvent(fmt.Sprintf("its payload decompresses to more than %d MB", maxPayload>>20))
	}
	c.acc.forms |= forms(formEKSSubscription)
	return c.values(data, line)
}

// values reads the JSON values of data one after the other, all at line
// (a payload's events are one line of the file).
func (c *converter) values(data []byte, line int) error {
	if c.depth >= maxDepth {
		return notEvent("its records nest too deep")
	}
	c.depth++
	defer func() { c.depth-- }()
	for i := jsonskip.Space(data, 0); i < len(data); i = jsonskip.Space(data, i) {
		end, err := jsonskip.Value(data, i)
		if err != nil {
			return err
		}
		c.value(data[i:end], line)
		i = end
	}
	return nil
}

// readPayloads reads a file of subscription payloads, one base64 line
// each (as Kinesis consumers save them).
func readPayloads(src io.Reader, acc *accumulator, c *converter, firstLine int) error {
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 0, 1<<16), maxPayload)
	for n := firstLine; sc.Scan(); n++ {
		l := bytes.TrimSpace(sc.Bytes())
		if len(l) == 0 {
			continue
		}
		if err := c.payload(l, n); err != nil {
			acc.badLine(l, n, err, n == firstLine)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("a subscription payload line is longer than %d MB: %w", maxPayload>>20, err)
		}
		return err
	}
	return nil
}

// errNotPlain declines a log event logEvent leaves to the framer.
var errNotPlain = errors.New("a log event with an object or array beside its message")

// logEvent reads a list's log event (filter-log-events') at the start of
// d, which runs on past it, as value reads it once framed, and returns
// where it ends: the walk that unescapes its message finds its end, which
// framing it first would look for again. It declines (false, nothing
// read) any value but a well-formed log event whose message is a string
// and whose other keys hold no object or array: one that framing could
// end elsewhere or refuse (its framer bounds how deep values nest), or
// that value would call bad.
func (c *converter) logEvent(d []byte, line int) (int, bool) {
	if c.depth == 0 || !allows(c.forced, formEKSCloudWatch) {
		return 0, false
	}
	if f, list, _, err := classifyKey(d); err != nil || f != formEKSCloudWatch || list != "" {
		return 0, false
	}
	var msg []byte
	s := scanner{jsonscan.Cursor{Data: d}}
	err := s.Object(func(key []byte) error {
		switch c := s.Peek(); {
		case c == '{' || c == '[':
			return errNotPlain
		case string(key) != "message":
			return s.Skip()
		case c != '"':
			return errNotPlain
		}
		var err error
		msg, err = c.stringOrObject(&s)
		return err
	})
	if err != nil || len(msg) == 0 {
		return 0, false
	}
	c.active++
	defer func() { c.active-- }()
	c.seen = true
	c.acc.line(msg, line, false)
	return s.Pos, true
}
