package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/internal/golden"
	"github.com/kgc-dev/kgc/pkg/capture/capturetest"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshotio"
)

const snapshotDump = "testdata/snapshot-dump.yaml"

// kgcRun runs the program as a user would, without a kubeconfig.
func kgcRun(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Setenv("NO_COLOR", "1")
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "no-kubeconfig"))
	var out, errOut bytes.Buffer
	code = Run(testFactory(strings.NewReader(stdin), &out, &errOut), append([]string{"kgc"}, args...))
	return out.String(), errOut.String(), code
}

// normalizeSnapshot replaces what depends on the machine: the capture time
// (an offline dump's is its file's modification time).
var capturedAtRE = regexp.MustCompile(`"capturedAt":"[^"]*"`)

func normalizeSnapshot(b []byte) []byte {
	return capturedAtRE.ReplaceAll(b, []byte(`"capturedAt":"2026-01-02T03:04:05Z"`))
}

var elapsedRE = regexp.MustCompile(` in [0-9.]+s`)

func TestSnapshotCommandFromDumps(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cluster.json")
	stdout, stderr, code := kgcRun(t, "", "snapshot", "-f", snapshotDump, "--output-file", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout = %q, want nothing (the snapshot went to the file)", stdout)
	}
	wantErr := "warning: testdata/snapshot-dump.yaml: ConfigMap/template-only -n shop: skipped: no metadata.uid; templates are not cluster state\n" +
		"read 9 objects of 6 types in Xs\n"
	if got := elapsedRE.ReplaceAllString(stderr, " in Xs"); got != wantErr {
		t.Errorf("stderr = %q\nwant     %q", got, wantErr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// A workload keeps the few spec fields its controller decides from
	// (replicas), never its pod template.
	for _, leak := range []string{"hunter2", "aHVudGVyMg", "managedFields", "annotations", "last-applied", `"containers"`, `"env"`} {
		if bytes.Contains(data, []byte(leak)) {
			t.Errorf("the snapshot file contains %q", leak)
		}
	}
	golden.Assert(t, filepath.Join("testdata", "snapshot_dump.json.golden"), normalizeSnapshot(data))

	// The file is a valid input for every command.
	back, err := snapshotio.ReadFiles([]string{out}, nil, snapshotio.ReadOptions{})
	if err != nil || len(back.Objects) != 9 || len(back.Warnings) != 0 {
		t.Fatalf("reading the snapshot back: %v, %d objects, warnings %v", err, len(back.Objects), back.Warnings)
	}
}

func TestSnapshotCommandOutputs(t *testing.T) {
	dir := t.TempDir()
	stdout, _, code := kgcRun(t, "", "snapshot", "-f", snapshotDump)
	if code != 0 || !strings.HasPrefix(stdout, `{"apiVersion":"kgc.dev/v1alpha1","kind":"Snapshot"`) {
		t.Fatalf("-o -: exit %d, stdout %.80q", code, stdout)
	}
	gz := filepath.Join(dir, "cluster.json.gz")
	if _, stderr, code := kgcRun(t, "", "snapshot", "-f", snapshotDump, "--output-file", gz); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := os.Open(gz)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("FILE.gz is not gzip: %v", err)
	}
	plain, _ := io.ReadAll(zr)
	if string(normalizeSnapshot(plain)) != string(normalizeSnapshot([]byte(stdout))) {
		t.Error("the gzipped file differs from the plain output")
	}

	// stdin works as input too.
	dump, _ := os.ReadFile(snapshotDump)
	stdin, _, code := kgcRun(t, string(dump), "snapshot", "-f", "-")
	if code != 0 || !strings.Contains(stdin, `"uid":"widget-w1"`) {
		t.Errorf("-f -: exit %d", code)
	}
}

func TestSnapshotCommandNamespace(t *testing.T) {
	stdout, stderr, code := kgcRun(t, "", "snapshot", "-f", snapshotDump, "-n", "staging")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	s, err := snapshotio.ReadFiles([]string{"-"}, strings.NewReader(stdout), snapshotio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range s.Objects {
		got = append(got, o.Ref().String())
	}
	want := "CustomResourceDefinition/widgets.example.com Namespace/shop Namespace/staging PersistentVolume/pv-1 Deployment/api -n staging Deployment/web -n staging"
	if strings.Join(got, " ") != want {
		t.Errorf("objects = %s\nwant %s", strings.Join(got, " "), want)
	}
	if s.Source.Namespace != "staging" {
		t.Errorf("source namespace = %q, want staging", s.Source.Namespace)
	}
}

func TestSnapshotCommandErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"snapshot", "-f", snapshotDump, "-o", "x.json", "--output-file", "y.json"}, exitUsage, "error: -o x.json names a file and --output-file y.json another: -o is the output format (json or yaml), give the file with --output-file only\n"},
		{[]string{"snapshot", "-f", snapshotDump, "--output-file", "s.yaml"}, exitUsage, "error: s.yaml: the snapshot is written as JSON: name the file .json or .json.gz, or write YAML with -o yaml --output-file s.yaml\n"},
		{[]string{"snapshot", "-f", snapshotDump, "-o", "yaml", "--output-file", "s.json.gz"}, exitUsage, "error: s.json.gz: the snapshot is written as YAML (-o yaml): name the file .yaml or .yaml.gz\n"},
		{[]string{"snapshot", "-f", "testdata/missing.yaml"}, exitError, "error: cannot read testdata/missing.yaml: stat testdata/missing.yaml: no such file or directory\n"},
		{[]string{"snapshot", "-f", "-", "-f", "-"}, exitError, "error: -f - is given more than once: standard input can be read only once; give -f - once\n"},
		{[]string{"snapshot", "extra"}, exitUsage, "error: kgc snapshot takes no arguments, got \"extra\": it captures the whole cluster (or the -f inputs)\n"},
	}
	for _, tt := range tests {
		_, stderr, code := kgcRun(t, "", tt.args...)
		if code != tt.code || (tt.want != "" && stderr != tt.want) {
			t.Errorf("kgc %s: exit %d, stderr %q; want exit %d, %q", strings.Join(tt.args, " "), code, stderr, tt.code, tt.want)
		}
	}
}

