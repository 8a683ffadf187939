package render

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/internal/golden"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// planFixture: a Deployment deleted in the foreground whose ReplicaSet has
// one plain pod and one pod held by a custom finalizer, plus a ConfigMap
// that a second owner keeps (its reference to the Deployment is removed).
func planFixture(t *testing.T, policy plan.Policy) (*snapshot.Snapshot, *plan.Plan) {
	t.Helper()
	dep := testobj.Deployment("shop", "web").UID("dep-web").Build()
	other := testobj.ConfigMap("shop", "settings").UID("cm-settings").Build()
	rs := testobj.ReplicaSet("shop", "web-7d9f").UID("rs-web").OwnedBy(dep).Build()
	p1 := testobj.Pod("shop", "web-7d9f-a").UID("pod-a").OwnedBy(rs).Build()
	p2 := testobj.Pod("shop", "web-7d9f-b").UID("pod-b").OwnedBy(rs).Finalizers("example.com/drain").Build()
	shared := testobj.ConfigMap("shop", "web-config").UID("cm-web").Owner(testobj.Ref(dep, testobj.Block)).Owner(testobj.Ref(other)).Build()
	snap := testobj.Snapshot(dep, other, rs, p1, p2, shared).Build()
	p, err := plan.Simulate(snap, plan.Options{Target: "dep-web", Policy: policy})
	if err != nil {
		t.Fatal(err)
	}
	return snap, p
}

func TestPlanTextGolden(t *testing.T) {
	for _, c := range []struct {
		name   string
		policy plan.Policy
		opts   PlanOptions
		style  Style
	}{
		{"plan_foreground.golden", plan.PolicyForeground, PlanOptions{}, Style{}},
		{"plan_foreground_color.golden", plan.PolicyForeground, PlanOptions{}, Style{Color: true}},
		{"plan_foreground_steps.golden", plan.PolicyForeground, PlanOptions{ShowSteps: true}, Style{}},
		{"plan_orphan.golden", plan.PolicyOrphan, PlanOptions{}, Style{}},
		{"plan_background.golden", plan.PolicyBackground, PlanOptions{}, Style{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, p := planFixture(t, c.policy)
			var buf bytes.Buffer
			if err := PlanText(&buf, p, c.opts, c.style); err != nil {
				t.Fatal(err)
			}
			if !c.style.Color && strings.Contains(buf.String(), "\x1b[") {
				t.Errorf("plain output has escape codes")
			}
			golden.Assert(t, filepath.Join("testdata", c.name), buf.Bytes())
		})
	}
}

func TestPlanDocumentGolden(t *testing.T) {
	_, p := planFixture(t, plan.PolicyForeground)
	for _, f := range []string{"json", "yaml"} {
		var buf bytes.Buffer
		if err := Document(&buf, f, p); err != nil {
			t.Fatal(err)
		}
		golden.Assert(t, filepath.Join("testdata", "plan."+f+".golden"), buf.Bytes())
	}
}

// ownersIn is the owner references of each object of snap, as PlanDOT
// takes them.
func ownersIn(snap *snapshot.Snapshot) func(uid string) []snapshot.OwnerReference {
	return func(uid string) []snapshot.OwnerReference {
		for _, o := range snap.Objects {
			if o.Metadata.UID == uid {
				return o.Metadata.OwnerReferences
			}
		}
		return nil
	}
}

func TestPlanDOTGolden(t *testing.T) {
	snap, p := planFixture(t, plan.PolicyForeground)
	owners := ownersIn(snap)
	var buf bytes.Buffer
	if err := PlanDOT(&buf, p, owners); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "plan.dot.golden"), buf.Bytes())
}

// raceFixture: a ConfigMap deleted in the foreground with no blocking
// dependent, whose Widget dependent has a second, solid owner: whether the
// Widget loses its reference depends on which GC worker acts first.
func raceFixture(t *testing.T) (*snapshot.Snapshot, *plan.Plan) {
	t.Helper()
	cfg := testobj.ConfigMap("shop", "config").UID("cm-config").Finalizers("example.com/hold").Build()
	keeper := testobj.ConfigMap("shop", "keeper").UID("cm-keeper").Build()
	w := testobj.Deployment("shop", "web").UID("dep-web").Owner(testobj.Ref(keeper, testobj.Controller)).Owner(testobj.Ref(cfg)).Build()
	snap := testobj.Snapshot(cfg, keeper, w).Build()
	p, err := plan.Simulate(snap, plan.Options{Target: "cm-config", Policy: plan.PolicyForeground})
	if err != nil {
		t.Fatal(err)
	}
	return snap, p
}

