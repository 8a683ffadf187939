package testobj

import (
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// CapturedAt is the capture time of every snapshot built here unless a test
// sets another: a fixed instant keeps goldens stable.
var CapturedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

var allVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// builtin is a small catalog of the built-in types tests use: enough for
// the garbage collector's monitored set (events are in it on purpose, the GC
// ignores them).
var builtin = []snapshot.Resource{
	{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true, ShortNames: []string{"po"}},
	{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true, ShortNames: []string{"cm"}},
	{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true},
	{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true, ShortNames: []string{"svc"}},
	{Version: "v1", Resource: "serviceaccounts", Kind: "ServiceAccount", Namespaced: true, ShortNames: []string{"sa"}},
	{Version: "v1", Resource: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Namespaced: true, ShortNames: []string{"pvc"}},
	{Version: "v1", Resource: "events", Kind: "Event", Namespaced: true, ShortNames: []string{"ev"}},
	{Version: "v1", Resource: "namespaces", Kind: "Namespace", ShortNames: []string{"ns"}},
	{Version: "v1", Resource: "nodes", Kind: "Node", ShortNames: []string{"no"}},
	{Version: "v1", Resource: "persistentvolumes", Kind: "PersistentVolume", ShortNames: []string{"pv"}},
	{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true, ShortNames: []string{"deploy"}},
	{Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", Namespaced: true, ShortNames: []string{"rs"}},
	{Group: "apps", Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", Namespaced: true, ShortNames: []string{"sts"}},
	{Group: "apps", Version: "v1", Resource: "daemonsets", Kind: "DaemonSet", Namespaced: true, ShortNames: []string{"ds"}},
	{Group: "apps", Version: "v1", Resource: "controllerrevisions", Kind: "ControllerRevision", Namespaced: true},
	{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", Namespaced: true},
	{Group: "batch", Version: "v1", Resource: "cronjobs", Kind: "CronJob", Namespaced: true, ShortNames: []string{"cj"}},
	{Group: "events.k8s.io", Version: "v1", Resource: "events", Kind: "Event", Namespaced: true, ShortNames: []string{"ev"}},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Kind: "ClusterRole"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles", Kind: "Role", Namespaced: true},
	{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition", ShortNames: []string{"crd"}},
}

// Builtins returns a fresh copy of the built-in catalog: every type listed,
// served at its one version, with the full verb set.
func Builtins() []snapshot.Resource {
	out := make([]snapshot.Resource, len(builtin))
	for i, r := range builtin {
		r.Verbs = append([]string(nil), allVerbs...)
		r.Versions = []string{r.Version}
		r.ShortNames = append([]string(nil), r.ShortNames...)
		r.Listed = true
		out[i] = r
	}
	return out
}

// SnapshotBuilder builds a snapshot.Snapshot with the built-in catalog.
type SnapshotBuilder struct{ s snapshot.Snapshot }

// Snapshot starts a snapshot of objs, with the built-in catalog, captured
// at CapturedAt from files.
func Snapshot(objs ...snapshot.Object) *SnapshotBuilder {
	return &SnapshotBuilder{s: snapshot.Snapshot{
		APIVersion: snapshot.APIVersion,
		Kind:       "Snapshot",
		CapturedAt: CapturedAt,
		Source:     snapshot.Source{Type: "files"},
		Resources:  Builtins(),
		Objects:    append([]snapshot.Object(nil), objs...),
	}}
}

// Add appends objects.
func (b *SnapshotBuilder) Add(objs ...snapshot.Object) *SnapshotBuilder {
	b.s.Objects = append(b.s.Objects, objs...)
	return b
}

// At sets capturedAt.
func (b *SnapshotBuilder) At(t time.Time) *SnapshotBuilder { b.s.CapturedAt = t.UTC(); return b }

// Resource adds a catalog entry, replacing one with the same group and kind.
// Verbs, Versions and Listed default to a fully served, listed type.
func (b *SnapshotBuilder) Resource(r snapshot.Resource) *SnapshotBuilder {
	if r.Verbs == nil {
		r.Verbs = append([]string(nil), allVerbs...)
	}
	if r.Versions == nil {
		r.Versions = []string{r.Version}
	}
	for i, x := range b.s.Resources {
		if x.Group == r.Group && x.Kind == r.Kind {
			b.s.Resources[i] = r
			return b
		}
	}
	b.s.Resources = append(b.s.Resources, r)
	return b
}

// CRD adds a listed custom type served at versions (preferred first).
func (b *SnapshotBuilder) CRD(group, kind, plural string, namespaced bool, versions ...string) *SnapshotBuilder {
	if len(versions) == 0 {
		versions = []string{"v1"}
	}
	return b.Resource(snapshot.Resource{Group: group, Version: versions[0], Resource: plural, Kind: kind,
		Namespaced: namespaced, Versions: versions, Listed: true})
}

// Unlisted marks a catalog type as not listed (forbidden), with reason.
func (b *SnapshotBuilder) Unlisted(group, kind, reason string) *SnapshotBuilder {
	for i, x := range b.s.Resources {
		if x.Group == group && x.Kind == kind {
			b.s.Resources[i].Listed = false
			b.s.Resources[i].Error = reason
		}
	}
	return b
}

// Verbs replaces the verbs of a catalog type (to make it unmonitored).
func (b *SnapshotBuilder) Verbs(group, kind string, verbs ...string) *SnapshotBuilder {
	for i, x := range b.s.Resources {
		if x.Group == group && x.Kind == kind {
			b.s.Resources[i].Verbs = verbs
		}
	}
	return b
}

// Without removes a type from the catalog, as if discovery did not serve it.
func (b *SnapshotBuilder) Without(group, kind string) *SnapshotBuilder {
	out := b.s.Resources[:0]
	for _, x := range b.s.Resources {
		if x.Group != group || x.Kind != kind {
			out = append(out, x)
		}
	}
	b.s.Resources = out
	return b
}

// Build returns the snapshot, with each resource's count filled in.
func (b *SnapshotBuilder) Build() *snapshot.Snapshot {
	s := b.s
	s.Resources = append([]snapshot.Resource(nil), b.s.Resources...)
	s.Objects = append([]snapshot.Object(nil), b.s.Objects...)
	for i := range s.Resources {
		r := &s.Resources[i]
		r.Count = 0
		for _, o := range s.Objects {
			if o.Kind == r.Kind && groupOf(o.APIVersion) == r.Group {
				r.Count++
			}
		}
	}
	return &s
}

func groupOf(apiVersion string) string {
	for i := 0; i < len(apiVersion); i++ {
		if apiVersion[i] == '/' {
			return apiVersion[:i]
		}
	}
	return ""
}
