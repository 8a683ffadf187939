package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/capture/capturetest"
)

// A user bound in one namespace (RBAC refuses every list at cluster
// scope) gets, with -n, what kubectl get -n shows: the graph, the plan and
// why-stuck of that namespace, and one warning summing up what RBAC kept
// from kgc. Before, kgc listed at cluster scope only and answered "No
// objects", "No terminating objects" and "not found", exit 0.
func TestNamespaceUserLive(t *testing.T) {
	srv := httptest.NewServer(&capturetest.FakeAPIServer{NamespaceUser: "bob", UserNamespace: "shop"})
	defer srv.Close()
	live := []string{"--server", srv.URL, "--context", ""}
	rbac := `warning: RBAC kept User "bob" from listing 8 types at cluster scope: 6 read in namespace "shop" only, 2 not at all; no object read depends on those not read; -v=1 lists them` + "\n"

	stdout, stderr, code := kgcRun(t, "", append(live, "graph", "-n", "shop")...)
	if code != 0 || !strings.Contains(stdout, "Deployment/web") || !strings.Contains(stdout, "Pod/web-1") {
		t.Errorf("graph -n shop: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.HasSuffix(stderr, rbac) || strings.Count(stderr, "\n") != 2 {
		t.Errorf("graph -n shop stderr =\n%s\nwant the discovery warning and one RBAC summary:\n%s", stderr, rbac)
	}

	stdout, stderr, code = kgcRun(t, "", append(live, "plan", "delete", "deploy/web", "-n", "shop")...)
	if code != 0 || !strings.Contains(stdout, "ReplicaSet/web-1") {
		t.Errorf("plan delete deploy/web -n shop: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	stdout, stderr, code = kgcRun(t, "", append(live, "why-stuck", "-n", "shop", "--fail-if", "stuck", "-o", "json")...)
	if code != 0 || !strings.Contains(stdout, `"kind": "DiagnosisList"`) {
		t.Errorf("why-stuck -n shop: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	_, stderr, code = kgcRun(t, "", append(live, "graph", "-n", "shop", "-v=1")...)
	for _, want := range []string{
		`  not read: componentstatuses: componentstatuses is forbidden: User "bob" cannot list resource "componentstatuses" in API group "" at the cluster scope (HTTP 403)`,
		`  not read: secrets: secrets is forbidden: User "bob" cannot list resource "secrets" in API group "" in the namespace "shop" (HTTP 403)`,
		`  read in shop only: pods: pods is forbidden: User "bob" cannot list resource "pods" in API group "" at the cluster scope (HTTP 403)`,
	} {
		if code != 0 || !strings.Contains(stderr, "warning: "+want+"\n") {
			t.Errorf("graph -n shop -v=1: exit %d, stderr lacks %q:\n%s", code, want, stderr)
		}
	}
}

// Where the user may read nothing of what they ask about, kgc fails as
// kubectl's Forbidden does, quoting the refusal that names the user,
// instead of an empty answer and exit 0.
func TestNamespaceUserForbiddenScope(t *testing.T) {
	srv := httptest.NewServer(&capturetest.FakeAPIServer{NamespaceUser: "bob", UserNamespace: "shop"})
	defer srv.Close()
	live := []string{"--server", srv.URL, "--context", ""}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"why-stuck", "-n", "other", "--fail-if", "stuck"},
			`error: cannot read namespace "other": pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "other" (HTTP 403); use credentials allowed to list there (kubectl auth can-i list pods -n other), or read a dump with -f` + "\n"},
		{[]string{"graph", "-A"},
			`error: cannot list objects at cluster scope: pods is forbidden: User "bob" cannot list resource "pods" in API group "" at the cluster scope (HTTP 403); name a namespace you can read with -n, or read a dump with -f` + "\n"},
	} {
		stdout, stderr, code := kgcRun(t, "", append(live, tc.args...)...)
		if code != 1 || stdout != "" || !strings.HasSuffix(stderr, tc.want) {
			t.Errorf("kgc %s: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 1 and\n%s", strings.Join(tc.args, " "), code, stdout, stderr, tc.want)
		}
	}
}

// Errors say what went wrong: a 401 is rejected credentials, not an
// unreachable cluster; a --kubeconfig that does not exist is named, not a
// failure to read a namespace from it.
func TestLiveErrorsNameTheCause(t *testing.T) {
	srv := httptest.NewServer(&capturetest.FakeAPIServer{Unauthorized: true})
	defer srv.Close()
	_, stderr, code := kgcRun(t, "", "--server", srv.URL, "--context", "", "graph", "-n", "shop")
	want := "error: the cluster at " + srv.URL + " rejected the credentials (401 Unauthorized): the server has asked for the client to provide credentials; log in again or renew the token, and check --kubeconfig, --context and --user\n"
	if code != 1 || stderr != want {
		t.Errorf("401: exit %d, stderr %q\nwant %q", code, stderr, want)
	}

	missing := filepath.Join(t.TempDir(), "nope")
	for _, args := range [][]string{{"graph"}, {"graph", "-n", "shop"}, {"plan", "delete", "deploy/web"}} {
		_, stderr, code = kgcRun(t, "", append([]string{"--kubeconfig", missing}, args...)...)
		want := "error: cannot read the kubeconfig file given with --kubeconfig: stat " + missing + ": no such file or directory; give an existing file, or read dumps with -f\n"
		if code != 1 || stderr != want {
			t.Errorf("kgc %s with a missing kubeconfig: exit %d, stderr %q\nwant %q", strings.Join(args, " "), code, stderr, want)
		}
	}
}

// A namespace that is not there is an error with the close names, where
// the user asked about it: not "No objects" and exit 0.
func TestNamespaceThatIsNotThere(t *testing.T) {
	srv := httptest.NewServer(&capturetest.FakeAPIServer{})
	defer srv.Close()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"graph", "-n", "shp", "-f", "testdata/plan-shop.yaml"},
			`error: namespace "shp" is not in the input: no object in testdata/plan-shop.yaml lives in it; did you mean "shop"?`},
		{[]string{"why-stuck", "-n", "tem", "--fail-if", "stuck", "-f", "testdata/whystuck-cluster.yaml"},
			`error: namespace "tem" is not in the input: no object in testdata/whystuck-cluster.yaml lives in it; give an existing namespace with -n`},
		{[]string{"plan", "delete", "deploy/web", "-n", "shpo", "-f", "testdata/whystuck-cluster.yaml"},
			`error: deployments.apps "web" not found in namespace "shpo" (in testdata/whystuck-cluster.yaml); it exists in namespace "shop": use -n`},
		{[]string{"plan", "delete", "cm/x", "-n", "shpo", "-f", "testdata/whystuck-cluster.yaml"},
			`error: namespace "shpo" is not in the input: no object in testdata/whystuck-cluster.yaml lives in it; did you mean "shop"?`},
		{[]string{"--server", srv.URL, "--context", "", "graph", "-n", "shpo"},
			`error: namespace "shpo" does not exist in the cluster at ` + srv.URL + `; did you mean "shop"?`},
		{[]string{"--server", srv.URL, "--context", "", "snapshot", "-n", "shpo"},
			`error: namespace "shpo" does not exist in the cluster at ` + srv.URL + `; did you mean "shop"?`},
	} {
		stdout, stderr, code := kgcRun(t, "", tc.args...)
		if code != 1 || stdout != "" || !strings.HasSuffix(stderr, tc.want+"\n") {
			t.Errorf("kgc %s: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 1 and\n%s", strings.Join(tc.args, " "), code, stdout, stderr, tc.want)
		}
	}
}

