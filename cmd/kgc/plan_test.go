package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/internal/golden"
)

// runPlanCmd runs the whole program offline, without colour.
func runPlanCmd(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Setenv("NO_COLOR", "1")
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "no-kubeconfig"))
	var out, errOut bytes.Buffer
	code = Run(testFactory(strings.NewReader(""), &out, &errOut), append([]string{"kgc"}, args...))
	return out.String(), errOut.String(), code
}

// fixedDump copies a dump into a temporary directory with a fixed
// modification time: a dump's capturedAt is its mtime, which a checkout
// sets to whenever it ran, and the plan document records it.
func fixedDump(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, b, 0o600); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	if err := os.Chtimes(out, at, at); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPlanCommand(t *testing.T) {
	dump := fixedDump(t, "testdata/plan-shop.yaml")
	tests := []struct {
		name     string
		args     []string
		golden   string
		wantCode int
		wantOut  []string
		wantErr  string
	}{
		{name: "foreground text", args: []string{"plan", "delete", "deploy/web", "-n", "shop", "--cascade=foreground", "-f", dump}, golden: "plan_shop_foreground.golden"},
		{name: "the example's foreground cascade: waves in order, the wave of grace periods named", args: []string{"plan", "delete", "deployment/web", "-n", "shop", "-f", "../../examples", "--cascade=foreground"},
			golden: "plan_example_foreground.golden", wantOut: []string{"  wave 4 (waits only; --show-steps lists each)\n    kubelet  wait  5 Pods  until the grace period ends at 2026-11-20T10:00:54Z\n  wave 5\n"}},
		{name: "default policy on an RC orphans", args: []string{"plan", "delete", "rc/legacy", "-n", "shop", "--cascade=default", "-f", dump}, golden: "plan_shop_rc_default.golden"},
		{name: "by uid, json", args: []string{"plan", "delete", "--uid", "dep-web", "-f", dump, "-o", "json"}, golden: "plan_shop_background.json.golden"},
		{name: "namespace with a stuck pod, steps", args: []string{"plan", "delete", "ns/shop", "-f", dump, "--show-steps"}, golden: "plan_shop_namespace.golden"},
		{name: "assume finalizers removed", args: []string{"plan", "delete", "ns/shop", "-f", dump, "--assume-finalizers=remove"},
			wantOut: []string{"9 deleted, 0 orphaned, 0 updated, 0 blocked"}},
		{name: "gate blocked", args: []string{"plan", "delete", "deploy/web", "-n", "shop", "--cascade=foreground", "-f", dump, "--fail-if", "blocked"},
			wantCode: exitGate, wantOut: []string{"blocked"}, wantErr: "would be left blocked"},
		{name: "gate deletes", args: []string{"plan", "delete", "deploy/web", "-n", "shop", "-f", dump, "--fail-if", "orphans", "--fail-if", "deletes-more-than=2"},
			wantCode: exitGate, wantErr: "more than 2"},
		{name: "the ReplicaSet of a live Deployment comes back: text", args: []string{"plan", "delete", "rs/web-zwl66dqmgk", "-n", "shop", "-f", "../../examples"},
			golden: "plan_example_recreated.golden", wantOut: []string{"Plan: delete ReplicaSet/web-zwl66dqmgk -n shop with propagationPolicy Background\nwarning: this delete will be undone by Deployment/web -n shop"}},
		{name: "the ReplicaSet of a live Deployment comes back: json", args: []string{"plan", "delete", "rs/web-zwl66dqmgk", "-n", "shop", "-f", "../../examples", "-o", "json"},
			golden: "plan_example_recreated.json.golden"},
		{name: "gate recreated", args: []string{"plan", "delete", "pod/db-0", "-n", "shop", "-f", "../../examples", "--fail-if", "recreated"},
			wantCode: exitGate, wantOut: []string{"recreated  Pod/db-0 -n shop"}, wantErr: "error: --fail-if: 1 object would be recreated by its controller"},
		{name: "gate recreated holds not when the owner goes too", args: []string{"plan", "delete", "sts/db", "-n", "shop", "-f", "../../examples", "--fail-if", "recreated"}, wantCode: exitOK},
		{name: "gate deletes counts the recreated", args: []string{"plan", "delete", "rs/web-zwl66dqmgk", "-n", "shop", "-f", "../../examples", "--fail-if", "deletes-more-than=3"},
			wantCode: exitGate, wantErr: "4 objects would be deleted, more than 3"},
		{name: "gate holds not", args: []string{"plan", "delete", "deploy/web", "-n", "shop", "-f", dump, "--fail-if", "deletes-more-than=10"}, wantCode: exitOK},
		{name: "bad cascade", args: []string{"plan", "delete", "deploy/web", "-f", dump, "--cascade=sideways"}, wantCode: exitUsage,
			wantErr: `error: invalid argument "sideways" for "--cascade" flag: use one of background, foreground, orphan, default`},
		{name: "bad gate", args: []string{"plan", "delete", "deploy/web", "-f", dump, "--fail-if", "sometimes"}, wantCode: exitUsage,
			wantErr: `error: invalid argument "sometimes" for "--fail-if" flag: use one of blocked, orphans, recreated, deletes-more-than=N`},
		{name: "bad gate number", args: []string{"plan", "delete", "deploy/web", "-f", dump, "--fail-if", "deletes-more-than=many"}, wantCode: exitUsage,
			wantErr: "deletes-more-than=N needs a non-negative number N"},
		{name: "bad assumption", args: []string{"plan", "delete", "deploy/web", "-f", dump, "--assume-finalizers=forget"}, wantCode: exitUsage,
			wantErr: `invalid argument "forget" for "--assume-finalizers" flag: use one of hang, remove`},
		{name: "kubectl's deprecated cascade=false orphans", args: []string{"plan", "delete", "deploy/web", "-n", "shop", "-f", dump, "--cascade=false", "-o", "json"},
			wantOut: []string{`"propagationPolicy": "Orphan"`}},
		{name: "no object", args: []string{"plan", "delete", "-f", dump}, wantCode: exitUsage, wantErr: "which object"},
		{name: "unknown object", args: []string{"plan", "delete", "deploy/nope", "-n", "shop", "-f", dump}, wantCode: exitError, wantErr: "not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runPlanCmd(t, tc.args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, out, errOut)
			}
			if tc.golden != "" {
				golden.Assert(t, filepath.Join("testdata", tc.golden), out)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if tc.wantErr != "" && !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantErr, errOut)
			}
		})
	}
}

