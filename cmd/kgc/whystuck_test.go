package main

import (
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/internal/golden"
	"github.com/kgc-dev/kgc/pkg/capture/capturetest"
)

// whyStuckDump is the fixture dump, captured at 10:00:00Z by its own account.
func whyStuckDump(t *testing.T) string {
	t.Helper()
	return copyFixture(t, "testdata/whystuck-cluster.yaml")
}

func TestWhyStuckGolden(t *testing.T) {
	dump := whyStuckDump(t)
	tests := []struct {
		golden string
		args   []string
	}{
		{"whystuck_all.table.golden", []string{"why-stuck", "-A", "-f", dump}},
		{"whystuck_team_a.tree.golden", []string{"why-stuck", "ns/team-a", "-f", dump}},
		{"whystuck_shop_web.tree.golden", []string{"why-stuck", "deploy/web", "-n", "shop", "-f", dump}},
		{"whystuck_team_b.json.golden", []string{"why-stuck", "namespace", "team-b", "-f", dump, "-o", "json"}},
		{"whystuck_legacy.tree.golden", []string{"why-stuck", "cm/legacy-settings", "-n", "shop", "-f", dump}},
		{"whystuck_shop.table.golden", []string{"why-stuck", "-n", "shop", "-f", dump}},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			out, stderr, code := runKGC(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			golden.Assert(t, filepath.Join("testdata", tc.golden), out)
		})
	}
}

// diagnosisDoc is the part of the Diagnosis document scripts and the e2e
// suite rely on.
type diagnosisDoc struct {
	APIVersion  string `json:"apiVersion"`
	Kind        string `json:"kind"`
	Terminating bool   `json:"terminating"`
	Object      struct {
		Kind, Name, UID string
	} `json:"object"`
	RootCauses []struct {
		Object struct {
			Kind, Namespace, Name, UID string
		} `json:"object"`
		Finalizer string `json:"finalizer"`
		Reason    string `json:"reason"`
		RemovedBy string `json:"removedBy"`
		Remedies  []struct {
			Action   string                 `json:"action"`
			Command  string                 `json:"command"`
			Finishes []struct{ UID string } `json:"finishes"`
		} `json:"remedies"`
	} `json:"rootCauses"`
	Remedies []struct {
		RootCause int    `json:"rootCause"`
		Command   string `json:"command"`
	} `json:"remedies"`
}

func TestWhyStuckJSONNamesTheRootCause(t *testing.T) {
	dump := whyStuckDump(t)
	tests := []struct {
		args      []string
		uid       string
		finalizer string
		reason    string
		removedBy string
		actions   []string
		finishes  string // a UID the last remedy finishes
	}{
		{args: []string{"ns/team-a"}, uid: "6f1c2a10-0004-4000-8000-000000000001", finalizer: "example.com/cleanup",
			reason: "controller-not-found", removedBy: "unknown",
			actions: []string{"fix-controller", "remove-finalizer"}, finishes: "6f1c2a10-0003-4000-8000-00000000000a"},
		{args: []string{"deploy/web", "-n", "shop"}, uid: "6f1c2a10-0007-4000-8000-000000000003", finalizer: "finalizers.acme.io/drain",
			reason: "controller-pending", removedBy: "unknown",
			actions:  []string{"fix-controller", "unblock-owner-reference", "remove-owner-reference", "remove-finalizer"},
			finishes: "6f1c2a10-0007-4000-8000-000000000001"},
		{args: []string{"--uid", "6f1c2a10-0003-4000-8000-00000000000b"}, uid: "6f1c2a10-0005-4000-8000-000000000001",
			reason: "node-not-ready", removedBy: "kubelet",
			actions: []string{"fix-node", "taint-out-of-service", "force-delete"}, finishes: "6f1c2a10-0003-4000-8000-00000000000b"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, stderr, code := runKGC(t, append(append([]string{"why-stuck"}, tc.args...), "-f", dump, "-o", "json")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var doc diagnosisDoc
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if doc.APIVersion != "kgc.dev/v1alpha1" || doc.Kind != "Diagnosis" || !doc.Terminating {
				t.Fatalf("header = %s %s terminating=%v", doc.APIVersion, doc.Kind, doc.Terminating)
			}
			if len(doc.RootCauses) != 1 {
				t.Fatalf("%d root causes, want 1:\n%s", len(doc.RootCauses), out)
			}
			rc := doc.RootCauses[0]
			if rc.Object.UID != tc.uid || rc.Finalizer != tc.finalizer || rc.Reason != tc.reason || rc.RemovedBy != tc.removedBy {
				t.Errorf("root cause = %s %q %s %q, want %s %q %s %q", rc.Object.UID, rc.Finalizer, rc.Reason, rc.RemovedBy, tc.uid, tc.finalizer, tc.reason, tc.removedBy)
			}
			var actions []string
			for _, r := range rc.Remedies {
				actions = append(actions, r.Action)
			}
			if strings.Join(actions, ",") != strings.Join(tc.actions, ",") {
				t.Errorf("remedies = %v, want %v", actions, tc.actions)
			}
			last := rc.Remedies[len(rc.Remedies)-1]
			found := false
			for _, f := range last.Finishes {
				found = found || f.UID == tc.finishes
			}
			if !found {
				t.Errorf("last remedy finishes %v, want it to include %s", last.Finishes, tc.finishes)
			}
			if len(doc.Remedies) != len(rc.Remedies) || doc.Remedies[0].RootCause != 1 {
				t.Errorf("top-level remedies = %+v", doc.Remedies)
			}
		})
	}
}

