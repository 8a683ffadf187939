package gen

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Exports are the platform forms Export writes, as the platform's own
// tools print them: an AKS storage account's PT1H.json blob (a record a
// line, the event a string in properties.log), `aws logs
// filter-log-events` output (one JSON document, the event a string in
// each log event's message) and `gcloud logging read --format=json` (an
// array of LogEntry, newest first, the event rebuilt as a protoPayload),
// and AKS diagnostic settings streamed to Event Hubs (a message a line,
// {"records":[…]}, a few records each: a file of many short lists).
var Exports = []string{"aks-diagnostics", "aks-eventhubs", "eks-cloudwatch", "gke-logentry"}

// eventHubsRecords is how many records an Event Hubs message of Export
// holds.
const eventHubsRecords = 4

// Export rewrites the native audit lines of r in form (one of Exports).
func Export(w io.Writer, r io.Reader, form string) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	var err error
	switch form {
	case "aks-diagnostics":
		err = eachLine(sc, func(l []byte, _ int) error { return writeJSON(bw, aksRecord(l), "\n") })
	case "aks-eventhubs":
		err = eventHubsMessages(bw, sc)
	case "eks-cloudwatch":
		_, _ = bw.WriteString(`{"events":[`)
		err = eachLine(sc, func(l []byte, i int) error {
			if i > 0 {
				_ = bw.WriteByte(',')
			}
			return writeJSON(bw, cloudWatchEvent(l, i), "\n")
		})
		_, _ = bw.WriteString(`],"searchedLogStreams":[]}` + "\n")
	case "gke-logentry":
		var entries [][]byte
		err = eachLine(sc, func(l []byte, _ int) error {
			b, err := json.Marshal(logEntry(l))
			entries = append(entries, b)
			return err
		})
		_, _ = bw.WriteString("[\n")
		for i, e := range slices.Backward(entries) {
			_, _ = bw.Write(e)
			if i > 0 {
				_ = bw.WriteByte(',')
			}
			_ = bw.WriteByte('\n')
		}
		_, _ = bw.WriteString("]\n")
	default:
		return fmt.Errorf("unknown export form %q: give one of %s", form, strings.Join(Exports, ", "))
	}
	if err != nil {
		return err
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return bw.Flush()
}

// eventHubsMessages writes the lines of sc as AKS records, a few to an
// Event Hubs message, a message a line.
func eventHubsMessages(bw *bufio.Writer, sc *bufio.Scanner) error {
	var recs []any
	flush := func() error {
		if len(recs) == 0 {
			return nil
		}
		err := writeJSON(bw, map[string]any{"records": recs}, "\n")
		recs = recs[:0]
		return err
	}
	err := eachLine(sc, func(l []byte, _ int) error {
		if recs = append(recs, aksRecord(l)); len(recs) == eventHubsRecords {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

func eachLine(sc *bufio.Scanner, f func(l []byte, i int) error) error {
	for i := 0; sc.Scan(); i++ {
		if err := f(sc.Bytes(), i); err != nil {
			return err
		}
	}
	return nil
}

func writeJSON(w *bufio.Writer, v any, sep string) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, _ = w.Write(b)
	_, err = w.WriteString(sep)
	return err
}

// nativeEvent is what the exports read of a native event.
type nativeEvent struct {
	AuditID        string `json:"auditID"`
	Verb           string `json:"verb"`
	User           struct{ Username string }
	SourceIPs      []string           `json:"sourceIPs"`
	UserAgent      string             `json:"userAgent"`
	ObjectRef      map[string]string  `json:"objectRef"`
	ResponseStatus struct{ Code int } `json:"responseStatus"`
	RequestObject  json.RawMessage    `json:"requestObject"`
	ResponseObject json.RawMessage    `json:"responseObject"`
	StageTimestamp string             `json:"stageTimestamp"`
	Annotations    map[string]string  `json:"annotations"`
}

func parseNative(l []byte) nativeEvent {
	var e nativeEvent
	_ = json.Unmarshal(l, &e) // the generator's own lines
	return e
}

func stageMillis(e *nativeEvent) int64 {
	t, _ := time.Parse(time.RFC3339Nano, e.StageTimestamp)
	return t.UnixMilli()
}

func aksRecord(l []byte) map[string]any {
	e := parseNative(l)
	return map[string]any{"operationName": "Microsoft.ContainerService/managedClusters/diagnosticLogs/Read", "category": "kube-audit",
		"resourceId": "/SUBSCRIPTIONS/S/RESOURCEGROUPS/RG/PROVIDERS/MICROSOFT.CONTAINERSERVICE/MANAGEDCLUSTERS/PROD",
		"properties": map[string]any{"log": string(l) + "\n", "stream": "stdout", "pod": "kube-apiserver-6d4f"}, "time": e.StageTimestamp}
}

func cloudWatchEvent(l []byte, i int) map[string]any {
	e := parseNative(l)
	ms := stageMillis(&e)
	return map[string]any{"logStreamName": "kube-apiserver-audit-0123", "timestamp": ms, "message": string(l),
		"ingestionTime": ms + 900, "eventId": fmt.Sprint(i)}
}

// httpToRPC is google.rpc's code for an HTTP status (code.proto).
var httpToRPC = map[int]int{400: 3, 401: 16, 403: 7, 404: 5, 409: 6, 422: 3, 429: 8, 500: 13, 503: 14, 504: 4}

// logEntry is the Cloud Logging entry GKE writes for a native event.
func logEntry(l []byte) map[string]any {
	e := parseNative(l)
	ref := e.ObjectRef
	group := cmp.Or(ref["apiGroup"], "core")
	name := group + "/" + ref["apiVersion"]
	if ns := ref["namespace"]; ns != "" && ref["resource"] != "namespaces" {
		name += "/namespaces/" + ns
	}
	name += "/" + ref["resource"]
	method := "io.k8s." + group + "." + ref["apiVersion"] + "." + ref["resource"]
	if n := ref["name"]; n != "" {
		name += "/" + n
	}
	if sub := ref["subresource"]; sub != "" {
		name += "/" + sub
		method += "." + sub
	}
	proto := map[string]any{"@type": "type.googleapis.com/google.cloud.audit.AuditLog", "serviceName": "k8s.io",
		"methodName":         method + "." + e.Verb,
		"resourceName":       name,
		"authenticationInfo": map[string]any{"principalEmail": e.User.Username},
		"requestMetadata":    map[string]any{"callerIp": e.SourceIPs[0], "callerSuppliedUserAgent": e.UserAgent},
		"status":             map[string]any{"code": httpToRPC[e.ResponseStatus.Code]}}
	if len(e.RequestObject) > 0 {
		var req map[string]any
		_ = json.Unmarshal(e.RequestObject, &req)
		if req["kind"] == "DeleteOptions" {
			delete(req, "kind")
			delete(req, "apiVersion")
			req["@type"] = "meta.k8s.io/__internal.DeleteOptions"
		}
		proto["request"] = req
	}
	if len(e.ResponseObject) > 0 {
		proto["response"] = e.ResponseObject
	}
	return map[string]any{"insertId": e.AuditID, "logName": "projects/p/logs/cloudaudit.googleapis.com%2Factivity",
		"operation":    map[string]any{"id": e.AuditID, "producer": "k8s.io", "first": true, "last": true},
		"protoPayload": proto, "timestamp": e.StageTimestamp, "receiveTimestamp": e.StageTimestamp,
		"resource": map[string]any{"type": "k8s_cluster", "labels": map[string]any{"cluster_name": "prod", "location": "europe-west1", "project_id": "p"}},
		"labels":   e.Annotations}
}
