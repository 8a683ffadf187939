package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/plan"
)

// A drawing names objects as a person reads them: the UID is the node's ID
// and tooltip, never its label; the namespace is in the label only when it
// is not the one the drawing is about.
func TestDOTLabelsForPeople(t *testing.T) {
	g := exampleGraph()
	for _, c := range []struct {
		name           string
		view           GraphView
		labelled, bare []string // objects whose label names their namespace, or not
	}{
		{"every namespace", fullView(g), []string{"Pod/web-7d9f-a\\nnamespace web", "ConfigMap/a\\nnamespace loop"}, nil},
		{"namespace web", GraphView{Graph: g, Nodes: g.InNamespaces("web"), Namespace: "web"},
			[]string{"ConfigMap/shared\\nnamespace other"}, []string{"ReplicaSet/web-7d9f"}},
		{"one namespace drawn", componentView(g, "1-rs"), nil, []string{"ReplicaSet/web-7d9f", "Pod/web-7d9f-a"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := GraphDOT(&buf, c.view); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			for _, l := range regexp.MustCompile(`label="[^"]*"`).FindAllString(out, -1) {
				if strings.Contains(l, "uid ") || regexp.MustCompile(`[0-9a-f]-(rs|deploy|pod|cm)`).MatchString(l) {
					t.Errorf("a label names a UID: %s", l)
				}
			}
			for _, n := range c.view.Nodes {
				id := n.Identity()
				if !strings.Contains(out, "uid "+id.UID+`"`) && !strings.Contains(out, "uid "+id.UID+`\n`) {
					t.Errorf("no tooltip names the UID of %s/%s", id.Kind, id.Name)
				}
			}
			for _, l := range c.labelled {
				if !strings.Contains(out, `label="`+l) {
					t.Errorf("no label %q", l)
				}
			}
			for _, l := range c.bare {
				if !strings.Contains(out, `label="`+l+`"`) {
					t.Errorf("no label %q alone", l)
				}
			}
		})
	}
}

// graph -o dot and plan -o dot draw nodes in one style: the same defaults,
// the same identity attributes.
func TestDOTOneStyle(t *testing.T) {
	snap, p := planFixture(t, plan.PolicyForeground)
	owners := ownersIn(snap)
	var pd, gd bytes.Buffer
	if err := PlanDOT(&pd, p, owners); err != nil {
		t.Fatal(err)
	}
	if err := GraphDOT(&gd, fullView(exampleGraph())); err != nil {
		t.Fatal(err)
	}
	defaults := regexp.MustCompile(`(?m)^  (graph|node|edge) \[.*$`)
	pl, gl := defaults.FindAllString(pd.String(), -1), defaults.FindAllString(gd.String(), -1)
	strip := regexp.MustCompile(`packmode="[^"]*"`)
	if len(pl) != 3 || strip.ReplaceAllString(strings.Join(pl, "\n"), "") != strip.ReplaceAllString(strings.Join(gl, "\n"), "") {
		t.Errorf("plan and graph drawings have different defaults:\nplan:\n%s\ngraph:\n%s", strings.Join(pl, "\n"), strings.Join(gl, "\n"))
	}
	for _, attr := range []string{"kind", "namespace", "name", "uid", "tooltip"} {
		if !strings.Contains(pd.String(), "\n    "+attr+"=") {
			t.Errorf("plan nodes have no %s attribute", attr)
		}
	}
	validDOT(t, pd.Bytes())
}

func TestDOTColumns(t *testing.T) {
	for _, c := range []struct{ components, columns int }{{0, 1}, {1, 1}, {3, 1}, {9, 2}, {50, 5}, {200, 10}} {
		if got := dotColumns(c.components); got != c.columns {
			t.Errorf("dotColumns(%d) = %d, want %d", c.components, got, c.columns)
		}
	}
	if n := dotComponents([]string{"a", "b", "c", "d"}, [][2]string{{"a", "b"}, {"b", "a"}, {"c", "x"}}); n != 3 {
		t.Errorf("dotComponents = %d, want 3", n)
	}
}