func TestPlanRaceGolden(t *testing.T) {
	snap, p := raceFixture(t)
	var buf bytes.Buffer
	if err := PlanText(&buf, p, PlanOptions{}, Style{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "Depends on which garbage collector worker acts first:") {
		t.Errorf("the text does not show the timing-dependent outcome:\n%s", buf.String())
	}
	golden.Assert(t, filepath.Join("testdata", "plan_race.golden"), buf.Bytes())
	buf.Reset()
	if err := Document(&buf, "json", p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"alternatives"`) {
		t.Errorf("the document has no alternative outcome:\n%s", buf.String())
	}
	golden.Assert(t, filepath.Join("testdata", "plan_race.json.golden"), buf.Bytes())
	buf.Reset()
	owners := ownersIn(snap)
	if err := PlanDOT(&buf, p, owners); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "plan_race.dot.golden"), buf.Bytes())
}

// cascadePlan is a plan whose steps come in the order the simulator's
// interleaved workers record them (waves 1, 2, 3, 5, 6, 5, 6, 7), with a
// wave of waits only (4) and baseline steps of other namespaces and of the
// target's (wave 2 of the baseline run).
func cascadePlan() *plan.Plan {
	ref := func(kind, ns, name string) snapshot.ObjectRef {
		return snapshot.ObjectRef{APIVersion: "v1", Kind: kind, Namespace: ns, Name: name, UID: ns + "-" + name}
	}
	dep, rs1, rs2 := ref("Deployment", "shop", "web"), ref("ReplicaSet", "shop", "web-1"), ref("ReplicaSet", "shop", "web-2")
	p1, p2 := ref("Pod", "shop", "web-1-a"), ref("Pod", "shop", "web-2-a")
	step := func(wave int, actor, action string, o snapshot.ObjectRef) plan.Step {
		return plan.Step{Wave: wave, Actor: actor, Action: action, Object: o, Detail: action + " " + o.Name}
	}
	baseline := func(s plan.Step) plan.Step { s.Baseline = true; return s }
	steps := []plan.Step{
		baseline(step(2, "namespace-controller", plan.ActionWait, snapshot.ObjectRef{APIVersion: "v1", Kind: "Namespace", Name: "legacy", UID: "ns-legacy"})),
		baseline(step(2, "garbagecollector", plan.ActionDelete, ref("ConfigMap", "shop", "shared"))),
		baseline(step(2, "garbagecollector", plan.ActionMarkDeleting, ref("ReplicaSet", "shop", "web-2"))),
		baseline(step(2, "garbagecollector", plan.ActionDelete, ref("ConfigMap", "ops", "stale"))),
		step(1, "apiserver", plan.ActionMarkDeleting, dep),
		step(2, "garbagecollector", plan.ActionMarkDeleting, rs1),
		step(2, "garbagecollector", plan.ActionMarkDeleting, rs2),
		step(3, "garbagecollector", plan.ActionMarkDeleting, p1),
		step(3, "garbagecollector", plan.ActionMarkDeleting, p2),
		{Wave: 4, Actor: "kubelet", Action: plan.ActionWait, Object: p1, Detail: "until the grace period ends"},
		{Wave: 4, Actor: "kubelet", Action: plan.ActionWait, Object: p2, Detail: "until the grace period ends"},
		step(5, "kubelet", plan.ActionDelete, p1),
		step(6, "garbagecollector", plan.ActionRemoveFin, rs1),
		step(5, "kubelet", plan.ActionDelete, p2),
		step(6, "garbagecollector", plan.ActionRemoveFin, rs2),
		step(7, "garbagecollector", plan.ActionRemoveFin, dep),
	}
	for i := range steps {
		steps[i].Step = i + 1
	}
	p := &plan.Plan{Target: dep, PropagationPolicy: plan.PolicyForeground, Steps: steps, Complete: true, Summary: plan.Summary{Deleted: 5},
		Warnings: []string{"the input is not settled: even without this delete the controllers would take 3 step(s) on 3 object(s) (steps marked baseline); the objects below are what the delete changes on top of that"},
		Notes:    []string{plan.RaceNote(2)}}
	for _, o := range []snapshot.ObjectRef{dep, p1, p2, rs1, rs2} {
		p.Objects = append(p.Objects, plan.ObjectFate{Object: o, Fate: plan.FateDeleted})
	}
	return p
}

// The cascade prints each wave once, in order, steps in step order within
// it; a wave of waits is named with what it waits for rather than skipped.
func TestPlanCascadeWavesInOrder(t *testing.T) {
	var buf bytes.Buffer
	if err := PlanText(&buf, cascadePlan(), PlanOptions{}, Style{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	var waves []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "  wave ") {
			waves = append(waves, strings.Fields(line)[1])
		}
	}
	if got := strings.Join(waves, " "); got != "1 2 3 4 5 6 7" {
		t.Errorf("waves printed as %q, want 1 2 3 4 5 6 7:\n%s", got, out)
	}
	for _, want := range []string{
		"  wave 4 (waits only; --show-steps lists each)\n    kubelet  wait  2 Pods  until the grace period ends\n",
		"  wave 5\n    kubelet  delete  Pod/web-1-a -n shop  delete web-1-a\n    kubelet  delete  Pod/web-2-a -n shop  delete web-2-a\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the cascade lacks\n%s\ngot:\n%s", want, out)
		}
	}
	golden.Assert(t, filepath.Join("testdata", "plan_cascade.golden"), buf.Bytes())
}

// The warning about an unsettled input names only what the plan concerns
// (the objects it lists; for a namespace, its content) and says where to
// see the steps; the work pending elsewhere, and notes about objects the
// delete does not concern, are one line, named with -v=1 (Verbose) or
// --show-steps. The race note is left to the races section, which this
// plan has none of.
func TestPlanUnsettledWarningIsScoped(t *testing.T) {
	nsPlan := cascadePlan()
	nsPlan.Target = snapshot.ObjectRef{APIVersion: "v1", Kind: "Namespace", Name: "shop", UID: "ns-shop"}
	const elsewhere = "Warning OwnerRefInvalidNamespace on ConfigMap/stale -n ops: ownerRef does not exist"
	const here = "Warning OwnerRefInvalidNamespace on ReplicaSet/web-1 -n shop: ownerRef does not exist"
	withNotes := func(p *plan.Plan) *plan.Plan {
		p.Notes = append(p.Notes, elsewhere, here)
		p.NoteAbout = map[string]snapshot.ObjectRef{
			elsewhere: {Kind: "ConfigMap", Namespace: "ops", Name: "stale", UID: "ops-stale"},
			here:      {Kind: "ReplicaSet", Namespace: "shop", Name: "web-1", UID: "shop-web-1"}}
		return p
	}
	for _, c := range []struct {
		p           *plan.Plan
		opts        PlanOptions
		want, never []string
	}{
		{cascadePlan(), PlanOptions{}, []string{
			"warning: the input is not settled: even without this delete the controllers would act on 1 object this plan concerns: ReplicaSet/web-2 -n shop (garbagecollector: mark-deleting); the final state shows what the delete changes on top of that (--show-steps lists them, marked baseline)\n",
			"note: the controllers have work pending on 3 objects this delete does not touch (-v=1 names them)\n",
		}, []string{"Namespace/legacy"}},
		{cascadePlan(), PlanOptions{Verbose: true}, []string{
			"note: the controllers have work pending on 3 objects that this delete does not touch: Namespace/legacy, ConfigMap/shared -n shop, ConfigMap/stale -n ops (--show-steps lists them, marked baseline)\n",
		}, nil},
		{cascadePlan(), PlanOptions{ShowSteps: true}, []string{
			"(garbagecollector: mark-deleting); the final state shows what the delete changes on top of that (the steps marked baseline above)\n",
			"ConfigMap/stale -n ops (the steps marked baseline above)\n",
		}, nil},
		{nsPlan, PlanOptions{}, []string{
			"this plan concerns: ConfigMap/shared -n shop (garbagecollector: delete), ReplicaSet/web-2 -n shop (garbagecollector: mark-deleting);",
			"note: the controllers have work pending on 2 objects this delete does not touch (-v=1 names them)\n",
		}, nil},
		{withNotes(cascadePlan()), PlanOptions{}, []string{
			"note: " + here + "\n",
			"note: the controllers have work pending on 3 objects this delete does not touch, and 1 note is about such objects (-v=1 shows them)\n",
		}, []string{elsewhere}},
		{withNotes(cascadePlan()), PlanOptions{Verbose: true}, []string{"note: " + here + "\n", "note: " + elsewhere + "\n"}, nil},
	} {
		var buf bytes.Buffer
		if err := PlanText(&buf, c.p, c.opts, Style{}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range c.want {
			if !strings.Contains(out, want) {
				t.Errorf("the plan lacks\n%s\ngot:\n%s", want, out)
			}
		}
		for _, never := range append(c.never, "step(s)", "may end otherwise") {
			if strings.Contains(out, never) {
				t.Errorf("the plan says %q:\n%s", never, out)
			}
		}
	}
}

// A cascade that reaches an object marked to be kept says so, since the
// garbage collector does not honour the marker; one that spares it is
// silent.
func TestPlanTextWarnsOfKeepMarkers(t *testing.T) {
	dep := testobj.Deployment("shop", "web").UID("dep-web").Build()
	keep := &snapshot.Facts{Keep: "helm.sh/resource-policy=keep"}
	cm := testobj.ConfigMap("shop", "web-config").UID("cm-web").OwnedBy(dep).Facts(keep).Build()
	snap := testobj.Snapshot(dep, cm).Build()
	const want = "warning: ConfigMap/web-config -n shop is marked helm.sh/resource-policy=keep, but the cascade deletes it"
	for policy, warned := range map[plan.Policy]bool{plan.PolicyBackground: true, plan.PolicyOrphan: false} {
		p, err := plan.Simulate(snap, plan.Options{Target: "dep-web", Policy: policy})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := PlanText(&buf, p, PlanOptions{}, Style{}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(buf.String(), want); got != warned {
			t.Errorf("%s: warned %v, want %v:\n%s", policy, got, warned, buf.String())
		}
	}
}

// recreateFixture: the ReplicaSet of a live Deployment deleted in the
// background, its pod gone, the Deployment creating the ReplicaSet again;
// and, with the deployment controller left out, the same plan saying it
// may.
func recreateFixture(t *testing.T, controllers []string) (*snapshot.Snapshot, *plan.Plan) {
	t.Helper()
	three, two := int32(3), int32(2)
	dep := testobj.Deployment("shop", "web").UID("dep-web").
		Facts(&snapshot.Facts{Workload: &snapshot.WorkloadFacts{Replicas: &three, Revision: "2", SelectorMatchesTemplate: true}}).Build()
	rs := testobj.ReplicaSet("shop", "web-7d9f").UID("rs-web").Label("pod-template-hash", "7d9f").OwnedBy(dep).
		Facts(&snapshot.Facts{Workload: &snapshot.WorkloadFacts{Replicas: &two, Revision: "2", SelectorMatchesTemplate: true}}).Build()
	pod := testobj.Pod("shop", "web-7d9f-a").UID("pod-a").OwnedBy(rs).Build()
	snap := testobj.Snapshot(dep, rs, pod).Build()
	p, err := plan.Simulate(snap, plan.Options{Target: "rs-web", Policy: plan.PolicyBackground, Controllers: controllers})
	if err != nil {
		t.Fatal(err)
	}
	return snap, p
}

func TestPlanRecreatedGolden(t *testing.T) {
	for _, c := range []struct {
		name        string
		controllers []string
	}{
		{"plan_recreated", nil},
		{"plan_recreated_may", []string{plan.ControllerNamespace, plan.ControllerKubelet}},
	} {
		t.Run(c.name, func(t *testing.T) {
			snap, p := recreateFixture(t, c.controllers)
			var text, dot bytes.Buffer
			if err := PlanText(&text, p, PlanOptions{}, Style{}); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, filepath.Join("testdata", c.name+".golden"), text.Bytes())
			if err := PlanDOT(&dot, p, ownersIn(snap)); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, filepath.Join("testdata", c.name+".dot.golden"), dot.Bytes())
			undone := strings.Contains(text.String(), "this delete will be undone")
			if undone != (c.controllers == nil) {
				t.Errorf("the undone warning is shown: %v, want it only when the target is certainly recreated", undone)
			}
		})
	}
}

func TestPlanTableGolden(t *testing.T) {
	_, p := raceFixture(t)
	var buf bytes.Buffer
	if err := PlanTable(&buf, p); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "plan_race.table.golden"), buf.Bytes())
}
