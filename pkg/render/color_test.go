package render

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/internal/golden"
	"github.com/kgc-dev/kgc/pkg/plan"
)

// drawFunc draws one output in a style.
type drawFunc func(*bytes.Buffer, Style) error

// colourOnlyPaints checks that colour changes nothing but the colour: the
// coloured output, its ANSI codes stripped, is the plain output byte for
// byte, so columns line up the same on a terminal as in a pipe.
func colourOnlyPaints(t *testing.T, name string, r drawFunc, mustPaint bool) {
	t.Helper()
	sgr := regexp.MustCompile("\x1b\\[[0-9;]*m")
	var plain, coloured bytes.Buffer
	if err := r(&plain, Style{}); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := r(&coloured, Style{Color: true}); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if mustPaint && !sgr.Match(coloured.Bytes()) {
		t.Errorf("%s: the coloured output has no colour, so this check proves nothing", name)
	}
	if stripped := sgr.ReplaceAllString(coloured.String(), ""); stripped != plain.String() {
		t.Errorf("%s: the coloured output, codes stripped, differs from the plain output (shown as golden) at %s\n--- coloured\n%s",
			name, golden.FirstDifference(plain.String(), stripped), coloured.String())
	}
}

func TestColourOnlyPaintsPlans(t *testing.T) {
	for _, policy := range []plan.Policy{plan.PolicyForeground, plan.PolicyBackground, plan.PolicyOrphan} {
		_, p := planFixture(t, policy)
		for _, steps := range []bool{false, true} {
			colourOnlyPaints(t, string(policy)+" steps="+strconv.FormatBool(steps), func(b *bytes.Buffer, s Style) error {
				return PlanText(b, p, PlanOptions{ShowSteps: steps}, s)
			}, true)
		}
	}
	_, race := raceFixture(t)
	colourOnlyPaints(t, "race", func(b *bytes.Buffer, s Style) error { return PlanText(b, race, PlanOptions{}, s) }, true)
}

func TestColourOnlyPaintsGraphs(t *testing.T) {
	g := exampleGraph()
	views := map[string]GraphView{"full": fullView(g), "component": componentView(g, "1-rs")}
	for seed := uint64(0); seed < 50; seed++ {
		views["random "+strconv.FormatUint(seed, 10)] = fullView(randomGraph(seed))
	}
	for name, v := range views {
		fixed := !strings.HasPrefix(name, "random")
		colourOnlyPaints(t, name+" tree", func(b *bytes.Buffer, s Style) error { return GraphTree(b, v, s) }, fixed)
		colourOnlyPaints(t, name+" table", func(b *bytes.Buffer, s Style) error { return GraphTable(b, v, s) }, fixed)
	}
}

func TestColourOnlyPaintsDiagnoses(t *testing.T) {
	snap, d := diagnosisFixture()
	for _, o := range snap.Objects {
		diag, err := d.Diagnose(o.Metadata.UID)
		if err != nil {
			t.Fatal(err)
		}
		colourOnlyPaints(t, o.Kind+" "+o.Metadata.Name+" tree", func(b *bytes.Buffer, s Style) error { return DiagnosisTree(b, diag, s) }, true)
	}
	colourOnlyPaints(t, "all table", func(b *bytes.Buffer, s Style) error { return DiagnosisTable(b, d.All(""), s) }, true)
}
