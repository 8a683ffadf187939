package render

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/internal/golden"
	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// diagnosisFixture is a small cluster with one of each kind of blocker:
// a namespace held by a custom resource and by a pod on a NotReady node, a
// foreground deletion held two levels down, and a live object the garbage
// collector will never delete.
func diagnosisFixture() (*snapshot.Snapshot, *diagnose.Diagnoser) {
	at := testobj.CapturedAt
	zero := int64(0)
	thirty := int64(30)
	ns := testobj.Namespace("team-a").Deleting(at.Add(-2 * time.Hour)).Facts(&snapshot.Facts{Namespace: &snapshot.NamespaceFacts{
		Phase: "Terminating", SpecFinalizers: []string{rules.FinalizerNamespace}}}).Build()
	widget := testobj.New("example.com/v1", "Widget", "team-a", "report").Deleting(at.Add(-2 * time.Hour)).Finalizers("example.com/cleanup").Build()
	widget.Metadata.DeletionGracePeriodSeconds = &zero
	pod := testobj.Pod("team-a", "db-0").Deleting(at.Add(-time.Hour)).Facts(&snapshot.Facts{Pod: &snapshot.PodFacts{NodeName: "node-2", Phase: "Running", Claims: []string{"data"}}}).Build()
	pod.Metadata.DeletionGracePeriodSeconds = &thirty
	claim := testobj.PVC("team-a", "data").Finalizers(rules.FinalizerPVC).Build()
	node := testobj.Node("node-2").Facts(&snapshot.Facts{Node: &snapshot.NodeFacts{Ready: "Unknown"}}).Build()

	deploy := testobj.Deployment("shop", "web").Deleting(at.Add(-30 * time.Minute)).Finalizers(rules.FinalizerForeground).Build()
	rs := testobj.ReplicaSet("shop", "web-1").OwnedBy(deploy).Deleting(at.Add(-30 * time.Minute)).Finalizers(rules.FinalizerForeground).Build()
	stuck := testobj.Pod("shop", "web-1-a").OwnedBy(rs).Deleting(at.Add(-29 * time.Minute)).Finalizers("acme.io/drain").
		Facts(&snapshot.Facts{Pod: &snapshot.PodFacts{NodeName: "node-1", Phase: "Succeeded"}}).Build()
	stuck.Metadata.DeletionGracePeriodSeconds = &zero
	ctrl := testobj.Deployment("acme-system", "acme-controller").Build()
	legacy := testobj.ConfigMap("shop", "legacy").Owner(testobj.RefTo("example.com/v1alpha1", "Widget", "settings", "widget-uid")).Build()

	snap := testobj.Snapshot(ns, widget, pod, claim, node, testobj.Node("node-1").Facts(&snapshot.Facts{Node: &snapshot.NodeFacts{Ready: "True"}}).Build(),
		deploy, rs, stuck, ctrl, legacy).CRD("example.com", "Widget", "widgets", true).Build()
	// The renderer shows what a simulator says; a fixed answer keeps these
	// goldens about rendering.
	finishes := func(rc diagnose.RootCause, r diagnose.Remedy) []snapshot.ObjectRef {
		if r.Action == diagnose.ActionRemoveFinalizer || r.Action == diagnose.ActionForceDelete {
			return rc.Holds
		}
		return nil
	}
	return snap, diagnose.New(snap, nil, diagnose.Options{Finishes: finishes})
}

func TestDiagnosisGoldens(t *testing.T) {
	snap, d := diagnosisFixture()
	uid := func(kind, ns, name string) string {
		for _, o := range snap.Objects {
			if o.Kind == kind && o.Metadata.Namespace == ns && o.Metadata.Name == name {
				return o.Metadata.UID
			}
		}
		t.Fatalf("no %s %s/%s", kind, ns, name)
		return ""
	}
	one := func(kind, ns, name string) *diagnose.Diagnosis {
		diag, err := d.Diagnose(uid(kind, ns, name))
		if err != nil {
			t.Fatal(err)
		}
		return diag
	}
	tests := []struct {
		golden string
		render func(*bytes.Buffer) error
	}{
		{"diagnosis_namespace.tree.golden", func(b *bytes.Buffer) error { return DiagnosisTree(b, one("Namespace", "", "team-a"), Style{}) }},
		{"diagnosis_namespace_color.tree.golden", func(b *bytes.Buffer) error {
			return DiagnosisTree(b, one("Namespace", "", "team-a"), Style{Color: true})
		}},
		{"diagnosis_foreground.tree.golden", func(b *bytes.Buffer) error { return DiagnosisTree(b, one("Deployment", "shop", "web"), Style{}) }},
		{"diagnosis_live.tree.golden", func(b *bytes.Buffer) error { return DiagnosisTree(b, one("ConfigMap", "shop", "legacy"), Style{}) }},
		{"diagnosis_foreground.json.golden", func(b *bytes.Buffer) error { return Document(b, "json", one("Deployment", "shop", "web")) }},
		{"diagnosis_namespace.yaml.golden", func(b *bytes.Buffer) error { return Document(b, "yaml", one("Namespace", "", "team-a")) }},
		{"diagnosis_all.table.golden", func(b *bytes.Buffer) error { return DiagnosisTable(b, d.All(""), Style{}) }},
		{"diagnosis_all.json.golden", func(b *bytes.Buffer) error { return Document(b, "json", d.All("")) }},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.render(&b); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, filepath.Join("testdata", tc.golden), b.Bytes())
		})
	}
}

