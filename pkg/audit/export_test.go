package audit

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"sigs.k8s.io/yaml"
)

// This file writes native audit lines in each platform's export form,
// as the platform's own tools print them, for the readers' tests.

// exportForms are the forms written, by the name window.files gives.
var exportForms = map[string]func(lines []string) []byte{
	"eks-cloudwatch":         filterLogEvents,
	"eks-logs-insights-csv":  insightsCSV,
	"eks-logs-insights-json": insightsJSON,
	"eks-subscription":       subscriptionLines,
	"eks-s3-export":          s3Export,
	"gke-logentry":           gcloudJSON,
	"aks-diagnostics":        aksStorage,
	"aks-log-analytics":      logAnalyticsJSON,
	"openshift-node-logs":    nodeLogs,
}

func decode(line string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		panic(err)
	}
	return m
}

func stageMillis(line string) int64 {
	t, err := time.Parse(time.RFC3339Nano, decode(line)["stageTimestamp"].(string))
	if err != nil {
		panic(err)
	}
	return t.UnixMilli()
}

func mustJSON(v any, indent string) []byte {
	b, err := json.MarshalIndent(v, "", indent)
	if err != nil {
		panic(err)
	}
	return b
}

// filterLogEvents is `aws logs filter-log-events` output.
func filterLogEvents(lines []string) []byte {
	var evs []map[string]any
	for i, l := range lines {
		evs = append(evs, map[string]any{"logStreamName": "kube-apiserver-audit-0123", "timestamp": stageMillis(l),
			"message": l, "ingestionTime": stageMillis(l) + 900, "eventId": fmt.Sprint(i)})
	}
	return mustJSON(map[string]any{"events": evs, "searchedLogStreams": []any{}}, "    ")
}

// insightsCSV is Logs Insights' "Export results" as CSV.
func insightsCSV(lines []string) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"@logStream", "@timestamp", "@message"})
	for _, l := range lines {
		_ = w.Write([]string{"kube-apiserver-audit-0123", time.UnixMilli(stageMillis(l)).UTC().Format("2006-01-02 15:04:05.000"), l})
	}
	w.Flush()
	return buf.Bytes()
}

// insightsJSON is Logs Insights' "Export results" as JSON.
func insightsJSON(lines []string) []byte {
	var rows []map[string]string
	for _, l := range lines {
		rows = append(rows, map[string]string{"@timestamp": time.UnixMilli(stageMillis(l)).UTC().Format("2006-01-02 15:04:05.000"), "@message": l})
	}
	return mustJSON(rows, "  ")
}

