package render

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/internal/golden"
	"github.com/kgc-dev/kgc/internal/testobj"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// planFixture: a Deployment deleted in the foreground whose ReplicaSet has
// one plain pod and one pod held by a custom finalizer, plus a ConfigMap
// that a second owner keeps (its reference to the Deployment is removed).
func planFixture(t *testing.T, policy string) (*snapshot.Snapshot, *plan.Plan) {
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
		policy string
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

func TestPlanDOTGolden(t *testing.T) {
	snap, p := planFixture(t, plan.PolicyForeground)
	owners := func(uid string) []snapshot.OwnerReference {
		for _, o := range snap.Objects {
			if o.Metadata.UID == uid {
				return o.Metadata.OwnerReferences
			}
		}
		return nil
	}
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
	owners := func(uid string) []snapshot.OwnerReference {
		for _, o := range snap.Objects {
			if o.Metadata.UID == uid {
				return o.Metadata.OwnerReferences
			}
		}
		return nil
	}
	if err := PlanDOT(&buf, p, owners); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "plan_race.dot.golden"), buf.Bytes())
}
