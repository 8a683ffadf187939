package postmortem

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// These cases are the classes of false statement a post-mortem must never
// make (what was seen on a real control plane): each is the rule's unit
// case; test/e2e proves the same on the real collector.

func TestDryRunsNeverStartJoinOrStepAChain(t *testing.T) {
	cm := testobj.ConfigMap("shop", "cfg").Build()
	before := testobj.Snapshot(testobj.Namespace("shop").Build(), cm).At(t0.Add(-time.Minute)).Build()
	after := testobj.Snapshot(testobj.Namespace("shop").Build(), cm).At(t0.Add(time.Hour)).Build()
	for name, dry := range map[string]func(*audit.Event){
		// kubectl delete --dry-run=server puts it in the URI.
		"in the URI": func(e *audit.Event) { e.RequestURI += "?dryRun=All" },
		// kgc apply --dry-run=server and client-go put it in DeleteOptions.
		"in DeleteOptions": func(e *audit.Event) { e.Delete = &audit.DeleteOptions{DryRun: []string{"All"}} },
	} {
		t.Run(name, func(t *testing.T) {
			b := &logBuilder{level: audit.LevelRequestResponse}
			b.add("carol", "delete", ref("", "configmaps", "shop", "cfg"), dry, func(e *audit.Event) {
				// The API server answers a dry run as if it had acted.
				now := t0
				e.Response = &audit.Meta{APIVersion: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "cfg", UID: cm.Metadata.UID, DeletionTimestamp: &now, Finalizers: []string{"x"}}
			})
			pm := bothWays(t, t.Name(), b, Input{Before: before, After: after})
			if len(pm.Roots) != 0 || len(pm.Unexplained) != 0 || len(pm.StillGoing) != 0 {
				t.Fatalf("a dry run made a chain: roots %+v, unexplained %+v, still going %+v", pm.Roots, pm.Unexplained, pm.StillGoing)
			}
			if len(pm.DryRuns) != 1 || pm.DryRuns[0].User != "carol" || pm.DryRuns[0].Object.Kind != "ConfigMap" || pm.DryRuns[0].Object.UID != cm.Metadata.UID {
				t.Fatalf("dry runs = %+v, want carol's delete of ConfigMap cfg listed apart", pm.DryRuns)
			}
		})
	}
}

func TestDryRunIsNoStepOfARealDeletion(t *testing.T) {
	owner := testobj.ConfigMap("shop", "owner").Build()
	before := testobj.Snapshot(owner).At(t0.Add(-time.Minute)).Build()
	b := &logBuilder{level: audit.LevelRequestResponse}
	b.add("carol", "delete", ref("", "configmaps", "shop", "owner"), func(e *audit.Event) { e.RequestURI += "?dryRun=All" })
	b.add("dave", "delete", ref("", "configmaps", "shop", "owner"), withOptions("Background"))
	pm := bothWays(t, t.Name(), b, Input{Before: before, After: testobj.Snapshot().At(t0.Add(time.Hour)).Build()})
	root := rootOf(t, pm, "ConfigMap", "owner")
	if root.Request.User != "dave" {
		t.Errorf("root request by %q, want dave's: carol only asked what if", root.Request.User)
	}
	for _, st := range root.Cascade[0].Steps {
		if st.User == "carol" {
			t.Errorf("carol's dry run is a step: %+v", st)
		}
	}
}