// subscriptionLines are subscription-filter payloads, base64 of gzip, one
// a line as a Kinesis consumer saves them: a control message first, then
// the events two a payload.
func subscriptionLines(lines []string) []byte {
	out := []string{payload("CONTROL_MESSAGE", []string{"CWL CONTROL MESSAGE: Checking health of destination Kinesis stream."})}
	for chunk := range slices.Chunk(lines, 2) {
		out = append(out, payload("DATA_MESSAGE", chunk))
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

// payload is one subscription-filter payload of msgs, base64 of gzip.
func payload(typ string, msgs []string) string {
	var evs []map[string]any
	for i, m := range msgs {
		evs = append(evs, map[string]any{"id": fmt.Sprint(i), "timestamp": 0, "message": m})
	}
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, _ = w.Write(mustJSON(map[string]any{"messageType": typ, "owner": "123456789012", "logGroup": "/aws/eks/prod/cluster",
		"logStream": "kube-apiserver-audit-0123", "subscriptionFilters": []string{"kgc"}, "logEvents": evs}, ""))
	_ = w.Close()
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// queryResults is `aws logs get-query-results` output.
func queryResults(lines []string) []byte {
	var rows [][]map[string]string
	for _, l := range lines {
		rows = append(rows, []map[string]string{{"field": "@timestamp", "value": "2026-11-27 10:00:01.000"}, {"field": "@message", "value": l}, {"field": "@ptr", "value": "Cm8K"}})
	}
	return mustJSON(map[string]any{"results": rows, "statistics": map[string]any{"recordsMatched": len(lines)}, "status": "Complete"}, "    ")
}

// kinesisRecords is `aws kinesis get-records` output of a stream a
// subscription filter writes to.
func kinesisRecords(lines []string) []byte {
	var recs []map[string]any
	for chunk := range slices.Chunk(lines, 2) {
		recs = append(recs, map[string]any{"SequenceNumber": "4959", "PartitionKey": "k", "Data": payload("DATA_MESSAGE", chunk)})
	}
	return mustJSON(map[string]any{"Records": recs, "NextShardIterator": "AAAA", "MillisBehindLatest": 0}, "    ")
}

// s3Export is a CloudWatch Logs export to S3, gzipped.
func s3Export(lines []string) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	for _, l := range lines {
		fmt.Fprintf(w, "%s %s\n", time.UnixMilli(stageMillis(l)).UTC().Format("2006-01-02T15:04:05.000Z"), l)
	}
	_ = w.Close()
	return buf.Bytes()
}

// logEntry is the Cloud Logging entry GKE writes for a native event.
func logEntry(line string) map[string]any {
	e := decode(line)
	ref, _ := e["objectRef"].(map[string]any)
	group, _ := ref["apiGroup"].(string)
	if group == "" {
		group = "core"
	}
	name := group + "/" + fmt.Sprint(ref["apiVersion"])
	if ns, _ := ref["namespace"].(string); ns != "" && ref["resource"] != "namespaces" {
		name += "/namespaces/" + ns
	}
	name += "/" + fmt.Sprint(ref["resource"])
	method := "io.k8s." + group + "." + fmt.Sprint(ref["apiVersion"]) + "." + fmt.Sprint(ref["resource"])
	if n, _ := ref["name"].(string); n != "" {
		name += "/" + n
	}
	if sub, _ := ref["subresource"].(string); sub != "" {
		name += "/" + sub
		method += "." + sub
	}
	user := e["user"].(map[string]any)
	code := 0
	if st, ok := e["responseStatus"].(map[string]any); ok {
		code = httpToRPC[int(st["code"].(float64))]
	}
	proto := map[string]any{"@type": "type.googleapis.com/google.cloud.audit.AuditLog", "serviceName": "k8s.io",
		"methodName":         method + "." + fmt.Sprint(e["verb"]),
		"resourceName":       name,
		"authenticationInfo": map[string]any{"principalEmail": user["username"]},
		"requestMetadata":    map[string]any{"callerIp": e["sourceIPs"].([]any)[0], "callerSuppliedUserAgent": e["userAgent"]},
		"status":             map[string]any{"code": code}}
	if req, ok := e["requestObject"].(map[string]any); ok {
		if req["kind"] == "DeleteOptions" {
			delete(req, "kind")
			delete(req, "apiVersion")
			req["@type"] = "meta.k8s.io/__internal.DeleteOptions"
		}
		proto["request"] = req
	}
	if resp, ok := e["responseObject"].(map[string]any); ok {
		proto["response"] = resp
	}
	return map[string]any{"insertId": e["auditID"], "logName": "projects/p/logs/cloudaudit.googleapis.com%2Factivity",
		"operation":    map[string]any{"id": e["auditID"], "producer": "k8s.io", "first": true, "last": true},
		"protoPayload": proto, "timestamp": e["stageTimestamp"], "receiveTimestamp": e["stageTimestamp"],
		"resource": map[string]any{"type": "k8s_cluster", "labels": map[string]any{"cluster_name": "prod", "location": "europe-west1", "project_id": "p"}},
		"labels":   e["annotations"]}
}

// httpToRPC is google.rpc's code for an HTTP status (code.proto).
var httpToRPC = map[int]int{400: 3, 401: 16, 403: 7, 404: 5, 409: 6, 422: 3, 429: 8, 500: 13, 503: 14, 504: 4}

// gcloudJSON is `gcloud logging read --format=json`: an array, newest
// first.
func gcloudJSON(lines []string) []byte {
	var entries []map[string]any
	for _, l := range slices.Backward(lines) {
		entries = append(entries, logEntry(l))
	}
	return mustJSON(entries, "  ")
}

// gcloudYAML is `gcloud logging read --format=yaml`: documents, newest
// first.
func gcloudYAML(lines []string) []byte {
	var docs []string
	for _, l := range slices.Backward(lines) {
		y, err := yaml.Marshal(logEntry(l))
		if err != nil {
			panic(err)
		}
		docs = append(docs, string(y))
	}
	return []byte("---\n" + strings.Join(docs, "---\n"))
}

// aksRecordOf is a diagnostic-setting record of a native event.
func aksRecordOf(line, category string) map[string]any {
	return map[string]any{"operationName": "Microsoft.ContainerService/managedClusters/diagnosticLogs/Read", "category": category,
		"resourceId": "/SUBSCRIPTIONS/S/RESOURCEGROUPS/RG/PROVIDERS/MICROSOFT.CONTAINERSERVICE/MANAGEDCLUSTERS/PROD",
		"properties": map[string]any{"log": line + "\n", "stream": "stdout", "pod": "kube-apiserver-6d4f"}, "time": decode(line)["stageTimestamp"]}
}

// aksStorage is a storage account's PT1H.json blob: a record a line.
func aksStorage(lines []string) []byte {
	var out []string
	for _, l := range lines {
		out = append(out, string(mustJSON(aksRecordOf(l, "kube-audit"), "")))
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

// eventHubs is an Event Hubs message.
func eventHubs(lines []string) []byte {
	var recs []map[string]any
	for _, l := range lines {
		recs = append(recs, aksRecordOf(l, "kube-audit"))
	}
	return mustJSON(map[string]any{"records": recs}, "")
}

// eventHubsLines are Event Hubs messages a line, an event each, as a
// consumer writes them; with pretty, the last one is indented over
// several lines.
func eventHubsLines(lines []string, pretty bool) []byte {
	var out []string
	for i, l := range lines {
		msg := map[string]any{"records": []any{aksRecordOf(l, "kube-audit")}}
		b, err := json.Marshal(msg)
		if pretty && i == len(lines)-1 {
			b, err = json.MarshalIndent(msg, "", "  ")
		}
		if err != nil {
			panic(err)
		}
		out = append(out, string(b))
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

// logAnalyticsRows are AKSAudit rows of native events.
func logAnalyticsRows(lines []string) []map[string]any {
	var rows []map[string]any
	for _, l := range lines {
		e := decode(l)
		row := map[string]any{"TimeGenerated": e["stageTimestamp"], "Type": "AKSAudit", "PodName": "kube-apiserver-6d4f"}
		for col, field := range logAnalyticsColumns {
			if v, ok := e[field]; ok {
				row[col] = v
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// logAnalyticsJSON is `az monitor log-analytics query -o json`.
func logAnalyticsJSON(lines []string) []byte { return mustJSON(logAnalyticsRows(lines), "  ") }

// logAnalyticsCSV is the portal's CSV export: dynamic columns as JSON
// text, time columns suffixed " [UTC]".
func logAnalyticsCSV(lines []string) []byte {
	rows := logAnalyticsRows(lines)
	cols := []string{"TimeGenerated"}
	for col := range logAnalyticsColumns {
		cols = append(cols, col)
	}
	slices.Sort(cols[1:])
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	header := slices.Clone(cols)
	for i, c := range header {
		if strings.HasSuffix(c, "Time") || c == "TimeGenerated" {
			header[i] += " [UTC]"
		}
	}
	_ = w.Write(header)
	for _, r := range rows {
		rec := make([]string, len(cols))
		for i, c := range cols {
			switch v := r[c].(type) {
			case nil:
			case string:
				rec[i] = v
			default:
				rec[i] = string(mustJSON(v, ""))
			}
		}
		_ = w.Write(rec)
	}
	w.Flush()
	return buf.Bytes()
}

// nodeLogs is `oc adm node-logs --role=master --path=kube-apiserver/audit.log`.
func nodeLogs(lines []string) []byte {
	var out []string
	for i, l := range lines {
		out = append(out, fmt.Sprintf("master-%d %s", i%3, l))
	}
	return []byte(strings.Join(out, "\n") + "\n")
}
