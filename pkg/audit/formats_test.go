package audit

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// formEvents are native events of what a post-mortem reads: deletes with
// and without a body, a denied one, a create with an owner, reads.
func formEvents() []string {
	var out []string
	for _, e := range []ev{
		{id: "a", name: "web", resource: "deployments", group: "apps", ns: "shop", at: "2026-11-27T10:00:01.000001Z",
			req: `{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1","propagationPolicy":"Foreground"}`},
		{id: "b", verb: "get", name: "web", resource: "deployments", group: "apps", ns: "shop", at: "2026-11-27T10:00:01.000002Z"},
		{id: "c", name: "db", resource: "pods", ns: "shop", at: "2026-11-27T10:00:02.5Z", user: "mallory", code: 403},
		{id: "d", verb: "create", name: "web-1", resource: "pods", ns: "shop", at: "2026-11-27T10:00:03Z", user: "system:serviceaccount:kube-system:replicaset-controller",
			resp: `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"shop","uid":"u-1","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-5","uid":"u-rs","controller":true}]}}`},
		{id: "e", name: "shop", resource: "namespaces", ns: "shop", at: "2026-11-27T10:00:04Z"},
	} {
		out = append(out, e.line())
	}
	return out
}

// summary is what a post-mortem reads of each kept request, but the
// groups, which not every form keeps.
func summary(l *Log) string {
	var sb strings.Builder
	for e := range l.All() {
		prop := ""
		if e.Delete != nil {
			prop = e.Delete.PropagationPolicy
		}
		owners := ""
		if e.Response != nil {
			for _, o := range e.Response.OwnerReferences {
				owners += o.Kind + "/" + o.Name
			}
		}
		fmt.Fprintf(&sb, "%s %s %s %s/%s/%s by %s code %d %s %s at %s\n", e.AuditID, e.Verb, e.Object.APIGroup, e.Object.Resource,
			e.Object.Namespace, e.Object.Name, e.User.Username, e.Code, prop, owners, e.Time.Format("15:04:05.000000"))
	}
	return sb.String()
}

// TestExportForms: each platform's export of a log gives the requests the
// native log gives, is named in window.files, and says what it loses.
func TestExportForms(t *testing.T) {
	dir := t.TempDir()
	lines := formEvents()
	native := mustRead(t, []string{write(t, dir, "audit.log", strings.Join(lines, "\n")+"\n")}, "", Options{})
	want := summary(native)
	if !strings.Contains(want, "a delete apps deployments/shop/web by alice code 200 Foreground") || native.Len() != 4 {
		t.Fatalf("the native log reads as\n%s", want)
	}
	lambda, _ := json.Marshal(map[string]any{"awslogs": map[string]string{"data": payload("DATA_MESSAGE", lines)}})
	var sink []string
	for _, l := range lines {
		b, _ := json.Marshal(logEntry(l))
		sink = append(sink, string(b))
	}
	getLogEvents := bytes.Replace(filterLogEvents(lines), []byte(`"searchedLogStreams"`), []byte(`"nextForwardToken"`), 1)
	cases := []struct {
		name, format string
		data         []byte
		loss         string
	}{
		{"filter-log-events", "eks-cloudwatch", filterLogEvents(lines), "millisecond"},
		{"get-log-events", "eks-cloudwatch", getLogEvents, "millisecond"},
		{"Logs Insights CSV", "eks-logs-insights-csv", insightsCSV(lines), "millisecond"},
		{"Logs Insights JSON", "eks-logs-insights-json", insightsJSON(lines), "millisecond"},
		{"get-query-results", "eks-logs-insights-json", queryResults(lines), "millisecond"},
		{"kinesis get-records", "eks-subscription", kinesisRecords(lines), "millisecond"},
		{"subscription payloads", "eks-subscription", subscriptionLines(lines), "millisecond"},
		{"Lambda subscription event", "eks-subscription", lambda, "millisecond"},
		{"S3 export", "eks-s3-export", s3Export(lines), "millisecond"},
		{"gcloud JSON", "gke-logentry", gcloudJSON(lines), "no user groups"},
		{"gcloud YAML", "gke-logentry", gcloudYAML(lines), "no user groups"},
		{"Cloud Storage sink", "gke-logentry", []byte(strings.Join(sink, "\n")), "no user groups"},
		{"storage PT1H.json", "aks-diagnostics", aksStorage(lines), ""},
		{"Event Hubs", "aks-diagnostics", eventHubs(lines), ""},
		{"Event Hubs, a message a line", "aks-diagnostics", eventHubsLines(lines, false), ""},
		{"Event Hubs, the last message indented", "aks-diagnostics", eventHubsLines(lines, true), ""},
		{"Log Analytics JSON", "aks-log-analytics", logAnalyticsJSON(lines), ""},
		{"Log Analytics CSV", "aks-log-analytics", logAnalyticsCSV(lines), ""},
		{"node-logs", "openshift-node-logs", nodeLogs(lines), "OpenShift's Default audit profile"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, dir, strings.ReplaceAll(c.name, " ", "-"), string(c.data))
			l := mustRead(t, []string{p}, "", Options{})
			if got := summary(l); got != want {
				t.Errorf("requests\n%s\nwant\n%s", got, want)
			}
			f := l.Files[0]
			if f.Format != c.format || f.Events != len(lines) || f.Bad != 0 {
				t.Errorf("read as %q, %d events, %d bad; want %q, %d, none", f.Format, f.Events, f.Bad, c.format, len(lines))
			}
			if got := strings.Join(f.Losses, "\n"); !strings.Contains(got, c.loss) || c.loss == "" && got != "" {
				t.Errorf("losses %q, want them to say %q", got, c.loss)
			}
		})
	}
}

