package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/internal/golden"
)

// graphFixture copies a dump that does not say when it was taken into a
// temporary folder with a fixed modification time: such a dump's capture
// time is its file's, and the stuck-finalizer findings print how long
// objects have been terminating.
func graphFixture(t *testing.T, src string, captured time.Time) string {
	t.Helper()
	dst := copyFixture(t, src)
	if err := os.Chtimes(dst, captured, captured); err != nil {
		t.Fatal(err)
	}
	return dst
}

// copyFixture copies a dump into a temporary folder, as a fresh clone
// would: its modification time is now. Dumps that declare their capture
// time (the List's capturedAt) print the same ages anyway.
func copyFixture(t *testing.T, src string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// runKGC runs the whole program as a user would, without colour.
func runKGC(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runAs(t, "kgc", args...)
}

// runAs runs the program installed as program (kgc or kubectl-kgc).
func runAs(t *testing.T, program string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Setenv("NO_COLOR", "1")
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "no-kubeconfig"))
	var out, errOut bytes.Buffer
	code = Run(testFactory(strings.NewReader(""), &out, &errOut), append([]string{program}, args...))
	return out.String(), errOut.String(), code
}

func TestGraphCommandGolden(t *testing.T) {
	// The example cluster's dump says it was taken at 10:00:00Z, whatever
	// its file's modification time.
	example := copyFixture(t, "../../examples/cluster.yaml")
	hazards := graphFixture(t, "testdata/graph-hazards.yaml", time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC))
	tests := []struct {
		golden     string
		args       []string
		wantStderr string
	}{
		{"graph_example_shop.tree.golden", []string{"graph", "-f", example, "-n", "shop"}, ""},
		{"graph_example_all.table.golden", []string{"graph", "-f", example, "-A", "-o", "table"}, ""},
		{"graph_example_deploy_web.dot.golden", []string{"graph", "-f", example, "deploy/web", "-n", "shop", "-o", "dot"}, ""},
		{"graph_example_shop.json.golden", []string{"graph", "-f", example, "-n", "shop", "-o", "json"}, ""},
		{"graph_example_shared_config.yaml.golden", []string{"graph", "-f", example, "--uid", "aa418d94-384d-5a2c-8cf1-528b25f4bafd", "-o", "yaml"}, ""},
		{"graph_hazards.tree.golden", []string{"graph", "-f", hazards}, "ownerReferences[0] has no apiVersion, uid"},
		{"graph_hazards.json.golden", []string{"graph", "-f", hazards, "-o", "json"}, ""},
		{"graph_hazards_pod.tree.golden", []string{"graph", "-f", hazards, "pod", "api-1-x"}, ""},
		{"graph_hazards_event.tree.golden", []string{"graph", "-f", hazards, "ev/api.1", "-n", "team"},
			"warning: Event/api.1 -n team is not in the garbage collector's graph: the collector does not watch its type"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			stdout, stderr, code := runKGC(t, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			if tt.wantStderr != "" && !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr %q does not say %q", stderr, tt.wantStderr)
			}
			golden.Assert(t, filepath.Join("testdata", tt.golden), stdout)
		})
	}
}

func TestGraphCommandErrors(t *testing.T) {
	hazards := graphFixture(t, "testdata/graph-hazards.yaml", time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC))
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"unknown format", []string{"graph", "-f", hazards, "-o", "svg"}, exitUsage, `invalid argument "svg" for "-o, --output" flag: use one of tree, text, table, dot, json, yaml`},
		{"object and uid", []string{"graph", "-f", hazards, "deploy/api", "--uid", "x"}, exitUsage, "give the objects as TYPE/NAME, with --uid or with -l, one of them"},
		{"no such object", []string{"graph", "-f", hazards, "deploy/nope", "-n", "team"}, exitError, `deployments.apps "nope" not found in namespace "team"`},
		{"unknown gate", []string{"graph", "-f", hazards, "--fail-if", "dangling"}, exitUsage, `invalid argument "dangling" for "--fail-if" flag: use one of any, cycle, dangling-owner,`},
		{"no such file", []string{"graph", "-f", filepath.Join(t.TempDir(), "missing.yaml")}, exitError, "missing.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runKGC(t, tt.args...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tt.wantCode, tt.wantErr)
			}
			if stdout != "" {
				t.Errorf("an error must print nothing on stdout, got %q", stdout)
			}
		})
	}
}

