package graph

import (
	"strings"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// ignoredResources is the garbage collector's DefaultIgnoredResources
// (pkg/controller/garbagecollector/graph_builder.go): it never watches
// events, so they are never nodes.
var ignoredResources = map[[2]string]bool{
	{"", "events"}:              true,
	{"events.k8s.io", "events"}: true,
}

// catalog answers the two questions the graph asks of the resource
// catalog: which group/kind a reference names, and whether the GC watches it.
type catalog struct {
	byGroupKind map[[2]string]snapshot.Resource
}

func newCatalog(resources []snapshot.Resource) *catalog {
	c := &catalog{byGroupKind: map[[2]string]snapshot.Resource{}}
	for _, r := range resources {
		k := [2]string{r.Group, r.Kind}
		if _, dup := c.byGroupKind[k]; !dup {
			c.byGroupKind[k] = r
		}
	}
	return c
}

// splitAPIVersion splits "group/version" ("v1" for the core group).
func splitAPIVersion(apiVersion string) (group, version string) {
	if g, v, ok := strings.Cut(apiVersion, "/"); ok {
		return g, v
	}
	return "", apiVersion
}

func (c *catalog) forGroupKind(group, kind string) (snapshot.Resource, bool) {
	r, ok := c.byGroupKind[[2]string{group, kind}]
	return r, ok
}

// forAPIVersionKind resolves a reference the way the GC's RESTMapper does:
// the group/kind must be served, and at the version the reference names
// (any served version, not only the preferred one).
func (c *catalog) forAPIVersionKind(apiVersion, kind string) (snapshot.Resource, bool) {
	group, version := splitAPIVersion(apiVersion)
	r, ok := c.forGroupKind(group, kind)
	if !ok || version == "" {
		return snapshot.Resource{}, false
	}
	versions := r.Versions
	if len(versions) == 0 {
		versions = []string{r.Version}
	}
	for _, v := range versions {
		if v == version {
			return r, true
		}
	}
	return snapshot.Resource{}, false
}

// monitored reports whether the GC runs an informer for r: discovery must
// offer delete, list and watch (GetDeletableResources) and it must not be
// ignored.
func monitored(r snapshot.Resource) bool {
	if ignoredResources[[2]string{r.Group, r.Resource}] {
		return false
	}
	return r.HasVerb("delete") && r.HasVerb("list") && r.HasVerb("watch")
}