// A dependent whose owner reference carries the UID of an object in
// another namespace has no owner where the collector looks: it deletes
// the dependent at once, on its own. No owner is made up for it.
func TestCollectorDeletesOnItsOwnWhenTheOwnerIsInAnotherNamespace(t *testing.T) {
	owner := testobj.ConfigMap("team-a", "batch").Build()
	stray := testobj.ConfigMap("team-b", "batch").Owner(testobj.Ref(owner)).Build()
	before := testobj.Snapshot(owner, stray).At(t0.Add(-time.Minute)).Build()
	after := testobj.Snapshot(owner).At(t0.Add(time.Hour)).Build()
	for _, level := range []string{audit.LevelRequestResponse, audit.LevelMetadata, "trimmed"} {
		t.Run(level, func(t *testing.T) {
			b := &logBuilder{level: level}
			if level != "trimmed" {
				b.add(gcUser, "delete", ref("", "configmaps", "team-b", "batch"), precondition(stray.Metadata.UID))
			} else {
				// A log trimmed of the controllers' requests holds others'.
				b.add("zoe", "update", ref("", "configmaps", "team-z", "other"))
			}
			pm := bothWays(t, t.Name(), b, Input{Before: before, After: after})
			if len(pm.Roots) != 1 {
				t.Fatalf("roots = %+v, want one: the stray ConfigMap", pm.Roots)
			}
			root := pm.Roots[0]
			if root.Request.Object.UID != stray.Metadata.UID || root.Request.Actor != ActorGarbageCollector {
				t.Fatalf("root = %+v, want team-b's ConfigMap, deleted by the garbage collector", root.Request)
			}
			if d := root.Cascade[0].Detail; !strings.Contains(d, "names no object in its namespace") || !strings.Contains(d, "cannot cross namespaces") {
				t.Errorf("detail %q should say the owner reference names no object in its namespace", d)
			}
			if !root.Request.Time.IsZero() == (level == "trimmed") {
				t.Errorf("request time %v: logged only when the log holds the collector's DELETE", root.Request.Time)
			}
		})
	}
}

// An update that leaves an object being deleted no finalizer deletes it,
// whatever its kind; so does a CRD's status update by the API server's
// CRD finalizer, and the CRD's instances go with it.
func TestFinalizerEmptyingUpdateDeletes(t *testing.T) {
	crd := testobj.New("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "gadgets.example.com").Finalizers("customresourcecleanup.apiextensions.k8s.io").Build()
	g := testobj.New("example.com/v1", "Gadget", "ns", "g0").Build()
	before := testobj.Snapshot(crd, g).CRD("example.com", "Gadget", "gadgets", true).At(t0.Add(-time.Minute)).Build()
	b := &logBuilder{level: audit.LevelRequestResponse}
	crdRef := ref("apiextensions.k8s.io", "customresourcedefinitions", "", "gadgets.example.com")
	b.add("erin", "delete", crdRef, withOptions("Background"), func(e *audit.Event) {
		now := t0
		e.Response = &audit.Meta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: crdRef.Name, UID: crd.Metadata.UID, DeletionTimestamp: &now, Finalizers: []string{"customresourcecleanup.apiextensions.k8s.io"}}
	})
	status := crdRef
	status.Subresource = "status"
	b.add("system:apiserver", "update", status, func(e *audit.Event) {
		now := t0
		// The object as it was deleted: its finalizers field is gone.
		e.Response = &audit.Meta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: crdRef.Name, UID: crd.Metadata.UID, DeletionTimestamp: &now}
	})
	pm := bothWays(t, t.Name(), b, Input{Before: before})
	root := rootOf(t, pm, "CustomResourceDefinition", "gadgets.example.com")
	if l := root.Cascade[0]; l.Result != ResultDeleted {
		t.Errorf("CRD result %q, want deleted: the update left it no finalizer", l.Result)
	}
	l, ok := flatten(root.Cascade)[g.Metadata.UID]
	if !ok || l.Result != ResultDeleted || l.Via != ViaCRD || l.Evidence != EvidenceModel || l.Actor != ActorAPIServer {
		t.Fatalf("Gadget link = %+v (found %v), want deleted with its CRD, by the API server, known from kgc's model", l, ok)
	}
	steps := root.Cascade[0].Steps
	if i := slices.IndexFunc(steps, func(s Step) bool { return s.What == StepRemoveFinalizer }); i < 0 || !slices.Equal(steps[i].Finalizers, []string{"customresourcecleanup.apiextensions.k8s.io"}) {
		t.Errorf("steps = %+v, want the API server's remove-finalizer of customresourcecleanup", steps)
	}
	gref := g.Ref()
	scoped := bothWays(t, t.Name(), b, Input{Before: before, Scope: Scope{Object: &gref}})
	if len(scoped.Roots) != 1 {
		t.Errorf("asking about the Gadget gives %d roots, want its CRD's chain", len(scoped.Roots))
	}
}

