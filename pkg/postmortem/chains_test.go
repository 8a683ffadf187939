package postmortem

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// deployment is web with one ReplicaSet, in team-a.
func deployment() (deploy, rs snapshot.Object) {
	deploy = testobj.Deployment("team-a", "web").Build()
	rs = testobj.ReplicaSet("team-a", "web-1").OwnedBy(deploy).Build()
	return deploy, rs
}

func rootOf(t *testing.T, pm *PostMortem, kind, name string) Root {
	t.Helper()
	for _, r := range pm.Roots {
		if r.Request.Object.Kind == kind && r.Request.Object.Name == name {
			return r
		}
	}
	t.Fatalf("no root for %s %s among %d roots", kind, name, len(pm.Roots))
	return Root{}
}

func TestOrphaningIsLinkedToTheOrphanDelete(t *testing.T) {
	deploy, rs := deployment()
	before := testobj.Snapshot(testobj.Namespace("team-a").Build(), deploy, rs).Build()
	orphanedRS := testobj.ReplicaSet("team-a", "web-1").UID(rs.Metadata.UID).Build()
	after := testobj.Snapshot(testobj.Namespace("team-a").Build(), orphanedRS).Build()
	for _, tc := range []struct {
		level    string
		evidence string
	}{
		{audit.LevelRequestResponse, EvidenceAudit},
		{audit.LevelMetadata, EvidenceSnapshot},
	} {
		t.Run(tc.level, func(t *testing.T) {
			b := &logBuilder{level: tc.level}
			b.add("alice", "delete", ref("apps", "deployments", "team-a", "web"), withOptions("Orphan"))
			b.add(gcUser, "patch", ref("apps", "replicasets", "team-a", "web-1"), func(e *audit.Event) {
				if tc.level == audit.LevelRequestResponse {
					e.Request = &audit.Meta{MetaExtras: &audit.MetaExtras{RemovedOwnerUIDs: []string{deploy.Metadata.UID}}, UID: rs.Metadata.UID}
				}
			})
			pm := Analyze(Input{Log: b.log(), Before: before, After: after, Predict: true})
			root := rootOf(t, pm, "Deployment", "web")
			links := flatten(root.Cascade)
			l, ok := links[rs.Metadata.UID]
			if !ok || l.Result != ResultOrphaned || l.Evidence != tc.evidence || l.Actor != ActorGarbageCollector {
				t.Fatalf("ReplicaSet link = %+v (found %v), want orphaned by the garbage collector, evidence %s", l, ok, tc.evidence)
			}
			if root.Summary.Orphaned != 1 || root.Summary.Deleted != 0 {
				t.Errorf("summary = %+v, want 1 orphaned", root.Summary)
			}
			if p := root.Prediction; p == nil || p.AsPredicted != 2 || p.NotPredicted+p.PredictedNotHappened != 0 {
				t.Errorf("prediction = %+v, want the Deployment deleted and the ReplicaSet orphaned, as predicted", p)
			}
		})
	}
}