// TestFormatForced: --audit-format reads every file as its platform's
// export, and a file of another platform is refused, saying so.
func TestFormatForced(t *testing.T) {
	dir := t.TempDir()
	lines := formEvents()
	gke := write(t, dir, "gke.json", string(gcloudJSON(lines)))
	if l := mustRead(t, []string{gke}, "", Options{Format: FamilyGKE}); l.Len() != 4 {
		t.Errorf("forced gke: %d requests", l.Len())
	}
	_, err := Read([]string{gke}, nil, Options{Format: FamilyAKS})
	if err == nil || !strings.Contains(err.Error(), "it reads as gke-logentry, not aks as --audit-format says") {
		t.Errorf("gke read as aks: error %v", err)
	}
	native := write(t, dir, "audit.log", strings.Join(lines, "\n"))
	l := mustRead(t, []string{native}, "", Options{Format: FamilyOpenShift})
	if f := l.Files[0]; f.Format != "native" || !strings.Contains(strings.Join(f.Losses, ""), "OpenShift's Default audit profile") {
		t.Errorf("native read as openshift: %q, losses %q", f.Format, f.Losses)
	}
}

// TestFormatLosses: a body AKS skipped, a kube-audit-admin record, a
// record of another category, the Logs Insights row limit.
func TestFormatLosses(t *testing.T) {
	dir := t.TempDir()
	lines := formEvents()
	rows := logAnalyticsRows(lines)
	rows[0]["RequestObject"] = skippedBody
	rows[0]["Type"] = "AKSAuditAdmin"
	la := write(t, dir, "la.json", string(mustJSON(rows, "")))
	l := mustRead(t, []string{la}, "", Options{})
	if e := l.At(0); e.AuditID != "a" || e.Delete != nil {
		t.Errorf("a skipped body read as %+v", e.Delete)
	}
	losses := strings.Join(l.Files[0].Losses, "\n")
	for _, want := range []string{"1 request or response bodies in " + la + ` are AKS's "skipped-too-big-size-object"`, "kube-audit-admin category, which logs no get, list or watch"} {
		if !strings.Contains(losses, want) {
			t.Errorf("losses %q, want %q", losses, want)
		}
	}
	guard := aksRecordOf(lines[0], "guard")
	guard["properties"] = map[string]any{"log": "I1127 guard: allowed"}
	hub := write(t, dir, "hub.json", string(mustJSON(map[string]any{"records": []any{guard, aksRecordOf(lines[0], "kube-audit")}}, "")))
	l = mustRead(t, []string{hub}, "", Options{})
	if f := l.Files[0]; f.Events != 1 || f.Bad != 0 || !strings.Contains(strings.Join(f.Losses, ""), "1 records in "+hub+" are not Kubernetes audit events") {
		t.Errorf("a guard record: %d events, %d bad, losses %q", f.Events, f.Bad, f.Losses)
	}
	many := make([]string, insightsLimit)
	for i := range many {
		many[i] = lines[1]
	}
	csvPath := write(t, dir, "insights.csv", string(insightsCSV(many)))
	if l := mustRead(t, []string{csvPath}, "", Options{}); !strings.Contains(strings.Join(l.Files[0].Losses, ""), "10000 Logs Insights rows, the most one query returns") {
		t.Errorf("10,000 rows: losses %q", l.Files[0].Losses)
	}
}

// TestOlderEvents: audit.k8s.io/v1alpha1 events (the timestamp field, the
// group in objectRef.apiVersion) and a UTF-8 BOM.
func TestOlderEvents(t *testing.T) {
	dir := t.TempDir()
	alpha := `{"kind":"Event","apiVersion":"audit.k8s.io/v1alpha1","level":"Request","timestamp":"2017-06-01T10:00:00Z","auditID":"old","stage":"ResponseComplete","requestURI":"/apis/extensions/v1beta1/namespaces/a/replicasets/r","verb":"delete","user":{"username":"admin"},"objectRef":{"resource":"replicasets","namespace":"a","name":"r","apiVersion":"extensions/v1beta1"},"responseStatus":{"code":200}}`
	p := write(t, dir, "old.log", "\xef\xbb\xbf"+alpha+"\n")
	l := mustRead(t, []string{p}, "", Options{})
	e := l.At(0)
	if e.Object.APIGroup != "apps" || e.Time.Year() != 2017 || l.Files[0].Format != "native" {
		t.Errorf("v1alpha1 read as %+v at %s, %q", e.Object, e.Time, l.Files[0].Format)
	}
	if got := messages(l); len(got) != 1 || !strings.Contains(got[0], "holds audit.k8s.io/v1alpha1 events") {
		t.Errorf("warnings %q", got)
	}
}

