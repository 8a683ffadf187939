package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// ev builds one audit event line; fields override the defaults.
type ev struct {
	id, stage, verb, resource, group, sub, ns, name, user string
	code                                                  int
	at                                                    string // stageTimestamp
	req, resp                                             string // raw JSON bodies
	apiVersion                                            string
	as                                                    string // impersonatedUser
}

var t0 = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)

func (e ev) line() string {
	def := func(v, d string) string {
		if v == "" {
			return d
		}
		return v
	}
	m := map[string]any{
		"kind": "Event", "apiVersion": def(e.apiVersion, "audit.k8s.io/v1"), "level": "RequestResponse",
		"auditID": def(e.id, "id-1"), "stage": def(e.stage, StageResponseComplete),
		"requestURI": "/api/v1/namespaces/" + e.ns + "/" + e.resource + "/" + e.name, "verb": def(e.verb, "delete"),
		"user":                     map[string]any{"username": def(e.user, "alice"), "groups": []string{"system:authenticated"}},
		"sourceIPs":                []string{"10.0.0.1"},
		"userAgent":                "kubectl/v1.36.3",
		"requestReceivedTimestamp": t0.Format(time.RFC3339Nano),
		"stageTimestamp":           def(e.at, "2026-11-27T10:00:01.000000Z"),
		"annotations":              map[string]string{"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "RBAC: allowed", "mutation.webhook/x": "secret-annotation"},
	}
	if e.as != "" {
		m["impersonatedUser"] = map[string]any{"username": e.as}
	}
	if e.resource != "-" {
		m["objectRef"] = map[string]string{"resource": def(e.resource, "pods"), "namespace": e.ns, "name": e.name, "apiGroup": e.group, "apiVersion": "v1", "subresource": e.sub}
	}
	if e.stage != StageRequestReceived {
		c := e.code
		if c == 0 {
			c = 200
		}
		m["responseStatus"] = map[string]any{"metadata": map[string]any{}, "code": c}
	}
	for k, raw := range map[string]string{"requestObject": e.req, "responseObject": e.resp} {
		if raw != "" {
			m[k] = json.RawMessage(raw)
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func lines(evs ...ev) string {
	var sb strings.Builder
	for _, e := range evs {
		sb.WriteString(e.line() + "\n")
	}
	return sb.String()
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func gz(t *testing.T, parts ...string) string {
	t.Helper()
	var buf bytes.Buffer
	for _, p := range parts { // one gzip member per part
		w := gzip.NewWriter(&buf)
		if _, err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.String()
}

func ids(l *Log) string {
	var out []string
	for e := range l.All() {
		out = append(out, e.AuditID)
	}
	return strings.Join(out, ",")
}

func messages(l *Log) []string {
	var out []string
	for _, w := range l.Warnings {
		if w.Position.Line > 0 {
			out = append(out, fmt.Sprintf("%s:%d: %s", w.Position.File, w.Position.Line, w.Message))
			continue
		}
		out = append(out, w.Message)
	}
	return out
}

func mustRead(t *testing.T, paths []string, stdin string, opts Options) *Log {
	t.Helper()
	l, err := Read(paths, strings.NewReader(stdin), opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func threeDeletes() []ev {
	return []ev{
		{id: "a", name: "p1", at: "2026-11-27T10:00:01.000000Z"},
		{id: "b", name: "p2", at: "2026-11-27T10:00:02.000000Z", verb: "get"},
		{id: "c", name: "p3", at: "2026-11-27T10:00:03.000000Z"},
	}
}

// TestReadForms: every input form gives the same requests.
func TestReadForms(t *testing.T) {
	dir := t.TempDir()
	evs := threeDeletes()
	plain := lines(evs...)
	items := []json.RawMessage{}
	for _, e := range evs {
		items = append(items, json.RawMessage(e.line()))
	}
	list, _ := json.MarshalIndent(map[string]any{"kind": "EventList", "apiVersion": "audit.k8s.io/v1", "metadata": map[string]any{}, "items": items}, "", "  ")
	one, _ := json.MarshalIndent(json.RawMessage(evs[0].line()), "", "  ")
	sub := filepath.Join(dir, "folder")
	_ = os.Mkdir(sub, 0o755)
	write(t, sub, "audit-2026-11-27T10-00-02.log", lines(evs[:2]...))
	write(t, sub, "audit.log", lines(evs[2]))
	for _, c := range []struct {
		name  string
		paths []string
		stdin string
		want  string
	}{
		{"plain", []string{write(t, dir, "audit.log", plain)}, "", "a,c"},
		{"gzip, multi-member, any name", []string{write(t, dir, "audit.log.1", gz(t, lines(evs[0]), lines(evs[1:]...)))}, "", "a,c"},
		{"folder", []string{sub}, "", "a,c"},
		{"EventList pretty-printed", []string{write(t, dir, "list.json", string(list))}, "", "a,c"},
		{"EventList on one line", []string{write(t, dir, "list1.json", strings.ReplaceAll(strings.ReplaceAll(string(list), "\n", ""), "  ", ""))}, "", "a,c"},
		{"one pretty-printed Event", []string{write(t, dir, "one.json", string(one))}, "", "a"},
		{"stdin", []string{"-"}, plain, "a,c"},
		{"no final newline, CRLF", []string{write(t, dir, "crlf.log", strings.TrimSuffix(strings.ReplaceAll(plain, "\n", "\r\n"), "\r\n"))}, "", "a,c"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := mustRead(t, c.paths, c.stdin, Options{})
			if got := ids(l); got != c.want {
				t.Errorf("events %s, want %s", got, c.want)
			}
			if len(l.Warnings) > 0 {
				t.Errorf("warnings: %q", messages(l))
			}
		})
	}
}

// TestCollapseAndMerge: the stages of a request become one Event; files
// from two API servers, out of order, merge by time; a file read twice
// is counted once, with one warning.
func TestCollapseAndMerge(t *testing.T) {
	dir := t.TempDir()
	f1 := write(t, dir, "apiserver-1.log", lines(
		ev{id: "x", stage: StageRequestReceived, at: "2026-11-27T10:00:05.000000Z"},
		ev{id: "y", at: "2026-11-27T10:00:01.000000Z"},
		ev{id: "x", stage: StageResponseComplete, code: 404, at: "2026-11-27T10:00:06.000000Z"},
	))
	f2 := write(t, dir, "apiserver-2.log", lines(
		ev{id: "w", at: "2026-11-27T10:00:03.000000Z"},
		ev{id: "v", at: "2026-11-27T10:00:03.000000Z"},
	))
	l := mustRead(t, []string{f1, f2, f1}, "", Options{})
	if got := ids(l); got != "y,v,w,x" {
		t.Errorf("events %s, want y,v,w,x (by time, ties by auditID)", got)
	}
	x := *l.At(3)
	if x.Stage != StageResponseComplete || x.Code != 404 || !x.Received.Equal(t0) || x.Time.Format(time.RFC3339) != "2026-11-27T10:00:06Z" || x.Source.Line != 3 {
		t.Errorf("collapsed x = stage %s code %d received %s time %s line %d", x.Stage, x.Code, x.Received, x.Time, x.Source.Line)
	}
	want := fmt.Sprintf("%s:1: 3 audit events were read more than once (the same auditID and stage: a file given twice, rotated files that overlap, or an aggregated API server such as OpenShift's logging the request the kube-apiserver passed it) and counted once; this one, auditID x, the first", f1)
	if got := messages(l); len(got) != 1 || got[0] != want {
		t.Errorf("warnings %q\nwant %q", got, want)
	}
	if f := l.Files[0]; f.Events != 3 || f.Kept != 0 || f.First.Format(time.RFC3339) != "2026-11-27T10:00:01Z" || f.Last.Format(time.RFC3339) != "2026-11-27T10:00:06Z" {
		t.Errorf("file 1 = %+v", f)
	}
}

// A request whose stages are split across rotated files given newest
// first collapses as when the files are given in order: the reader files
// each stage as it comes, whatever the order.
func TestStagesAcrossFilesInAnyOrder(t *testing.T) {
	dir := t.TempDir()
	older := write(t, dir, "audit-1.log", lines(
		ev{id: "x", stage: StageRequestReceived, user: "admin", at: "2026-11-27T10:00:05.000000Z"},
	))
	newer := write(t, dir, "audit.log", lines(
		ev{id: "x", stage: StageResponseComplete, user: "admin", as: "alice", code: 409, at: "2026-11-27T10:00:06.000000Z"},
	))
	for _, files := range [][]string{{older, newer}, {newer, older}} {
		l := mustRead(t, files, "", Options{})
		if l.Len() != 1 {
			t.Fatalf("%v: %d events, want 1", files, l.Len())
		}
		x := *l.At(0)
		if x.Stage != StageResponseComplete || x.Code != 409 || x.ImpersonatedUser == nil || x.Source.File != newer || x.Time.Format(time.RFC3339) != "2026-11-27T10:00:06Z" {
			t.Errorf("%v: collapsed x = stage %s code %d as %v from %s at %s", files, x.Stage, x.Code, x.ImpersonatedUser, x.Source.File, x.Time)
		}
		if kept := l.Files[0].Kept + l.Files[1].Kept; kept != 1 || len(l.Warnings) != 0 {
			t.Errorf("%v: kept %d, warnings %v", files, kept, messages(l))
		}
	}
}

// kube-apiserver v1.36 names the impersonated user from the stage after
// authorization on: a log of every stage must not credit the impersonator.
func TestImpersonatedUserFromALaterStage(t *testing.T) {
	f := write(t, t.TempDir(), "audit.log", lines(
		ev{id: "x", stage: StageRequestReceived, user: "admin", at: "2026-11-27T10:00:05.000000Z"},
		ev{id: "x", stage: StageResponseComplete, user: "admin", as: "alice", at: "2026-11-27T10:00:06.000000Z"},
	))
	l := mustRead(t, []string{f}, "", Options{})
	if l.Len() != 1 || l.At(0).ImpersonatedUser == nil || l.At(0).ImpersonatedUser.Username != "alice" {
		t.Fatalf("events %+v, want one request by admin acting as alice", slices.Collect(l.All()))
	}
}

// TestFilter: what a post-mortem keeps and drops.
func TestFilter(t *testing.T) {
	for _, c := range []struct {
		e    ev
		keep bool
	}{
		{ev{verb: "get"}, false},
		{ev{verb: "list"}, false},
		{ev{verb: "watch"}, false},
		{ev{verb: "delete"}, true},
		{ev{verb: "delete", code: 404}, true},
		{ev{verb: "deletecollection", code: 403}, true},
		{ev{verb: "create"}, true},
		{ev{verb: "create", sub: "eviction"}, true},
		{ev{verb: "create", sub: "exec"}, false},
		{ev{verb: "create", resource: "serviceaccounts", sub: "token"}, false},
		{ev{verb: "create", code: 409}, false},
		{ev{verb: "update", code: 409}, false},
		{ev{verb: "patch", code: 422}, false},
		{ev{verb: "update"}, true},
		{ev{verb: "patch"}, true},
		{ev{verb: "update", resource: "namespaces", sub: "finalize"}, true},
		{ev{verb: "update", sub: "status"}, false},
		{ev{verb: "patch", sub: "status"}, false},
		{ev{verb: "create", resource: "events"}, false},
		{ev{verb: "create", resource: "events", group: "events.k8s.io"}, false},
		{ev{verb: "update", resource: "leases", group: "coordination.k8s.io"}, false},
		{ev{verb: "create", resource: "tokenreviews", group: "authentication.k8s.io"}, false},
		{ev{verb: "create", resource: "subjectaccessreviews", group: "authorization.k8s.io"}, false},
		{ev{verb: "create", resource: "selfsubjectaccessreviews", group: "authorization.k8s.io"}, false},
		{ev{verb: "get", resource: "-"}, false}, // /healthz
		{ev{verb: "create", resource: "-"}, false},
	} {
		name := fmt.Sprintf("%s %s/%s %d", c.e.verb, c.e.resource, c.e.sub, c.e.code)
		t.Run(name, func(t *testing.T) {
			p := write(t, t.TempDir(), "audit.log", lines(c.e, ev{id: "other", verb: "get"}))
			l := mustRead(t, []string{p}, "", Options{})
			if got := l.Len() == 1; got != c.keep {
				t.Errorf("kept %v, want %v", got, c.keep)
			}
			if want := 2 - l.Len(); l.Dropped != want {
				t.Errorf("dropped %d, want %d", l.Dropped, want)
			}
		})
	}
}

// TestBodies: what is kept of request and response objects.
func TestBodies(t *testing.T) {
	p := write(t, t.TempDir(), "audit.log", lines(
		ev{id: "del", name: "web-1", req: `{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1","gracePeriodSeconds":0,"preconditions":{"uid":"u-1","resourceVersion":"7"},"propagationPolicy":"Foreground","orphanDependents":false,"dryRun":["All"]}`,
			resp: `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"shop","uid":"u-1","resourceVersion":"8","deletionTimestamp":"2026-11-27T10:00:00Z","finalizers":["example.com/x"],"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"rs-1","controller":true}],"annotations":{"a":"b"}},"spec":{"x":1}}`},
		ev{id: "orphan", verb: "patch", resource: "replicasets", group: "apps", req: `{"metadata":{"ownerReferences":[{"$patch":"delete","uid":"d-1"}],"uid":"rs-1","$deleteFromPrimitiveList/finalizers":["orphan"],"$setElementOrder/finalizers":["a"]}}`},
		ev{id: "dc", verb: "deletecollection", resp: `{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"a","uid":"ua"}},{"metadata":{"name":"b","uid":"ub"}}]}`},
		ev{id: "gone", code: 404, resp: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"web-2\" not found","reason":"NotFound","code":404,"details":{"name":"web-2"}}`},
	))
	l := mustRead(t, []string{p}, "", Options{})
	got := map[string]Event{}
	for e := range l.All() {
		got[e.AuditID] = *e
	}
	d := got["del"]
	if o := d.Delete; o == nil || o.PropagationPolicy != "Foreground" || *o.GracePeriodSeconds != 0 || *o.OrphanDependents || o.PreconditionUID != "u-1" || o.PreconditionRV != "7" || o.DryRun[0] != "All" {
		t.Errorf("delete options %+v", d.Delete)
	}
	if r := d.Response; r == nil || r.Kind != "Pod" || r.UID != "u-1" || r.DeletionTimestamp == nil || r.Finalizers[0] != "example.com/x" || r.OwnerReferences[0].UID != "rs-1" || !*r.OwnerReferences[0].Controller {
		t.Errorf("response %+v", d.Response)
	}
	if d.Decision != "allow" || d.AuthzReason != "RBAC: allowed" {
		t.Errorf("authorization %q %q", d.Decision, d.AuthzReason)
	}
	if r := got["orphan"].Request; r == nil || r.MetaExtras == nil || strings.Join(r.RemovedOwnerUIDs, ",") != "d-1" || r.UID != "rs-1" || strings.Join(r.RemovedFinalizers, ",") != "orphan" || strings.Join(r.Finalizers, ",") != "a" {
		t.Errorf("patch %+v", got["orphan"].Request)
	}
	if r := got["dc"].Response; r == nil || len(r.Items) != 2 || r.Items[1].UID != "ub" {
		t.Errorf("deletecollection response %+v", got["dc"].Response)
	}
	if g := got["gone"]; g.Code != 404 || g.Reason != "NotFound" || g.Response != nil {
		t.Errorf("status: code %d reason %q response %+v", g.Code, g.Reason, g.Response)
	}
}

func TestSinceUntil(t *testing.T) {
	p := write(t, t.TempDir(), "audit.log", lines(threeDeletes()...))
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{Since: at("2026-11-27T10:00:02Z")}, "c"},
		{Options{Until: at("2026-11-27T10:00:02Z")}, "a"},
		{Options{Since: at("2026-11-27T10:00:01Z"), Until: at("2026-11-27T10:00:03Z")}, "a,c"},
		{Options{Since: at("2026-11-27T11:00:00Z")}, ""},
	} {
		if got := ids(mustRead(t, []string{p}, "", c.opts)); got != c.want {
			t.Errorf("%+v: events %q, want %q", c.opts, got, c.want)
		}
	}
}

// TestBadInput: errors for what is not an audit log, warnings naming
// file and line for lines that cannot be read, the rest still read.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good := lines(threeDeletes()...)
	d := ev{id: "d", at: "2026-11-27T10:00:04.000000Z"}.line()
	many := good
	for range 50 {
		many += "garbage\n"
	}
	// A list cut short right after a value: once as it is, once ending
	// exactly where the stream's first read does.
	cut := "[" + threeDeletes()[0].line() + "," + threeDeletes()[1].line() + ","
	last := threeDeletes()[2]
	short := cut + last.line()
	last.id += strings.Repeat("x", 1<<16-len(short)) // the auditID is written once
	atRead := cut + last.line()
	for _, c := range []struct {
		name, content string
		wantIDs       string
		warnings      []string // %s is the file
		err           string
	}{
		{name: "truncated last line", content: good + d[:len(d)/2], wantIDs: "a,c",
			warnings: []string{"%s:4: not valid JSON: the line ends inside a value (a truncated write?)"}},
		{name: "list cut short", content: short, wantIDs: "a,c",
			warnings: []string{"%s:1: not valid JSON: the line ends inside a value (a truncated write?)"}},
		{name: "list cut short where a read ends", content: atRead, wantIDs: "a," + last.id,
			warnings: []string{"%s:1: not valid JSON: the line ends inside a value (a truncated write?)"}},
		{name: "corrupt line in the middle", content: lines(threeDeletes()[0]) + "{\"kind\":\"Event\",,}\n" + d + "\n", wantIDs: "a,d",
			warnings: []string{"%s:2: not valid JSON: expected a string at byte 17, found ','"}},
		{name: "JSON but not an audit event", content: good + `{"hello":"world"}` + "\n[1,2]\n", wantIDs: "a,c",
			warnings: []string{"%s:4: not an audit event: it has no verb, and none of the keys of a platform's audit record (protoPayload, properties.log, message, @message)", "%s:5: not an audit event: it is not a JSON object"}},
		{name: "many bad lines", content: many, wantIDs: "a,c",
			warnings: []string{"%s:4: not valid JSON", "%s:5: not valid JSON", "%s:6: not valid JSON", "%s:4: 50 lines could not be read as audit events, this one the first"}},
		{name: "v1beta1", content: lines(ev{id: "a", apiVersion: "audit.k8s.io/v1beta1"}), wantIDs: "a",
			warnings: []string{"%s holds audit.k8s.io/v1beta1 events: they are read as audit.k8s.io/v1, whose fields a post-mortem reads have the same names"}},
		{name: "not an audit log", content: "apiVersion: v1\nkind: Pod\n",
			err: "%s is not an audit log (line 1: not an audit event: its kind is \"Pod\", not Event or EventList)"},
		{name: "neither JSON nor YAML", content: "hello world\n",
			err: "%s is not an audit log (line 1: it is not JSON, YAML or CSV of audit events): give the kube-apiserver's --audit-log-path file written with --audit-log-format=json, an EventList, or a platform's export of it (see --audit-format)"},
		{name: "JSON, not an audit log", content: `{"kind":"Pod","apiVersion":"v1"}` + "\n" + good,
			err: "%s is not an audit log (line 1: not an audit event: its kind is \"Pod\", not Event or EventList)"},
		{name: "another kind of list", content: "{\n\"kind\": \"PodList\", \"items\": []}",
			err: "%s is not an audit log (line 1: not an audit event: its kind is \"PodList\", not Event or EventList)"},
		{name: "only blank lines", content: "\n\n",
			err: "no audit events in %s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, dir, strings.ReplaceAll(c.name, " ", "-")+".log", c.content)
			l, err := Read([]string{p}, nil, Options{})
			if c.err != "" {
				if want := fmt.Sprintf(c.err, p); err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Fatalf("error %v\nwant  %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(l); got != c.wantIDs {
				t.Errorf("events %s, want %s", got, c.wantIDs)
			}
			var want []string
			for _, w := range c.warnings {
				want = append(want, strings.ReplaceAll(w, "%s", p))
			}
			if got := messages(l); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestEmptyFileAndNoInput(t *testing.T) {
	dir := t.TempDir()
	empty := write(t, dir, "empty.log", "")
	full := write(t, dir, "audit.log", lines(threeDeletes()...))
	l := mustRead(t, []string{empty, full}, "", Options{})
	if got := messages(l); len(got) != 1 || got[0] != empty+" is empty: it holds no audit events" {
		t.Errorf("warnings %q", got)
	}
	if _, err := Read([]string{empty}, nil, Options{}); err == nil || !strings.HasPrefix(err.Error(), "no audit events in "+empty) {
		t.Errorf("only an empty file: error %v", err)
	}
	if _, err := Read(nil, nil, Options{}); err == nil {
		t.Error("no path: no error")
	}
	if _, err := Read([]string{filepath.Join(dir, "missing.log")}, nil, Options{}); err == nil || !strings.Contains(err.Error(), "missing.log") {
		t.Errorf("a missing file: error %v", err)
	}
}

// TestReadSpacesJSONRefuses: a file that starts with spaces JSON does not
// allow (a vertical tab, a form feed) is not an audit log, said as such,
// not a panic.
func TestReadSpacesJSONRefuses(t *testing.T) {
	for _, data := range []string{"\v\n", "\f\n{\"kind\":\"Event\"}\n", "\x1f\x8b\b\x00000000\xe21"} {
		p := filepath.Join(t.TempDir(), "audit.log")
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Read([]string{p}, nil, Options{})
		if err == nil || !strings.Contains(err.Error(), p+" is not an audit log") {
			t.Errorf("%q: error %v, want one saying %s is not an audit log", data, err, p)
		}
	}
}
