package postmortem

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// More classes the randomized test on the real collector found at
// Metadata level and in a log without the controllers' requests.

// At Metadata level the owner references of an object made in the window
// are nowhere; the collector's OwnerRefInvalidNamespace event, created on
// it before it deletes it, says why it acted on its own.
func TestCollectorsEventSaysItActedOnItsOwn(t *testing.T) {
	before := testobj.Snapshot(testobj.Namespace("team-b").Build()).At(t0.Add(-time.Minute)).Build()
	b := &logBuilder{level: audit.LevelMetadata}
	b.add("ci", "create", ref("", "configmaps", "team-b", "stray"))
	b.add(gcUser, "create", ref("", "events", "team-b", "stray.18ec533b91a678be"))
	b.add(gcUser, "delete", ref("", "configmaps", "team-b", "stray"))
	pm := bothWays(t, t.Name(), b, Input{Before: before, After: testobj.Snapshot().At(t0.Add(time.Hour)).Build()})
	root := rootOf(t, pm, "ConfigMap", "stray")
	if root.Request.Actor != ActorGarbageCollector || root.Request.ReasonUnknown || !strings.Contains(root.Cascade[0].Detail, "OwnerRefInvalidNamespace") {
		t.Fatalf("root = %+v, link %+v: want the collector's own root, from its event", root.Request, root.Cascade[0])
	}
}

// Given the before snapshot, an object made in the window whose owners no
// evidence shows is never tied to another deletion by timing: the
// collector deleted it, for a reason kgc says it does not know.
func TestNoTimingGuessOnceTheBeforeSnapshotIsGiven(t *testing.T) {
	owner := testobj.ConfigMap("shop", "owner").Build()
	before := testobj.Snapshot(testobj.Namespace("shop").Build(), owner).At(t0.Add(-time.Minute)).Build()
	b := &logBuilder{level: audit.LevelMetadata}
	b.add("ci", "create", ref("", "configmaps", "shop", "made"))
	b.add("alice", "delete", ref("", "configmaps", "shop", "owner"))
	b.add(gcUser, "delete", ref("", "configmaps", "shop", "made"))
	pm := bothWays(t, t.Name(), b, Input{Before: before, After: testobj.Snapshot().At(t0.Add(time.Hour)).Build()})
	if deps := rootOf(t, pm, "ConfigMap", "owner").Cascade[0].Dependents; len(deps) != 0 {
		t.Fatalf("alice's chain holds %+v, by timing", deps)
	}
	root := rootOf(t, pm, "ConfigMap", "made")
	if root.Request.Actor != ActorGarbageCollector || !root.Request.ReasonUnknown || !strings.Contains(root.Cascade[0].Detail, "nearest earlier deletion") {
		t.Fatalf("root = %+v, link %+v: want the collector's root, reason unknown, the nearest deletion only as a hint", root.Request, root.Cascade[0])
	}
}

// Without the controllers' requests, kgc's plan of a person's delete
// places what the collector did: the finalizer a person removed lets the
// chain go on, and a dependent another owner keeps is orphaned first,
// deleted later with its namespace.
func TestPlanPlacesWhatTheControllersDidUnlogged(t *testing.T) {
	ns := testobj.Namespace("shop").Build()
	root := testobj.ConfigMap("shop", "root").Build()
	mid := testobj.ConfigMap("shop", "mid").Owner(testobj.Ref(root)).Finalizers("example.com/release").Build()
	leaf := testobj.ConfigMap("shop", "leaf").Owner(testobj.Ref(mid)).Build()
	keeper := testobj.ConfigMap("shop", "keeper").Build()
	shared := testobj.ConfigMap("shop", "shared").Owner(testobj.Ref(mid)).Owner(testobj.Ref(keeper)).Build()
	before := testobj.Snapshot(ns, root, mid, leaf, keeper, shared).At(t0.Add(-time.Minute)).Build()
	b := &logBuilder{level: audit.LevelRequestResponse}
	b.add("dave", "delete", ref("", "configmaps", "shop", "root"), withOptions("Background"))
	b.add("alice", "update", ref("", "configmaps", "shop", "mid"), func(e *audit.Event) {
		now := t0
		e.Response = &audit.Meta{APIVersion: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "mid", UID: mid.Metadata.UID, DeletionTimestamp: &now}
	})
	b.add("erin", "delete", ref("", "namespaces", "", "shop"), withOptions("Background"))
	pm := bothWays(t, t.Name(), b, Input{Before: before, After: testobj.Snapshot().At(t0.Add(time.Hour)).Build()})
	chain := flatten(rootOf(t, pm, "ConfigMap", "root").Cascade)
	if l, ok := chain[leaf.Metadata.UID]; !ok || l.Result != ResultDeleted || l.Evidence != EvidenceModel {
		t.Errorf("leaf = %+v (found %v): want deleted in dave's chain, by kgc's plan", l, ok)
	}
	if l, ok := chain[shared.Metadata.UID]; !ok || l.Result != ResultOrphaned {
		t.Errorf("shared = %+v (found %v): want orphaned first in dave's chain: keeper keeps it", l, ok)
	}
	if l, ok := flatten(rootOf(t, pm, "Namespace", "shop").Cascade)[shared.Metadata.UID]; !ok || l.Result != ResultDeleted {
		t.Errorf("shared in erin's chain = %+v (found %v): want deleted later with the namespace", l, ok)
	}
}