func TestWhyStuckListJSON(t *testing.T) {
	out, stderr, code := runKGC(t, "why-stuck", "-A", "-f", whyStuckDump(t), "-o", "yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"kind: DiagnosisList", "groups:", "items:", "kind: Diagnosis\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("yaml lacks %q", want)
		}
	}
}

func TestWhyStuckFailIf(t *testing.T) {
	dump := whyStuckDump(t)
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"why-stuck", "-A", "--fail-if", "stuck", "-f", dump}, exitGate},
		{[]string{"why-stuck", "ns/team-a", "--fail-if", "stuck", "-f", dump, "-o", "json"}, exitGate},
		{[]string{"why-stuck", "cm/legacy-settings", "-n", "shop", "--fail-if", "stuck", "-f", dump}, exitOK},
		{[]string{"why-stuck", "-n", "acme-system", "--fail-if", "stuck", "-f", dump}, exitOK},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args[1:3], " "), func(t *testing.T) {
			out, stderr, code := runKGC(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.code, stderr)
			}
			if out == "" {
				t.Errorf("nothing printed: the result comes before the gate")
			}
			if tc.code == exitGate && !strings.Contains(stderr, "--fail-if stuck") {
				t.Errorf("stderr %q does not say which gate", stderr)
			}
		})
	}
}

func TestWhyStuckErrors(t *testing.T) {
	dump := whyStuckDump(t)
	tests := []struct {
		args []string
		code int
		says string
	}{
		{[]string{"why-stuck", "-o", "dot", "-f", dump}, exitUsage, `invalid argument "dot" for "-o, --output" flag: use one of text, tree, table, json, yaml`},
		{[]string{"why-stuck", "ns/team-a", "--uid", "x", "-f", dump}, exitUsage, "with --uid or with -l, one of them"},
		{[]string{"why-stuck", "-A", "ns/team-a", "-f", dump}, exitUsage, "drop it"},
		{[]string{"why-stuck", "a", "b/c", "-f", dump}, exitUsage, "TYPE/NAME ... or TYPE NAME ..., not both"},
		{[]string{"why-stuck", "-A", "--fail-if", "blocked", "-f", dump}, exitUsage, `invalid argument "blocked" for "--fail-if" flag: use one of stuck`},
		{[]string{"why-stuck", "deploy/nope", "-n", "shop", "-f", dump}, exitError, `"nope" not found`},
		{[]string{"why-stuck", "--uid", "nope", "-f", dump}, exitError, `"nope"`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			out, stderr, code := runKGC(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.says) {
				t.Errorf("exit %d, stderr %q; want exit %d saying %q", code, stderr, tc.code, tc.says)
			}
			if out != "" {
				t.Errorf("printed a result on error: %q", out)
			}
		})
	}
}

