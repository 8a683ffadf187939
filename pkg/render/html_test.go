package render

import (
	"bytes"
	"encoding/json"
	"html/template"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/internal/golden"
	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/postmortem"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// htmlPages renders one page of each kind from the renderers' fixtures.
func htmlPages(t *testing.T) map[string]func(*bytes.Buffer) error {
	t.Helper()
	snap, fg := planFixture(t, plan.PolicyForeground)
	rsnap, recreated := recreateFixture(t, nil)
	_, d := diagnosisFixture()
	ns := d.All("")
	pm := postmortem.Analyze(postmortem.Input{Log: deletionsLog(12)})
	// The page shows the analysis' warnings as they are worded; the
	// golden holds one of its own, so that it follows this renderer only.
	pm.Warnings = []string{"a warning <b>escaped</b>"}
	return map[string]func(*bytes.Buffer) error{
		"graph":               func(b *bytes.Buffer) error { return GraphHTML(b, fullView(exampleGraph())) },
		"plan_foreground":     func(b *bytes.Buffer) error { return PlanHTML(b, fg, ownersIn(snap)) },
		"plan_recreated":      func(b *bytes.Buffer) error { return PlanHTML(b, recreated, ownersIn(rsnap)) },
		"why_stuck_all":       func(b *bytes.Buffer) error { return WhyStuckHTML(b, ns.Items, Style{}) },
		"postmortem":          func(b *bytes.Buffer) error { return PostMortemHTML(b, pm) },
		"postmortem_no_roots": func(b *bytes.Buffer) error { return PostMortemHTML(b, &postmortem.PostMortem{Complete: true}) },
	}
}

// pageParts are what a page shows and what its script draws: the markup of
// <main> and the data. The style and script, the same on every page, are
// left out of the goldens.
func pageParts(t *testing.T, page string) string {
	t.Helper()
	_, rest, ok1 := strings.Cut(page, "<main>")
	main, rest, ok2 := strings.Cut(rest, "</main>")
	_, rest, ok3 := strings.Cut(rest, `<script type="application/json" id="kgc-data">`)
	data, _, ok4 := strings.Cut(rest, "</script>")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		t.Fatalf("the page lacks its main or its data:\n%s", page)
	}
	var v any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		t.Fatalf("the page's data is not JSON: %v", err)
	}
	var pretty bytes.Buffer
	enc := json.NewEncoder(&pretty)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(main) + "\n\n" + pretty.String()
}

func TestHTMLGoldens(t *testing.T) {
	for name, render := range htmlPages(t) {
		t.Run(name, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := render(&a); err != nil {
				t.Fatal(err)
			}
			if err := render(&b); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Error("the same input wrote two different pages")
			}
			golden.Assert(t, filepath.Join("testdata", name+".html.golden"), pageParts(t, a.String()))
		})
	}
}

// A page asks nothing of the network: no source, link or import, and its
// policy forbids any.
func TestHTMLSelfContained(t *testing.T) {
	fetches := regexp.MustCompile(`(?i)(\ssrc=|\shref=|@import|url\(\s*['"]?[^#'"\s]|<link|<iframe|<object|fetch\(|XMLHttpRequest|\.src\s*=)`)
	for name, render := range htmlPages(t) {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if m := fetches.FindString(page); m != "" {
			t.Errorf("%s: the page could fetch something: %q", name, m)
		}
		if !strings.Contains(page, `content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"`) {
			t.Errorf("%s: the page does not forbid requests in its Content-Security-Policy", name)
		}
	}
}

// Names are the input's, and an input can be hostile: every one is
// escaped, in the markup and in the data.
func TestHTMLEscapesNames(t *testing.T) {
	evil := `x</script><script>alert(1)</script><img src=x onerror=alert(2)>`
	owner := testobj.ConfigMap("web", evil).UID("evil-owner").Build()
	dep := testobj.ConfigMap("web", "dep").UID("dep").OwnedBy(owner).Build()
	g := graph.Build(testobj.Snapshot(owner, dep).Build())
	var b bytes.Buffer
	if err := GraphHTML(&b, fullView(g)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script>alert", "<img src=x"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	if !strings.Contains(pageParts(t, page), "ConfigMap/"+evil) {
		t.Error("the hostile name is not in the page's data as it is in the input")
	}
	if n := strings.Count(page, "<script"); n != 2 {
		t.Errorf("the page has %d script elements, want its data and its script", n)
	}
}

// On a big log the timeline gathers requests into marks that list their
// first ones and count all: the page holds a bounded number, and none is
// lost from the counts.
func TestTimelineGathersRequests(t *testing.T) {
	pm := postmortem.Analyze(postmortem.Input{Log: deletionsLog(5000)})
	tl := newTimeline(pm)
	if tl.total != 5001 {
		t.Errorf("the timeline counts %d requests, want 5001 (5000 deletes and the collector's)", tl.total)
	}
	if len(tl.Lanes) != 2 || tl.Lanes[0] != "alice" || tl.Lanes[1] != postmortem.ActorGarbageCollector {
		t.Errorf("lanes %v, want alice (a person first) then the garbage collector", tl.Lanes)
	}
	sum := 0
	for _, m := range tl.Marks {
		sum += m.N
		if len(m.Requests) > markListed || len(m.Requests) > m.N || len(m.Requests) == 0 {
			t.Errorf("a mark of %d requests lists %d", m.N, len(m.Requests))
		}
	}
	if sum != tl.total || len(tl.Marks) > len(tl.Lanes)*timelineSlices {
		t.Errorf("%d marks count %d requests, want at most %d marks counting %d", len(tl.Marks), sum, len(tl.Lanes)*timelineSlices, tl.total)
	}
	if len(tl.Requests) > len(tl.Marks)*markListed {
		t.Errorf("the page holds %d requests for %d marks", len(tl.Requests), len(tl.Marks))
	}
}