// TestMixedLines: a collector's file of native lines among GKE and AKS
// ones reads each; the warnings name each bad line once.
func TestMixedLines(t *testing.T) {
	dir := t.TempDir()
	lines := formEvents()
	gke, _ := json.Marshal(logEntry(lines[2]))
	aks, _ := json.Marshal(aksRecordOf(lines[3], "kube-audit"))
	p := write(t, dir, "mixed.log", strings.Join([]string{lines[0], lines[1], string(gke), string(aks), `{"hello":"world"}`, lines[4]}, "\n"))
	l := mustRead(t, []string{p}, "", Options{})
	if got := ids(l); got != "a,c,d,e" || l.Files[0].Format != "aks-diagnostics+gke-logentry+native" {
		t.Errorf("mixed lines read as %s, %q", got, l.Files[0].Format)
	}
	for _, w := range l.Warnings {
		if w.Position.Line > 0 && strings.Contains(w.Message, filepath.Base(p)) {
			t.Errorf("warning at %s:%d repeats its place: %s", w.Position.File, w.Position.Line, w.Message)
		}
	}
	if got := messages(l); !strings.Contains(strings.Join(got, "\n"), p+":5: not an audit event: it has no verb, and none of the keys") {
		t.Errorf("warnings %q", got)
	}
}

// TestSubscriptionGzipFile: a payload saved raw (gzip, not base64) is a
// gzipped JSON document.
func TestSubscriptionGzipFile(t *testing.T) {
	lines := formEvents()
	raw, _ := base64.StdEncoding.DecodeString(payload("DATA_MESSAGE", lines[:1]))
	if _, err := gzip.NewReader(bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	p := write(t, t.TempDir(), "payload.gz", string(raw))
	if l := mustRead(t, []string{p}, "", Options{}); ids(l) != "a" || l.Files[0].Format != "eks-subscription" {
		t.Errorf("a raw payload read as %s, %q", ids(l), l.Files[0].Format)
	}
}

// TestExportFolders: an export's nested folders (an S3 export task's
// streams, a storage account's y=/m=/d=/h=) are read whole; a file that
// is no log among them is passed over, saying so.
func TestExportFolders(t *testing.T) {
	dir := t.TempDir()
	lines := formEvents()
	task := filepath.Join(dir, "eks-audit", "0a1b2c", "kube-apiserver-audit-0123")
	if err := os.MkdirAll(task, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, task, "000000.gz", string(s3Export(lines[:2])))
	write(t, task, "000001.gz", string(s3Export(lines[2:])))
	write(t, filepath.Join(dir, "eks-audit"), "aws-logs-write-test", "Permission Check Successful")
	l := mustRead(t, []string{filepath.Join(dir, "eks-audit")}, "", Options{})
	if got := ids(l); got != "a,c,d,e" || len(l.Files) != 2 {
		t.Errorf("read %s from %d files", got, len(l.Files))
	}
	if got := messages(l); !strings.Contains(strings.Join(got, "\n"), "passed over "+filepath.Join(dir, "eks-audit", "aws-logs-write-test")+": it is not an audit log (line 1: it is not JSON, YAML or CSV of audit events)") {
		t.Errorf("warnings %q", got)
	}
}

// TestExportSpilled: an export read a part at a time (a log too big to
// hold) gives the requests it gives held whole.
func TestExportSpilled(t *testing.T) {
	p := write(t, t.TempDir(), "gke.json", string(gcloudJSON(formEvents())))
	whole := mustRead(t, []string{p}, "", Options{})
	spilled := mustRead(t, []string{p}, "", Options{Spill: 1, Router: nsRouter{}})
	var got []string
	for part, err := range spilled.Parts() {
		if err != nil {
			t.Fatal(err)
		}
		for e := range part.Log.All() {
			got = append(got, e.AuditID)
		}
	}
	slices.Sort(got)
	if want := strings.Split(ids(whole), ","); !spilled.Spilled() || !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("spilled %v: %v, held whole %v", spilled.Spilled(), got, want)
	}
}

// TestMessageLines: a file of Event Hubs messages is read a line at a
// time when every line sniffed is a message whole, and as a stream of
// JSON values when one is written over several lines.
func TestMessageLines(t *testing.T) {
	lines := formEvents()
	for _, c := range []struct {
		data []byte
		want bool
	}{
		{eventHubsLines(lines, false), true},
		{eventHubsLines(lines, true), false},
		{eventHubs(lines), false},
		{[]byte(`{"records":[]}`), false}, // no line is whole before the sniff ends
	} {
		first, _, _ := bytes.Cut(c.data, []byte("\n"))
		f, list, err := classify(first)
		if got := err == nil && messageLines(f, list, c.data); got != c.want {
			t.Errorf("%.80s…: read a line at a time %v, want %v", c.data, got, c.want)
		}
	}
}