// An empty input is an error naming it, not an empty cluster.
func TestEmptyInput(t *testing.T) {
	for _, args := range [][]string{
		{"graph", "-f", "testdata/empty.yaml"},
		{"why-stuck", "-A", "--fail-if", "stuck", "-f", "testdata/empty.yaml"},
		{"snapshot", "-f", "testdata/empty.yaml"},
	} {
		stdout, stderr, code := kgcRun(t, "", args...)
		want := "error: no objects in testdata/empty.yaml: the file is empty; give a dump of the cluster (kubectl get -A -o yaml) or a kgc snapshot\n"
		if code != 1 || stdout != "" || stderr != want {
			t.Errorf("kgc %s: exit %d\nstdout %q\nstderr %q\nwant %q", strings.Join(args, " "), code, stdout, stderr, want)
		}
	}
	_, stderr, code := kgcRun(t, "", "graph", "-f", "-")
	if want := "error: no objects in standard input: the file is empty"; code != 1 || !strings.HasPrefix(stderr, want) {
		t.Errorf("empty stdin: exit %d, stderr %q, want %q…", code, stderr, want)
	}
}

// kubectl cluster-info dump writes an empty ReplicaSetList for a namespace
// without ReplicaSets: the type was listed and is empty, so a pod's absent
// ReplicaSet is gone (dangling: the collector deletes the pod), not
// unknown. A dump without the list says the input holds no ReplicaSets,
// not that kgc could not list them.
func TestTypedEmptyListIsListed(t *testing.T) {
	for _, tc := range []struct{ dir, want string }{
		{"testdata/dump-empty-replicasets", "dangling-owner: Pod/web-7d9f-a -n shop names owner ReplicaSet/web-7d9f -n shop, which does not exist; the garbage collector will delete Pod/web-7d9f-a -n shop"},
		{"testdata/dump-without-replicasets", "unknown-owner: Pod/web-7d9f-a -n shop names owner ReplicaSet/web-7d9f -n shop, which is not in the input, but the input holds no replicasets.apps objects, so kgc cannot tell whether the owner exists"},
	} {
		stdout, stderr, code := kgcRun(t, "", "graph", "-A", "-f", tc.dir)
		if code != 0 || !strings.Contains(stdout, tc.want) || strings.Contains(stdout, "could not list") {
			t.Errorf("graph -f %s: exit %d\nstdout:\n%s\nstderr:\n%s\nwant %q", tc.dir, code, stdout, stderr, tc.want)
		}
	}
}