// An unknown UID is not found, as an unknown TYPE/NAME is: exit 1, the
// error naming it and where kgc looked, nothing on stdout.
func TestGraphCommandUnknownUIDIsNotFound(t *testing.T) {
	hazards := graphFixture(t, "testdata/graph-hazards.yaml", time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC))
	for _, args := range [][]string{{"--uid", "nope"}, {"deploy/nope", "-n", "team"}} {
		stdout, stderr, code := runKGC(t, append([]string{"graph", "-f", hazards, "-o", "json"}, args...)...)
		if code != exitError || stdout != "" {
			t.Errorf("graph %v: exit %d, stdout %q; want exit %d and nothing on stdout", args, code, stdout, exitError)
		}
		if !strings.Contains(stderr, "nope") || !strings.Contains(stderr, "graph-hazards.yaml") {
			t.Errorf("graph %v: stderr = %q, want an error naming the object and the file", args, stderr)
		}
	}
}

func TestGraphCommandFailIf(t *testing.T) {
	hazards := graphFixture(t, "testdata/graph-hazards.yaml", time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC))
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"a matching finding fails the gate", []string{"--fail-if", "cycle", "--fail-if", "dangling-owner"}, exitGate,
			"error: --fail-if: found 1 cycle, 1 dangling-owner\n"},
		{"any finding", []string{"--fail-if", "any"}, exitGate,
			"error: --fail-if: found 1 cycle, 1 dangling-owner, 1 invalid-owner-reference, 1 namespaced-owner-of-cluster-scoped, 1 stuck-finalizer, 1 unresolvable-owner-kind\n"},
		{"no finding of that type", []string{"--fail-if", "duplicate-uid"}, exitOK, ""},
		{"only shown findings count", []string{"deploy/api", "-n", "team", "--fail-if", "cycle"}, exitOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runKGC(t, append([]string{"graph", "-f", hazards, "-o", "json"}, tt.args...)...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.wantCode, stderr)
			}
			// The reader warns about the malformed reference on stderr first.
			if _, after, _ := strings.Cut(stderr, "uid; kept, the garbage collector cannot resolve it\n"); after != tt.wantErr {
				t.Errorf("stderr after the reader's warning = %q, want %q", after, tt.wantErr)
			}
			if !strings.Contains(stdout, `"kind": "Graph"`) {
				t.Errorf("the graph must be printed before the gate fails; stdout %q", stdout)
			}
		})
	}
}

// -A wins over -n, as in kubectl: every namespace is shown.
func TestAllNamespacesWinsOverNamespace(t *testing.T) {
	all, _, code := runKGC(t, "graph", "-f", "../../examples", "-A")
	both, stderr, code2 := runKGC(t, "graph", "-f", "../../examples", "-A", "-n", "shop")
	if code != exitOK || code2 != exitOK || all != both {
		t.Errorf("graph -A -n shop (exit %d, %s) differs from graph -A (exit %d)", code2, stderr, code)
	}
}

// An empty namespace view says where kgc looked and what lies elsewhere,
// with the command that shows it.
func TestGraphNothingFoundSaysWhere(t *testing.T) {
	ex := copyFixture(t, "../../examples/cluster.yaml")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"graph", "-n", "default", "-f", ex},
			"No objects with owners or dependents in namespace default, in cluster.yaml; 34 in other namespaces (kgc graph -A).\n"},
		{[]string{"graph", "-n", "default", "-o", "table", "-f", ex},
			"No objects with owners or dependents in namespace default, in cluster.yaml; 34 in other namespaces (kgc graph -A).\n"},
		{[]string{"graph", "-n", "staging", "-f", snapshotDump},
			"No objects with owners or dependents in namespace staging, in snapshot-dump.yaml; 2 in another namespace (kgc graph -A).\n"},
	} {
		stdout, stderr, code := runKGC(t, tc.args...)
		if code != exitOK || stdout != tc.want {
			t.Errorf("kgc %s: exit %d\nstdout %q\nwant   %q\n%s", strings.Join(tc.args, " "), code, stdout, tc.want, stderr)
		}
	}
}