// A DELETE answered 404 found the object gone: a step of its own, not a
// refusal, and evidence of its end.
func TestNotFoundIsAlreadyGone(t *testing.T) {
	w := testobj.New("example.com/v1", "Widget", "shop", "w").Finalizers("example.com/hold").Build()
	before := testobj.Snapshot(w).CRD("example.com", "Widget", "widgets", true).At(t0.Add(-time.Minute)).Build()
	b := &logBuilder{level: audit.LevelMetadata}
	b.add("frank", "delete", ref("example.com", "widgets", "shop", "w"))
	b.add("frank", "update", ref("example.com", "widgets", "shop", "w"))
	b.add("frank", "delete", ref("example.com", "widgets", "shop", "w"), func(e *audit.Event) { e.Code = 404 })
	pm := bothWays(t, t.Name(), b, Input{Before: before})
	l := rootOf(t, pm, "Widget", "w").Cascade[0]
	if l.Result != ResultDeleted {
		t.Errorf("result %q, want deleted: a later DELETE found it gone", l.Result)
	}
	if n := len(l.Steps); n == 0 || l.Steps[n-1].What != StepNotFound {
		t.Errorf("steps = %+v, want the last one not-found", l.Steps)
	}
}

// An object the plan orphans, deleted later by another request, happened
// as predicted: the comparison is with the first thing that happened to
// it, and the later root is named.
func TestOrphanedFirstDeletedLaterIsAsPredicted(t *testing.T) {
	deploy, rs := deployment()
	ns := testobj.Namespace("team-a").Build()
	before := testobj.Snapshot(ns, deploy, rs).At(t0.Add(-time.Minute)).Build()
	after := testobj.Snapshot().At(t0.Add(time.Hour)).Build()
	// "trimmed" is a RequestResponse log without the controllers' requests:
	// alice's options say the collector orphans, by kgc's model.
	for _, level := range []string{audit.LevelRequestResponse, audit.LevelMetadata, "trimmed"} {
		t.Run(level, func(t *testing.T) {
			b := &logBuilder{level: level}
			if level == "trimmed" {
				b.level = audit.LevelRequestResponse
			}
			b.add("alice", "delete", ref("apps", "deployments", "team-a", "web"), withOptions("Orphan"))
			if level != "trimmed" {
				b.add(gcUser, "patch", ref("apps", "replicasets", "team-a", "web-1"), func(e *audit.Event) {
					if level == audit.LevelRequestResponse {
						e.Request = &audit.Meta{MetaExtras: &audit.MetaExtras{RemovedOwnerUIDs: []string{deploy.Metadata.UID}}, UID: rs.Metadata.UID}
					}
				})
			}
			b.add("dave", "delete", ref("", "namespaces", "", "team-a"), withOptions("Background"))
			if level != "trimmed" {
				b.add("system:serviceaccount:kube-system:namespace-controller", "deletecollection", ref("apps", "replicasets", "team-a", ""))
			}
			pm := bothWays(t, t.Name(), b, Input{Before: before, After: after, Predict: true})
			nsRoot := rootOf(t, pm, "Namespace", "team-a")
			if l, ok := flatten(nsRoot.Cascade)[rs.Metadata.UID]; !ok || l.Result != ResultDeleted {
				t.Errorf("ReplicaSet in dave's chain = %+v (found %v), want deleted", l, ok)
			}
			if p := nsRoot.Prediction; p == nil || p.NotPredicted+p.PredictedNotHappened != 0 {
				t.Errorf("dave's prediction = %+v, want everything as predicted", p)
			}
			root := rootOf(t, pm, "Deployment", "web")
			l, ok := flatten(root.Cascade)[rs.Metadata.UID]
			if !ok || l.Result != ResultOrphaned || !strings.Contains(l.Detail, "deleted later by dave's delete of Namespace/team-a") {
				t.Fatalf("ReplicaSet in alice's chain = %+v (found %v), want orphaned, deleted later by dave", l, ok)
			}
			if root.Summary.Orphaned != 1 {
				t.Errorf("alice's summary = %+v, want 1 orphaned", root.Summary)
			}
			p := root.Prediction
			i := slices.IndexFunc(p.Objects, func(o PredictedObject) bool { return o.Object.UID == rs.Metadata.UID })
			if i < 0 || p.Objects[i].Result != PredictionAsPredicted || p.Objects[i].Happened != HappenedOrphaned || !strings.HasPrefix(p.Objects[i].Detail, "orphaned as predicted") || !strings.Contains(p.Objects[i].Detail, "deleted later by dave") {
				t.Errorf("prediction = %+v, want the ReplicaSet orphaned as predicted, deleted later by dave", p.Objects)
			}
		})
	}
}

