package postmortem

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// The chains a part of a log cannot hold alone: each scenario is written
// as an audit log file, read whole and read spilled (a part at a time),
// and the two documents must be the same.

// v1Line writes an event as the API server logs it (audit.k8s.io/v1).
func v1Line(e *audit.Event) map[string]any {
	m := map[string]any{
		"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": e.Level, "auditID": e.AuditID, "stage": e.Stage,
		"requestURI": e.RequestURI, "verb": e.Verb, "user": map[string]any{"username": e.User.Username},
		"objectRef": map[string]string{"resource": e.Object.Resource, "namespace": e.Object.Namespace, "name": e.Object.Name,
			"apiGroup": e.Object.APIGroup, "uid": e.Object.UID},
		"responseStatus":           map[string]any{"metadata": map[string]any{}, "code": e.Code},
		"requestReceivedTimestamp": e.Received.Format(time.RFC3339Nano), "stageTimestamp": e.Time.Format(time.RFC3339Nano),
	}
	if d := e.Delete; d != nil {
		opts := map[string]any{"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "propagationPolicy": d.PropagationPolicy}
		if d.PreconditionUID != "" {
			opts["preconditions"] = map[string]string{"uid": d.PreconditionUID}
		}
		if len(d.DryRun) > 0 {
			opts["dryRun"] = d.DryRun
		}
		m["requestObject"] = opts
	}
	if e.Request != nil && e.Delete == nil {
		m["requestObject"] = v1Object(e.Request)
	}
	if e.Response != nil {
		m["responseObject"] = v1Object(e.Response)
	}
	return m
}

func v1Object(m *audit.Meta) map[string]any {
	if items := m.ListItems(); items != nil {
		var out []any
		for i := range items {
			out = append(out, v1Object(&items[i]))
		}
		return map[string]any{"kind": m.Kind, "apiVersion": m.APIVersion, "metadata": map[string]any{}, "items": out}
	}
	meta := map[string]any{"name": m.Name, "namespace": m.Namespace, "uid": m.UID, "ownerReferences": m.OwnerReferences}
	if m.Finalizers != nil {
		meta["finalizers"] = m.Finalizers
	}
	if m.DeletionTimestamp != nil {
		meta["deletionTimestamp"] = m.DeletionTimestamp.Format(time.RFC3339)
	}
	return map[string]any{"kind": m.Kind, "apiVersion": m.APIVersion, "metadata": meta}
}

// file writes the builder's log as an audit log file, and names it.
func (b *logBuilder) file(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	for i := range b.events {
		line, err := json.Marshal(v1Line(&b.events[i]))
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// bothWays analyzes the builder's log read whole and spilled, and fails
// when the documents differ.
func bothWays(t *testing.T, name string, b *logBuilder, in Input) *PostMortem {
	t.Helper()
	path := b.file(t)
	docs := map[bool][]byte{}
	var whole *PostMortem
	for _, spill := range []bool{false, true} {
		opts := audit.Options{Fold: true}
		if spill {
			opts.Spill = 1
		}
		log, err := ReadLog([]string{path}, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		in.Log = log
		a, err := Prepare(in)
		if err != nil {
			t.Fatal(err)
		}
		pm := a.Whole()
		if !spill {
			whole = pm
		}
		docs[spill], _ = json.MarshalIndent(pm, "", " ")
	}
	if !bytes.Equal(docs[true], docs[false]) {
		t.Errorf("%s: analyzed in parts:\n%s\nwhole:\n%s", name, docs[true], docs[false])
	}
	return whole
}

// requireUnder fails unless the object of uid is in the chain of the root
// kind/name: else the scenario would check nothing.
func requireUnder(t *testing.T, pm *PostMortem, kind, name, uid, what string) {
	t.Helper()
	if _, ok := flatten(rootOf(t, pm, kind, name).Cascade)[uid]; !ok {
		t.Fatal(what)
	}
}

func TestPartsTieWhatChainsReach(t *testing.T) {
	t.Run("a CRD and its instances, which go through storage", func(t *testing.T) {
		crd := testobj.New("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "widgets.example.com").
			Facts(&snapshot.Facts{CRD: &snapshot.CRDFacts{Group: "example.com", Kind: "Widget", Plural: "widgets", Scope: "Namespaced", Established: true}}).Build()
		w := testobj.New("example.com/v1", "Widget", "team-a", "gizmo").Build()
		before := testobj.Snapshot(crd, w).CRD("example.com", "Widget", "widgets", true).Build()
		b := &logBuilder{level: audit.LevelMetadata}
		b.add("bob", "delete", ref("apiextensions.k8s.io", "customresourcedefinitions", "", "widgets.example.com"))
		pm := bothWays(t, "crd", b, Input{Before: before, After: testobj.Snapshot().Build()})
		requireUnder(t, pm, "CustomResourceDefinition", "widgets.example.com", w.Metadata.UID, "the Widget is not under its CRD: this scenario checks nothing")
	})
	t.Run("a pod owned by its node", func(t *testing.T) {
		node := testobj.New("v1", "Node", "", "node-1").Build()
		pod := testobj.Pod("team-b", "static").OwnedBy(node).Build()
		before := testobj.Snapshot(node, pod, testobj.Pod("team-b", "other").Build()).Build()
		b := &logBuilder{level: audit.LevelMetadata}
		b.add("alice", "delete", ref("", "nodes", "", "node-1"))
		b.add(gcUser, "delete", ref("", "pods", "team-b", "static"))
		pm := bothWays(t, "node", b, Input{Before: before})
		requireUnder(t, pm, "Node", "node-1", pod.Metadata.UID, "the pod is not under its node: this scenario checks nothing")
	})
	t.Run("an object owned by another namespace", func(t *testing.T) {
		b := &logBuilder{level: audit.LevelRequestResponse}
		b.add("alice", "delete", ref("", "namespaces", "team-h", "team-h"), func(e *audit.Event) {
			e.Response = &audit.Meta{APIVersion: "v1", Kind: "Namespace", Name: "team-h", UID: "uid-team-h"}
		})
		b.add(gcUser, "delete", ref("", "configmaps", "team-g", "held"), func(e *audit.Event) {
			e.Response = &audit.Meta{APIVersion: "v1", Kind: "ConfigMap", Namespace: "team-g", Name: "held", UID: "uid-held",
				OwnerReferences: []audit.OwnerRef{{APIVersion: "v1", Kind: "Namespace", Name: "team-h", UID: "uid-team-h"}}}
		})
		pm := bothWays(t, "namespace owner", b, Input{})
		requireUnder(t, pm, "Namespace", "team-h", "uid-held", "the ConfigMap is not under its owner: this scenario checks nothing")
	})
	t.Run("an owner reference whose UID another namespace's object holds", func(t *testing.T) {
		b := &logBuilder{level: audit.LevelRequestResponse}
		b.add("alice", "delete", ref("apps", "replicasets", "team-j", "web"), func(e *audit.Event) {
			e.Response = &audit.Meta{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "team-j", Name: "web", UID: "uid-web"}
		})
		b.add(gcUser, "delete", ref("", "pods", "team-i", "stray"), func(e *audit.Event) {
			e.Response = &audit.Meta{APIVersion: "v1", Kind: "Pod", Namespace: "team-i", Name: "stray", UID: "uid-stray",
				OwnerReferences: []audit.OwnerRef{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "uid-web"}}}
		})
		pm := bothWays(t, "foreign owner", b, Input{})
		// The collector looks the pod's owner up in its own namespace,
		// finds none, and deletes the pod on its own: no ReplicaSet is
		// made up in team-i.
		requireUnder(t, pm, "Pod", "stray", "uid-stray", "the pod is not a root of its own")
		for _, r := range pm.Roots {
			if r.Request.Object.Kind == "ReplicaSet" && r.Request.Object.Namespace == "team-i" {
				t.Errorf("a ReplicaSet team-i/web was made up: %+v", r.Request)
			}
			if r.Request.Object.Kind == "Pod" && r.Request.Actor != ActorGarbageCollector {
				t.Errorf("the pod's root actor is %q, want the garbage collector", r.Request.Actor)
			}
		}
	})
	t.Run("a sweep named in one namespace itemizes its type in another", func(t *testing.T) {
		b := &logBuilder{level: audit.LevelRequestResponse}
		b.add("alice", "delete", ref("", "namespaces", "team-c", "team-c"))
		b.add(nsUser, "deletecollection", ref("", "configmaps", "team-c", ""))
		b.add("alice", "delete", ref("", "namespaces", "team-d", "team-d"))
		b.add(nsUser, "deletecollection", ref("", "configmaps", "team-d", ""), func(e *audit.Event) {
			e.Response = &audit.Meta{APIVersion: "v1", Kind: "ConfigMapList", MetaExtras: &audit.MetaExtras{
				Items: []audit.Meta{{APIVersion: "v1", Kind: "ConfigMap", Namespace: "team-d", Name: "settings", UID: "uid-settings"}}}}
		})
		b.add(nsUser, "deletecollection", ref("", "secrets", "team-c", ""))
		pm := bothWays(t, "sweeps", b, Input{})
		if u := rootOf(t, pm, "Namespace", "team-c").Unitemized; len(u) != 1 || u[0].Resource != "secrets" {
			t.Errorf("team-c's unitemized sweeps = %+v, want the Secrets only: this scenario checks nothing", u)
		}
	})
	t.Run("an object only the snapshots name", func(t *testing.T) {
		quiet := testobj.ConfigMap("team-k", "quiet").Build()
		before := testobj.Snapshot(quiet, testobj.ConfigMap("team-m", "loud").Build()).Build()
		b := &logBuilder{level: audit.LevelMetadata}
		b.add("alice", "delete", ref("", "configmaps", "team-m", "loud"))
		pm := bothWays(t, "snapshot only", b, Input{Before: before, After: testobj.Snapshot().Build()})
		if len(pm.Unexplained) != 1 || pm.Unexplained[0].Object.Name != "quiet" {
			t.Errorf("unexplained = %+v, want the ConfigMap no request names: this scenario checks nothing", pm.Unexplained)
		}
	})
	t.Run("a dependent of a custom owner of the cluster's scope", func(t *testing.T) {
		issuer := testobj.New("certs.example.com/v1", "ClusterIssuer", "", "ca").Build()
		secret := testobj.Secret("team-n", "tls").OwnedBy(issuer).Build()
		before := testobj.Snapshot(issuer, secret).CRD("certs.example.com", "ClusterIssuer", "clusterissuers", false).Build()
		b := &logBuilder{level: audit.LevelMetadata}
		b.add("alice", "delete", ref("certs.example.com", "clusterissuers", "", "ca"))
		b.add(gcUser, "delete", ref("", "secrets", "team-n", "tls"))
		pm := bothWays(t, "cluster owner", b, Input{Before: before})
		requireUnder(t, pm, "ClusterIssuer", "ca", secret.Metadata.UID, "the Secret is not under its ClusterIssuer: this scenario checks nothing")
	})
	t.Run("a custom type no catalog lists, whose kind the log teaches", func(t *testing.T) {
		b := &logBuilder{level: audit.LevelRequestResponse}
		b.add("alice", "deletecollection", ref("example.com", "widgets", "team-p", ""), func(e *audit.Event) {
			e.Response = &audit.Meta{APIVersion: "example.com/v1", Kind: "WidgetList", MetaExtras: &audit.MetaExtras{
				Items: []audit.Meta{{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "team-p", Name: "a", UID: "uid-a"}}}}
		})
		b.add("bob", "delete", ref("example.com", "widgets", "team-q", "b"))
		pm := bothWays(t, "learned kind", b, Input{})
		if len(pm.Roots) != 2 {
			t.Errorf("%d roots, want the sweep's widget and bob's: this scenario checks nothing", len(pm.Roots))
		}
	})
	t.Run("a deletecollection across the cluster", func(t *testing.T) {
		b := &logBuilder{level: audit.LevelRequestResponse}
		b.add("alice", "deletecollection", ref("", "pods", "", ""), func(e *audit.Event) {
			e.Response = &audit.Meta{APIVersion: "v1", Kind: "PodList", MetaExtras: &audit.MetaExtras{Items: []audit.Meta{
				{APIVersion: "v1", Kind: "Pod", Namespace: "team-e", Name: "a", UID: "uid-a"},
				{APIVersion: "v1", Kind: "Pod", Namespace: "team-f", Name: "b", UID: "uid-b"}}}}
		})
		b.add("system:node:node-1", "delete", ref("", "pods", "team-e", "a"))
		b.add("system:node:node-2", "delete", ref("", "pods", "team-f", "b"))
		bothWays(t, "cluster deletecollection", b, Input{})
	})
}
