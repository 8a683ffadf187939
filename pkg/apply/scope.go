package apply

import (
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Scope returns the namespace whose narrow capture (capture.Options
// OwnersOnly) is enough to plan p again, or "" when planning again needs
// the whole cluster.
//
// A narrow capture reads every object of the namespace and the
// cluster-scoped objects they depend on (pkg/capture, scope.go); what it
// cannot see are namespaced objects of other namespaces. Those can join
// the cascade only as dependents of a cluster-scoped object that the plan
// changes, so a plan whose target is namespaced and which changes nothing
// outside the target's namespace is planned again from its namespace. A
// new dependent created since planning is in that namespace and is seen.
// Every object a step changes is among the plan's objects with its fate;
// the other steps (a controller waiting) change nothing. A cluster-scoped
// object with owners is a dependent, which the narrow capture does not
// read: its plan needs the whole cluster.
func Scope(p *plan.Plan) string {
	ns := p.Target.Namespace
	if ns == "" {
		return ""
	}
	inScope := func(r snapshot.ObjectRef, changed bool) bool {
		return r.Namespace == ns || (r.Namespace == "" && !changed)
	}
	for _, o := range p.Objects {
		if !inScope(o.Object, o.Fate != plan.FateUnchanged) {
			return ""
		}
		// A cluster-scoped dependent (of a namespaced owner, which the
		// collector never resolves, yet which blocks a foreground delete)
		// is no owner of the namespace's objects: the narrow capture does
		// not read it.
		if o.Object.Namespace == "" && len(o.Final.OwnerReferences) > 0 {
			return ""
		}
	}
	for _, b := range p.Basis {
		if !inScope(b.Object, false) {
			return ""
		}
	}
	return ns
}