// With a log trimmed of the controllers' requests and an after snapshot
// that lists no object of the type, a question about a dependent in a
// known chain gets the chain, said to be kgc's model.
func TestModelPlacesWhatNoEvidenceEnds(t *testing.T) {
	owner := testobj.New("example.com/v1", "Widget", "shop", "w-fg").Build()
	child := testobj.New("example.com/v1", "Widget", "shop", "child").Owner(testobj.Ref(owner)).Build()
	held := testobj.New("example.com/v1", "Widget", "shop", "held").Owner(testobj.Ref(owner)).Finalizers("example.com/hold").Build()
	before := testobj.Snapshot(owner, child, held).CRD("example.com", "Widget", "widgets", true).At(t0.Add(-time.Minute)).Build()
	after := testobj.Snapshot().At(t0.Add(time.Hour)).Build() // lists no Widget
	b := &logBuilder{level: audit.LevelRequestResponse}
	b.add("alice", "delete", ref("example.com", "widgets", "shop", "w-fg"), withOptions("Foreground"))
	cref := child.Ref()
	pm := bothWays(t, t.Name(), b, Input{Before: before, After: after, Scope: Scope{Object: &cref}})
	root := rootOf(t, pm, "Widget", "w-fg")
	links := flatten(root.Cascade)
	if l, ok := links[child.Metadata.UID]; !ok || l.Result != ResultDeleted || l.Evidence != EvidenceModel || !strings.Contains(l.Detail, "per kgc's model") {
		t.Errorf("child link = %+v (found %v), want deleted per kgc's model", l, ok)
	}
	if l, ok := links[held.Metadata.UID]; !ok || l.Result == ResultDeleted || !strings.Contains(l.Detail, "example.com/hold") {
		t.Errorf("held link = %+v (found %v), want not deleted: a finalizer may hold it", l, ok)
	}
	// Orphaned dependents are not deleted, and a Metadata-level log does
	// not say the policy: the model places nothing then.
	for _, mut := range []func(*audit.Event){withOptions("Orphan"), func(e *audit.Event) { e.Level, e.Delete = audit.LevelMetadata, nil }} {
		b := &logBuilder{level: audit.LevelRequestResponse}
		b.add("alice", "delete", ref("example.com", "widgets", "shop", "w-fg"), mut)
		pm := bothWays(t, t.Name(), b, Input{Before: before, After: after})
		if _, ok := flatten(rootOf(t, pm, "Widget", "w-fg").Cascade)[child.Metadata.UID]; ok {
			t.Errorf("the model placed the child under a delete that may orphan it")
		}
	}
}