// A folder holding a dump and a kgc snapshot of the same objects reads
// each object once, with one warning for all, not one duplicate-uid line
// per object, and no duplicate-uid finding.
func TestDumpAndSnapshotOfTheSameObjects(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := kgcRun(t, "", "snapshot", "-f", "testdata/plan-shop.yaml", "-o", filepath.Join(dir, "snapshot.json")); code != 0 {
		t.Fatalf("snapshot: exit %d: %s", code, stderr)
	}
	dump, err := os.ReadFile("testdata/plan-shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dump.yaml"), dump, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := kgcRun(t, "", "graph", "-A", "-f", dir, "--fail-if", "duplicate-uid")
	if code != 0 || strings.Contains(stdout, "duplicate-uid") {
		t.Errorf("exit %d, a duplicate-uid finding for the same objects read twice:\n%s", code, stdout)
	}
	if strings.Count(stderr, "warning: ") != 1 || !strings.Contains(stderr, "objects were read more than once (same UID, kind and name) from "+filepath.Join(dir, "dump.yaml")+" and "+filepath.Join(dir, "snapshot.json")+": kept one copy of each") {
		t.Errorf("stderr =\n%s\nwant one warning summing up the repeated objects", stderr)
	}
}

// TestAskedNamespacesOfSeveralObjects: a user who may read only some
// namespaces and asks about several (why-stuck ns/a ns/b, ns a b) has
// each read, as one namespace given alone is.
func TestAskedNamespacesOfSeveralObjects(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ns/team-a"}, "shop team-a"},
		{[]string{"ns/team-a", "namespace/team-b", "deploy/web"}, "shop team-a team-b"},
		{[]string{"ns", "team-a", "team-b", "shop"}, "shop team-a team-b"},
		{[]string{"deploy", "web"}, "shop"},
		{[]string{"ns/a", "ns", "b"}, "shop"}, // refused later: asks about none
	} {
		if got := strings.Join(askedNamespaces("shop", false, tc.args), " "); got != tc.want {
			t.Errorf("askedNamespaces(shop, %q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
