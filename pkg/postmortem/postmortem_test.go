package postmortem

import (
	"fmt"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

var t0 = time.Date(2026, 11, 27, 10, 2, 11, 0, time.UTC)

const (
	gcUser = "system:serviceaccount:kube-system:generic-garbage-collector"
	nsUser = "system:serviceaccount:kube-system:namespace-controller"
)

// logBuilder writes audit events one second apart.
type logBuilder struct {
	events []audit.Event
	level  string
}

func (b *logBuilder) add(user, verb string, ref audit.Ref, mutate ...func(*audit.Event)) *logBuilder {
	n := len(b.events)
	e := audit.Event{AuditID: fmt.Sprintf("id-%02d", n), Level: b.level, Stage: audit.StageResponseComplete, Verb: verb,
		RequestURI: "/" + ref.Resource + "/" + ref.Name, User: audit.User{Username: user}, Object: ref, Code: 200,
		Received: t0.Add(time.Duration(n) * time.Second), Time: t0.Add(time.Duration(n) * time.Second)}
	for _, m := range mutate {
		m(&e)
	}
	b.events = append(b.events, e)
	return b
}

func (b *logBuilder) log() *audit.Log {
	log := &audit.Log{Files: []audit.File{{Path: "audit.log", Events: len(b.events), Kept: len(b.events),
		First: t0, Last: t0.Add(time.Duration(len(b.events)) * time.Second)}}}
	log.SetEvents(b.events)
	return log
}

func ref(group, resource, ns, name string) audit.Ref {
	return audit.Ref{APIGroup: group, Resource: resource, Namespace: ns, Name: name}
}

func withOptions(policy string) func(*audit.Event) {
	return func(e *audit.Event) { e.Delete = &audit.DeleteOptions{PropagationPolicy: policy} }
}

func precondition(uid string) func(*audit.Event) {
	return func(e *audit.Event) {
		if e.Delete == nil {
			e.Delete = &audit.DeleteOptions{}
		}
		e.Delete.PreconditionUID = uid
	}
}

// shop is a namespace with a Deployment, its ReplicaSet and two pods, a
// ConfigMap, and an unrelated namespace.
func shop() (before *snapshot.Snapshot, objs map[string]snapshot.Object) {
	ns := testobj.Namespace("team-a").Build()
	deploy := testobj.Deployment("team-a", "web").Build()
	rs := testobj.ReplicaSet("team-a", "web-1").OwnedBy(deploy).Build()
	p1 := testobj.Pod("team-a", "web-1-a").OwnedBy(rs).Build()
	p2 := testobj.Pod("team-a", "web-1-b").OwnedBy(rs).Build()
	cm := testobj.ConfigMap("team-a", "cfg").Build()
	other := testobj.Namespace("other").Build()
	objs = map[string]snapshot.Object{"ns": ns, "deploy": deploy, "rs": rs, "p1": p1, "p2": p2, "cm": cm, "other": other}
	return testobj.Snapshot(ns, deploy, rs, p1, p2, cm, other).At(t0.Add(-time.Minute)).Build(), objs
}

// namespaceDelete is alice deleting team-a and the controllers carrying it
// out, as a RequestResponse-level log shows it.
func namespaceDelete(objs map[string]snapshot.Object, level string) *audit.Log {
	b := &logBuilder{level: level}
	b.add("alice", "delete", ref("", "namespaces", "", "team-a"), withOptions("Background"), func(e *audit.Event) {
		e.UserAgent = "kubectl/v1.36.3 (linux/amd64) kubernetes/abc"
	})
	b.add(nsUser, "deletecollection", ref("", "configmaps", "team-a", ""))
	b.add(nsUser, "deletecollection", ref("apps", "deployments", "team-a", ""), func(e *audit.Event) {
		if level == audit.LevelRequestResponse {
			e.Response = &audit.Meta{Kind: "DeploymentList", MetaExtras: &audit.MetaExtras{Items: []audit.Meta{{Kind: "Deployment", APIVersion: "apps/v1", Namespace: "team-a", Name: "web", UID: objs["deploy"].Metadata.UID}}}}
		}
	})
	b.add(gcUser, "delete", ref("apps", "replicasets", "team-a", "web-1"), precondition(objs["rs"].Metadata.UID), func(e *audit.Event) {
		if level == audit.LevelRequestResponse {
			e.Response = &audit.Meta{Kind: "ReplicaSet", APIVersion: "apps/v1", Namespace: "team-a", Name: "web-1", UID: objs["rs"].Metadata.UID,
				OwnerReferences: []audit.OwnerRef{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: objs["deploy"].Metadata.UID}}}
		}
	})
	for _, p := range []string{"p1", "p2"} {
		b.add(gcUser, "delete", ref("", "pods", "team-a", objs[p].Metadata.Name), precondition(objs[p].Metadata.UID))
	}
	for _, p := range []string{"p1", "p2"} {
		grace := int64(0)
		b.add("system:node:n1", "delete", ref("", "pods", "team-a", objs[p].Metadata.Name), func(e *audit.Event) {
			e.Delete = &audit.DeleteOptions{GracePeriodSeconds: &grace, PreconditionUID: objs[p].Metadata.UID}
		})
	}
	b.add(nsUser, "update", audit.Ref{Resource: "namespaces", Name: "team-a", Subresource: "finalize"})
	b.add(nsUser, "delete", ref("", "namespaces", "", "team-a"))
	return b.log()
}