func TestDiagnosisTreeSaysWhatAUserNeeds(t *testing.T) {
	snap, d := diagnosisFixture()
	var nsUID string
	for _, o := range snap.Objects {
		if o.Kind == "Namespace" {
			nsUID = o.Metadata.UID
		}
	}
	diag, err := d.Diagnose(nsUID)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := DiagnosisTree(&b, diag, Style{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"spec finalizer kubernetes ← namespace-controller",
		"Widget/report -n team-a",
		"finalizer example.com/cleanup ← unknown (no controller found in the input)  [root cause",
		"node-not-ready",
		"kubectl taint nodes node-2 node.kubernetes.io/out-of-service=nodeshutdown:NoExecute",
		`kubectl patch widgets.example.com report -n team-a --type=json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/cleanup"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
		"risk: " + rules.LookupFinalizer("example.com/cleanup").Risk,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tree lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("plain style printed ANSI escapes")
	}
}

func TestDiagnosisTableEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := DiagnosisTable(&b, &diagnose.DiagnosisList{}, Style{}); err != nil {
		t.Fatal(err)
	}
	if b.String() != "No terminating objects.\n" {
		t.Errorf("got %q", b.String())
	}
}

func TestDiagnosisTableOfALiveObject(t *testing.T) {
	_, d := diagnosisFixture()
	list := d.All("shop")
	live := diagnose.Diagnosis{Terminating: false, Summary: "ConfigMap/legacy -n shop is not terminating."}
	var b bytes.Buffer
	if err := DiagnosisTable(&b, &diagnose.DiagnosisList{Items: []diagnose.Diagnosis{live}}, Style{}); err != nil {
		t.Fatal(err)
	}
	if b.String() != "No terminating objects.\nConfigMap/legacy -n shop is not terminating.\n" {
		t.Errorf("got %q", b.String())
	}
	if len(list.Items) != 3 {
		t.Errorf("-n shop lists %d terminating objects, want the deployment, replica set and pod", len(list.Items))
	}
}

// TestDiagnosisTableAges: a pod still inside its grace period shows the
// grace left, never a negative age, and one seconds past it is
// finishing (in progress), not stuck.
func TestDiagnosisTableAges(t *testing.T) {
	at := testobj.CapturedAt
	thirty := int64(30)
	inGrace := testobj.Pod("shop", "web-a").Deleting(at.Add(20 * time.Second)).Facts(&snapshot.Facts{Pod: &snapshot.PodFacts{NodeName: "n1", Phase: "Running"}}).Build()
	inGrace.Metadata.DeletionGracePeriodSeconds = &thirty
	pastGrace := testobj.Pod("shop", "web-b").Deleting(at.Add(-15 * time.Second)).Facts(&snapshot.Facts{Pod: &snapshot.PodFacts{NodeName: "n1", Phase: "Running"}}).Build()
	pastGrace.Metadata.DeletionGracePeriodSeconds = &thirty
	snap := testobj.Snapshot(inGrace, pastGrace, testobj.Node("n1").Facts(&snapshot.Facts{Node: &snapshot.NodeFacts{Ready: "True"}}).Build()).Build()
	var out bytes.Buffer
	if err := DiagnosisTable(&out, diagnose.New(snap, nil, diagnose.Options{}).All(""), Style{}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"terminating, 20s of grace left", "(0 stuck, 2 in progress)"} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "-20s") || strings.Contains(got, "kubelet-not-confirming") {
		t.Errorf("a negative age, or a pod 15s past its grace period called stuck:\n%s", got)
	}
}

// A root cause whose finalizer sits on an object not deleted yet (the
// namespace controller deletes it only after the pods) holds nothing yet:
// the table marks it and does not count it as stuck; REMOVED BY is the
// detailed view's words.
func TestDiagnosisTableRootCauseNotDeletedYet(t *testing.T) {
	ns := snapshot.ObjectRef{Kind: "Namespace", Name: "legacy", UID: "ns"}
	pod := snapshot.ObjectRef{Kind: "Pod", Namespace: "legacy", Name: "runner", UID: "pod"}
	backup := snapshot.ObjectRef{Kind: "Backup", Namespace: "legacy", Name: "nightly", UID: "backup"}
	none := &diagnose.Attribution{Evidence: diagnose.EvidenceNone}
	l := &diagnose.DiagnosisList{
		Items: []diagnose.Diagnosis{{Object: ns, Terminating: true}, {Object: pod, Terminating: true}},
		Groups: []diagnose.Group{
			{RootCause: diagnose.RootCause{Object: pod, Reason: "node-not-ready", RemovedBy: "kubelet"}, Objects: []diagnose.Held{{Object: pod, AgeSeconds: 60}}},
			{RootCause: diagnose.RootCause{Object: backup, Finalizer: "backups.example.com/protect", Reason: "controller-not-found", RemovedBy: "unknown", Attribution: none},
				Objects: []diagnose.Held{{Object: ns, AgeSeconds: 60}}},
		}}
	var b bytes.Buffer
	if err := DiagnosisTable(&b, l, Style{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Backup/nightly -n legacy (once deleted)", "unknown (no controller found in the input)",
		"2 terminating objects, 2 root causes (1 stuck, 0 in progress, 1 on an object not deleted yet)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "Pod/runner -n legacy (once deleted)") {
		t.Errorf("a terminating root cause is marked as not deleted:\n%s", b.String())
	}
}
