package render

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// oddStrings are what encoding/json escapes, or is tempted to: quotes,
// backslashes, control characters, HTML, invalid UTF-8, the line and
// paragraph separators, non-ASCII letters.
var oddStrings = []string{"plain", `q"uote`, `back\slash`, "tab\there", "nl\n", "bell\a", "\x7f", "<a>&b", "bad\xffutf8", "ls\u2028ps\u2029", "grüße", "日本", ""}

// oddGraph is randomGraph's shape with odd names, namespaces and
// finalizers.
func oddGraph(seed uint64) *graph.Graph {
	rng := rand.New(rand.NewPCG(seed, 1))
	odd := func() string { return oddStrings[rng.IntN(len(oddStrings))] }
	n := rng.IntN(25)
	var objs []snapshot.Object
	for i := range n {
		b := testobj.ConfigMap([]string{"a", "b<c", "ns\u2028"}[rng.IntN(3)], "c"+strconv.Itoa(i)+odd()).UID("u" + strconv.Itoa(i) + odd())
		if rng.IntN(3) == 0 {
			b = testobj.Node("n" + strconv.Itoa(i) + odd()).UID("u" + strconv.Itoa(i))
		}
		for k := rng.IntN(3); k > 0; k-- {
			j := rng.IntN(n + 3)
			ref := testobj.RefTo("v1", "ConfigMap", "c"+strconv.Itoa(j)+odd(), "u"+strconv.Itoa(j))
			if rng.IntN(2) == 0 {
				testobj.Block(&ref)
			}
			if rng.IntN(2) == 0 {
				testobj.Controller(&ref)
			}
			b.Owner(ref)
		}
		if rng.IntN(4) == 0 {
			b.Deleting(testobj.CapturedAt).Finalizers("foregroundDeletion", "example.com/"+odd())
		}
		objs = append(objs, b.Build())
	}
	return graph.Build(testobj.Snapshot(objs...).Build())
}

// The hand-written Graph document is encoding/json's, byte for byte.
func TestGraphJSONIsEncodingJSON(t *testing.T) {
	for seed := range uint64(400) {
		g := oddGraph(seed)
		v := fullView(g)
		if seed%4 == 1 && len(v.Nodes) > 0 {
			v.Findings = append(v.Findings, graph.Finding{Type: "odd", Message: oddStrings[seed%uint64(len(oddStrings))]},
				graph.Finding{Type: "empty", Objects: []snapshot.ObjectRef{}, Message: "m"})
		}
		var want, got bytes.Buffer
		if err := Document(&want, "json", NewGraphDocument(v)); err != nil {
			t.Fatal(err)
		}
		if err := writeGraphJSON(&got, v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("seed %d: the Graph document differs from encoding/json's\ngot:\n%s\nwant:\n%s", seed, got.Bytes(), want.Bytes())
		}
	}
}

// Findings given later are drawn as findings given at once, in every
// output.
func TestFindingsLater(t *testing.T) {
	outputs := map[string]func(*bytes.Buffer, GraphView) error{
		"json":  func(b *bytes.Buffer, v GraphView) error { return GraphDocumentTo(b, "json", v) },
		"yaml":  func(b *bytes.Buffer, v GraphView) error { return GraphDocumentTo(b, "yaml", v) },
		"tree":  func(b *bytes.Buffer, v GraphView) error { return GraphTree(b, v, Style{}) },
		"table": func(b *bytes.Buffer, v GraphView) error { return GraphTable(b, v, Style{}) },
		"dot":   func(b *bytes.Buffer, v GraphView) error { return GraphDOT(b, v) },
	}
	withFindings := 0
	for seed := range uint64(100) {
		g := oddGraph(seed)
		now := fullView(g)
		if len(now.Findings) > 0 {
			withFindings++
		}
		later := now
		later.Findings = nil
		later.FindingsLater = func() []graph.Finding { return now.Findings }
		for name, draw := range outputs {
			var want, got bytes.Buffer
			errNow, errLater := draw(&want, now), draw(&got, later)
			if (errNow == nil) != (errLater == nil) {
				t.Fatalf("seed %d: %s: error %v with findings at once, %v later", seed, name, errNow, errLater)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("seed %d: %s differs with findings given later\ngot:\n%s\nwant:\n%s", seed, name, got.Bytes(), want.Bytes())
			}
		}
	}
	if withFindings < 20 {
		t.Fatalf("only %d of 100 graphs have findings", withFindings)
	}
}