// An object whose owner never was, held by a finalizer, its collector's
// DELETE not logged: it started going on its own, before its namespace.
func TestOwnerThatNeverWasWithoutControllersRequests(t *testing.T) {
	ns := testobj.Namespace("shop").Build()
	before := testobj.Snapshot(ns).At(t0.Add(-time.Minute)).Build()
	ghost := testobj.ConfigMap("shop", "ghost").Owner(testobj.RefTo("v1", "ConfigMap", "never-was", "0d1e7a6e-0000-4000-8000-00000000beef")).Finalizers("example.com/hold").Build()
	b := &logBuilder{level: audit.LevelRequestResponse}
	b.add("ci", "create", ref("", "configmaps", "shop", "ghost"), func(e *audit.Event) {
		e.Response = &audit.Meta{APIVersion: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "ghost", UID: ghost.Metadata.UID,
			OwnerReferences: ghost.Metadata.OwnerReferences, Finalizers: []string{"example.com/hold"}}
	})
	held := testobj.ConfigMap("shop", "ghost").UID(ghost.Metadata.UID).Owner(testobj.RefTo("v1", "ConfigMap", "never-was", "0d1e7a6e-0000-4000-8000-00000000beef")).Finalizers("example.com/hold").Deleting(t0).Build()
	pm := bothWays(t, t.Name(), b, Input{Before: before, After: testobj.Snapshot(ns, held).At(t0.Add(time.Hour)).Build()})
	root := rootOf(t, pm, "ConfigMap", "ghost")
	if root.Request.Actor != ActorGarbageCollector || len(pm.StillGoing) != 1 {
		t.Fatalf("root = %+v, still going %d: want the collector's own root, still terminating", root.Request, len(pm.StillGoing))
	}
}

// A DELETE whose dryRun was only in its options, logged at Metadata
// level: the after snapshot holds the same object untouched, so it
// changed nothing and is listed with the dry runs.
func TestUnloggedDryRunAtMetadataLevel(t *testing.T) {
	cm := testobj.ConfigMap("shop", "cfg").Build()
	before := testobj.Snapshot(cm).At(t0.Add(-time.Minute)).Build()
	after := testobj.Snapshot(cm).At(t0.Add(time.Hour)).Build()
	b := &logBuilder{level: audit.LevelMetadata}
	b.add("bob", "delete", ref("", "configmaps", "shop", "cfg"))
	pm := bothWays(t, t.Name(), b, Input{Before: before, After: after})
	if len(pm.Roots) != 0 || len(pm.DryRuns) != 1 || pm.DryRuns[0].User != "bob" {
		t.Fatalf("roots %+v, dry runs %+v: want bob's DELETE listed as a dry run, no chain", pm.Roots, pm.DryRuns)
	}
}

// At Metadata level a dry run sent in DeleteOptions reads as a delete; a
// later accepted DELETE of the object by another person makes kgc say it
// cannot tell.
func TestMetadataLevelDeleteFollowedByAnotherIsSaidUnsure(t *testing.T) {
	cm := testobj.ConfigMap("shop", "cfg").Build()
	before := testobj.Snapshot(cm).At(t0.Add(-time.Minute)).Build()
	b := &logBuilder{level: audit.LevelMetadata}
	b.add("carol", "delete", ref("", "configmaps", "shop", "cfg"))
	b.add("alice", "delete", ref("", "configmaps", "shop", "cfg"))
	pm := bothWays(t, t.Name(), b, Input{Before: before, After: testobj.Snapshot().At(t0.Add(time.Hour)).Build()})
	root := rootOf(t, pm, "ConfigMap", "cfg")
	if d := root.Cascade[0].Detail; !strings.Contains(d, "alice's DELETE") || !strings.Contains(d, "dry run") {
		t.Fatalf("root link detail %q: want it to say alice's later DELETE was accepted too, so carol's may have been a dry run", d)
	}
}
