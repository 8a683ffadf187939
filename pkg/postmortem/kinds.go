package postmortem

import (
	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// typeKey names an API type as an audit event does: group and resource.
type typeKey struct{ group, resource string }

// kinds maps the resources audit events name to the kinds snapshots name,
// from the snapshots' catalogs and the built-in table, and learns the
// kinds of types neither knows from the request and response objects.
type kinds struct {
	byResource map[typeKey]snapshot.Resource
	byKind     map[[2]string]typeKey // group, kind
}

func newKinds(snaps ...*snapshot.Snapshot) *kinds {
	k := &kinds{byResource: map[typeKey]snapshot.Resource{}, byKind: map[[2]string]typeKey{}}
	for _, s := range snaps {
		if s != nil {
			k.add(s.Resources)
		}
	}
	k.add(snapshot.BuiltinResources())
	return k
}

// add keeps the first entry of each type: a snapshot's own catalog wins
// over the built-in table.
func (k *kinds) add(rs []snapshot.Resource) {
	for _, r := range rs {
		t := typeKey{r.Group, r.Resource}
		if _, ok := k.byResource[t]; !ok {
			k.byResource[t] = r
		}
		gk := [2]string{r.Group, r.Kind}
		if _, ok := k.byKind[gk]; !ok {
			k.byKind[gk] = t
		}
	}
}

// learn records a type an event's object showed (a custom resource no
// catalog lists).
func (k *kinds) learn(t typeKey, apiVersion, kind string) {
	if !audit.ObjectKind(apiVersion, kind) || t.resource == "" {
		return
	}
	if _, ok := k.byResource[t]; ok {
		return
	}
	_, version := snapshot.SplitAPIVersion(apiVersion)
	k.byResource[t] = snapshot.Resource{Group: t.group, Version: version, Resource: t.resource, Kind: kind}
	k.byKind[[2]string{t.group, kind}] = t
}

// typeRef is the apiVersion and kind of an object of type t, its kind
// looked up (version when given, else the type's preferred one); an
// unknown type keeps its resource name as the kind, which says what it is.
func (k *kinds) typeRef(t typeKey, version string) (apiVersion, kind string) {
	r, ok := k.byResource[t]
	kind = t.resource
	if ok {
		kind = r.Kind
		if version == "" {
			version = r.Version
		}
	}
	apiVersion = version
	if t.group != "" {
		apiVersion = t.group + "/" + version
	}
	return apiVersion, kind
}

// typeOf is the audit type of a snapshot object.
func (k *kinds) typeOf(apiVersion, kind string) (typeKey, bool) {
	group, _ := snapshot.SplitAPIVersion(apiVersion)
	t, ok := k.byKind[[2]string{group, kind}]
	return t, ok
}
