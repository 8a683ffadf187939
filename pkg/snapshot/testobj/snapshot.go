package testobj

import (
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// CapturedAt is the capture time of every snapshot built here unless a test
// sets another: a fixed instant keeps goldens stable.
var CapturedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

var allVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// Builtins returns the built-in catalog (snapshot.BuiltinResources, the
// types a default kube-apiserver serves, with their real verbs), every type
// marked listed.
func Builtins() []snapshot.Resource {
	out := snapshot.BuiltinResources()
	for i := range out {
		out[i].Listed = true
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

// Live marks the snapshot as captured from a server, so its catalog is
// discovery's: a kind it lacks is not served.
func (b *SnapshotBuilder) Live() *SnapshotBuilder {
	b.s.Source = snapshot.Source{Type: "live", Server: "https://kgc.test:6443"}
	return b
}

// DiscoveryError records a group version whose discovery failed.
func (b *SnapshotBuilder) DiscoveryError(groupVersion, err string) *SnapshotBuilder {
	b.s.DiscoveryErrors = append(b.s.DiscoveryErrors, snapshot.DiscoveryError{GroupVersion: groupVersion, Error: err})
	return b
}

// Duplicates records objects the reader dropped because an earlier one had
// the same UID.
func (b *SnapshotBuilder) Duplicates(objs ...snapshot.Object) *SnapshotBuilder {
	b.s.Duplicates = append(b.s.Duplicates, objs...)
	return b
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
	s.Duplicates = append([]snapshot.Object(nil), b.s.Duplicates...)
	s.DiscoveryErrors = append([]snapshot.DiscoveryError(nil), b.s.DiscoveryErrors...)
	for i := range s.Resources {
		r := &s.Resources[i]
		r.Count = 0
		for _, o := range s.Objects {
			if o.Kind == r.Kind && snapshot.GroupOf(o.APIVersion) == r.Group {
				r.Count++
			}
		}
	}
	return &s
}

// Refs names s's objects as "apiVersion Kind/name -n ns", in order: what a
// test of a reader or a capture compares.
func Refs(s *snapshot.Snapshot) []string {
	var out []string
	for _, o := range s.Objects {
		out = append(out, o.APIVersion+" "+o.Ref().String())
	}
	return out
}

// Warnings are s's warnings as the CLI prints them.
func Warnings(s *snapshot.Snapshot) []string {
	var out []string
	for _, w := range s.Warnings {
		out = append(out, w.String())
	}
	return out
}
