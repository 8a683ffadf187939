package rules

import (
	"slices"
	"sort"
	"strings"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// ServedTypes is what the input says the cluster serves: the snapshot's
// resource catalog, the types its objects show that the catalog lacks,
// the groups served, and how far to trust it all (whether discovery made
// the catalog, and which group versions it failed on), which every
// analysis needs to know.
type ServedTypes struct {
	*snapshot.Catalog
	snap *snapshot.Snapshot
	// groups are the API groups the catalog serves, or that objects of the
	// input show are served.
	groups map[string]bool
	// discovered: the catalog comes from a server's discovery (a live
	// capture, or a snapshot file of one), so a kind it lacks is not
	// served. A plain dump's catalog is the built-in table plus the CRDs
	// in the dump: a group it does not know may still be served.
	discovered bool
	// failures are the group versions whose discovery failed, sorted.
	failures []DiscoveryFailure
	// inferred describes types the catalog lacks from their objects: the
	// objects exist, so their type is served at the versions seen.
	inferred map[GroupKind]snapshot.Resource
}

// DiscoveryFailure is an API group version whose discovery failed.
type DiscoveryFailure struct{ GroupVersion, Error string }

// GroupKind is a type by group and kind.
type GroupKind struct{ Group, Kind string }

// NewServedTypes indexes snap's catalog and what its objects show.
func NewServedTypes(snap *snapshot.Snapshot) *ServedTypes {
	c := &ServedTypes{Catalog: snap.Catalog(), snap: snap, groups: map[string]bool{},
		discovered: snap.Source.Type == "live" || snap.Source.Server != "",
		inferred:   map[GroupKind]snapshot.Resource{}}
	for _, r := range snap.Resources {
		c.groups[r.Group] = true
	}
	// Kubernetes' own groups are known even offline: the built-in table
	// lists what a current API server serves, and extensions is the one
	// built-in group no version of which is served any more.
	c.groups["extensions"] = true
	c.failures = discoveryFailures(snap)
	for i := range snap.Objects {
		c.infer(&snap.Objects[i])
	}
	return c
}

// infer records the type of an object the catalog lacks, described from
// the object: served at its version, and assumed watched, as nearly every
// served type is deletable, listable and watchable.
func (c *ServedTypes) infer(o *snapshot.Object) {
	group, version := snapshot.SplitAPIVersion(o.APIVersion)
	if _, ok := c.ForGroupKind(group, o.Kind); ok {
		return
	}
	k := GroupKind{group, o.Kind}
	r, ok := c.inferred[k]
	if !ok {
		r = snapshot.Resource{Group: group, Version: version, Kind: o.Kind, Namespaced: o.Metadata.Namespace != "",
			Resource: strings.ToLower(o.Kind) + "s", Listed: true}
	}
	if !slices.Contains(r.Versions, version) {
		r.Versions = append(r.Versions, version)
	}
	c.inferred[k] = r
	c.groups[group] = true
}

// Unlisted words why the snapshot holds no objects of r, a type not
// listed (snapshot.Snapshot.Unlisted).
func (c *ServedTypes) Unlisted(r snapshot.Resource) string { return c.snap.Unlisted(r) }

// Discovered reports whether the catalog comes from a server's discovery.
func (c *ServedTypes) Discovered() bool { return c.discovered }

// Resource returns the type of group/kind: the catalog's entry, or the one
// inferred from objects of a type the catalog lacks. inferred says which.
func (c *ServedTypes) Resource(group, kind string) (r snapshot.Resource, inferred, ok bool) {
	if r, ok := c.ForGroupKind(group, kind); ok {
		return r, false, true
	}
	r, ok = c.inferred[GroupKind{group, kind}]
	return r, ok, ok
}

// Mapping is the garbage collector's RESTMapping: the type serving kind at
// exactly that apiVersion. A reference through a version the group no
// longer serves cannot be resolved (restMappingError), even if the kind
// exists. Types inferred from objects map at the versions seen.
func (c *ServedTypes) Mapping(apiVersion, kind string) (snapshot.Resource, bool) {
	if r, ok := c.ForAPIVersionKind(apiVersion, kind); ok {
		return r, true
	}
	group, version := snapshot.SplitAPIVersion(apiVersion)
	if r, ok := c.inferred[GroupKind{group, kind}]; ok && slices.Contains(r.Versions, version) {
		return r, true
	}
	return snapshot.Resource{}, false
}

// Listed reports whether kgc listed the type, so that absence from the
// snapshot means absence from the cluster. A type inferred from its
// objects was listed in the input that held them.
func (c *ServedTypes) Listed(group, kind string) bool {
	r, _, ok := c.Resource(group, kind)
	return ok && r.Listed
}

// Monitored reports whether the garbage collector watches the type
// (MonitoredByGC). A type missing from the catalog is
// assumed watched: nearly every served type is.
func (c *ServedTypes) Monitored(apiVersion, kind string) bool {
	r, _, ok := c.Resource(snapshot.GroupOf(apiVersion), kind)
	return !ok || MonitoredByGC(r)
}

// UnknownKind says why an apiVersion/kind the catalog cannot map may
// still be served: its discovery failed (WhyDiscoveryFailed), or, offline,
// its group is neither built in nor defined by a CRD of the input
// (WhyGroupUnknown); WhyNone when the catalog is sure it is not served.
// detail words the reason.
func (c *ServedTypes) UnknownKind(apiVersion string) (why Why, detail string) {
	for _, f := range c.failures {
		if f.GroupVersion == apiVersion {
			return WhyDiscoveryFailed, "discovery of " + apiVersion + " failed: " + f.Error
		}
	}
	group := snapshot.GroupOf(apiVersion)
	if !c.discovered && !c.groups[group] {
		return WhyGroupUnknown, "the input has neither discovery nor a CRD for group " + group
	}
	return WhyNone, ""
}

// Dependent describes o for ClassifyReference: namespaced as its type is
// (its namespace field when the catalog does not know the type).
func (c *ServedTypes) Dependent(o *snapshot.Object) Dependent {
	d := Dependent{Namespace: o.Metadata.Namespace, Namespaced: o.Metadata.Namespace != ""}
	if r, _, ok := c.Resource(snapshot.GroupOf(o.APIVersion), o.Kind); ok {
		d.Namespaced = r.Namespaced
	}
	return d
}

// DiscoveryFailures returns the group versions whose discovery failed,
// sorted: those the capture recorded, and catalog entries not listed
// because of a discovery error (as opposed to a forbidden list).
func (c *ServedTypes) DiscoveryFailures() []DiscoveryFailure { return c.failures }

func discoveryFailures(snap *snapshot.Snapshot) []DiscoveryFailure {
	seen := map[string]bool{}
	var out []DiscoveryFailure
	for _, e := range snap.DiscoveryErrors {
		if !seen[e.GroupVersion] {
			seen[e.GroupVersion] = true
			out = append(out, DiscoveryFailure{e.GroupVersion, e.Error})
		}
	}
	for _, r := range snap.Resources {
		if gv := r.GroupVersion(); !r.Listed && IsDiscoveryError(r.Error) && !seen[gv] {
			seen[gv] = true
			out = append(out, DiscoveryFailure{gv, r.Error})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GroupVersion < out[j].GroupVersion })
	return out
}

// IsDiscoveryError tells a failed discovery (an aggregated API that does
// not answer) from an RBAC refusal: only the former stops the namespace
// controller and the garbage collector's sync, which have their own
// permissions.
func IsDiscoveryError(msg string) bool {
	m := strings.ToLower(msg)
	if m == "" || strings.Contains(m, "forbidden") {
		return false
	}
	for _, s := range []string{"discovery", "unable to retrieve the complete list", "unable to handle the request",
		"serviceunavailable", "service unavailable", "503", "no endpoints", "connection refused", "timeout", "unavailable"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}
