package diagnose

import (
	"sort"
	"strings"

	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// index answers the lookups diagnosis makes many times: objects by UID,
// by namespace and by group/kind, and the resource catalog.
type index struct {
	snap    *snapshot.Snapshot
	g       *graph.Graph
	byUID   map[string]*snapshot.Object
	byNS    map[string][]*snapshot.Object
	byGK    map[[2]string][]*snapshot.Object
	catalog map[[2]string]snapshot.Resource
	// byName finds an object by group, kind, namespace and name.
	byName map[[4]string]*snapshot.Object
	// groups are the API groups the catalog knows.
	groups map[string]bool
}

func newIndex(snap *snapshot.Snapshot, g *graph.Graph) *index {
	ix := &index{snap: snap, g: g,
		byUID:   map[string]*snapshot.Object{},
		byNS:    map[string][]*snapshot.Object{},
		byGK:    map[[2]string][]*snapshot.Object{},
		catalog: map[[2]string]snapshot.Resource{},
		byName:  map[[4]string]*snapshot.Object{},
		groups:  map[string]bool{},
	}
	for _, r := range snap.Resources {
		ix.groups[r.Group] = true
		k := [2]string{r.Group, r.Kind}
		if _, dup := ix.catalog[k]; !dup {
			ix.catalog[k] = r
		}
	}
	for i := range snap.Objects {
		o := &snap.Objects[i]
		if o.Metadata.UID != "" {
			if _, dup := ix.byUID[o.Metadata.UID]; !dup {
				ix.byUID[o.Metadata.UID] = o
			}
		}
		ix.byNS[o.Metadata.Namespace] = append(ix.byNS[o.Metadata.Namespace], o)
		gk := [2]string{groupOf(o.APIVersion), o.Kind}
		ix.byGK[gk] = append(ix.byGK[gk], o)
		ix.byName[[4]string{gk[0], gk[1], o.Metadata.Namespace, o.Metadata.Name}] = o
	}
	for _, l := range ix.byNS {
		sortObjects(l)
	}
	for _, l := range ix.byGK {
		sortObjects(l)
	}
	return ix
}

func sortObjects(l []*snapshot.Object) {
	sort.SliceStable(l, func(i, j int) bool { return l[i].Ref().Less(l[j].Ref()) })
}

func groupOf(apiVersion string) string {
	if g, _, ok := strings.Cut(apiVersion, "/"); ok {
		return g
	}
	return ""
}

func versionOf(apiVersion string) string {
	if _, v, ok := strings.Cut(apiVersion, "/"); ok {
		return v
	}
	return apiVersion
}

// discovered reports whether the catalog comes from a server's discovery
// (a live capture) rather than the built-in table and a dump's CRDs.
func (ix *index) discovered() bool {
	return ix.snap.Source.Type == "live" || ix.snap.Source.Server != ""
}

// resource returns the catalog entry of an object's type.
func (ix *index) resource(apiVersion, kind string) (snapshot.Resource, bool) {
	r, ok := ix.catalog[[2]string{groupOf(apiVersion), kind}]
	return r, ok
}

// served reports whether a reference's apiVersion/kind resolves through
// the RESTMapper: the group/kind is served at that version.
func (ix *index) served(apiVersion, kind string) bool {
	r, ok := ix.resource(apiVersion, kind)
	if !ok {
		return false
	}
	v := versionOf(apiVersion)
	versions := r.Versions
	if len(versions) == 0 {
		versions = []string{r.Version}
	}
	for _, x := range versions {
		if x == v {
			return true
		}
	}
	return false
}

// monitored reports whether the garbage collector watches the type. A type
// missing from the catalog is assumed watched, as the graph package does.
func (ix *index) monitored(apiVersion, kind string) bool {
	r, ok := ix.resource(apiVersion, kind)
	if !ok {
		return true
	}
	return r.MonitoredByGC()
}

// listed reports whether kgc could list the type, so that absence from
// the snapshot means absence from the cluster.
func (ix *index) listed(group, kind string) bool {
	r, ok := ix.catalog[[2]string{group, kind}]
	return ok && r.Listed
}

// namespacedKind reports whether a kind is namespaced; ok is false when
// the catalog does not know it.
func (ix *index) namespacedKind(apiVersion, kind string) (namespaced, ok bool) {
	r, found := ix.resource(apiVersion, kind)
	return r.Namespaced, found
}

// kubectlType is the unambiguous TYPE kubectl accepts: the plural resource,
// with its group for non-core types ("deployments.apps").
func (ix *index) kubectlType(o snapshot.ObjectRef) string {
	if r, ok := ix.resource(o.APIVersion, o.Kind); ok && r.Resource != "" {
		if r.Group == "" {
			return r.Resource
		}
		return r.Resource + "." + r.Group
	}
	k := strings.ToLower(o.Kind)
	if g := groupOf(o.APIVersion); g != "" {
		return k + "." + g
	}
	return k
}

// kubectlTarget is "TYPE NAME [-n NS]" for commands.
func (ix *index) kubectlTarget(o snapshot.ObjectRef) string {
	s := ix.kubectlType(o) + " " + o.Name
	if o.Namespace != "" {
		s += " -n " + o.Namespace
	}
	return s
}

// gvFailure is an API group version whose discovery failed.
type gvFailure struct{ gv, err string }

// discoveryFailures returns the group versions whose discovery failed:
// those the capture recorded, and catalog entries not listed because of a
// discovery error (as opposed to a forbidden list), sorted.
func (ix *index) discoveryFailures() []gvFailure {
	seen := map[string]bool{}
	var out []gvFailure
	for _, e := range ix.snap.DiscoveryErrors {
		if !seen[e.GroupVersion] {
			seen[e.GroupVersion] = true
			out = append(out, gvFailure{e.GroupVersion, e.Error})
		}
	}
	for _, r := range ix.snap.Resources {
		if gv := r.GroupVersion(); !r.Listed && isDiscoveryError(r.Error) && !seen[gv] {
			seen[gv] = true
			out = append(out, gvFailure{gv, r.Error})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].gv < out[j].gv })
	return out
}

// isDiscoveryError tells a failed discovery (an aggregated API that does
// not answer) from an RBAC refusal: only the former stops the namespace
// controller, which has its own permissions.
func isDiscoveryError(msg string) bool {
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
