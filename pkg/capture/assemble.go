package capture

import (
	"fmt"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// listResult is what listing one type gave.
type listResult struct {
	objs   []snapshot.Object
	listed bool
	// namespaces, for a listed type, are the only namespaces it was read
	// in (snapshot.Resource.Namespaces).
	namespaces []string
	// err is why the type was not listed or, listed in namespaces only,
	// why not at cluster scope.
	err error
}

// assembly builds a snapshot from discovery and the list results.
type assembly struct {
	objs     []snapshot.Object
	seen     map[string]struct{}
	warnings []snapshot.Warning
}

// assemble files the listed objects into the snapshot: each object once,
// counted under its type, the types that failed marked not listed, the
// catalog and objects in the contract's order. results[i] is the list of
// d.resources[i].
func assemble(d *discovered, results []listResult, src snapshot.Source) *snapshot.Snapshot {
	total := 0
	for _, r := range results {
		total += len(r.objs)
	}
	a := &assembly{objs: make([]snapshot.Object, 0, total), seen: make(map[string]struct{}, total), warnings: d.warnings}
	res := d.resources
	for i, r := range results {
		a.addType(&res[i], r)
	}
	snapshot.SortObjects(a.objs)
	snapshot.SortResources(res)
	return &snapshot.Snapshot{APIVersion: snapshot.APIVersion, Kind: "Snapshot", CapturedAt: d.startedAt,
		Source: src, Resources: res, Objects: a.objs, DiscoveryErrors: d.errors, Warnings: a.warnings}
}

// addType files the objects of one type and counts them in res.
func (a *assembly) addType(res *snapshot.Resource, r listResult) {
	res.Listed, res.Namespaces = r.listed, r.namespaces
	if r.err != nil {
		res.Error = r.err.Error()
	}
	if !r.listed {
		// RBAC refusals are a permission gap of the user, often dozens
		// of types: the caller sums them up (Resource.Forbidden).
		if r.err != nil && !res.Forbidden() {
			a.warnings = append(a.warnings, snapshot.Warning{Object: res.QualifiedName(), Message: fmt.Sprintf("not listed (owners of this type are unknown): %v", r.err)})
		}
		return
	}
	noUID := 0
	for _, o := range r.objs {
		if o.Metadata.UID == "" {
			noUID++
			continue
		}
		// The same object served through two resources (core and
		// events.k8s.io events share storage) is one object.
		if _, dup := a.seen[o.Metadata.UID]; dup {
			continue
		}
		a.seen[o.Metadata.UID] = struct{}{}
		res.Count++
		a.objs = append(a.objs, o)
	}
	// Objects without a UID cannot be owners or dependents. Types that
	// cannot be deleted serve views computed on the fly without one
	// (ComponentStatus, metrics.k8s.io): nothing to say about those.
	if noUID > 0 && res.HasVerb("delete") {
		a.warnings = append(a.warnings, snapshot.Warning{Object: res.QualifiedName(), Message: fmt.Sprintf("skipped %d objects without metadata.uid", noUID)})
	}
}