// kubectl's TYPE -l SELECTOR and TYPE1,TYPE2 -l SELECTOR: the selector
// picks among those types only, and an empty answer names them.
func TestGraphTypesAndSelector(t *testing.T) {
	ex := copyFixture(t, "../../examples/cluster.yaml")
	out, errOut, code := runKGC(t, "graph", "deploy,replicasets", "-l", "app=web", "-n", "shop", "-f", ex)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Deployment/web ◀", "├── ReplicaSet/web-jdz6x496lt ◀", "└── ReplicaSet/web-zwl66dqmgk ◀", "│   ├── Pod/web-jdz6x496lt-9hddl  "} {
		if !strings.Contains(out, want) {
			t.Errorf("graph deploy,replicasets -l app=web lacks %q:\n%s", want, out)
		}
	}
	one, _, code := runKGC(t, "graph", "deploy", "-l", "app=web", "-n", "shop", "-f", ex)
	if code != exitOK || !strings.Contains(one, "Deployment/web ◀") || strings.Contains(one, "ReplicaSet/web-jdz6x496lt ◀") {
		t.Errorf("graph deploy -l app=web marks more than the Deployment: exit %d:\n%s", code, one)
	}
	none, _, code := runKGC(t, "graph", "cm", "-l", "app=web", "-n", "shop", "-f", ex)
	if code != exitOK || none != "No objects with owners or dependents of type cm matching -l app=web in namespace shop, in cluster.yaml.\n" {
		t.Errorf("graph cm -l matching nothing: exit %d: %q", code, none)
	}
	_, errOut, code = runKGC(t, "graph", "gadgets", "-l", "app=web", "-n", "shop", "-f", ex)
	if code == exitOK || !strings.Contains(errOut, "gadgets") {
		t.Errorf("graph gadgets -l: exit %d, stderr %q; want an error naming the unknown type", code, errOut)
	}
}

// Several objects, and a label selector, as kubectl takes them: one graph
// of all their components, each marked; a selector that matches nothing
// says where it looked.
func TestGraphSeveralObjectsAndSelector(t *testing.T) {
	ex := copyFixture(t, "../../examples/cluster.yaml")
	both, _, code := runKGC(t, "graph", "svc/web", "sts/db", "-n", "shop", "-f", ex)
	same, _, code2 := runKGC(t, "graph", "service", "web", "-n", "shop", "-f", ex)
	if code != exitOK || code2 != exitOK {
		t.Fatalf("exit %d, %d", code, code2)
	}
	for _, want := range []string{"Service/web ◀", "StatefulSet/db ◀", "◀ the objects asked about"} {
		if !strings.Contains(both, want) {
			t.Errorf("graph svc/web sts/db lacks %q:\n%s", want, both)
		}
	}
	if strings.Contains(both, "Deployment/web") || !strings.Contains(same, "Service/web ◀") || strings.Contains(same, "StatefulSet") {
		t.Errorf("the graphs show other components than asked:\n%s\n%s", both, same)
	}
	sel, _, code := runKGC(t, "graph", "-l", "example.com/widget=gizmo", "-n", "shop", "-f", ex)
	if code != exitOK || !strings.Contains(sel, "└── ConfigMap/gizmo-settings ◀") || strings.Contains(sel, "Deployment") {
		t.Errorf("graph -l: exit %d:\n%s", code, sel)
	}
	none, _, code := runKGC(t, "graph", "-l", "app=nope", "-n", "shop", "-f", ex)
	if code != exitOK || none != "No objects with owners or dependents matching -l app=nope in namespace shop, in cluster.yaml.\n" {
		t.Errorf("graph -l matching nothing: exit %d: %q", code, none)
	}
	for _, args := range [][]string{{"svc/web", "db"}, {"svc/web", "-l", "a=b"}, {"-l", "a b"}, {"deploy", "web", "-l", "app=web"}, {"cm,,deploy", "-l", "a=b"}, {"--uid", "x", "deploy", "-l", "a=b"}} {
		if _, errOut, code := runKGC(t, append([]string{"graph", "-n", "shop", "-f", ex}, args...)...); code != exitUsage {
			t.Errorf("graph %v: exit %d, want %d: %s", args, code, exitUsage, errOut)
		}
	}
}
