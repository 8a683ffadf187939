package snapshot

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/version"
)

// Catalog answers the questions the API server's RESTMapper answers for
// kubectl and for the garbage collector, from a snapshot's resource list
// instead of live discovery.
type Catalog struct {
	resources []Resource
	// byGK maps group/kind to the index of its entry (the preferred
	// version). A kind served by two resources of one group keeps the first.
	byGK map[groupKind]int
	// byGR maps group/resource, how audit events and URLs name a type,
	// to the index of its first entry.
	byGR map[groupResource]int
	// builtinGroups holds the groups of the built-in table; kubectl's
	// priority mapper prefers them to CRD groups when a short name matches
	// both.
	priority map[string]int
}

type groupKind struct{ group, kind string }

type groupResource struct{ group, resource string }

// NewCatalog indexes resources. Their order is kept as the tie-break
// priority between groups (the built-in table lists core first, as
// kubectl's discovery order does).
func NewCatalog(resources []Resource) *Catalog {
	// Clipped, so that Add never writes into the caller's array.
	c := &Catalog{resources: slices.Clip(resources), byGK: make(map[groupKind]int, len(resources)),
		byGR: make(map[groupResource]int, len(resources)), priority: map[string]int{}}
	for i, b := range builtinTable {
		g, _ := SplitAPIVersion(b.gv)
		if _, ok := c.priority[g]; !ok {
			c.priority[g] = i
		}
	}
	for i, r := range resources {
		gk := groupKind{r.Group, r.Kind}
		if _, ok := c.byGK[gk]; !ok {
			c.byGK[gk] = i
		}
		gr := groupResource{r.Group, r.Resource}
		if _, ok := c.byGR[gr]; !ok {
			c.byGR[gr] = i
		}
	}
	return c
}

// Add makes r an entry of the catalog, found by its group and resource
// when no entry was, and by its group and kind: a type seen served since
// the catalog was made (a custom resource's, in an audit log) names its
// kind from then on.
func (c *Catalog) Add(r Resource) {
	c.resources = append(c.resources, r)
	i := len(c.resources) - 1
	if _, ok := c.byGR[groupResource{r.Group, r.Resource}]; !ok {
		c.byGR[groupResource{r.Group, r.Resource}] = i
	}
	c.byGK[groupKind{r.Group, r.Kind}] = i
}

// Catalog indexes the snapshot's resource list.
func (s *Snapshot) Catalog() *Catalog { return NewCatalog(s.Resources) }

// Resources returns the catalog's entries in their original order.
func (c *Catalog) Resources() []Resource { return c.resources }

// ForGroupKind finds the resource serving kind in group.
func (c *Catalog) ForGroupKind(group, kind string) (Resource, bool) {
	i, ok := c.byGK[groupKind{group, kind}]
	if !ok {
		return Resource{}, false
	}
	return c.resources[i], true
}

// ForGroupResource finds the first entry of resource in group: the type
// an audit event or a request's URL names.
func (c *Catalog) ForGroupResource(group, resource string) (Resource, bool) {
	i, ok := c.byGR[groupResource{group, resource}]
	if !ok {
		return Resource{}, false
	}
	return c.resources[i], true
}

// ForAPIVersionKind is the garbage collector's RESTMapping analogue: it
// succeeds only if the group serves kind at that version. An owner
// reference through a version the group no longer serves cannot be
// resolved by the GC (restMappingError), even if the kind exists.
func (c *Catalog) ForAPIVersionKind(apiVersion, kind string) (Resource, bool) {
	group, version := SplitAPIVersion(apiVersion)
	if version == "" || strings.Count(apiVersion, "/") > 1 {
		return Resource{}, false
	}
	r, ok := c.ForGroupKind(group, kind)
	if !ok {
		return Resource{}, false
	}
	if r.Version == version {
		return r, true
	}
	for _, v := range r.Versions {
		if v == version {
			return r, true
		}
	}
	return Resource{}, false
}