func loadDump(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshotio.ReadFiles([]string{snapshotDump}, nil, snapshotio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSourceResolve(t *testing.T) {
	snap := loadDump(t)
	o := newSourceOptions(testFactory(nil, io.Discard, io.Discard))
	o.Filenames = []string{snapshotDump}
	tests := []struct {
		args      []string
		namespace string
		want      string // UID, or the error
	}{
		{[]string{"deploy/web"}, "shop", "dep-shop-web"},
		{[]string{"deployments.apps", "web"}, "staging", "dep-staging-web"},
		{[]string{"deploy/api"}, "", "dep-staging-api"}, // offline, unique across namespaces
		{[]string{"pv/pv-1"}, "shop", "pv-1"},           // cluster-scoped: the namespace does not matter
		{[]string{"wd/w1"}, "", "widget-w1"},
		{[]string{"widgets.example.com/w1"}, "shop", "widget-w1"},
		{[]string{"ns", "shop"}, "", "ns-shop"},
		{[]string{"deploy/web"}, "", `error: deployments.apps "web" exists in namespaces "shop", "staging" (in testdata/snapshot-dump.yaml): choose one with -n`},
		{[]string{"deploy/web"}, "prod", `error: deployments.apps "web" not found in namespace "prod" (in testdata/snapshot-dump.yaml); it exists in namespace "shop", "staging": use -n`},
		{[]string{"deploy/nope"}, "shop", `error: deployments.apps "nope" not found in namespace "shop" (in testdata/snapshot-dump.yaml)`},
		{[]string{"cm/x"}, "shop", `error: configmaps "x" not found in namespace "shop" (in testdata/snapshot-dump.yaml); the input holds no configmaps objects`},
		{[]string{"pv/none"}, "", `error: persistentvolumes "none" not found (in testdata/snapshot-dump.yaml)`},
		{[]string{"deploymnt/web"}, "", `error: unknown resource type "deploymnt": did you mean deployments.apps?`},
		{[]string{"web"}, "", `error: expected TYPE/NAME or TYPE NAME, got "web"`},
		{[]string{"deploy/web/x"}, "", `error: expected TYPE/NAME or TYPE NAME, got "deploy/web/x"`},
	}
	for _, tt := range tests {
		obj, err := o.Resolve(snap, tt.args, tt.namespace)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = obj.Metadata.UID
		}
		if got != tt.want {
			t.Errorf("Resolve(%q, ns %q) = %s\nwant %s", tt.args, tt.namespace, got, tt.want)
		}
	}

	if obj, err := o.ResolveUID(snap, "widget-w1"); err != nil || obj.Metadata.Name != "w1" {
		t.Errorf("ResolveUID = %v, %v", obj, err)
	}
	if _, err := o.ResolveUID(snap, "nope"); err == nil || err.Error() != `no object with uid "nope" (in testdata/snapshot-dump.yaml)` {
		t.Errorf("ResolveUID(nope) error = %v", err)
	}
}

func TestSourceNamespace(t *testing.T) {
	f := testFactory(nil, io.Discard, io.Discard)
	cf := f.ConfigFlags
	o := newSourceOptions(f)
	o.Filenames = []string{snapshotDump}
	if ns, explicit, err := o.Namespace(); ns != "" || explicit || err != nil {
		t.Errorf("offline without -n: %q %v %v, want any namespace", ns, explicit, err)
	}
	*cf.Namespace = "shop"
	if ns, explicit, err := o.Namespace(); ns != "shop" || !explicit || err != nil {
		t.Errorf("with -n shop: %q %v %v", ns, explicit, err)
	}
}

func TestSourceLoadWarnings(t *testing.T) {
	var errOut bytes.Buffer
	o := newSourceOptions(testFactory(strings.NewReader(""), io.Discard, &errOut))
	o.Filenames = []string{snapshotDump}
	snap, err := o.Load(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Objects) != 9 {
		t.Errorf("%d objects", len(snap.Objects))
	}
	want := "warning: testdata/snapshot-dump.yaml: ConfigMap/template-only -n shop: skipped: no metadata.uid; templates are not cluster state\n"
	if errOut.String() != want {
		t.Errorf("stderr = %q, want %q", errOut.String(), want)
	}
}

func TestSnapshotCommandLive(t *testing.T) {
	srv := httptest.NewServer(&capturetest.FakeAPIServer{})
	defer srv.Close()
	stdout, stderr, code := kgcRun(t, "", "--server", srv.URL, "--context", "", "snapshot")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantErr := "warning: metrics.k8s.io/v1beta1: discovery failed, its types are not listed (owners of those types are unknown): the server is currently unable to handle the request\n" +
		`warning: RBAC kept User "viewer" from listing 1 type at cluster scope: secrets; no object read depends on it` + "\n" +
		"captured 10 objects of 7 types in Xs (2 types not listed: metrics.k8s.io/v1beta1 (discovery failed), secrets)\n"
	if got := elapsedRE.ReplaceAllString(stderr, " in Xs"); got != wantErr {
		t.Errorf("stderr =\n%s\nwant\n%s", got, wantErr)
	}
	if strings.Contains(stdout, "hunter2") || strings.Contains(stdout, "managedFields") {
		t.Error("the live snapshot leaks annotations or managedFields")
	}
	s, err := snapshotio.ReadFiles([]string{"-"}, strings.NewReader(stdout), snapshotio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Objects) != 10 || s.Source.Server != srv.URL || len(s.DiscoveryErrors) != 1 {
		t.Errorf("read back: %d objects, source %+v, discovery errors %+v", len(s.Objects), s.Source, s.DiscoveryErrors)
	}
	if r, _ := s.Catalog().ForGroupKind("", "Secret"); r.Listed || r.Error == "" {
		t.Errorf("secrets in the written catalog: %+v", r)
	}
}

func TestSnapshotSummary(t *testing.T) {
	s := &snapshot.Snapshot{Source: snapshot.Source{Type: "live"}, Objects: make([]snapshot.Object, 3)}
	for i := 0; i < 14; i++ {
		s.Resources = append(s.Resources, snapshot.Resource{Resource: fmt.Sprintf("t%02d", i), Error: "forbidden"})
	}
	s.Resources = append(s.Resources, snapshot.Resource{Resource: "pods", Listed: true}, snapshot.Resource{Resource: "bindings"})
	got := summary(s, 1500*time.Millisecond)
	want := "captured 3 objects of 1 type in 1.5s (14 types not listed: t00, t01, t02, t03, t04, t05, t06, t07, t08, t09, …)"
	if got != want {
		t.Errorf("summary = %q\nwant      %q", got, want)
	}
}

// --captured-at fixes an offline input's capture time: ages count from it
// and a snapshot written from the dump records it. It means nothing live.
func TestCapturedAt(t *testing.T) {
	dump := whyStuckDump(t) // file time 2026-11-20T10:00:00Z
	for _, c := range []struct {
		at, says string
	}{
		{"", "Namespace/team-a has been terminating for 120m:"},
		{"2026-11-22T10:00:00Z", "Namespace/team-a has been terminating for 2d2h:"},
		{"2026-11-22T12:00:00+02:00", "Namespace/team-a has been terminating for 2d2h:"},
	} {
		args := []string{"why-stuck", "ns/team-a", "-f", dump}
		if c.at != "" {
			args = append(args, "--captured-at", c.at)
		}
		out, stderr, code := kgcRun(t, "", args...)
		if code != 0 || !strings.Contains(out, c.says) {
			t.Errorf("--captured-at %q: exit %d, stderr %q; want output saying %q, got:\n%s", c.at, code, stderr, c.says, out)
		}
	}

	out := filepath.Join(t.TempDir(), "s.json")
	if _, stderr, code := kgcRun(t, "", "snapshot", "-f", dump, "--captured-at", "2026-11-22T10:00:00Z", "--output-file", out); code != 0 {
		t.Fatalf("snapshot: exit %d: %s", code, stderr)
	}
	back, err := snapshotio.ReadFiles([]string{out}, nil, snapshotio.ReadOptions{})
	if err != nil || !back.CapturedAt.Equal(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("snapshot written with --captured-at: capturedAt %v, err %v", back.CapturedAt, err)
	}

	srv := httptest.NewServer(&capturetest.FakeAPIServer{})
	defer srv.Close()
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"why-stuck", "ns/team-a", "-f", dump, "--captured-at", "yesterday"}, `--captured-at "yesterday": give a time like`},
		{[]string{"--server", srv.URL, "--context", "", "snapshot", "--captured-at", "2026-11-22T10:00:00Z"}, "--captured-at applies to -f input only"},
		{[]string{"--server", srv.URL, "--context", "", "graph", "-A", "--captured-at", "2026-11-22T10:00:00Z"}, "--captured-at applies to -f input only"},
	} {
		stdout, stderr, code := kgcRun(t, "", c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.says) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit %d saying %q", c.args, code, stderr, stdout, exitUsage, c.says)
		}
	}
}