// A garbage collector finalizer held an hour after nothing is left to wait
// for is not "in progress": kgc names the stalled controller, and
// --fail-if stuck fires.
func TestWhyStuckStalledGarbageCollector(t *testing.T) {
	args := []string{"why-stuck", "deploy/api", "-n", "shop", "-f", "testdata/stalled-gc.yaml", "--captured-at", "2026-11-20T10:00:00Z"}
	out, stderr, code := runKGC(t, append(args, "--fail-if", "stuck")...)
	if code != exitGate {
		t.Fatalf("exit %d, want %d (the gate): stderr %q", code, exitGate, stderr)
	}
	for _, want := range []string{"(controller-stalled)", "it has waited 60m", "the garbagecollector is not acting", "kube-controller-manager"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Simulating the remedies must not act on a state in which the
	// simulated collector already removed the object.
	if strings.Contains(stderr, "not in the snapshot") {
		t.Errorf("stderr: %s", stderr)
	}
}

// TestWhyStuckSeveralObjects: several TYPE/NAME (or TYPE NAME ...) and
// -l/--selector explain their objects together, as -A lists a
// namespace's: one table, a named object that is not terminating said in
// a line of its own, one DiagnosisList document.
func TestWhyStuckSeveralObjects(t *testing.T) {
	examples := filepath.Join(repoRoot, "examples")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
		wantErr  string
	}{
		{name: "TYPE NAME NAME", args: []string{"why-stuck", "ns", "legacy", "shop", "-f", examples},
			want: []string{"Pod/report-runner -n legacy", "Not terminating:\n  Namespace/shop is not terminating.", "1 terminating object, 2 root causes"}},
		{name: "TYPE/NAME TYPE/NAME", args: []string{"why-stuck", "pod/db-0", "pod/db-1", "-n", "shop", "-f", examples},
			want: []string{"No terminating objects.", "Pod/db-0 -n shop is not terminating.", "Pod/db-1 -n shop is not terminating."}},
		{name: "-l in a namespace", args: []string{"why-stuck", "-l", "app=web", "-n", "shop", "-f", examples},
			want: []string{"Deployment/web -n shop is not terminating.", "ReplicaSet/web-zwl66dqmgk -n shop is not terminating."}},
		{name: "TYPE -l", args: []string{"why-stuck", "deploy", "-l", "app=web", "-n", "shop", "-f", examples},
			want: []string{"No terminating objects.\nDeployment/web -n shop is not terminating."}},
		{name: "TYPE,TYPE -l -A", args: []string{"why-stuck", "pods,namespaces", "-l", "kubernetes.io/metadata.name=legacy", "-A", "-f", examples},
			want: []string{"Namespace/legacy"}},
		{name: "TYPE -l matching nothing", args: []string{"why-stuck", "rs,pods", "-l", "app=nope", "-n", "shop", "-f", examples},
			wantCode: exitError, wantErr: "no objects of types rs,pods matching -l app=nope in namespace shop in "},
		{name: "TYPE NAME -l", args: []string{"why-stuck", "deploy", "web", "-l", "app=web", "-f", examples},
			wantCode: exitUsage, wantErr: "names cannot be given with -l"},
		{name: "-l matching nothing", args: []string{"why-stuck", "-l", "app=nope", "-n", "shop", "-f", examples},
			wantCode: exitError, wantErr: "no objects matching -l app=nope in namespace shop in "},
		{name: "-l matching nothing, where", args: []string{"why-stuck", "-l", "app=nope", "-n", "shop", "-f", examples},
			wantCode: exitError, wantErr: "examples: nothing to explain"},
		{name: "both forms", args: []string{"why-stuck", "ns/legacy", "cm", "-f", examples},
			wantCode: exitUsage, wantErr: "give objects as TYPE/NAME ... or TYPE NAME ..., not both"},
		{name: "objects and -l", args: []string{"why-stuck", "ns/legacy", "-l", "app=web", "-f", examples},
			wantCode: exitUsage, wantErr: "names cannot be given with -l, which selects the objects: give TYPE or TYPE1,TYPE2 before it"},
		{name: "--uid and -l", args: []string{"why-stuck", "--uid", "x", "-l", "app=web", "-f", examples},
			wantCode: exitUsage, wantErr: "give the objects as TYPE/NAME, with --uid or with -l, one of them"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runPlanCmd(t, tt.args...)
			if code != tt.wantCode || !strings.Contains(errOut, tt.wantErr) {
				t.Fatalf("exit %d, stderr %q; want exit %d, stderr with %q", code, errOut, tt.wantCode, tt.wantErr)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
		})
	}
	out, _, code := runPlanCmd(t, "why-stuck", "ns/legacy", "ns/shop", "-f", examples, "-o", "json")
	var list struct {
		Kind  string
		Items []struct{ Object struct{ Name string } }
	}
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil || list.Kind != "DiagnosisList" || len(list.Items) != 2 || list.Items[0].Object.Name != "legacy" || list.Items[1].Object.Name != "shop" {
		t.Errorf("-o json: exit %d, %v, %+v; want a DiagnosisList of legacy then shop", code, err, list)
	}
}

