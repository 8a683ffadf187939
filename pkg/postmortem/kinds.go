package postmortem

import (
	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// typeKey names an API type as an audit event does: group and resource.
type typeKey struct{ group, resource string }

// kinds maps the resources audit events name to the kinds snapshots name:
// one snapshot.Catalog of the snapshots' catalogs and the built-in table,
// to which it adds the types of custom resources no catalog lists, learnt
// from the request and response objects.
type kinds struct{ cat *snapshot.Catalog }

// newKinds catalogs the snapshots' types, then the built-in table's: the
// first entry of a type wins, so a snapshot's own catalog wins over the
// built-in table.
func newKinds(snaps ...*snapshot.Snapshot) *kinds {
	var rs []snapshot.Resource
	for _, s := range snaps {
		if s != nil {
			rs = append(rs, s.Resources...)
		}
	}
	return &kinds{snapshot.NewCatalog(append(rs, snapshot.BuiltinResources()...))}
}

// learn records a type an event's object showed (a custom resource no
// catalog lists).
func (k *kinds) learn(t typeKey, apiVersion, kind string) {
	if !audit.ObjectKind(apiVersion, kind) || t.resource == "" {
		return
	}
	if _, ok := k.resource(t); ok {
		return
	}
	_, version := snapshot.SplitAPIVersion(apiVersion)
	k.cat.Add(snapshot.Resource{Group: t.group, Version: version, Resource: t.resource, Kind: kind})
}

// resource is the catalog's entry of type t.
func (k *kinds) resource(t typeKey) (snapshot.Resource, bool) {
	return k.cat.ForGroupResource(t.group, t.resource)
}

// namespaced reports whether objects of type t live in namespaces.
func (k *kinds) namespaced(t typeKey) bool {
	r, _ := k.resource(t)
	return r.Namespaced
}

// typeOfKind is the type serving kind in group.
func (k *kinds) typeOfKind(group, kind string) (typeKey, bool) {
	r, ok := k.cat.ForGroupKind(group, kind)
	return typeKey{r.Group, r.Resource}, ok
}

// typeRef is the apiVersion and kind of an object of type t, its kind
// looked up (version when given, else the type's preferred one); an
// unknown type keeps its resource name as the kind, which says what it is.
func (k *kinds) typeRef(t typeKey, version string) (apiVersion, kind string) {
	r, ok := k.resource(t)
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
	return k.typeOfKind(group, kind)
}