// The old form -o FILE writes FILE (a .yaml name is still refused rather
// than given JSON), and says on stderr what to use instead; stdout stays
// empty.
func TestSnapshotDeprecatedOutputFile(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := kgcRun(t, "", "snapshot", "-f", snapshotDump, "-o", filepath.Join(dir, "s.yaml"))
	if code != exitUsage || !strings.Contains(stderr, "the snapshot is written as JSON") {
		t.Errorf("-o s.yaml: exit %d, stderr %q", code, stderr)
	}
	stdout, stderr, code := kgcRun(t, "", "snapshot", "-f", snapshotDump, "-o", "-")
	if want := "warning: -o FILE is deprecated: -o is the output format (json or yaml) in every kgc command; leave it out: the snapshot goes to stdout\n"; code != exitOK ||
		!strings.HasPrefix(stdout, `{"apiVersion":"kgc.dev/v1alpha1","kind":"Snapshot"`) || !strings.HasPrefix(stderr, want) {
		t.Errorf("-o -: exit %d, stdout %.40q, stderr %q; want the snapshot on stdout and stderr starting %q", code, stdout, stderr, want)
	}
	for _, name := range []string{"json", "cluster.json.gz"} {
		old := filepath.Join(dir, name)
		stdout, stderr, code := kgcRun(t, "", "snapshot", "-f", snapshotDump, "-o", old)
		want := "warning: -o FILE is deprecated: -o is the output format (json or yaml) in every kgc command; use --output-file " + old + "\n"
		if code != exitOK || stdout != "" || !strings.HasPrefix(stderr, want) {
			t.Errorf("-o %s: exit %d, stdout %.40q, stderr %q; want exit 0, nothing on stdout, stderr starting %q", old, code, stdout, stderr, want)
		}
		back, err := snapshotio.ReadFiles([]string{old}, nil, snapshotio.ReadOptions{})
		if err != nil || len(back.Objects) != 9 {
			t.Errorf("reading %s back: %v", old, err)
		}
	}
}