func TestNamespaceDeleteChain(t *testing.T) {
	before, objs := shop()
	after := testobj.Snapshot(objs["other"]).At(t0.Add(time.Hour)).Build()
	for _, level := range []string{audit.LevelRequestResponse, audit.LevelMetadata} {
		t.Run(level, func(t *testing.T) {
			log := namespaceDelete(objs, level)
			if level == audit.LevelMetadata {
				log.At(0).Delete = nil
			}
			pm := Analyze(Input{Log: log, Before: before, After: after, Predict: true})
			if len(pm.Roots) != 1 {
				t.Fatalf("want one root, got %d: %+v", len(pm.Roots), pm.Roots)
			}
			root := pm.Roots[0]
			if root.Request.User != "alice" || root.Request.Object.Kind != "Namespace" || root.Request.Object.Name != "team-a" {
				t.Errorf("root request = %+v, want alice deleting Namespace team-a", root.Request)
			}
			if got, want := root.Request.DeleteOptionsKnown, level != audit.LevelMetadata; got != want {
				t.Errorf("deleteOptionsKnown = %v, want %v", got, want)
			}
			if root.Summary.Objects != 5 || root.Summary.Deleted != 5 {
				t.Errorf("summary = %+v, want 5 objects deleted (Deployment, ReplicaSet, 2 Pods, ConfigMap)", root.Summary)
			}
			links := flatten(root.Cascade)
			wantActor := map[string]string{"deploy": ActorNamespaceController, "cm": ActorNamespaceController, "rs": ActorGarbageCollector,
				"p1": ActorGarbageCollector, "p2": ActorGarbageCollector}
			for name, actor := range wantActor {
				l, ok := links[objs[name].Metadata.UID]
				if !ok {
					t.Errorf("%s is not in the cascade", name)
					continue
				}
				if l.Actor != actor {
					t.Errorf("%s: actor %q, want %q", name, l.Actor, actor)
				}
			}
			rs := links[objs["rs"].Metadata.UID]
			if want := map[string]string{audit.LevelRequestResponse: EvidenceAudit, audit.LevelMetadata: EvidenceSnapshot}[level]; rs.Evidence != want {
				t.Errorf("ReplicaSet's owner link evidence %q, want %q", rs.Evidence, want)
			}
			if cm := links[objs["cm"].Metadata.UID]; cm.Evidence != EvidenceSnapshot || cm.AuditID != "" {
				t.Errorf("ConfigMap swept by deletecollection: evidence %q auditID %q, want snapshot and none", cm.Evidence, cm.AuditID)
			}
			p1 := links[objs["p1"].Metadata.UID]
			if n := len(p1.Steps); n != 2 || p1.Steps[1].Actor != ActorKubelet || p1.Steps[1].User != "system:node:n1" {
				t.Errorf("pod steps = %+v, want the collector's DELETE then the kubelet's", p1.Steps)
			}
			if p := root.Prediction; p == nil || p.AsPredicted != 6 || p.NotPredicted != 0 || p.PredictedNotHappened != 0 {
				t.Errorf("prediction = %+v, want 6 as predicted (the namespace and its 5 objects)", p)
			}
			if len(pm.Unexplained) != 0 || !pm.Complete {
				t.Errorf("unexplained = %+v, complete = %v; want none and complete", pm.Unexplained, pm.Complete)
			}
		})
	}
}

func flatten(ls []Link) map[string]Link {
	out := map[string]Link{}
	walkLinks(ls, func(l Link) { out[l.Object.UID] = l })
	return out
}
