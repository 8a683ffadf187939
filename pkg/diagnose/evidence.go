package diagnose

import (
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Evidence from the finalizer's API-group family. A project names its
// finalizers after the domain it registers its API groups under
// (externalsecrets.external-secrets.io/… and the group external-secrets.io),
// so the installed CRDs and APIServices of the finalizer's family are the
// project's, and its controller is the workload that may change them:
//
//  1. rbac: a workload whose ServiceAccount a (Cluster)RoleBinding lets
//     update or patch the stuck object's type (exact) or every resource
//     of a group of the family;
//  2. install-labels: a workload sharing a standard installation label
//     (app.kubernetes.io/part-of|instance|name, helm.sh/chart,
//     cluster.x-k8s.io/provider, a project's managed-by) with a CRD of
//     the family.
//
// A ServiceAccount with such a grant whose namespace is being deleted,
// and no workload left running as it, is the controller gone with its
// namespace.

// Evidence kinds from the finalizer's family.
const (
	EvidenceRBAC          = "rbac"
	EvidenceInstallLabels = "install-labels"
)

// candidate is one workload (or, gone, only its ServiceAccount) that
// evidence names as a finalizer's controller.
type candidate struct {
	w      *snapshot.Object
	sa     string // namespace/name
	exact  bool
	detail string
	on     []snapshot.ObjectRef
}

// familyGroups are the API groups of installed CRDs and APIServices that
// belong to family, and the stuck object's own when it does, sorted.
func (r *run) familyGroups(o *snapshot.Object, family []string) []string {
	var out []string
	add := func(g string) {
		if g != "" && rules.InFamily(g, family) != "" && !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	add(snapshot.GroupOf(o.APIVersion))
	for _, c := range r.ix.ofKind("apiextensions.k8s.io", "CustomResourceDefinition") {
		if c.Facts != nil && c.Facts.CRD != nil {
			add(c.Facts.CRD.Group)
		}
	}
	for _, a := range r.ix.ofKind("apiregistration.k8s.io", "APIService") {
		if a.Facts != nil && a.Facts.APIService != nil {
			add(a.Facts.APIService.Group)
		}
	}
	slices.Sort(out)
	return out
}

// serviceAccountOf is the namespace/name a workload's pods run as, "" when
// its spec was not read.
func serviceAccountOf(w *snapshot.Object) string {
	if w.Facts == nil || w.Facts.Workload == nil {
		return ""
	}
	sa := w.Facts.Workload.ServiceAccount
	if sa == "" {
		sa = "default"
	}
	return w.Metadata.Namespace + "/" + sa
}

// saName names a serviceAccountOf key in a sentence as every command
// names an object (snapshot.KubectlName).
func saName(sa string) string {
	ns, name, _ := strings.Cut(sa, "/")
	return snapshot.KubectlName("ServiceAccount", ns, name)
}

// roleMap is the input's Roles and ClusterRoles by kind/namespace/name,
// built once per Diagnoser: why-stuck -A asks for every stuck object.
func (d *Diagnoser) roleMap() map[string]*snapshot.Object {
	if d.roles != nil {
		return d.roles
	}
	d.roles = map[string]*snapshot.Object{}
	for _, k := range []string{"ClusterRole", "Role"} {
		for _, x := range d.ix.ofKind("rbac.authorization.k8s.io", k) {
			d.roles[k+"/"+x.Metadata.Namespace+"/"+x.Metadata.Name] = x
		}
	}
	return d.roles
}

// rbacCandidates are the ServiceAccounts RBAC lets update the object's
// type or a resource of one of groups, with the workloads running as
// them; exact grants first.
func (r *run) rbacCandidates(o *snapshot.Object, groups []string) []candidate {
	roles := r.d.roleMap()
	plural := ""
	if res, ok := r.ix.resource(o.APIVersion, o.Kind); ok {
		plural = res.Resource
	}
	objGroup := snapshot.GroupOf(o.APIVersion)
	bySA := map[string]*candidate{}
	var order []string
	for _, k := range []string{"ClusterRoleBinding", "RoleBinding"} {
		for _, b := range r.ix.ofKind("rbac.authorization.k8s.io", k) {
			if b.Facts == nil || b.Facts.RBAC == nil || b.Facts.RBAC.RoleRef == nil {
				continue
			}
			ref := b.Facts.RBAC.RoleRef
			roleNS := ""
			if ref.Kind == "Role" {
				roleNS = b.Metadata.Namespace
			}
			role := roles[ref.Kind+"/"+roleNS+"/"+ref.Name]
			if role == nil || role.Facts == nil || role.Facts.RBAC == nil {
				continue
			}
			exact, grant := roleGrant(role.Facts.RBAC.Rules, groups, objGroup, plural)
			if grant == "" {
				continue
			}
			for _, s := range b.Facts.RBAC.Subjects {
				if s.Kind != "ServiceAccount" {
					continue
				}
				ns := s.Namespace
				if ns == "" {
					ns = b.Metadata.Namespace
				}
				sa := ns + "/" + s.Name
				c, ok := bySA[sa]
				if !ok {
					c = &candidate{sa: sa}
					bySA[sa] = c
					order = append(order, sa)
				}
				if c.detail == "" || exact && !c.exact {
					c.exact = exact
					c.detail = saName(sa) + " may update " + grant + " (" + b.Ref().String() + " grants " + role.Ref().String() + ")"
					c.on = []snapshot.ObjectRef{b.Ref(), role.Ref()}
				}
			}
		}
	}
	var out []candidate
	for _, sa := range order {
		c := *bySA[sa]
		ws := r.workloads("sa:"+sa, func(w *snapshot.Object) bool { return serviceAccountOf(w) == sa })
		if len(ws) == 0 {
			out = append(out, c)
			continue
		}
		for _, w := range ws {
			cw := c
			cw.w = w
			out = append(out, cw)
		}
	}
	slices.SortStableFunc(out, func(a, b candidate) int {
		if a.exact != b.exact {
			if a.exact {
				return -1
			}
			return 1
		}
		return 0
	})
	return out
}

// roleGrant says what a role's rules let its subjects update of the
// object's type (plural, in objGroup) or of groups: exact when a rule names
// the type itself, grant the words for it ("" for nothing).
func roleGrant(roleRules []snapshot.PolicyRule, groups []string, objGroup, plural string) (exact bool, grant string) {
	for _, rule := range roleRules {
		for _, g := range groups {
			res := ""
			if g == objGroup {
				res = plural
			}
			e, ok := rules.RuleGrants(rule, g, res)
			switch {
			case e && !exact:
				exact, grant = true, plural+"."+g
			case ok && grant == "":
				grant = "the resources of " + g
			}
		}
	}
	return exact, grant
}

// labelCandidates are the workloads sharing an installation label with a
// CRD of groups.
func (r *run) labelCandidates(groups []string) []candidate {
	var out []candidate
	for _, c := range r.ix.ofKind("apiextensions.k8s.io", "CustomResourceDefinition") {
		if c.Facts == nil || c.Facts.CRD == nil || !slices.Contains(groups, c.Facts.CRD.Group) || len(c.Metadata.Labels) == 0 {
			continue
		}
		for _, w := range r.workloads("labels:"+c.Metadata.UID, func(w *snapshot.Object) bool {
			return rules.SharedInstallLabel(c.Metadata.Labels, w.Metadata.Labels) != ""
		}) {
			if slices.ContainsFunc(out, func(x candidate) bool { return x.w == w }) {
				continue
			}
			out = append(out, candidate{w: w, detail: w.Ref().String() + " carries " + rules.SharedInstallLabel(c.Metadata.Labels, w.Metadata.Labels) + " as " + c.Ref().String() + " does: they are one installation",
				on: []snapshot.ObjectRef{c.Ref(), w.Ref()}})
		}
	}
	return out
}

// byFamily names a finalizer's controller from its API-group family,
// trying its most specific domain first: openstackcluster.infrastructure.
// cluster.x-k8s.io is CAPO's before it is Cluster API's.
func (r *run) byFamily(o *snapshot.Object, f string) (attribution, bool) {
	family := rules.FinalizerFamily(f)
	for i := range family {
		groups := r.familyGroups(o, family[:i+1])
		if len(groups) == 0 {
			continue
		}
		if a, ok := r.byFamilyGroups(o, f, family, groups); ok {
			return a, true
		}
	}
	return attribution{}, false
}

// byFamilyGroups names the controller that may change groups.
func (r *run) byFamilyGroups(o *snapshot.Object, f string, family, groups []string) (attribution, bool) {
	evidence, cands := EvidenceRBAC, r.rbacCandidates(o, groups)
	if !slices.ContainsFunc(cands, func(c candidate) bool { return c.w != nil || r.namespaceGoing(strings.SplitN(c.sa, "/", 2)[0]) }) {
		evidence, cands = EvidenceInstallLabels, r.labelCandidates(groups)
	}
	if len(cands) == 0 {
		return attribution{}, false
	}
	var live, dying []*snapshot.Object
	var gone []candidate
	for _, c := range cands {
		switch {
		case c.w == nil && r.namespaceGoing(strings.SplitN(c.sa, "/", 2)[0]):
			gone = append(gone, c)
		case c.w == nil:
		case c.w.Terminating() || r.namespaceGoing(c.w.Metadata.Namespace):
			dying = append(dying, c.w)
		default:
			live = append(live, c.w)
		}
	}
	first := cands[0]
	for _, c := range cands {
		if c.w != nil && len(live) > 0 && c.w == live[0] || len(live) == 0 && c.w != nil && len(dying) > 0 && c.w == dying[0] {
			first = c
			break
		}
	}
	a := attribution{att: Attribution{Evidence: evidence, Confidence: ConfidenceMedium,
		Detail:  "the finalizer's API-group family " + strings.Join(family, " / ") + " holds the installed group(s) " + strings.Join(groups, ", ") + "; " + first.detail,
		Objects: first.on}}
	if evidence == EvidenceRBAC && first.exact {
		a.att.Confidence = ConfidenceHigh
	}
	a.att.Objects = append(a.att.Objects, refsOf(append(append([]*snapshot.Object{}, live...), dying...))...)
	switch {
	case len(live) > 0 || len(dying) > 0:
		w := live
		if len(w) == 0 {
			w = dying
		}
		a.att.Controller = w[0].Ref().String()
		a.fill(r, o, f, a.att.Controller, live, dying, true, "", "", "")
	case len(gone) > 0:
		ns := strings.SplitN(gone[0].sa, "/", 2)[0]
		a.att.Controller = "the controller running as " + saName(gone[0].sa)
		a.reason = ReasonControllerTerminating
		a.related = gone[0].on
		a.message = a.att.Controller + " is gone with its namespace: it lived in " + ns + ", which is being deleted, and no workload runs as it any more, so nothing will remove " + f
		a.remedies = []Remedy{{Action: ActionFixController, Description: "Reinstall the controller that ran as " + saName(gone[0].sa) + " (outside namespace " + ns + ", or once it is gone) so that it finishes its cleanup and removes " + f + " itself"}}
	default:
		return attribution{}, false
	}
	r.suffixObject(o, f, groups, &a)
	return a, true
}

// namespaceGoing reports whether namespace ns is being deleted.
func (r *run) namespaceGoing(ns string) bool {
	n := r.ix.byName("", "Namespace", "", ns)
	return n != nil && n.Terminating()
}

// suffixObject adds the object a finalizer's suffix names
// ("…/ces-NAME": a ClusterExternalSecret NAME of the family's groups) as
// what the controller's cleanup is about.
func (r *run) suffixObject(o *snapshot.Object, f string, groups []string, a *attribution) {
	_, suffix, ok := strings.Cut(f, "/")
	if !ok || suffix == "" {
		return
	}
	var best *snapshot.Object
	for _, c := range r.ix.ofKind("apiextensions.k8s.io", "CustomResourceDefinition") {
		if c.Facts == nil || c.Facts.CRD == nil || !slices.Contains(groups, c.Facts.CRD.Group) {
			continue
		}
		for _, x := range r.ix.ofKind(c.Facts.CRD.Group, c.Facts.CRD.Kind) {
			n := x.Metadata.Name
			if x == o || suffix != n && !strings.HasSuffix(suffix, "-"+n) {
				continue
			}
			if best == nil || len(n) > len(best.Metadata.Name) {
				best = x
			}
		}
	}
	if best == nil {
		return
	}
	a.related = appendRef(a.related, best.Ref())
	a.message += "; the finalizer's suffix names " + best.Ref().String() + ", whose cleanup it is about"
	a.remedies = append(a.remedies, Remedy{Action: ActionFixController, Description: "Read the status and events of " + best.Ref().String() + ", which the finalizer names",
		Command: "kubectl describe " + r.ix.kubectlTarget(best.Ref())})
}
