package graph

import (
	"strings"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// catalog is the snapshot's resource catalog plus what the graph needs to
// know about how far to trust it.
type catalog struct {
	*snapshot.Catalog
	// groups served according to the catalog.
	groups map[string]bool
	// discovered: the catalog comes from a server's discovery (a live
	// capture, or a snapshot file of one), so a kind it lacks is not
	// served. A plain dump's catalog is the built-in table plus the CRDs
	// in the dump: a group it does not know may still be served.
	discovered bool
	// failedGroupVersions had discovery errors: their kinds are unknown.
	failedGroupVersions map[string]string
}

func newCatalog(snap *snapshot.Snapshot) *catalog {
	c := &catalog{Catalog: snap.Catalog(), groups: map[string]bool{},
		discovered:          snap.Source.Type == "live" || snap.Source.Server != "",
		failedGroupVersions: map[string]string{}}
	for _, r := range snap.Resources {
		c.groups[r.Group] = true
	}
	// Kubernetes' own groups are known even offline: the built-in table
	// lists what a current API server serves, and extensions is the one
	// built-in group no version of which is served any more.
	c.groups["extensions"] = true
	for _, e := range snap.DiscoveryErrors {
		c.failedGroupVersions[e.GroupVersion] = e.Error
	}
	return c
}

// unknownKind says why an apiVersion/kind the catalog does not serve may
// still exist ("" when the catalog is sure it does not).
func (c *catalog) unknownKind(apiVersion string) string {
	if err, ok := c.failedGroupVersions[apiVersion]; ok {
		return "discovery of " + apiVersion + " failed: " + err
	}
	group, _ := splitAPIVersion(apiVersion)
	if !c.discovered && !c.groups[group] {
		return "the input has neither discovery nor a CRD for group " + group
	}
	return ""
}

// splitAPIVersion splits "group/version" ("v1" for the core group).
func splitAPIVersion(apiVersion string) (group, version string) {
	if g, v, ok := strings.Cut(apiVersion, "/"); ok {
		return g, v
	}
	return "", apiVersion
}