// -o is the format, as in every command: -o json (the default) and -o yaml
// write the Snapshot document to stdout, or to --output-file, and both read
// back to the same objects; no file named after the format appears.
func TestSnapshotOutputFormats(t *testing.T) {
	dump, err := filepath.Abs(snapshotDump)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	def, _, code := kgcRun(t, "", "snapshot", "-f", dump)
	js, stderr, jcode := kgcRun(t, "", "snapshot", "-f", dump, "-o", "json")
	if code != exitOK || jcode != exitOK || js != def || strings.Contains(stderr, "deprecated") {
		t.Fatalf("-o json: exit %d, stderr %q; want the default output (exit %d) on stdout", jcode, stderr, code)
	}
	ya, stderr, code := kgcRun(t, "", "snapshot", "-f", dump, "-o", "yaml")
	if code != exitOK || !strings.HasPrefix(ya, "apiVersion: kgc.dev/v1alpha1\n") {
		t.Fatalf("-o yaml: exit %d, stderr %q, stdout %.80q", code, stderr, ya)
	}
	if _, stderr, code := kgcRun(t, "", "snapshot", "-f", dump, "-o", "yaml", "--output-file", "s.yaml.gz"); code != exitOK {
		t.Fatalf("-o yaml --output-file s.yaml.gz: exit %d, %s", code, stderr)
	}
	for _, in := range []struct{ name, stdin string }{{"-", js}, {"-", ya}, {"s.yaml.gz", ""}} {
		back, err := snapshotio.ReadFiles([]string{in.name}, strings.NewReader(in.stdin), snapshotio.ReadOptions{})
		if err != nil || len(back.Objects) != 9 {
			t.Errorf("reading %s back: %v", in.name, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files written: %v, want only s.yaml.gz", entries)
	}
}