func TestCRDInstancesGoWithTheirCRD(t *testing.T) {
	crd := testobj.New("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "widgets.example.com").
		Finalizers("customresourcecleanup.apiextensions.k8s.io").
		Facts(&snapshot.Facts{CRD: &snapshot.CRDFacts{Group: "example.com", Kind: "Widget", Plural: "widgets", Scope: "Namespaced", Established: true}}).Build()
	w := testobj.New("example.com/v1", "Widget", "team-a", "gizmo").Build()
	svc := testobj.New("apiregistration.k8s.io/v1", "APIService", "", "v1.example.com").Build()
	before := testobj.Snapshot(crd, w, svc).CRD("example.com", "Widget", "widgets", true).Build()
	// Once its CRD is gone, the type is not served: a snapshot taken after
	// cannot list it, so the instance is gone by the CRD's going alone.
	after := testobj.Snapshot().Build()
	b := &logBuilder{level: audit.LevelMetadata}
	b.add("bob", "delete", ref("apiextensions.k8s.io", "customresourcedefinitions", "", "widgets.example.com"), withOptions("Background"))
	b.add("system:apiserver", "delete", ref("apiregistration.k8s.io", "apiservices", "", "v1.example.com"))
	pm := Analyze(Input{Log: b.log(), Before: before, After: after, Predict: true})
	root := rootOf(t, pm, "CustomResourceDefinition", "widgets.example.com")
	links := flatten(root.Cascade)
	l, ok := links[w.Metadata.UID]
	if !ok || l.Via != ViaCRD || l.Actor != ActorAPIServer || l.AuditID != "" || l.Result != ResultDeleted {
		t.Fatalf("Widget link = %+v (found %v), want deleted via its CRD by the API server, with no request", l, ok)
	}
	if !strings.Contains(l.Detail, "no request names it") {
		t.Errorf("detail %q should say that no request names it", l.Detail)
	}
	if a, ok := links[svc.Metadata.UID]; !ok || a.Evidence != EvidenceModel || a.Actor != ActorAPIServer {
		t.Errorf("APIService link = %+v (found %v), want it under the CRD, by the API server, known from kgc's model", a, ok)
	}
	if len(pm.Unexplained) != 0 {
		t.Errorf("unexplained = %+v, want none", pm.Unexplained)
	}
	if p := root.Prediction; p == nil || p.PropagationPolicy != "Background" || p.AsPredicted != 2 {
		t.Errorf("prediction = %+v, want Background, the CRD and its instance as predicted", p)
	}
}

// The garbage collector acts through the metadata client: the API server
// logs its responses as PartialObjectMetadata, which is no object's kind.
func TestMetadataClientResponsesKeepTheObjectsKind(t *testing.T) {
	owner := testobj.ConfigMap("team-a", "owner").Build()
	child := testobj.Secret("team-a", "child").OwnedBy(owner).Build()
	before := testobj.Snapshot(owner, child).At(t0.Add(-time.Minute)).Build()
	after := testobj.Snapshot().At(t0.Add(time.Hour)).Build()
	b := &logBuilder{level: audit.LevelRequestResponse}
	b.add("bob", "delete", ref("", "configmaps", "team-a", "owner"), withOptions("Foreground"), func(e *audit.Event) {
		e.Response = &audit.Meta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata", Namespace: "team-a", Name: "owner", UID: owner.Metadata.UID}
	})
	b.add(gcUser, "delete", ref("", "secrets", "team-a", "child"), precondition(child.Metadata.UID), func(e *audit.Event) {
		e.Response = &audit.Meta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata", Namespace: "team-a", Name: "child", UID: child.Metadata.UID,
			OwnerReferences: []audit.OwnerRef{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.Metadata.UID}}}
	})
	pm := Analyze(Input{Log: b.log(), Before: before, After: after})
	root := rootOf(t, pm, "ConfigMap", "owner")
	if root.Request.Object.APIVersion != "v1" {
		t.Errorf("root object %+v, want v1 ConfigMap", root.Request.Object)
	}
	if l := flatten(root.Cascade)[child.Metadata.UID]; l.Object.Kind != "Secret" || l.Evidence != EvidenceAudit {
		t.Errorf("dependent link %+v, want a Secret tied by the owner reference in the logged response", l)
	}
}

func TestDependentOfAnOwnerDeletedOutsideTheLog(t *testing.T) {
	deploy, rs := deployment()
	before := testobj.Snapshot(deploy, rs).At(t0.Add(-time.Minute)).Build()
	after := testobj.Snapshot().At(t0.Add(time.Hour)).Build()
	b := &logBuilder{level: audit.LevelMetadata}
	b.add(gcUser, "delete", ref("apps", "replicasets", "team-a", "web-1"), precondition(rs.Metadata.UID))
	pm := Analyze(Input{Log: b.log(), Before: before, After: after})
	root := rootOf(t, pm, "Deployment", "web")
	if !root.Request.Missing || root.Request.Actor != "unknown" {
		t.Errorf("root request = %+v, want a missing request of an unknown actor", root.Request)
	}
	if _, ok := flatten(root.Cascade)[rs.Metadata.UID]; !ok {
		t.Errorf("the ReplicaSet is not under its owner's missing root")
	}
	if pm.Complete || len(pm.Warnings) == 0 || len(pm.Warnings) != 1 || !strings.Contains(pm.Warnings[0], "is not in the log") {
		t.Errorf("complete = %v, warnings = %q; want incomplete and a warning that the request is not in the log", pm.Complete, pm.Warnings)
	}
}

func TestTimingIsOnlyAGuess(t *testing.T) {
	b := &logBuilder{level: audit.LevelMetadata}
	b.add("alice", "delete", ref("apps", "deployments", "team-a", "web"))
	b.add(gcUser, "delete", ref("apps", "replicasets", "team-a", "web-1"))
	pm := Analyze(Input{Log: b.log()})
	root := rootOf(t, pm, "Deployment", "web")
	if len(root.Cascade[0].Dependents) != 1 {
		t.Fatalf("cascade = %+v, want the ReplicaSet under the Deployment", root.Cascade)
	}
	l := root.Cascade[0].Dependents[0]
	if l.Evidence != EvidenceTiming || !strings.Contains(l.Detail, "a guess") {
		t.Errorf("link = %+v, want evidence timing, said as a guess", l)
	}
	if l.Result != ResultDeleting {
		t.Errorf("result %q: with no response and no after state, the end is unknown (deleting)", l.Result)
	}
}

