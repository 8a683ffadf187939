package capture

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// discovered is what discovery told about the cluster.
type discovered struct {
	serverVersion string
	// startedAt is the snapshot's capturedAt: the moment the cluster
	// answered, before any type was listed.
	startedAt time.Time
	resources []snapshot.Resource
	errors    []snapshot.DiscoveryError
	warnings  []snapshot.Warning
}

// discover asks the server for its version and its API types. A group
// whose discovery fails is recorded, not an error: an aggregated API
// being down is common, and only the owners of its types become unknown.
func discover(cfg *rest.Config) (*discovered, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot create a client for %s: %w", cfg.Host, err)
	}
	info, err := dc.ServerVersion()
	if err != nil {
		return nil, unreachable(cfg.Host, err)
	}
	d := &discovered{serverVersion: info.GitVersion, startedAt: time.Now().UTC().Truncate(time.Second)}
	groups, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		failed, ok := discovery.GroupDiscoveryFailedErrorGroups(err)
		if !ok {
			if apierrors.IsUnauthorized(err) {
				return nil, unreachable(cfg.Host, err)
			}
			return nil, fmt.Errorf("discovery of the cluster's API types failed: %w", err)
		}
		d.recordFailures(failed)
	}
	d.resources = resourcesFromDiscovery(groups, lists)
	return d, nil
}

// unreachable words the failure of the first request to the cluster by
// its cause: a server that answered 401 was reached, and sending the user
// after the network would waste their time.
func unreachable(host string, err error) error {
	switch {
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("the cluster at %s rejected the credentials (401 Unauthorized): %w; log in again or renew the token, and check --kubeconfig, --context and --user", host, err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("the cluster at %s refused the request (403 Forbidden): %w; check the user of --context, or --as", host, err)
	}
	return fmt.Errorf("cannot reach the cluster at %s: %w; check --kubeconfig and --context, or use -f to read dumps", host, err)
}

// recordFailures keeps each failed group version as a discovery error and
// a warning, in group version order.
func (d *discovered) recordFailures(failed map[schema.GroupVersion]error) {
	gvs := make([]schema.GroupVersion, 0, len(failed))
	for gv := range failed {
		gvs = append(gvs, gv)
	}
	sort.Slice(gvs, func(i, j int) bool { return gvs[i].String() < gvs[j].String() })
	for _, v := range gvs {
		e, gv := failed[v], v.String()
		d.errors = append(d.errors, snapshot.DiscoveryError{GroupVersion: gv, Error: e.Error()})
		d.warnings = append(d.warnings, snapshot.Warning{Object: gv, Message: fmt.Sprintf("discovery failed, its types are not listed (owners of those types are unknown): %v", e)})
	}
}

// resourcesFromDiscovery builds the catalog with ServerPreferredResources
// semantics: per group, versions in the server's priority order, and a
// resource belongs to the first version serving it. Versions collects
// every served version of it, preferred first.
func resourcesFromDiscovery(groups []*metav1.APIGroup, lists []*metav1.APIResourceList) []snapshot.Resource {
	byGV := map[string]*metav1.APIResourceList{}
	for _, l := range lists {
		if l != nil {
			byGV[l.GroupVersion] = l
		}
	}
	var out []snapshot.Resource
	for _, g := range groups {
		if g == nil {
			continue
		}
		index := map[string]int{}
		for _, v := range versionsByPriority(g) {
			gv := v
			if g.Name != "" {
				gv = g.Name + "/" + v
			}
			if l := byGV[gv]; l != nil {
				out = addVersion(out, index, g.Name, v, l)
			}
		}
	}
	return out
}

// versionsByPriority lists a group's versions, the preferred one first.
func versionsByPriority(g *metav1.APIGroup) []string {
	var versions []string
	if g.PreferredVersion.Version != "" {
		versions = append(versions, g.PreferredVersion.Version)
	}
	for _, v := range g.Versions {
		if v.Version != g.PreferredVersion.Version {
			versions = append(versions, v.Version)
		}
	}
	return versions
}

// addVersion adds the resources one version of a group serves: a new
// entry for a resource first seen, else one more served version of it.
// index maps the group's resource names to their entries in out.
func addVersion(out []snapshot.Resource, index map[string]int, group, version string, l *metav1.APIResourceList) []snapshot.Resource {
	for _, ar := range l.APIResources {
		if strings.Contains(ar.Name, "/") {
			continue // subresource
		}
		if i, ok := index[ar.Name]; ok {
			if out[i].Kind == ar.Kind && !slices.Contains(out[i].Versions, version) {
				out[i].Versions = append(out[i].Versions, version)
			}
			continue
		}
		singular := ar.SingularName
		if singular == "" {
			singular = strings.ToLower(ar.Kind)
		}
		index[ar.Name] = len(out)
		out = append(out, snapshot.Resource{
			Group: group, Version: version, Resource: ar.Name, Kind: ar.Kind, Namespaced: ar.Namespaced,
			ShortNames: ar.ShortNames, Singular: singular, Categories: ar.Categories,
			Verbs: sortedVerbs(ar.Verbs), Versions: []string{version},
		})
	}
	return out
}

func sortedVerbs(v metav1.Verbs) []string {
	out := append([]string(nil), v...)
	sort.Strings(out)
	return out
}
