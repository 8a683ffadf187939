package snapshotio

// This file builds the catalog of offline input: what stands in for
// discovery when there is no cluster.

import (
	"fmt"
	"slices"
	"sort"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// groupKind keys what the reader keeps per type: a type is its group and
// kind, whatever version an object was read at.
type groupKind struct{ group, kind string }

// inputCatalog is the catalog of the input being built: one entry per
// group/kind, the first offered.
type inputCatalog struct {
	res   []snapshot.Resource
	index map[groupKind]int
	// fromSnapshot marks the entries a snapshot file's catalog gave.
	fromSnapshot map[groupKind]bool
}

// add adds r unless its group/kind has an entry. A type listed by one
// snapshot file is listed, whatever another file said, and in every
// namespace either file listed it in.
func (c *inputCatalog) add(r snapshot.Resource, fromSnapshot bool) {
	gk := groupKind{r.Group, r.Kind}
	if i, ok := c.index[gk]; ok {
		if fromSnapshot && r.Listed {
			c.res[i] = listedInEither(c.res[i], r)
		}
		return
	}
	c.index[gk] = len(c.res)
	if fromSnapshot {
		c.fromSnapshot[gk] = true
	}
	c.res = append(c.res, r)
}

// listedInEither is entry a once the listed entry b is merged into it:
// listed at cluster scope if either was, else in both's namespaces.
func listedInEither(a, b snapshot.Resource) snapshot.Resource {
	switch {
	case !a.Listed:
		a.Listed, a.Error, a.Namespaces = true, b.Error, slices.Clone(b.Namespaces)
	case len(a.Namespaces) == 0:
	case len(b.Namespaces) == 0:
		a.Error, a.Namespaces = "", nil
	default:
		a.Namespaces = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(a.Namespaces), b.Namespaces...))))
	}
	return a
}

// catalog gathers the snapshot files' own catalogs (live discovery)
// first, then, unless discovery is all there is, the built-in table and
// the CRDs found among the objects. Counts start at zero.
func (rd *reader) catalog(discovered bool) *inputCatalog {
	c := &inputCatalog{index: map[groupKind]int{}, fromSnapshot: map[groupKind]bool{}}
	for _, h := range rd.snapshots {
		for _, r := range h.Resources {
			c.add(r, true)
		}
	}
	if !discovered {
		for _, r := range snapshot.BuiltinResources() {
			c.add(r, false)
		}
		for i := range rd.objs.Len() {
			if f := rd.objs.At(i).Facts; f != nil && f.CRD != nil {
				if r, ok := snapshot.CRDResource(f.CRD); ok {
					c.add(r, false)
				}
			}
		}
	}
	for i := range c.res {
		c.res[i].Count = 0
	}
	return c
}

// unknownKind is a kind of the input that the catalog lacks.
type unknownKind struct {
	first int // index of its first object
	n     int // number of its objects
}

// count counts each type's objects, and returns the kinds the catalog
// lacks in the order they were first met.
func (rd *reader) count(c *inputCatalog) []unknownKind {
	var unknown []unknownKind
	at := map[groupKind]int{}
	for i := range rd.objs.Len() {
		o := rd.objs.At(i)
		g, _ := snapshot.SplitAPIVersion(o.APIVersion)
		gk := groupKind{g, o.Kind}
		if j, ok := c.index[gk]; ok {
			c.res[j].Count++
			continue
		}
		if k, ok := at[gk]; ok {
			unknown[k].n++
			continue
		}
		at[gk] = len(unknown)
		unknown = append(unknown, unknownKind{first: i, n: 1})
	}
	return unknown
}

// warnUnknownKinds warns once per unknown kind, naming its first object
// and how many there are: a dump of a thousand custom resources should
// not print a thousand lines.
func (rd *reader) warnUnknownKinds(unknown []unknownKind, discovered bool) {
	why := "no CRD for it in the input"
	if discovered {
		why = "the cluster's discovery did not serve it"
	}
	for _, u := range unknown {
		o := rd.objs.At(u.first)
		msg := fmt.Sprintf("kind %s of %s is not in the resource catalog (%s); kept, but its type is unknown", o.Kind, o.APIVersion, why)
		if u.n > 1 {
			msg += fmt.Sprintf(" (%d objects of this kind)", u.n)
		}
		rd.warnings = append(rd.warnings, snapshot.Warning{File: rd.files[rd.objFile[u.first]], Object: o.Ref().String(), Message: msg})
	}
}

// markListed sets listed on the entries no snapshot file gave. A dump
// shows a type through its objects, or through a typed list of it
// (kubectl cluster-info dump writes an empty ReplicaSetList for a
// namespace without ReplicaSets): a type with neither is "not listed", so
// owners of that type are unknown, not dangling.
func (c *inputCatalog) markListed(typedLists []groupKind) {
	typed := make(map[groupKind]bool, len(typedLists))
	for _, gk := range typedLists {
		typed[gk] = true
	}
	for i := range c.res {
		gk := groupKind{c.res[i].Group, c.res[i].Kind}
		if !c.fromSnapshot[gk] {
			c.res[i].Listed = c.res[i].Count > 0 || typed[gk]
		}
	}
}

// sorted returns the entries by group, then resource.
func (c *inputCatalog) sorted() []snapshot.Resource {
	sort.SliceStable(c.res, func(i, j int) bool {
		if c.res[i].Group != c.res[j].Group {
			return c.res[i].Group < c.res[j].Group
		}
		return c.res[i].Resource < c.res[j].Resource
	})
	return c.res
}