func TestControllerActingOnItsOwnIsARoot(t *testing.T) {
	job := testobj.Job("team-a", "report").Build()
	pod := testobj.Pod("team-a", "report-x").OwnedBy(job).Build()
	before := testobj.Snapshot(job, pod).Build()
	after := testobj.Snapshot().Build()
	b := &logBuilder{level: audit.LevelMetadata}
	b.add("system:serviceaccount:kube-system:ttl-after-finished-controller", "delete", ref("batch", "jobs", "team-a", "report"))
	b.add(gcUser, "delete", ref("", "pods", "team-a", "report-x"), precondition(pod.Metadata.UID))
	pm := Analyze(Input{Log: b.log(), Before: before, After: after})
	root := rootOf(t, pm, "Job", "report")
	if root.Request.Actor != "ttl-after-finished-controller" || root.Summary.Objects != 1 {
		t.Errorf("root = %+v, want the TTL controller as the root's actor and its pod under it", root.Request)
	}
}

func TestStillTerminatingGetsWhyStuck(t *testing.T) {
	w := testobj.New("example.com/v1", "Widget", "team-a", "gizmo").Finalizers("example.com/cleanup").Build()
	before := testobj.Snapshot(w).CRD("example.com", "Widget", "widgets", true).Build()
	stuck := testobj.New("example.com/v1", "Widget", "team-a", "gizmo").Finalizers("example.com/cleanup").Deleting(t0).Build()
	after := testobj.Snapshot(stuck).CRD("example.com", "Widget", "widgets", true).Build()
	b := &logBuilder{level: audit.LevelMetadata}
	b.add("alice", "delete", ref("example.com", "widgets", "team-a", "gizmo"))
	pm := Analyze(Input{Log: b.log(), Before: before, After: after, Predict: true,
		WhyStuck: func(uid string) string { return "controller-not-found: " + uid }})
	if len(pm.StillGoing) != 1 || pm.StillGoing[0].RootCause != "controller-not-found: "+w.Metadata.UID {
		t.Fatalf("stillGoing = %+v, want the Widget with why-stuck's root cause", pm.StillGoing)
	}
	root := rootOf(t, pm, "Widget", "gizmo")
	if root.Cascade[0].Result != ResultTerminating {
		t.Errorf("root link result %q, want terminating", root.Cascade[0].Result)
	}
	if p := root.Prediction; p == nil || p.AsPredicted != 1 {
		t.Errorf("prediction = %+v: the plan leaves it blocked on its finalizer, as happened", p)
	}
}

func TestPredictionNamesWhatThePlanMissed(t *testing.T) {
	w := testobj.New("example.com/v1", "Widget", "team-a", "gizmo").Finalizers("example.com/cleanup").Build()
	before := testobj.Snapshot(w).CRD("example.com", "Widget", "widgets", true).Build()
	after := testobj.Snapshot().CRD("example.com", "Widget", "widgets", true).Build()
	b := &logBuilder{level: audit.LevelMetadata}
	b.add("alice", "delete", ref("example.com", "widgets", "team-a", "gizmo"))
	b.add("system:serviceaccount:widgets:widget-operator", "update", ref("example.com", "widgets", "team-a", "gizmo"))
	pm := Analyze(Input{Log: b.log(), Before: before, After: after, Predict: true})
	p := rootOf(t, pm, "Widget", "gizmo").Prediction
	if p == nil || p.NotPredicted != 1 || p.Objects[0].Predicted != "blocked" || p.Objects[0].Happened != HappenedDeleted {
		t.Fatalf("prediction = %+v, want the Widget blocked in the plan and deleted in fact", p)
	}
}

func TestScopeKeepsTheChainsAskedAbout(t *testing.T) {
	before, objs := shop()
	after := testobj.Snapshot(objs["other"]).Build()
	log := namespaceDelete(objs, audit.LevelRequestResponse)
	for _, tc := range []struct {
		name  string
		scope Scope
		roots int
	}{
		{"all", Scope{}, 1},
		{"its namespace", Scope{Namespace: "team-a"}, 1},
		{"another namespace", Scope{Namespace: "other"}, 0},
		{"a pod in the chain", Scope{Object: &snapshot.ObjectRef{Kind: "Pod", Namespace: "team-a", Name: "web-1-a"}}, 1},
		{"an object not in it", Scope{Object: &snapshot.ObjectRef{Kind: "Pod", Namespace: "team-a", Name: "nope"}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pm := Analyze(Input{Log: log, Before: before, After: after, Scope: tc.scope})
			if len(pm.Roots) != tc.roots {
				t.Errorf("%d roots, want %d", len(pm.Roots), tc.roots)
			}
		})
	}
}