// QualifiedName returns "deployments.apps" or "pods", how kubectl names a
// type in messages.
func (r Resource) QualifiedName() string {
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

// Resolve maps a kubectl-style type argument to a resource: plural,
// singular, short name or kind, case-insensitively, optionally qualified
// as RESOURCE.GROUP or RESOURCE.VERSION.GROUP. When several groups match
// a bare name, built-in groups win in kubectl's order (so "events" is the
// core type); two custom groups are ambiguous.
func (c *Catalog) Resolve(typ string) (Resource, error) {
	if typ == "" {
		return Resource{}, fmt.Errorf("empty resource type: give one such as deployments or pods")
	}
	arg := strings.ToLower(typ)
	var matches []int
	// RESOURCE.VERSION.GROUP first, then RESOURCE.GROUP, then the bare name,
	// as kubectl's ParseResourceArg / ParseGroupResource do.
	if parts := strings.SplitN(arg, ".", 3); len(parts) == 3 {
		matches = c.match(parts[0], parts[2], parts[1])
	}
	if len(matches) == 0 {
		if i := strings.IndexByte(arg, '.'); i > 0 {
			matches = c.match(arg[:i], arg[i+1:], "")
		}
	}
	if len(matches) == 0 && !strings.Contains(arg, ".") {
		matches = c.match(arg, "*", "")
	}
	switch len(matches) {
	case 0:
		return Resource{}, c.unknownType(typ)
	case 1:
		return c.resources[matches[0]], nil
	}
	// Prefer built-in groups by priority; custom groups tie.
	best, bestPrio, tie := -1, 1<<30, false
	for _, i := range matches {
		p, ok := c.priority[c.resources[i].Group]
		if !ok {
			p = 1 << 29
		}
		switch {
		case p < bestPrio:
			best, bestPrio, tie = i, p, false
		case p == bestPrio && c.resources[i].Group != c.resources[best].Group:
			tie = true
		}
	}
	if !tie {
		return c.resources[best], nil
	}
	var names []string
	for _, i := range matches {
		names = append(names, c.resources[i].QualifiedName())
	}
	sort.Strings(names)
	return Resource{}, fmt.Errorf("resource type %q is ambiguous: it matches %s; qualify it with the group", typ, strings.Join(names, ", "))
}

// match returns the indexes of resources whose names match name in group
// ("*" = any group) and version ("" = any served version).
func (c *Catalog) match(name, group, version string) []int {
	var out []int
	seen := map[groupKind]bool{}
	for i, r := range c.resources {
		if group != "*" && r.Group != group {
			continue
		}
		if version != "" && r.Version != version && !contains(r.Versions, version) {
			continue
		}
		if !r.matchesName(name) {
			continue
		}
		gk := groupKind{r.Group, r.Kind}
		if seen[gk] {
			continue
		}
		seen[gk] = true
		out = append(out, i)
	}
	return out
}

func (r Resource) matchesName(name string) bool {
	if name == r.Resource || name == strings.ToLower(r.Kind) || (r.Singular != "" && name == r.Singular) {
		return true
	}
	for _, s := range r.ShortNames {
		if name == strings.ToLower(s) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// unknownType builds the "no such type" error with suggestions.
func (c *Catalog) unknownType(typ string) error {
	arg := strings.ToLower(typ)
	base := arg
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	var close, all []string
	seen := map[string]bool{}
	for _, r := range c.resources {
		q := r.QualifiedName()
		if seen[q] {
			continue
		}
		seen[q] = true
		all = append(all, q)
		cands := append([]string{r.Resource, strings.ToLower(r.Kind)}, r.ShortNames...)
		for _, n := range cands {
			if editDistance(base, n) <= 2 || (len(base) >= 3 && strings.HasPrefix(n, base)) {
				close = append(close, q)
				break
			}
		}
	}
	sort.Strings(close)
	if len(close) > 0 {
		return fmt.Errorf("unknown resource type %q: did you mean %s?", typ, strings.Join(close, ", "))
	}
	sort.Strings(all)
	return fmt.Errorf("unknown resource type %q: the known types are %s", typ, strings.Join(all, ", "))
}

// editDistance is the Levenshtein distance, for "did you mean".
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 20
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// CRDResource turns a CRD into the catalog entry discovery would serve.
// The preferred version is the first served one in Kubernetes' version
// priority order, as the apiextensions discovery controller sorts them.
func CRDResource(c *CRDFacts) (Resource, bool) {
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
