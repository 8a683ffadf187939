package capture

import (
	"slices"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// A narrow capture (Options.OwnersOnly with Options.Namespace) reads what
// a question about the objects of one namespace depends on, and not the
// rest of the cluster: apply's pre-flight uses it to plan again in a few
// dozen requests on a cluster of any size.
//
// What a namespaced object's fate depends on is bounded by the owner
// model: an owner reference never leaves its dependent's namespace (the
// collector resolves a namespaced owner in the dependent's namespace), so
// every namespaced owner and dependent of an object in the namespace is in
// the namespace too; a cluster-scoped owner can be of any kind, and is
// named by kind in the reference. The controllers that finish deletions
// read the kinds that carry facts (rules.PlanFacts: nodes for pods,
// volumes for claims, CRDs for custom resources, APIServices for
// namespaces), all cluster-scoped ones of which are therefore read; the
// facts only why-stuck reads (RBAC, CSI drivers) are not. So a narrow
// capture lists, in rounds:
//
//  1. every namespaced type, in the namespace; every cluster-scoped type
//     whose facts a plan reads, in full;
//  2. then every cluster-scoped type that an object read so far names as
//     an owner's kind and that is not read yet, until no new kind is named.
//
// The other cluster-scoped types stay in the catalog, not listed, without
// an error: nothing read depends on them. A namespaced object of another
// namespace can only matter through a cluster-scoped owner that the
// question changes, and a caller that changes one must not narrow (apply
// captures the whole cluster then).

// narrow reports whether opts ask for a narrow capture.
func (o Options) narrow() bool { return o.OwnersOnly && o.Namespace != "" }

// firstRound returns the indices of the types a capture lists before it
// has read any object: every listable type, or for a narrow capture the
// namespaced ones and the cluster-scoped ones with facts.
func firstRound(res []snapshot.Resource, narrow bool) []int {
	var out []int
	for i, r := range res {
		if r.HasVerb("list") && (!narrow || r.Namespaced || rules.PlanFacts(r.Group, r.Kind)) {
			out = append(out, i)
		}
	}
	return out
}

// ownerRound returns the indices of the listable cluster-scoped types not
// tried yet whose kind an object read names as an owner's.
func ownerRound(res []snapshot.Resource, tried []bool, read []listResult) []int {
	named := map[[2]string]bool{}
	for _, r := range read {
		for _, o := range r.objs {
			for _, ref := range o.Metadata.OwnerReferences {
				named[[2]string{snapshot.GroupOf(ref.APIVersion), ref.Kind}] = true
			}
		}
	}
	var out []int
	for i, r := range res {
		if !tried[i] && !r.Namespaced && r.HasVerb("list") && named[[2]string{r.Group, r.Kind}] {
			out = append(out, i)
		}
	}
	return out
}

// Narrow returns what a narrow capture of namespace ns would have read
// from a cluster whose whole state is snap: the same rounds, applied to
// the snapshot's catalog and objects. It is how tests show that a
// question asked of a narrow capture gets the answer it gets from the
// whole cluster.
func Narrow(snap *snapshot.Snapshot, ns string) *snapshot.Snapshot {
	res := slices.Clone(snap.Resources)
	byType := map[[2]string][]snapshot.Object{}
	for _, o := range snap.Objects {
		k := [2]string{snapshot.GroupOf(o.APIVersion), o.Kind}
		byType[k] = append(byType[k], o)
	}
	read := make([]listResult, len(res))
	tried := make([]bool, len(res))
	serve := func(round []int) {
		for _, i := range round {
			tried[i] = true
			r := &res[i]
			if !r.Listed {
				continue
			}
			read[i].listed = true
			for _, o := range byType[[2]string{r.Group, r.Kind}] {
				if !r.Namespaced || o.Metadata.Namespace == ns {
					read[i].objs = append(read[i].objs, o)
				}
			}
			if r.Namespaced {
				read[i].namespaces = []string{ns}
			}
		}
	}
	serve(firstRound(res, true))
	for round := ownerRound(res, tried, read); len(round) > 0; round = ownerRound(res, tried, read) {
		serve(round)
	}
	out := *snap
	out.Resources, out.Objects = res, nil
	for i := range res {
		if !tried[i] {
			res[i].Listed, res[i].Namespaces, res[i].Count, res[i].Error = false, nil, 0, ""
			continue
		}
		res[i].Namespaces, res[i].Count = read[i].namespaces, len(read[i].objs)
		out.Objects = append(out.Objects, read[i].objs...)
	}
	snapshot.SortObjects(out.Objects)
	out.Source.Namespace = ns
	return &out
}
