package postmortem

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/test/bench/auditgen/gen"
)

// A Metadata-level log shows no deletion timestamp: an update after the
// object's DELETE is a step of its going only by its place in time, and
// folding must keep it, while the updates before the DELETE go.
func TestFoldKeepsWritesAfterTheDelete(t *testing.T) {
	line := func(id, verb, user, at string) string {
		return `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"` + id + `","stage":"ResponseComplete",` +
			`"requestURI":"/api/v1/namespaces/a/configmaps/c","verb":"` + verb + `","user":{"username":"` + user + `"},` +
			`"objectRef":{"resource":"configmaps","namespace":"a","name":"c","apiVersion":"v1"},"responseStatus":{"code":200},` +
			`"requestReceivedTimestamp":"` + at + `","stageTimestamp":"` + at + `"}` + "\n"
	}
	p := filepath.Join(t.TempDir(), "audit.log")
	log := line("1", "update", "bob", "2026-11-27T10:00:01.000000Z") + line("2", "update", "bob", "2026-11-27T10:00:02.000000Z") +
		line("3", "update", "bob", "2026-11-27T10:00:03.000000Z") + line("4", "delete", "alice", "2026-11-27T10:00:04.000000Z") +
		line("5", "update", "carol", "2026-11-27T10:00:05.000000Z")
	if err := os.WriteFile(p, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := audit.Read([]string{p}, nil, audit.Options{Fold: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for e := range l.All() {
		ids = append(ids, e.AuditID)
	}
	if got := strings.Join(ids, ","); got != "1,4,5" {
		t.Errorf("folded log holds requests %s, want 1,4,5 (the first update, the delete, the update after it)", got)
	}
	pm := Analyze(Input{Log: l})
	if len(pm.Roots) != 1 || len(pm.Roots[0].Cascade[0].Steps) != 2 || pm.Roots[0].Cascade[0].Steps[1].User != "carol" {
		t.Errorf("roots %+v, want alice's delete with carol's update as its second step", pm.Roots)
	}
}

// TestFoldChangesNothing: folding away the writes no chain reads leaves
// the post-mortem of a generated log (cascades, namespace sweeps,
// orphanings, updates of objects before and after their deletion)
// exactly as it was, while it leaves out some of the log's writes.
func TestFoldChangesNothing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.log")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gen.Write(f, gen.Options{Events: 30000, Seed: 11}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	doc := func(fold bool) ([]byte, int) {
		log, err := audit.Read([]string{p}, nil, audit.Options{Fold: fold})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(Analyze(Input{Log: log}))
		if err != nil {
			t.Fatal(err)
		}
		return b, log.Len()
	}
	all, n := doc(false)
	folded, m := doc(true)
	if m >= n {
		t.Errorf("folding kept %d of %d requests: nothing left out", m, n)
	}
	if string(all) != string(folded) {
		t.Errorf("the post-mortem changed when the log was folded (%d of %d requests kept)", m, n)
	}
}