// An empty answer says where kgc looked, what it knows of the object
// asked about, and how to look further.
func TestNoMatchSaysWhereItLooked(t *testing.T) {
	cm := testobj.ConfigMap("shop", "cfg").Build()
	before := testobj.Snapshot(testobj.Namespace("shop").Build(), cm).At(t0.Add(-time.Minute)).Build()
	b := &logBuilder{level: audit.LevelRequestResponse}
	b.add("alice", "delete", ref("", "configmaps", "other", "x"))
	for _, tc := range []struct {
		scope Scope
		want  string
	}{
		{Scope{Namespace: "shop"}, "No deletion in the window matches in namespace shop; 1 chain in other namespaces (kgc postmortem -A).\n"},
		{Scope{Object: ptr(cm.Ref())}, "No deletion in the window names ConfigMap/cfg -n shop: it still exists at the end (after snapshot); the window holds 1 other chain (kgc postmortem -A).\n"},
		{Scope{}, "No deletion in the window.\n"},
	} {
		in := Input{Log: b.log(), Before: before, After: before, Scope: tc.scope}
		if tc.scope == (Scope{}) {
			in.Log = (&logBuilder{}).log()
		}
		if got := Analyze(in).NoMatch; got != tc.want {
			t.Errorf("scope %+v: no match says %q, want %q", tc.scope, got, tc.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// An owner reference to a UID no object ever had, on a dependent made in
// the window: the before snapshot lists the owner's type without it, and
// no request names it since, so it never was; the collector deleted the
// dependent on its own.
func TestCollectorDeletesOnItsOwnWhenTheOwnerNeverWas(t *testing.T) {
	// The log covers the snapshot's time: nothing was made unlogged since.
	before := testobj.Snapshot(testobj.Namespace("shop").Build()).At(t0.Add(500 * time.Millisecond)).Build()
	b := &logBuilder{level: audit.LevelRequestResponse}
	b.add("zoe", "update", ref("", "configmaps", "other", "x"))
	ghost := audit.OwnerRef{APIVersion: "v1", Kind: "ConfigMap", Name: "ghost", UID: "uid-ghost"}
	b.add("alice", "create", ref("", "configmaps", "shop", "dep"), func(e *audit.Event) {
		e.Response = &audit.Meta{APIVersion: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "dep", UID: "uid-dep", OwnerReferences: []audit.OwnerRef{ghost}}
	})
	b.add(gcUser, "delete", ref("", "configmaps", "shop", "dep"), precondition("uid-dep"))
	pm := bothWays(t, t.Name(), b, Input{Before: before, After: testobj.Snapshot(testobj.Namespace("shop").Build()).At(t0.Add(time.Hour)).Build()})
	root := rootOf(t, pm, "ConfigMap", "dep")
	if root.Request.Actor != ActorGarbageCollector || !strings.Contains(root.Cascade[0].Detail, "no ConfigMap ghost was in the before snapshot") {
		t.Errorf("root = %+v, detail %q: want the collector on its own, the owner never there", root.Request, root.Cascade[0].Detail)
	}
	for _, r := range pm.Roots {
		if r.Request.Object.Name == "ghost" {
			t.Errorf("an owner was made up: %+v", r.Request)
		}
	}
}

// A dependent a finalizer holds, whose deletion no logged request started
// (a log without the controllers' requests), is in its owner's chain and
// still terminating; without an after state, an object the log last
// shows deleting has no known end.
func TestHeldDependentWithoutControllersRequests(t *testing.T) {
	owner := testobj.New("example.com/v1", "Widget", "shop", "w-fg").Build()
	held := testobj.New("example.com/v1", "Widget", "shop", "held").Owner(testobj.Ref(owner)).Finalizers("example.com/hold").Build()
	before := testobj.Snapshot(owner, held).CRD("example.com", "Widget", "widgets", true).At(t0.Add(-time.Minute)).Build()
	heldAfter := testobj.New("example.com/v1", "Widget", "shop", "held").UID(held.Metadata.UID).Owner(testobj.Ref(owner)).Finalizers("example.com/hold").Deleting(t0).Build()
	after := testobj.Snapshot(heldAfter).CRD("example.com", "Widget", "widgets", true).At(t0.Add(time.Hour)).Build()
	b := &logBuilder{level: audit.LevelRequestResponse}
	b.add("alice", "delete", ref("example.com", "widgets", "shop", "w-fg"), withOptions("Background"))
	pm := bothWays(t, t.Name(), b, Input{Before: before, After: after})
	root := rootOf(t, pm, "Widget", "w-fg")
	if l, ok := flatten(root.Cascade)[held.Metadata.UID]; !ok || l.Result != ResultTerminating {
		t.Fatalf("held link = %+v (found %v), want terminating in alice's chain", l, ok)
	}
	if root.Summary.Terminating != 1 || len(pm.StillGoing) != 1 {
		t.Errorf("summary %+v, still going %+v: want the held Widget counted as terminating", root.Summary, pm.StillGoing)
	}
	// Without an after state, the log's own last word is not the end.
	b2 := &logBuilder{level: audit.LevelRequestResponse}
	b2.add("alice", "delete", ref("example.com", "widgets", "shop", "held"), func(e *audit.Event) {
		now := t0
		e.Response = &audit.Meta{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "shop", Name: "held", UID: held.Metadata.UID, DeletionTimestamp: &now, Finalizers: []string{"example.com/hold"}}
	})
	pm = bothWays(t, t.Name()+"-no-after", b2, Input{Before: before})
	if l := rootOf(t, pm, "Widget", "held").Cascade[0]; l.Result != ResultDeleting {
		t.Errorf("with no after state the result is %q, want deleting: nothing shows it still there", l.Result)
	}
}

// Without the controllers' requests, a dependent whose owner a person
// deleted in the background before its namespace went is the owner's
// chain's; with no after state, what was in a deleted namespace is the
// namespace's, by kgc's model.
func TestOwnerBeforeNamespaceWithoutControllersRequests(t *testing.T) {
	ns := testobj.Namespace("shop").Build()
	owner := testobj.ConfigMap("shop", "owner").Build()
	dep := testobj.ConfigMap("shop", "dep").Owner(testobj.Ref(owner)).Build()
	loose := testobj.ConfigMap("shop", "loose").Build()
	before := testobj.Snapshot(ns, owner, dep, loose).At(t0.Add(-time.Minute)).Build()
	b := &logBuilder{level: audit.LevelRequestResponse}
	b.add("dave", "delete", ref("", "configmaps", "shop", "owner"), withOptions("Background"))
	b.add("carol", "delete", ref("", "namespaces", "", "shop"), withOptions("Background"))
	pm := bothWays(t, t.Name(), b, Input{Before: before, After: testobj.Snapshot().At(t0.Add(time.Hour)).Build()})
	if _, ok := flatten(rootOf(t, pm, "ConfigMap", "owner").Cascade)[dep.Metadata.UID]; !ok {
		t.Errorf("dep is not in dave's chain: his delete came before the namespace's")
	}
	pm = bothWays(t, t.Name()+"-no-after", b, Input{Before: before})
	if l, ok := flatten(rootOf(t, pm, "Namespace", "shop").Cascade)[loose.Metadata.UID]; !ok || l.Evidence != EvidenceModel {
		t.Errorf("loose link = %+v (found %v), want in carol's chain by kgc's model", l, ok)
	}
}

// An object another chain started deleting before the root's request is
// not the root's doing: its prediction is neither a hit nor a miss, and a
// dependent's steps from before the root's request are not in its link.
func TestPredictionOnlyOfItsChain(t *testing.T) {
	ns := testobj.Namespace("billing").Build()
	rates := testobj.ConfigMap("billing", "rates").Build()
	before := testobj.Snapshot(ns, rates).At(t0.Add(-time.Minute)).Build()
	b := &logBuilder{level: audit.LevelRequestResponse}
	b.add("bob", "delete", ref("", "configmaps", "billing", "rates"), withOptions("Orphan"))
	b.add("dave", "delete", ref("", "namespaces", "", "billing"), withOptions("Background"))
	pm := bothWays(t, t.Name(), b, Input{Before: before, After: testobj.Snapshot().At(t0.Add(time.Hour)).Build(), Predict: true})
	p := rootOf(t, pm, "Namespace", "billing").Prediction
	i := slices.IndexFunc(p.Objects, func(o PredictedObject) bool { return o.Object.UID == rates.Metadata.UID })
	if i < 0 || p.Objects[i].Result != PredictionGoneBefore || !strings.Contains(p.Objects[i].Detail, "by bob's delete of it") || p.AsPredicted != 1 {
		t.Errorf("dave's prediction = %+v, want rates gone before his request, by bob's", p)
	}
}
