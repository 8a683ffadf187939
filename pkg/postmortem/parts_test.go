package postmortem_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/postmortem"
	"github.com/kgc-dev/kgc/pkg/render"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshotio"
	"github.com/kgc-dev/kgc/test/bench/auditgen/gen"
)

// A log too big to hold is analyzed a part at a time; the document must be
// the one the whole log gives, byte for byte, in every format and scope.
// The parts are forced here by spilling after one request.

const example = "../../examples-postmortem/"

// documents renders the post-mortem of paths, held whole or spilled, in
// json (written as built), text and yaml.
func documents(t *testing.T, paths []string, spill bool, in postmortem.Input) map[string][]byte {
	t.Helper()
	opts := audit.Options{Fold: true}
	if spill {
		opts.Spill = 1
	}
	out := map[string][]byte{}
	for _, format := range []string{"json", "text", "yaml"} {
		log, err := postmortem.ReadLog(paths, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		if log.Spilled() != spill {
			t.Fatalf("spilled %v, want %v", log.Spilled(), spill)
		}
		in.Log = log
		a, err := postmortem.Prepare(in)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		switch format {
		case "json":
			err = render.PostMortemJSON(&buf, a)
		case "text":
			err = render.PostMortemTextStream(&buf, a, render.Style{})
		default:
			err = render.Document(&buf, format, a.Whole())
		}
		if err != nil {
			t.Fatal(err)
		}
		out[format] = buf.Bytes()
	}
	return out
}

func assertSameDocuments(t *testing.T, name string, paths []string, in postmortem.Input) {
	t.Helper()
	whole := documents(t, paths, false, in)
	parts := documents(t, paths, true, in)
	for format, want := range whole {
		if got := parts[format]; !bytes.Equal(got, want) {
			t.Errorf("%s, -o %s: analyzed in parts (%d bytes) is not the document of the whole log (%d bytes)\n%s", name, format, len(got), len(want), firstDiff(got, want))
		}
	}
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-200)
	return "parts: ..." + string(a[lo:min(len(a), i+200)]) + "\nwhole: ..." + string(b[lo:min(len(b), i+200)])
}

func readSnapshot(t *testing.T, path string) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshotio.ReadFiles([]string{path}, nil, snapshotio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPartsAreTheWholeExample: the shipped record of a real namespace
// delete, with and without its snapshots, every chain and one namespace's.
func TestPartsAreTheWholeExample(t *testing.T) {
	paths := []string{example + "audit.log.gz"}
	before, after := readSnapshot(t, example+"before.json.gz"), readSnapshot(t, example+"after.json.gz")
	team := &snapshot.ObjectRef{Kind: "Namespace", Name: "team-a"}
	for name, in := range map[string]postmortem.Input{
		"log only":           {},
		"snapshots":          {Before: before, After: after, BeforeName: "before", AfterName: "after", Predict: true},
		"snapshots, -n shop": {Before: before, After: after, Predict: true, Scope: postmortem.Scope{Namespace: "shop"}},
		"ns/team-a":          {Before: before, After: after, Predict: true, Scope: postmortem.Scope{Object: team}},
		"before only":        {Before: before, BeforeName: "before"},
	} {
		assertSameDocuments(t, name, paths, in)
	}
}

// TestPartsAreTheWholeGenerated: a generated log of hundreds of cascades
// in hundreds of namespaces, rotated into two files.
func TestPartsAreTheWholeGenerated(t *testing.T) {
	var log bytes.Buffer
	if _, err := gen.Write(&log, gen.Options{Events: 80_000, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(log.Bytes(), []byte("\n"))
	dir := t.TempDir()
	var paths []string
	for i, name := range []string{"audit-2026-11-27T10-00-40.log", "audit.log"} {
		half := lines[:len(lines)/2]
		if i == 1 {
			half = lines[len(lines)/2:]
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.Join(half, nil), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	assertSameDocuments(t, "generated", paths, postmortem.Input{})
	assertSameDocuments(t, "generated, -n team-0007", paths, postmortem.Input{Scope: postmortem.Scope{Namespace: "team-0007"}})
}

// TestSpillLeavesNoFile: the temporary files are removed, whether the
// parts are read to the end or not.
func TestSpillLeavesNoFile(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	log, err := postmortem.ReadLog([]string{example + "audit.log.gz"}, nil, audit.Options{Fold: true, Spill: 1})
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("the spilled log left %d files in the temporary folder while read", len(entries))
	}
	a, err := postmortem.Prepare(postmortem.Input{Log: log})
	if err != nil {
		t.Fatal(err)
	}
	if doc := a.Whole(); len(doc.Roots) == 0 {
		t.Fatal("no root: this test would check nothing")
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("the analysis left %d files in the temporary folder", len(entries))
	}
}