// An empty answer says where kgc looked and how to look further, as
// kubectl's "No resources found in default namespace." does: live in the
// context's namespace, offline in a namespace, and with -A.
func TestWhyStuckNothingTerminatingSaysWhere(t *testing.T) {
	srv := httptest.NewServer(&capturetest.FakeAPIServer{})
	defer srv.Close()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--server", srv.URL, "--context", "", "why-stuck", "-n", "shop"},
			"No terminating objects in namespace shop; 1 in another namespace (kgc why-stuck -A).\n"},
		{[]string{"why-stuck", "-n", "default", "-f", "../../examples/cluster.yaml"},
			"No terminating objects in namespace default; 3 in other namespaces and 2 cluster-scoped (kgc why-stuck -A).\n"},
		{[]string{"why-stuck", "-n", "shop", "-o", "tree", "-f", "testdata/plan-shop.yaml"},
			"No terminating objects in namespace shop; none elsewhere either.\n"},
		{[]string{"why-stuck", "-A", "--fail-if", "stuck", "-f", "testdata/plan-shop.yaml"},
			"No terminating objects in testdata/plan-shop.yaml.\n"},
	} {
		stdout, stderr, code := kgcRun(t, "", tc.args...)
		if code != exitOK || stdout != tc.want {
			t.Errorf("kgc %s: exit %d\nstdout %q\nwant   %q\nstderr:\n%s", strings.Join(tc.args, " "), code, stdout, tc.want, stderr)
		}
	}
	// A user RBAC keeps in shop sees nothing of other namespaces: kgc
	// claims nothing about them.
	bob := httptest.NewServer(&capturetest.FakeAPIServer{NamespaceUser: "bob", UserNamespace: "shop"})
	defer bob.Close()
	if stdout, stderr, code := kgcRun(t, "", "--server", bob.URL, "--context", "", "why-stuck", "-n", "shop"); code != exitOK || stdout != "No terminating objects in namespace shop.\n" {
		t.Errorf("why-stuck -n shop as bob: exit %d, stdout %q, want only where kgc looked\n%s", code, stdout, stderr)
	}
	// As kubectl kgc, the hint is the plugin's command line.
	stdout, _, _ := runAs(t, "kubectl-kgc", "why-stuck", "-n", "default", "-f", "../../examples/cluster.yaml")
	if !strings.HasSuffix(stdout, "(kubectl kgc why-stuck -A).\n") {
		t.Errorf("as kubectl-kgc: %q, want the hint to say kubectl kgc why-stuck -A", stdout)
	}
}
