package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/internal/golden"
)

// postmortemExample is the shipped record of a real namespace delete.
const postmortemExample = "../../examples-postmortem/"

func examplePostmortemArgs(extra ...string) []string {
	return append([]string{"postmortem", "--audit-log", postmortemExample + "audit.log.gz",
		"--before", postmortemExample + "before.json.gz", "--after", postmortemExample + "after.json.gz"}, extra...)
}

func TestPostmortemCommandGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"postmortem_example.text.golden", examplePostmortemArgs("ns/team-a")},
		{"postmortem_example.json.golden", examplePostmortemArgs("-A", "-o", "json")},
		{"postmortem_example.dot.golden", examplePostmortemArgs("-n", "team-a", "-o", "dot")},
		{"postmortem_example_other_namespace.text.golden", examplePostmortemArgs("-n", "shop")},
		// The log alone: the namespace's own DELETE names it in its
		// objectRef's namespace too, and its finalize removes it.
		{"postmortem_example_log_only.text.golden", []string{"postmortem", "-A", "--audit-log", postmortemExample + "audit.log.gz", "--after", "none"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			out, errOut, code := runKGC(t, tc.args...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			golden.Assert(t, filepath.Join("testdata", tc.golden), []byte(out))
		})
	}
}

// The shipped audit log was written at RequestResponse level: it holds the
// Secret's value (hunter2, base64 in the deletecollection's response).
// No output format may carry it, nor any other body field.
func TestPostmortemOutputsNoSecret(t *testing.T) {
	raw := readGzip(t, postmortemExample+"audit.log.gz")
	secrets := []string{"aHVudGVyMg==", "hunter2"}
	if !bytes.Contains(raw, []byte(secrets[0])) {
		t.Fatalf("the example's audit log no longer holds the Secret's value: this test would check nothing")
	}
	for _, format := range []string{"text", "json", "yaml", "dot"} {
		out, errOut, code := runKGC(t, examplePostmortemArgs("-A", "-o", format)...)
		if code != 0 {
			t.Fatalf("-o %s: exit %d: %s", format, code, errOut)
		}
		for _, s := range secrets {
			if strings.Contains(out+errOut, s) {
				t.Errorf("-o %s prints the Secret's value %q", format, s)
			}
		}
	}
}

func TestPostmortemBadInput(t *testing.T) {
	dir := t.TempDir()
	notAudit := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(notAudit, []byte("apiVersion: v1\nkind: List\nitems: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"no audit log", []string{"postmortem", "-A"}, exitUsage, "--audit-log is required"},
		{"not an audit log", []string{"postmortem", "-A", "--audit-log", notAudit, "--after", "none"}, exitError, notAudit},
		{"missing file", []string{"postmortem", "-A", "--audit-log", filepath.Join(dir, "nope.log"), "--after", "none"}, exitError, "nope.log"},
		{"bad --since", []string{"postmortem", "-A", "--audit-log", notAudit, "--since", "yesterday"}, exitUsage, "--since"},
		{"-A with an object", []string{"postmortem", "-A", "ns/x", "--audit-log", notAudit}, exitUsage, "-A"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runKGC(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.contains) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and an error naming %q", code, out, errOut, tc.code, tc.contains)
			}
		})
	}
}

// A dependent the garbage collector deleted, whose owner's deletion is not
// in the log: the post-mortem says so, and --fail-if incomplete stops a
// pipeline rather than let it read the rest as everything that happened.
func TestPostmortemFailIfIncomplete(t *testing.T) {
	line := `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"a1","stage":"ResponseComplete",` +
		`"requestURI":"/apis/apps/v1/namespaces/shop/replicasets/web-1","verb":"delete",` +
		`"user":{"username":"system:serviceaccount:kube-system:generic-garbage-collector"},` +
		`"objectRef":{"resource":"replicasets","namespace":"shop","name":"web-1","apiGroup":"apps","apiVersion":"v1"},` +
		`"responseStatus":{"code":200},"requestObject":{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1","preconditions":{"uid":"rs-1"}},` +
		`"responseObject":{"kind":"ReplicaSet","apiVersion":"apps/v1","metadata":{"name":"web-1","namespace":"shop","uid":"rs-1",` +
		`"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"deploy-1"}]}},` +
		`"requestReceivedTimestamp":"2026-11-27T10:00:00.000000Z","stageTimestamp":"2026-11-27T10:00:00.100000Z"}`
	log := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(log, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runKGC(t, "postmortem", "-A", "--audit-log", log, "--after", "none")
	if code != 0 || !strings.Contains(out, "Deployment/web -n shop was deleted by a request not in the log") || !strings.Contains(out, "incomplete:") {
		t.Errorf("exit %d, stdout:\n%s\nstderr: %s\nwant the missing root said, and the output marked incomplete", code, out, errOut)
	}
	_, errOut, code = runKGC(t, "postmortem", "-A", "--audit-log", log, "--after", "none", "--fail-if", "incomplete", "-o", "json")
	if code != exitGate || !strings.Contains(errOut, "--fail-if incomplete") {
		t.Errorf("--fail-if incomplete: exit %d, stderr %q; want exit %d", code, errOut, exitGate)
	}
}

func readGzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A log analyzed a part at a time needs a temporary folder: without one,
// the error says what to do, and nothing reads as an answer.
func TestPostmortemSpillNeedsATemporaryFolder(t *testing.T) {
	args := []string{"postmortem", "-A", "--audit-log", postmortemExample + "audit.log.gz", "--after", "none", "--spill-after", "1"}
	whole, _, code := runKGC(t, args[:len(args)-2]...)
	if code != 0 {
		t.Fatalf("held whole: exit %d", code)
	}
	if parts, errOut, code := runKGC(t, args...); code != 0 || parts != whole {
		t.Fatalf("a part at a time: exit %d, stderr %q; same output %v", code, errOut, parts == whole)
	}
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	out, errOut, code := runKGC(t, args...)
	if code != 1 || out != "" || !strings.Contains(errOut, "temporary file") || !strings.Contains(errOut, "--spill-after 0") {
		t.Errorf("exit %d, stdout %q, stderr %q: want exit 1, nothing on stdout, and how to go on", code, out, errOut)
	}
}
