package main

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshotio"
)

// readCommittedExample reads examples/cluster.yaml the way `kgc … -f`
// does; the dump declares its own capture time.
func readCommittedExample(t *testing.T) (*snapshot.Snapshot, *graph.Graph) {
	t.Helper()
	snap, err := snapshotio.ReadFiles([]string{committed}, nil, snapshotio.ReadOptions{})
	if err != nil {
		t.Fatalf("kgc cannot read the example: %v", err)
	}
	for _, w := range snap.Warnings {
		if !strings.HasPrefix(w.Message, "info:") {
			t.Errorf("reading the example warns: %s", w)
		}
	}
	if !snap.CapturedAt.Equal(dumpTime) {
		t.Errorf("the example is read as captured at %s, want %s (its List's capturedAt)", snap.CapturedAt, dumpTime)
	}
	return snap, graph.Build(snap)
}

func uidOf(t *testing.T, snap *snapshot.Snapshot, kind, namespace, name string) string {
	t.Helper()
	for _, o := range snap.Objects {
		if o.Kind == kind && o.Metadata.Namespace == namespace && o.Metadata.Name == name {
			return o.Metadata.UID
		}
	}
	t.Fatalf("kgc did not read %s %s/%s from the example", kind, namespace, name)
	return ""
}

// TestKgcFindsTheDocumentedHazards keeps examples/README.md honest: each
// hazard it lists is what kgc's graph and why-stuck analysis report on the
// committed file.
func TestKgcFindsTheDocumentedHazards(t *testing.T) {
	snap, g := readCommittedExample(t)
	if len(snap.Objects) != 80 {
		t.Errorf("kgc read %d objects from the example, the README says 80", len(snap.Objects))
	}

	t.Run("graph findings", func(t *testing.T) {
		want := map[string]string{
			graph.FindingCrossNamespaceOwner + " ConfigMap/shared-config -n shop": "",
			graph.FindingStuckFinalizer + " Widget/gizmo -n shop":                 "widgets.example.com/cleanup",
			graph.FindingStuckFinalizer + " Backup/weekly -n archive":             "backups.example.com/protect",
		}
		got := map[string]string{}
		for _, f := range g.Findings {
			if len(f.Objects) > 0 {
				got[f.Type+" "+f.Objects[0].String()] = f.Message
			}
		}
		for key, mention := range want {
			msg, ok := got[key]
			if !ok {
				t.Errorf("no %s finding; kgc found %v", key, keysOf(got))
				continue
			}
			if !strings.Contains(msg, mention) {
				t.Errorf("%s: message %q does not name %q", key, msg, mention)
			}
		}
		for key := range got {
			if strings.HasPrefix(key, graph.FindingDanglingOwner) || strings.HasPrefix(key, graph.FindingCycle) || strings.HasPrefix(key, graph.FindingDuplicateUID) {
				t.Errorf("unexpected %s: the example has no such hazard", key)
			}
		}
	})

	d := diagnose.New(snap, g, diagnose.Options{})
	rootCause := func(t *testing.T, kind, namespace, name string) []diagnose.RootCause {
		t.Helper()
		diag, err := d.Diagnose(uidOf(t, snap, kind, namespace, name))
		if err != nil {
			t.Fatal(err)
		}
		if !diag.Terminating {
			t.Fatalf("%s %s/%s is not terminating, the README says it is", kind, namespace, name)
		}
		return diag.RootCauses
	}

	t.Run("legacy waits on a pod of the unreachable node, then on a Backup whose controller is absent", func(t *testing.T) {
		rcs := rootCause(t, "Namespace", "", "legacy")
		if len(rcs) != 2 || rcs[0].Object.Name != "report-runner" || rcs[0].Reason != diagnose.ReasonNodeNotReady ||
			rcs[1].Object.Name != "nightly" || rcs[1].Reason != diagnose.ReasonControllerNotFound || !strings.HasPrefix(rcs[1].Message, "once it is deleted: ") {
			t.Errorf("root causes of ns/legacy = %+v, want Pod report-runner (%s), then Backup nightly once deleted (%s)", rcs, diagnose.ReasonNodeNotReady, diagnose.ReasonControllerNotFound)
		}
	})
	t.Run("archive waits on a Backup whose controller is absent", func(t *testing.T) {
		rcs := rootCause(t, "Namespace", "", "archive")
		if len(rcs) != 1 || rcs[0].Object.Name != "weekly" || rcs[0].Finalizer != "backups.example.com/protect" || rcs[0].Reason != diagnose.ReasonControllerNotFound {
			t.Errorf("root causes of ns/archive = %+v, want Backup weekly's backups.example.com/protect (%s)", rcs, diagnose.ReasonControllerNotFound)
		}
	})
	t.Run("gizmo waits on a controller that is not installed", func(t *testing.T) {
		rcs := rootCause(t, "Widget", "shop", "gizmo")
		if len(rcs) != 1 || rcs[0].Finalizer != "widgets.example.com/cleanup" || rcs[0].Reason != diagnose.ReasonControllerNotFound {
			t.Errorf("root causes of widget/gizmo = %+v, want widgets.example.com/cleanup (%s)", rcs, diagnose.ReasonControllerNotFound)
		}
	})
	t.Run("shared-config will be garbage-collected", func(t *testing.T) {
		diag, err := d.Diagnose(uidOf(t, snap, "ConfigMap", "shop", "shared-config"))
		if err != nil {
			t.Fatal(err)
		}
		if diag.GarbageCollection == nil || diag.GarbageCollection.Verdict != diagnose.VerdictWillBeDeleted {
			t.Errorf("shared-config garbage collection = %+v, want %s", diag.GarbageCollection, diagnose.VerdictWillBeDeleted)
		}
	})
	t.Run("the README's ages", func(t *testing.T) {
		diag, err := d.Diagnose(uidOf(t, snap, "Widget", "shop", "gizmo"))
		if err != nil {
			t.Fatal(err)
		}
		if got := time.Duration(diag.AgeSeconds) * time.Second; got.Truncate(time.Minute) != 2*time.Hour+18*time.Minute {
			t.Errorf("gizmo has been terminating for %s, the README says 138m", got)
		}
	})
}

func keysOf(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
