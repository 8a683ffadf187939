package postmortem

import (
	"bytes"
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
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

// TestFoldKeepsWhatAPostMortemReads: audit's foldMask (audit/fold.go)
// keeps of an object's writes what index.file and learnMeta read; each
// case is a log in which the write one of its rules keeps decides the
// post-mortem, and folding, which leaves out some of the log's writes,
// must not change it.
func TestFoldKeepsWhatAPostMortemReads(t *testing.T) {
	state := func(apiVersion, kind, ns, name, uid string, owners ...audit.OwnerRef) func(*audit.Event) {
		return func(e *audit.Event) {
			e.Response = &audit.Meta{APIVersion: apiVersion, Kind: kind, Namespace: ns, Name: name, UID: uid, OwnerReferences: owners}
		}
	}
	rsRef := func(name, uid string) audit.OwnerRef {
		return audit.OwnerRef{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name, UID: uid}
	}
	cm, w := ref("", "configmaps", "team-a", "dep"), ref("example.com", "widgets", "team-a", "w")
	rs := testobj.ReplicaSet("team-a", "x").Build()
	dep := testobj.ConfigMap("team-a", "dep").OwnedBy(rs).Build()
	cases := []struct {
		name          string
		level         string
		before, after *snapshot.Snapshot
		write         func(b *logBuilder)
		// check fails when the case's post-mortem does not show what the
		// kept write decides: else the case would check nothing.
		check func(pm *PostMortem) bool
	}{{
		name: "the first owner references logged",
		write: func(b *logBuilder) {
			b.add("bob", "create", cm, state("v1", "ConfigMap", "team-a", "dep", "uid-dep"))
			b.add("bob", "update", cm, state("v1", "ConfigMap", "team-a", "dep", "uid-dep", rsRef("x", "uid-x")))
			b.add("bob", "update", cm, state("v1", "ConfigMap", "team-a", "dep", "uid-dep", rsRef("x", "uid-x")))
			b.add("bob", "update", cm, state("v1", "ConfigMap", "team-a", "dep", "uid-dep", rsRef("y", "uid-y")))
			b.add("alice", "delete", ref("apps", "replicasets", "team-a", "x"), withOptions("Background"), state("apps/v1", "ReplicaSet", "team-a", "x", "uid-x"))
			b.add(gcUser, "delete", cm)
		},
		check: func(pm *PostMortem) bool {
			return len(pm.Roots) == 1 && len(pm.Roots[0].Cascade[0].Dependents) == 1
		},
	}, {
		name: "the first kind logged of a custom type, and an object's latest",
		write: func(b *logBuilder) {
			b.add("bob", "create", w, state("", "", "team-a", "w", "uid-w"))
			b.add("bob", "update", w, state("example.com/v1", "Widget", "team-a", "w", "uid-w"))
			b.add("bob", "update", w, state("example.com/v1", "Widget", "team-a", "w", "uid-w"))
			b.add("bob", "update", w, state("example.com/v2", "Widget", "team-a", "w", "uid-w"))
			b.add("bob", "update", w, state("", "", "team-a", "w", "uid-w"))
			b.add("alice", "delete", w)
			b.add("alice", "delete", ref("example.com", "widgets", "team-a", "other"))
		},
		check: func(pm *PostMortem) bool {
			return len(pm.Roots) == 2 && pm.Roots[0].Request.Object.APIVersion == "example.com/v2" &&
				pm.Roots[1].Request.Object.APIVersion == "example.com/v1"
		},
	}, {
		name:  "an incarnation's first request",
		after: testobj.Snapshot().Build(),
		write: func(b *logBuilder) {
			b.add("bob", "create", cm, state("v1", "ConfigMap", "team-a", "dep", "uid-1"))
			b.add("bob", "update", cm, state("v1", "ConfigMap", "team-a", "dep", "uid-1"))
			b.add("bob", "update", cm, state("v1", "ConfigMap", "team-a", "dep", "uid-1"))
			b.add("bob", "create", cm, state("v1", "ConfigMap", "team-a", "dep", "uid-2"))
			b.add("bob", "update", cm, state("v1", "ConfigMap", "team-a", "dep", "uid-2"))
			b.add("bob", "update", cm, state("v1", "ConfigMap", "team-a", "dep", "uid-2"))
			b.add("alice", "delete", ref("", "namespaces", "", "team-a"), withOptions("Background"), state("v1", "Namespace", "", "team-a", "uid-team-a"))
		},
		check: func(pm *PostMortem) bool {
			_, ok := flatten(pm.Roots[0].Cascade)["uid-2"]
			return len(pm.Roots) == 1 && ok
		},
	}, {
		name:   "the garbage collector's orphaning",
		level:  audit.LevelMetadata,
		before: testobj.Snapshot(rs, dep).Build(),
		after:  testobj.Snapshot(testobj.ConfigMap("team-a", "dep").UID(dep.Metadata.UID).Build()).Build(),
		write: func(b *logBuilder) {
			b.add("bob", "update", cm)
			b.add("alice", "delete", ref("apps", "replicasets", "team-a", "x"), withOptions("Orphan"))
			b.add(gcUser, "patch", cm)
			b.add("bob", "update", cm)
		},
		check: func(pm *PostMortem) bool {
			l, ok := flatten(pm.Roots[0].Cascade)[dep.Metadata.UID]
			return len(pm.Roots) == 1 && ok && l.Result == ResultOrphaned && l.AuditID != ""
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := &logBuilder{level: cmp.Or(tc.level, audit.LevelRequestResponse)}
			tc.write(b)
			p := b.file(t)
			docs, kept := map[bool][]byte{}, map[bool]int{}
			for _, fold := range []bool{false, true} {
				log, err := audit.Read([]string{p}, nil, audit.Options{Fold: fold})
				if err != nil {
					t.Fatal(err)
				}
				pm := Analyze(Input{Log: log, Before: tc.before, After: tc.after})
				if !fold && !tc.check(pm) {
					t.Fatalf("the post-mortem does not show what the case is about: %+v", pm.Roots)
				}
				docs[fold], _ = json.MarshalIndent(pm, "", " ")
				kept[fold] = log.Len()
			}
			if kept[true] >= kept[false] {
				t.Errorf("folding kept %d of %d requests: nothing left out", kept[true], kept[false])
			}
			if !bytes.Equal(docs[true], docs[false]) {
				t.Errorf("the post-mortem changed when the log was folded:\n%s\nunfolded:\n%s", docs[true], docs[false])
			}
		})
	}
}