// deleteOptionsText says each field of the DeleteOptions, or why none is
// known.
func TestDeleteOptionsText(t *testing.T) {
	yes, grace := true, int64(0)
	cases := []struct {
		q    postmortem.Request
		want string
	}{
		{postmortem.Request{}, "propagation policy unknown: logged at Metadata level"},
		{postmortem.Request{DeleteOptionsKnown: true}, "none (propagation: the type's default)"},
		{postmortem.Request{DeleteOptionsKnown: true, DeleteOptions: &postmortem.DeleteOptions{PropagationPolicy: "Foreground", GracePeriodSeconds: &grace,
			DryRun: []string{"All"}, Preconditions: &postmortem.Preconditions{UID: "u", ResourceVersion: "7"}}},
			"propagationPolicy=Foreground, gracePeriodSeconds=0, dryRun=All, preconditions.uid=u, preconditions.resourceVersion=7"},
		{postmortem.Request{DeleteOptionsKnown: true, DeleteOptions: &postmortem.DeleteOptions{OrphanDependents: &yes}}, "orphanDependents=true"},
		{postmortem.Request{Missing: true}, ""},
	}
	for _, c := range cases {
		if got := deleteOptionsText(c.q); got != c.want {
			t.Errorf("deleteOptionsText(%+v) = %q, want %q", c.q, got, c.want)
		}
	}
}

// A plan's page calls out first what cannot be undone: destroyed storage
// before kept volumes, and both, with recreations, above the waves.
func TestPlanHTMLCallsOutVolumesFirst(t *testing.T) {
	kept := snapshot.ObjectRef{APIVersion: "v1", Kind: "PersistentVolume", Name: "pv-kept", UID: "pv-kept"}
	gone := snapshot.ObjectRef{APIVersion: "v1", Kind: "PersistentVolume", Name: "pv-gone", UID: "pv-gone"}
	p := &plan.Plan{Target: kept, Objects: []plan.ObjectFate{
		{Object: kept, Fate: plan.FateDeleted, Volume: &plan.VolumeFate{Storage: "kept", Reason: "reclaim policy Retain"}},
		{Object: gone, Fate: plan.FateDeleted, Volume: &plan.VolumeFate{Storage: "destroyed", Capacity: "10Gi", Reason: "reclaim policy Delete"}},
	}, Steps: []plan.Step{{Step: 1, Wave: 1, Actor: "apiserver", Action: plan.ActionDelete, Object: kept}}, Complete: true}
	var b bytes.Buffer
	if err := PlanHTML(&b, p, nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	destroyed, retained, waves := strings.Index(page, "10Gi destroyed"), strings.Index(page, "kept, claim none"), strings.Index(page, "Cascade, wave by wave")
	if destroyed < 0 || retained < 0 || waves < 0 || destroyed > retained || retained > waves {
		t.Errorf("want the destroyed volume (at %d), then the kept one (at %d), before the waves (at %d)", destroyed, retained, waves)
	}
}

// Every hazard the graph finds is drawn on the page as the DOT drawing
// draws it: the finding in the tooltip of the element it concerns, its
// meaning in the legend, the colour of an element's first hazard on it,
// and a malformed owner reference as a note of its own.
func TestGraphHTMLDrawsEveryHazard(t *testing.T) {
	v := fullView(hazardGraph())
	var b bytes.Buffer
	if err := GraphHTML(&b, v); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	parts := pageParts(t, page)
	_, data, _ := strings.Cut(parts, "\n\n{")
	var d htmlDrawing
	if err := json.Unmarshal([]byte("{"+data), &d); err != nil {
		t.Fatal(err)
	}
	h := v.hazards()
	for _, f := range v.Findings {
		hs := hazardStyleOf(f.Type)
		if !strings.Contains(page, "<b>"+f.Type+"</b>: "+template.HTMLEscapeString(hs.meaning)) {
			t.Errorf("the legend does not say what %s means", f.Type)
		}
		if !strings.Contains(data, f.Type+": "+f.Message) {
			t.Errorf("no tooltip says %s: %s", f.Type, f.Message)
		}
	}
	for _, n := range d.Nodes {
		if fs := h.nodes[n.ID]; len(fs) > 0 && n.Stroke != hazardStyleOf(fs[0].Type).color {
			t.Errorf("%s is drawn in %q, not in the colour of its hazard %s", n.ID, n.Stroke, fs[0].Type)
		}
	}
	if !strings.Contains(data, `"id": "invalid-owner-reference-1"`) || !strings.Contains(data, "owner reference") {
		t.Error("the malformed owner reference is not drawn as a note")
	}
}
