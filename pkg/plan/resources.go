package plan

import (
	"strings"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// resInfo is what the simulator needs to know about an API type: how the
// API server treats a DELETE on it and whether the garbage collector
// watches it. One per group/kind, shared by all its objects.
type resInfo struct {
	group, kind string
	version     string // preferred version: the GC's informers use it
	apiVersion  string // group/version of the preferred version
	versions    []string
	namespaced  bool
	// monitored: the GC has an informer for it (delete+list+watch, not ignored).
	monitored bool
	// listed is false when the snapshot could not list the type: objects
	// of it may exist without being in the snapshot.
	listed  bool
	listErr string
	// inferred is true when the type was not in the catalog and was
	// described from the objects themselves.
	inferred bool
	// gc is how a DELETE at the preferred version treats dependents.
	gc            rules.GCPolicy
	graceful      bool // Pods
	isNamespace   bool
	isCRD         bool
	plural        string
	hasDeleteColl bool
	hasDelete     bool
}

type gk struct{ group, kind string }

// resources describes every type of the snapshot's catalog
// (rules.ServedTypes, which also describes types the catalog lacks from their
// objects) as the simulator needs it.
type resources struct {
	cat  *rules.ServedTypes
	byGK map[gk]*resInfo
	// builtinGroups are the groups compiled into kube-apiserver, whose
	// types take strategic merge patches.
	builtinGroups map[string]bool
}

// strategicMerge reports whether PATCH with a strategic merge patch works
// on the type. Custom and aggregated types answer 415, and the garbage
// collector falls back to GET + JSON merge patch: two more round trips.
func (rs *resources) strategicMerge(ri *resInfo) bool { return rs.builtinGroups[ri.group] }

func newResources(cat *rules.ServedTypes) *resources {
	rs := &resources{cat: cat, byGK: map[gk]*resInfo{}, builtinGroups: map[string]bool{}}
	for _, r := range snapshot.BuiltinResources() {
		rs.builtinGroups[r.Group] = true
	}
	for _, r := range cat.Resources() {
		if strings.Contains(r.Resource, "/") {
			continue // subresource
		}
		k := gk{r.Group, r.Kind}
		if _, ok := rs.byGK[k]; ok {
			continue
		}
		rs.byGK[k] = infoFor(r)
	}
	return rs
}

func infoFor(r snapshot.Resource) *resInfo {
	all := len(r.Verbs) == 0 // a catalog without verbs: assume a normal type
	has := func(v string) bool { return all || r.HasVerb(v) }
	ri := &resInfo{
		group: r.Group, kind: r.Kind, version: r.Version, apiVersion: r.GroupVersion(),
		versions: r.Versions, namespaced: r.Namespaced, listed: r.Listed,
		plural: r.Resource, hasDelete: has("delete"), hasDeleteColl: has("deletecollection"), listErr: r.Error,
	}
	ri.monitored = rules.MonitoredByGC(r)
	ri.gc = rules.TypeGCPolicy(r.Group, r.Kind, r.Version)
	ri.graceful = r.Group == "" && r.Kind == "Pod"
	ri.isNamespace = r.Group == "" && r.Kind == "Namespace"
	ri.isCRD = r.Group == "apiextensions.k8s.io" && r.Kind == "CustomResourceDefinition"
	return ri
}

// forObject returns the type of a snapshot object; known is false for a
// type missing from the catalog, described from the objects (served at
// their versions, watched) so that the simulation can go on, and the
// caller warns.
func (rs *resources) forObject(o *snapshot.Object) (ri *resInfo, known bool) {
	group := snapshot.GroupOf(o.APIVersion)
	if ri, ok := rs.byGK[gk{group, o.Kind}]; ok {
		return ri, !ri.inferred
	}
	r, inferred, _ := rs.cat.Resource(group, o.Kind)
	return rs.add(r, inferred), !inferred
}

func (rs *resources) add(r snapshot.Resource, inferred bool) *resInfo {
	ri := infoFor(r)
	ri.inferred = inferred
	rs.byGK[gk{r.Group, r.Kind}] = ri
	return ri
}

// mapping is the GC's RESTMapping (rules.ServedTypes.Mapping), or nil
// (restMappingError).
func (rs *resources) mapping(apiVersion, kind string) *resInfo {
	r, ok := rs.cat.Mapping(apiVersion, kind)
	if !ok {
		return nil
	}
	if ri, ok := rs.byGK[gk{r.Group, r.Kind}]; ok {
		return ri
	}
	_, inferred, _ := rs.cat.Resource(r.Group, r.Kind)
	return rs.add(r, inferred)
}