// The JSON document carries the contract's fields with the values a
// script reads.
func TestPlanCommandJSONContract(t *testing.T) {
	out, _, code := runPlanCmd(t, "plan", "delete", "deploy/web", "-n", "shop", "--cascade=foreground", "-f", "testdata/plan-shop.yaml", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var doc struct {
		APIVersion, Kind, PropagationPolicy string
		Target                              struct{ UID string }
		Objects                             []struct {
			Object struct{ UID string }
			Fate   string
			Final  struct {
				Exists, Terminating bool
				Finalizers          []string
				OwnerReferences     []string
			}
		}
		Summary  map[string]int
		Complete bool
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.APIVersion != "kgc.dev/v1alpha1" || doc.Kind != "Plan" || doc.PropagationPolicy != "Foreground" || doc.Target.UID != "dep-web" || !doc.Complete {
		t.Errorf("header: %+v", doc)
	}
	fates := map[string]string{}
	for _, o := range doc.Objects {
		fates[o.Object.UID] = o.Fate
	}
	want := map[string]string{"dep-web": "blocked", "rs-web": "blocked", "pod-a": "deleted", "pod-b": "blocked", "cm-web": "updated"}
	for uid, f := range want {
		if fates[uid] != f {
			t.Errorf("%s: fate %q, want %q", uid, fates[uid], f)
		}
	}
	if doc.Summary["deleted"] != 1 || doc.Summary["blocked"] != 3 {
		t.Errorf("summary %v", doc.Summary)
	}
}

// A dump of a namespace's objects without the Namespace (`kubectl get
// all,cm -n team -o yaml`) still plans the namespace's deletion, on an
// assumed active Namespace, and says so.
func TestPlanNamespaceMissingFromDump(t *testing.T) {
	out, stderr, code := runKGC(t, "plan", "delete", "namespace/team", "-f", "testdata/namespace-without-namespace.yaml", "--captured-at", "2026-11-20T10:00:00Z")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Plan: delete Namespace/team", "blocked    Pod/worker -n team", "planning on an assumed active Namespace/team", "the plan is incomplete"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, stderr, code := runKGC(t, "plan", "delete", "namespace/other", "-f", "testdata/namespace-without-namespace.yaml"); code == exitOK {
		t.Errorf("a namespace nothing in the input belongs to planned with exit 0: %s", stderr)
	}
}

// TestPlanBooleanCascade: --cascade=true and false are kubectl's
// deprecated spellings; kgc takes them as kubectl does, with its warning.
func TestPlanBooleanCascade(t *testing.T) {
	for v, want := range map[string]string{
		"true":  "warning: --cascade=true is deprecated (boolean value) and can be replaced with --cascade=background.",
		"false": "warning: --cascade=false is deprecated (boolean value) and can be replaced with --cascade=orphan.",
	} {
		_, stderr, code := runPlanCmd(t, "plan", "delete", "deploy/web", "-n", "shop", "-f", "../../examples/cluster.yaml", "--cascade="+v)
		if code != 0 || !strings.Contains(stderr, want) {
			t.Errorf("--cascade=%s: exit %d, stderr %q, want the warning %q", v, code, stderr, want)
		}
	}
	_, stderr, _ := runPlanCmd(t, "plan", "delete", "deploy/web", "-n", "shop", "-f", "../../examples/cluster.yaml", "--cascade=background")
	if strings.Contains(stderr, "deprecated") {
		t.Errorf("--cascade=background warns: %q", stderr)
	}
}

// Several objects, or a label selector, make one plan of all their
// deletes, as kubectl delete deploy/a sts/b sends them; apply refuses such
// a plan (one guarded DELETE per apply) before connecting.
func TestPlanSeveralObjects(t *testing.T) {
	ex := copyFixture(t, "../../examples/cluster.yaml")
	out, errOut, code := runPlanCmd(t, "plan", "delete", "svc/web", "sts/db", "-n", "shop", "-f", ex)
	if code != exitOK || !strings.HasPrefix(out, "Plan: delete Service/web -n shop, StatefulSet/db -n shop with propagationPolicy Background\n") ||
		!strings.Contains(out, "deleted  EndpointSlice/web-677r5 -n shop") || !strings.Contains(out, "deleted  Pod/db-0 -n shop") {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	sel, _, code := runPlanCmd(t, "plan", "delete", "-l", "example.com/widget=gizmo", "-n", "shop", "-f", ex, "-o", "table")
	if code != exitOK || !strings.Contains(sel, "ConfigMap   gizmo-settings   deleted") {
		t.Errorf("plan delete -l: exit %d:\n%s", code, sel)
	}
	if _, errOut, code := runPlanCmd(t, "plan", "delete", "-l", "app=nope", "-n", "shop", "-f", ex); code != exitError || !strings.Contains(errOut, "no objects matching -l app=nope in namespace shop") {
		t.Errorf("plan delete -l matching nothing: exit %d: %s", code, errOut)
	}
	// kubectl delete TYPE1,TYPE2 -l SELECTOR: those types only.
	typed, errOut, code := runPlanCmd(t, "plan", "delete", "deploy,endpointslices", "-l", "app=web", "-n", "shop", "-f", ex)
	if code != exitOK || !strings.HasPrefix(typed, "Plan: delete Deployment/web -n shop, EndpointSlice/web-677r5 -n shop with propagationPolicy Background\n") {
		t.Errorf("plan delete deploy,endpointslices -l app=web: exit %d:\n%s%s", code, typed, errOut)
	}
	if _, errOut, code := runPlanCmd(t, "plan", "delete", "secrets", "-l", "app=web", "-n", "shop", "-f", ex); code != exitError || !strings.Contains(errOut, "error: no objects of type secrets matching -l app=web in namespace shop") {
		t.Errorf("plan delete secrets -l matching nothing: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runPlanCmd(t, "plan", "delete", "deploy/web", "-l", "app=web", "-n", "shop", "-f", ex); code != exitUsage || !strings.Contains(errOut, "names cannot be given with -l") {
		t.Errorf("plan delete deploy/web -l: exit %d: %s", code, errOut)
	}
	doc, _, _ := runPlanCmd(t, "plan", "delete", "service", "web", "db", "-n", "shop", "-f", ex, "-o", "json")
	if !strings.Contains(doc, `"targets": [`) {
		t.Errorf("the Plan document does not list its targets:\n%s", doc)
	}
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runApplyCmd(t, "", "apply", path, "--yes"); code == exitOK || !strings.Contains(errOut, "error: the plan ") {
		t.Errorf("apply of a plan of several deletes: exit %d: %s", code, errOut)
	}
}

// plan -o dot names what its colours and marks mean, as graph's drawing
// does, in the same legend.
func TestPlanDOTHasALegend(t *testing.T) {
	ex := copyFixture(t, "../../examples/cluster.yaml")
	out, errOut, code := runPlanCmd(t, "plan", "delete", "deploy/web", "-n", "shop", "-f", ex, "-o", "dot")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	at := strings.Index(out, "  // Legend: the fates and marks drawn.\n")
	if at < 0 {
		t.Fatalf("plan -o dot has no legend:\n%s", out)
	}
	legend := out[at:]
	for _, want := range []string{
		`  subgraph "cluster_legend" {` + "\n" + `    label="Fates";`,
		`"legend-deleted" [label="deleted: gone once the delete settles", shape="box", style="rounded,filled", fillcolor="#f4a6a6"`,
		`"legend-target" [label="bold border: an object the delete names"`,
		"  }\n}\n",
	} {
		if !strings.Contains(legend, want) {
			t.Errorf("plan -o dot: the legend lacks %q:\n%s", want, legend)
		}
	}
	if strings.Contains(legend, "legend-orphaned") {
		t.Errorf("plan -o dot: the legend names a fate no object has:\n%s", legend)
	}
}