func TestGapsBetweenFilesAreSaid(t *testing.T) {
	log := &audit.Log{Files: []audit.File{
		{Path: "a.log", Events: 10, First: t0, Last: t0.Add(time.Minute)},
		{Path: "b.log", Events: 10, First: t0.Add(20 * time.Minute), Last: t0.Add(21 * time.Minute)},
	}}
	pm := Analyze(Input{Log: log})
	if len(pm.Window.Gaps) != 1 || pm.Complete {
		t.Fatalf("gaps = %+v, complete = %v; want one gap and an incomplete document", pm.Window.Gaps, pm.Complete)
	}
	if g := pm.Window.Gaps[0]; !g.From.Equal(t0.Add(time.Minute)) || !g.To.Equal(t0.Add(20*time.Minute)) {
		t.Errorf("gap %+v, want 10:03:11 to 10:22:11", g)
	}
}

// At Metadata level a namespace's deletecollections name no object: with
// no before snapshot to itemize them, the post-mortem says which types
// went unnamed and is incomplete, rather than count only what it can name.
func TestUnitemizedSweepsAreSaid(t *testing.T) {
	_, objs := shop()
	log := namespaceDelete(objs, audit.LevelMetadata)
	log.At(0).Delete = nil
	pm := Analyze(Input{Log: log})
	root := rootOf(t, pm, "Namespace", "team-a")
	var got []string
	for _, u := range root.Unitemized {
		got = append(got, u.Resource)
	}
	if strings.Join(got, " ") != "configmaps deployments.apps" || pm.Complete {
		t.Errorf("unitemized %v, complete %v; want configmaps and deployments.apps said, and an incomplete document", got, pm.Complete)
	}
	// With the before snapshot the same sweeps are itemized.
	before, _ := shop()
	if pm := Analyze(Input{Log: log, Before: before}); len(rootOf(t, pm, "Namespace", "team-a").Unitemized) != 0 {
		t.Errorf("with a before snapshot nothing should be unitemized")
	}
}

// A pod whose first logged DELETE is its kubelet's was started by the
// namespace controller's deletecollection of pods before it.
func TestKubeletFinishesWhatASweepStarted(t *testing.T) {
	b := &logBuilder{level: audit.LevelMetadata}
	b.add("alice", "delete", ref("", "namespaces", "", "team-a"))
	b.add(nsUser, "deletecollection", ref("", "pods", "team-a", ""))
	grace := int64(0)
	b.add("system:node:n1", "delete", ref("", "pods", "team-a", "web-1-a"), func(e *audit.Event) {
		e.Delete = &audit.DeleteOptions{GracePeriodSeconds: &grace}
	})
	pm := Analyze(Input{Log: b.log()})
	root := rootOf(t, pm, "Namespace", "team-a")
	if len(root.Cascade[0].Dependents) != 1 {
		t.Fatalf("cascade %+v, want the pod under its namespace", root.Cascade)
	}
	l := root.Cascade[0].Dependents[0]
	if l.Actor != ActorNamespaceController || len(l.Steps) != 2 || l.Steps[0].What != StepDeleteCollection || l.Steps[1].Actor != ActorKubelet || l.Evidence != EvidenceAudit {
		t.Errorf("pod link %+v, want started by the namespace controller's sweep and finished by its kubelet, in the namespace by the log", l)
	}
}

// An object's updates before the deletecollection that swept it are not
// part of its going: only what came after is a step of its link.
func TestUpdatesBeforeASweepAreNotSteps(t *testing.T) {
	b := &logBuilder{level: audit.LevelRequestResponse}
	b.add("bob", "update", ref("", "configmaps", "team-a", "cfg"), func(e *audit.Event) {
		e.Response = &audit.Meta{APIVersion: "v1", Kind: "ConfigMap", Namespace: "team-a", Name: "cfg", UID: "cm-1", Finalizers: []string{}}
	})
	b.add("alice", "delete", ref("", "namespaces", "", "team-a"))
	b.add(nsUser, "deletecollection", ref("", "configmaps", "team-a", ""), func(e *audit.Event) {
		e.Response = &audit.Meta{Kind: "ConfigMapList", MetaExtras: &audit.MetaExtras{Items: []audit.Meta{{Namespace: "team-a", Name: "cfg", UID: "cm-1"}}}}
	})
	pm := Analyze(Input{Log: b.log()})
	l, ok := flatten(rootOf(t, pm, "Namespace", "team-a").Cascade)["cm-1"]
	if !ok || len(l.Steps) != 1 || l.Steps[0].What != StepDeleteCollection {
		t.Errorf("ConfigMap link %+v (found %v), want the sweep as its only step", l, ok)
	}
}
