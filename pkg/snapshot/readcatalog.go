package snapshot

// This file builds the catalog of offline input: what stands in for
// discovery when there is no cluster.

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/version"
)

// crdResource turns a CRD into the catalog entry discovery would serve.
// The preferred version is the first served one in Kubernetes' version
// priority order, as the apiextensions discovery controller sorts them.
func crdResource(c *CRDFacts) (Resource, bool) {
	var served []string
	for _, v := range c.Versions {
		if v.Served {
			served = append(served, v.Name)
		}
	}
	if len(served) == 0 || c.Kind == "" || c.Plural == "" {
		return Resource{}, false
	}
	sort.SliceStable(served, func(i, j int) bool {
		return version.CompareKubeAwareVersionStrings(served[i], served[j]) > 0
	})
	singular := c.Singular
	if singular == "" {
		singular = strings.ToLower(c.Kind)
	}
	return Resource{
		Group: c.Group, Version: served[0], Resource: c.Plural, Kind: c.Kind,
		Namespaced: c.Scope != "Cluster", ShortNames: c.ShortNames, Singular: singular,
		Categories: c.Categories, Verbs: append([]string(nil), verbsStandard...), Versions: served,
	}, true
}
