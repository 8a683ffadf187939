package render

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/internal/golden"
	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// hazardGraph has one of every finding type the graph reports.
func hazardGraph() *graph.Graph {
	at := testobj.CapturedAt
	rs := testobj.ReplicaSet("web", "web-1").UID("rs").Build()
	a := testobj.ConfigMap("web", "a").UID("cm-a").Owner(testobj.RefTo("v1", "ConfigMap", "b", "cm-b")).Build()
	b := testobj.ConfigMap("web", "b").UID("cm-b").Owner(testobj.RefTo("v1", "ConfigMap", "a", "cm-a")).Build()
	dangling := testobj.ConfigMap("web", "leftover").UID("cm-dangling").Owner(testobj.RefTo("apps/v1", "ReplicaSet", "old", "rs-gone")).Build()
	other := testobj.ConfigMap("ops", "shared").UID("cm-other").Build()
	cross := testobj.ConfigMap("web", "borrowed").UID("cm-cross").Owner(testobj.Ref(other)).Build()
	pod := testobj.Pod("web", "p").UID("pod").OwnedBy(rs).Deleting(at.Add(-time.Hour)).Finalizers("example.com/drain").Build()
	pv := testobj.PV("pv-1").UID("pv").Owner(testobj.Ref(pod)).Build()
	oldKind := testobj.ConfigMap("web", "old-style").UID("cm-oldkind").Owner(testobj.RefTo("extensions/v1beta1", "Deployment", "api", "dep-gone")).Build()
	unknown := testobj.ConfigMap("web", "secretive").UID("cm-unknown").Owner(testobj.RefTo("v1", "Secret", "s", "secret-gone")).Build()
	mismatch := testobj.ConfigMap("web", "misnamed").UID("cm-mismatch").Owner(testobj.RefTo("apps/v1", "ReplicaSet", "not-web-1", "rs")).Build()
	broken := testobj.ConfigMap("web", "broken").UID("cm-broken").Owner(snapshot.OwnerReference{Kind: "ConfigMap", Name: "x"}).Build()
	dup := testobj.ConfigMap("web", "copy").UID("cm-a").Build()
	snap := testobj.Snapshot(rs, a, b, dangling, other, cross, pod, pv, oldKind, unknown, mismatch, broken).
		Duplicates(dup).Unlisted("", "Secret", "forbidden").Build()
	return graph.Build(snap)
}

// Every hazard the graph finds is drawn in the DOT output: the element it
// concerns names it and carries its message as tooltip, the legend names
// it, the table flags it, and Graphviz accepts the drawing.
func TestGraphDOTDrawsEveryHazard(t *testing.T) {
	g := hazardGraph()
	v := fullView(g)
	var types []string
	for _, f := range v.Findings {
		if !slices.Contains(types, f.Type) {
			types = append(types, f.Type)
		}
	}
	if len(types) != 10 {
		t.Fatalf("the fixture has findings of %d types, want all 10: %q", len(types), types)
	}
	var buf bytes.Buffer
	if err := GraphDOT(&buf, v); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, f := range v.Findings {
		if !strings.Contains(out, `"legend-`+f.Type+`" [label="`+f.Type+": ") {
			t.Errorf("the legend does not name %s", f.Type)
		}
		tip := regexp.QuoteMeta(f.Type + ": " + f.Message)
		if !regexp.MustCompile(`hazards="[^"]*` + f.Type + `[^"]*"(\n\s*|, )tooltip="[^"]*` + tip).MatchString(out) {
			t.Errorf("no element is drawn with hazard %s and its message as tooltip", f.Type)
		}
	}
	golden.Assert(t, filepath.Join("testdata", "graph_hazards.dot.golden"), buf.Bytes())
	validDOT(t, buf.Bytes())

	buf.Reset()
	if err := GraphTable(&buf, v, Style{}); err != nil {
		t.Fatal(err)
	}
	for _, row := range []struct{ name, flags string }{
		{"a", "cycle,duplicate-uid"}, {"b", "cycle"}, {"leftover", "dangling-owner"}, {"borrowed", "cross-namespace-owner"},
		{"p", "beingDeleted,stuck-finalizer"}, {"pv-1", "namespaced-owner-of-cluster-scoped"},
		{"old-style", "unresolvable-owner-kind"}, {"secretive", "unknown-owner"}, {"misnamed", "owner-identity-mismatch"},
	} {
		if !regexp.MustCompile(`(?m)^\S+\s+\S+\s+` + regexp.QuoteMeta(row.name) + `\s.*\s` + regexp.QuoteMeta(row.flags) + `$`).MatchString(buf.String()) {
			t.Errorf("the table does not flag %s with %s:\n%s", row.name, row.flags, buf.String())
		}
	}
}

// validDOT runs Graphviz on a drawing when it is installed.
func validDOT(t *testing.T, dot []byte) {
	t.Helper()
	bin, err := exec.LookPath("dot")
	if err != nil {
		t.Log("dot (graphviz) is not on PATH: the drawing is not checked by Graphviz")
		return
	}
	cmd := exec.Command(bin, "-Tsvg")
	cmd.Stdin = bytes.NewReader(dot)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("dot -Tsvg: %v: %s", err, stderr.String())
	}
}
