package diagnose

import (
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// The chain below a stuck object. An object held by its own controller's
// finalizer is often waiting for what it owns or references (Cluster
// API's Cluster for its infrastructure and control-plane objects, an
// operator's object for the ones it created) to finish deleting, and
// those are held by their controllers' finalizers in turn. The root
// cause is the deepest blocker: kgc follows owner references downwards
// and the spec.*Ref references the snapshot keeps, to terminating
// objects held by finalizers.

// heldBelow are the terminating objects, held by finalizers, that o owns
// or references from its spec, in contract order.
func (r *run) heldBelow(o *snapshot.Object) []*snapshot.Object {
	var out []*snapshot.Object
	add := func(d *snapshot.Object) {
		if d == nil || d == o || !d.Terminating() || len(d.Metadata.Finalizers) == 0 || r.path[d.Metadata.UID] {
			return
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if n := r.ix.node(o.Metadata.UID); n != nil {
		for _, d := range observed(n.Dependents) {
			add(d)
		}
	}
	if o.Facts != nil {
		for _, ref := range o.Facts.Refs {
			ns := ref.Namespace
			if ns == "" {
				ns = o.Metadata.Namespace
			}
			group := snapshot.GroupOf(ref.APIVersion)
			if ref.APIVersion == "" {
				group = snapshot.GroupOf(o.APIVersion)
			}
			d := r.ix.byName(group, ref.Kind, ns, ref.Name)
			if d == nil {
				// A cluster-scoped target.
				d = r.ix.byName(group, ref.Kind, "", ref.Name)
			}
			add(d)
		}
	}
	sortObjects(out)
	return out
}

// chainBelow explains the held objects below o as what its controller's
// cleanup waits on, and says the chain in words: "OpenStackCluster/fleet/
// prod, held by finalizer … whose controller … (controller-absent)".
func (r *run) chainBelow(o *snapshot.Object, below []*snapshot.Object, b *Blocker) string {
	var parts []string
	for _, d := range below {
		b.Blockers = append(b.Blockers, r.explainHeld(d, o, nil)...)
		b.Objects = appendRef(b.Objects, d.Ref())
		parts = append(parts, r.chainWords(d))
	}
	return strings.Join(parts, "; and ")
}

// chainWords names what holds d: the chain below it, or its root causes.
func (r *run) chainWords(d *snapshot.Object) string {
	if w, ok := r.chains[d.Metadata.UID]; ok {
		return w
	}
	s := d.Ref().String()
	var held []string
	for _, l := range r.byObject[d.Metadata.UID] {
		h := "finalizer " + l.rc.Finalizer
		if l.rc.Finalizer == "" {
			h = l.rc.RemovedBy
		}
		if l.rc.Controller != "" {
			h += " whose controller " + l.rc.Controller
		}
		held = append(held, h+" ("+l.rc.Reason+")")
	}
	if len(held) > 0 {
		s += ", held by " + strings.Join(held, ", ")
	}
	return s
}

// stuckAmong reports whether any of the leaves is stuck, not merely in
// progress.
func stuckAmong(ls []*leaf) bool {
	return slices.ContainsFunc(ls, func(l *leaf) bool { return l.rc.Reason != ReasonInProgress && l.rc.Reason != ReasonNoFinalizers })
}
