package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// A controller that runs but may not act. Removing a finalizer is a PATCH
// or an UPDATE of the object; when RBAC grants neither to the
// ServiceAccount of the controller the evidence names, every attempt gets
// 403 Forbidden and the controller, running and available, never
// finishes. This is the cause, not "the controller is not finishing": the
// fix is a grant, and it is named with the role to change. kgc claims a
// missing grant only when the input holds every binding that could grant
// it (the ClusterRoleBindings, and the RoleBindings of the object's
// namespace) and every role they refer to; otherwise it says what it
// would need.

const rbacGroup = "rbac.authorization.k8s.io"

// rbacInput is the input's RBAC for rules.Authorize.
func (r *run) rbacInput() rules.RBACInput {
	roles := r.d.roleMap()
	return rules.RBACInput{
		Role:         func(kind, ns, name string) *snapshot.Object { return roles[kind+"/"+ns+"/"+name] },
		ClusterRoles: r.ix.ofKind(rbacGroup, "ClusterRole"),
		Bindings:     append(slices.Clip(r.ix.ofKind(rbacGroup, "ClusterRoleBinding")), r.ix.ofKind(rbacGroup, "RoleBinding")...),
	}
}

// rbacMissing names the RBAC types whose objects the input lacks for a
// request in namespace ns ("" for a cluster-scoped resource): any of
// them could hold the grant. Every cluster has ClusterRoles and
// ClusterRoleBindings (the system: ones): an input without any has not
// read them, whatever its catalog says.
func (r *run) rbacMissing(ns string) []string {
	kinds := []string{"ClusterRoleBinding", "ClusterRole"}
	if ns != "" {
		// A Role a RoleBinding names but the input lacks is
		// Access.Unresolved.
		kinds = append(kinds, "RoleBinding")
	}
	var out []string
	for _, k := range kinds {
		res, _, ok := r.ix.cat.Resource(rbacGroup, k)
		if !ok || !res.Covers(ns) || k != "RoleBinding" && len(r.ix.ofKind(rbacGroup, k)) == 0 || k == "RoleBinding" && !r.holdsRoleBindings(ns) {
			name := strings.ToLower(k) + "s"
			if k == "RoleBinding" {
				name += " in namespace " + ns
			}
			out = append(out, name)
		}
	}
	return out
}

// holdsRoleBindings reports whether the input shows namespace ns's
// RoleBindings. A live capture listed them (Covers); a dump may hold
// some namespaces' objects and not others', so it shows them only
// through one of them.
func (r *run) holdsRoleBindings(ns string) bool {
	if r.ix.snap.Source.Type != "files" {
		return true
	}
	for _, b := range r.ix.ofKind(rbacGroup, "RoleBinding") {
		if b.Metadata.Namespace == ns {
			return true
		}
	}
	return false
}

// runningWorkload is the first workload among refs that runs: not going
// away, and not known to have no available pod.
func (r *run) runningWorkload(refs []snapshot.ObjectRef) *snapshot.Object {
	for _, ref := range refs {
		w := r.ix.byUID(ref.UID)
		if w == nil || !slices.ContainsFunc(workloadKinds, func(gk [2]string) bool { return gk[1] == w.Kind && gk[1] != "Pod" }) || r.going(w) {
			continue
		}
		if n := available(w); n == nil || *n > 0 {
			return w
		}
	}
	return nil
}

// finalizerRequest is the request that removes a finalizer of o.
func (r *run) finalizerRequest(o *snapshot.Object) (rules.AccessRequest, bool) {
	res, ok := r.ix.resource(o.APIVersion, o.Kind)
	if !ok || res.Resource == "" {
		return rules.AccessRequest{}, false
	}
	req := rules.AccessRequest{Verbs: rules.FinalizerVerbs, Group: res.Group, Resource: res.Resource}
	if res.Namespaced {
		req.Namespace = o.Metadata.Namespace
	}
	return req, true
}

// rbacCause checks, for a finalizer whose controller the evidence names
// and that runs, whether RBAC lets its ServiceAccount remove the
// finalizer. A denial becomes the root cause (controller-forbidden); an
// input without the RBAC to tell adds what kgc would need.
func (r *run) rbacCause(o *snapshot.Object, f string, a *attribution) {
	if a.reason != ReasonControllerNotFinishing && a.reason != ReasonControllerPending {
		return
	}
	w := r.runningWorkload(a.related)
	req, ok := r.finalizerRequest(o)
	if w == nil || !ok || serviceAccountOf(w) == "" {
		return
	}
	saNS, saN, _ := strings.Cut(serviceAccountOf(w), "/")
	what := strings.Join(req.Verbs, " or ") + " " + qualifiedRes(req)
	acc := rules.Authorize(r.rbacInput(), saNS, saN, req)
	if acc.Allowed {
		return
	}
	if missing := r.rbacMissing(req.Namespace); len(missing) > 0 {
		a.message += "; whether RBAC lets " + saName(serviceAccountOf(w)) + " (which " + w.Ref().String() + " runs as) " + what + " is unknown: the input holds no " +
			strings.Join(missing, ", no ") + ", which kgc would need to tell"
		a.remedies = append(a.remedies, canIRemedy(saNS, saN, req))
		return
	}
	if un := acc.Unresolved(); len(un) > 0 {
		a.message += "; whether RBAC lets " + saName(serviceAccountOf(w)) + " " + what + " is unknown: " + un[0].Binding.Ref().String() + " grants it " +
			snapshot.KubectlName(un[0].RoleRef.Kind, roleNamespace(un[0]), un[0].RoleRef.Name) + ", which is not in the input"
		a.remedies = append(a.remedies, canIRemedy(saNS, saN, req))
		return
	}
	r.forbidden(o, f, w, req, acc, a)
}

// forbidden rewrites an attribution whose running controller RBAC forbids
// to remove the finalizer: the cause, the bindings it has, the grant.
func (r *run) forbidden(o *snapshot.Object, f string, w *snapshot.Object, req rules.AccessRequest, acc rules.Access, a *attribution) {
	sa := serviceAccountOf(w)
	saNS, saN, _ := strings.Cut(sa, "/")
	where := "cluster-wide"
	if req.Namespace != "" {
		where = "in namespace " + req.Namespace
	}
	runs := a.att.Controller + " runs (" + w.Ref().String() + ")"
	if a.att.Controller == "" || a.att.Controller == w.Ref().String() {
		runs = w.Ref().String() + " runs"
	}
	a.reason = ReasonControllerForbidden
	a.message = runs + " as " + saName(sa) + ", but RBAC grants that ServiceAccount neither " + strings.Join(req.Verbs, " nor ") + " on " +
		qualifiedRes(req) + " " + where + ": removing " + f + " is a PATCH or an UPDATE of " + o.Ref().String() + ", which the API server refuses it (403 Forbidden: User \"" +
		rules.ServiceAccountUser(saNS, saN) + "\" cannot patch resource \"" + req.Resource + "\"), so it fails on every attempt while running; " + boundWords(acc, req)
	fix := roleToFix(acc)
	if fix != nil {
		a.related = appendRef(appendRef(a.related, fix.Binding.Ref()), fix.Role.Ref())
	}
	a.related = appendRef(a.related, snapshot.ObjectRef{APIVersion: "v1", Kind: "ServiceAccount", Namespace: saNS, Name: saN})
	a.remedies = append(grantRemedies(saNS, saN, req, fix), a.remedies...)
}

// boundWords says what the ServiceAccount's bindings grant on the
// resource.
func boundWords(acc rules.Access, req rules.AccessRequest) string {
	var parts []string
	for _, b := range acc.Bound {
		if !b.Direct && len(b.Verbs) == 0 {
			// A group's binding that grants nothing on the resource.
			continue
		}
		s := b.Binding.Ref().String() + " grants it " + snapshot.KubectlName(b.RoleRef.Kind, roleNamespace(b), b.RoleRef.Name)
		switch {
		case !b.Applies:
			s += " in namespace " + b.Binding.Metadata.Namespace + " only"
		case len(b.Verbs) > 0:
			s += ": " + strings.Join(b.Verbs, ", ") + " on " + req.Resource
		default:
			s += ": nothing on " + req.Resource
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "no binding in the input names it"
	}
	return strings.Join(parts, "; ")
}

// roleToFix is the role to extend: the role of an applying binding that
// names the ServiceAccount itself and already has a rule on the
// resource, else the first such role. Never a role granted to a group
// (every ServiceAccount would gain the verbs), a system: role (the API
// server reconciles them), nor an aggregated ClusterRole (the
// aggregation controller rewrites its rules).
func roleToFix(acc rules.Access) *rules.BoundRole {
	var first *rules.BoundRole
	for i := range acc.Bound {
		b := &acc.Bound[i]
		if !b.Applies || !b.Direct || b.Role == nil || b.Aggregated || strings.HasPrefix(b.RoleRef.Name, "system:") {
			continue
		}
		if len(b.Verbs) > 0 {
			return b
		}
		if first == nil {
			first = b
		}
	}
	return first
}

func roleNamespace(b rules.BoundRole) string {
	if b.RoleRef.Kind == "Role" {
		return b.Binding.Metadata.Namespace
	}
	return ""
}

// qualifiedRes is "persistentvolumes" or "buckets.example.com", as
// kubectl create role --resource takes it.
func qualifiedRes(req rules.AccessRequest) string {
	if req.Group == "" {
		return req.Resource
	}
	return req.Resource + "." + req.Group
}

// grantRemedies: add the verbs to the role the ServiceAccount is bound
// to, or bind a new role granting them.
func grantRemedies(saNS, saN string, req rules.AccessRequest, fix *rules.BoundRole) []Remedy {
	res := qualifiedRes(req)
	verbs := strings.Join(req.Verbs, ",")
	var out []Remedy
	if fix != nil {
		typ := strings.ToLower(fix.RoleRef.Kind)
		ns := ""
		if fix.RoleRef.Kind == "Role" {
			ns = " -n " + fix.Role.Metadata.Namespace
		}
		rule := fmt.Sprintf(`{"apiGroups":[%q],"resources":[%q],"verbs":["%s"]}`, req.Group, req.Resource, strings.Join(req.Verbs, `","`))
		out = append(out, Remedy{Action: ActionGrantRBAC,
			Description: "Grant " + saName(saNS+"/"+saN) + " " + strings.Join(req.Verbs, " and ") + " on " + res + ": add them to " + fix.Role.Ref().String() + ", which " + fix.Binding.Ref().String() + " binds it to; its controller then removes the finalizer on its next retry",
			Command:     "kubectl patch " + typ + " " + fix.RoleRef.Name + ns + ` --type=json -p '[{"op":"add","path":"/rules/-","value":` + rule + `}]'`,
			Risk:        "every subject bound to " + fix.Role.Ref().String() + " may then " + strings.Join(req.Verbs, " and ") + " " + res + " objects; whatever installed the role (its Helm chart, its operator) may revert the change on its next upgrade: fix it there too"})
	}
	name := saN + "-" + strings.Join(req.Verbs, "-") + "-" + req.Resource
	bind := "kubectl create clusterrolebinding " + name + " --clusterrole=" + name + " --serviceaccount=" + saNS + ":" + saN
	scope := "every " + res + " object, cluster-wide"
	if req.Namespace != "" {
		bind = "kubectl create rolebinding " + name + " -n " + req.Namespace + " --clusterrole=" + name + " --serviceaccount=" + saNS + ":" + saN
		scope = "every " + res + " object in namespace " + req.Namespace + " (bind it with a ClusterRoleBinding instead to grant it in every namespace)"
	}
	out = append(out, Remedy{Action: ActionGrantRBAC,
		Description: "Grant " + saName(saNS+"/"+saN) + " " + strings.Join(req.Verbs, " and ") + " on " + res + " with a role of its own; its controller then removes the finalizer on its next retry",
		Command:     "kubectl create clusterrole " + name + " --verb=" + verbs + " --resource=" + res + " && " + bind,
		Risk:        "the ServiceAccount may then change " + scope + ": what its token can do grows, and so does what a stolen token can"})
	return out
}

// canIRemedy asks the API server what the input cannot tell.
func canIRemedy(saNS, saN string, req rules.AccessRequest) Remedy {
	cmd := "kubectl auth can-i " + req.Verbs[0] + " " + qualifiedRes(req) + " --as=" + rules.ServiceAccountUser(saNS, saN)
	if req.Namespace != "" {
		cmd += " -n " + req.Namespace
	}
	return Remedy{Action: ActionFixController, Description: "Ask the API server whether " + saName(saNS+"/"+saN) + " may " + req.Verbs[0] + " " + qualifiedRes(req) + ": a \"no\" means its controller cannot remove the finalizer, and the fix is an RBAC grant",
		Command: cmd}
}

// csiSidecarForbidden explains the finalizer a CSI driver's sidecar
// removes — the external-provisioner's on a PersistentVolume
// (rules.VolumeReclaimer names the driver), the external-attacher's on a
// VolumeAttachment (its attacher) — when the driver's controller runs
// (rules.ProvisionerWorkloads) but RBAC forbids it to patch the object:
// the storage is deleted or detached, the finalizer never removed. It
// reports false, changing nothing, when RBAC does not show that.
func (r *run) csiSidecarForbidden(o *snapshot.Object, f string, info rules.FinalizerInfo, b *Blocker) bool {
	driver, sidecar := csiSidecarDriver(r, o, f)
	if driver == "" {
		return false
	}
	ws := rules.ProvisionerWorkloads(driver, r.workloads("all", func(*snapshot.Object) bool { return true }))
	if len(ws) == 0 {
		return false
	}
	who := ws[0].Ref().String()
	a := attribution{att: Attribution{Evidence: EvidenceWellKnown, Confidence: ConfidenceMedium, Controller: who,
		Detail:  wellKnownDetail(f, info) + "; " + who + " carries the name of driver " + driver + ", whose controller runs its " + sidecar,
		Objects: refsOf(ws)}, reason: ReasonControllerPending, related: refsOf(ws)}
	r.rbacCause(o, f, &a)
	if a.reason != ReasonControllerForbidden {
		return false
	}
	b.Attribution, b.Controller = &a.att, who
	b.WaitingFor = who + " (driver " + driver + "'s " + sidecar + ") to remove " + f + " once " + info.Condition
	b.RootCause = r.addLeaf(leaf{obj: o, rc: RootCause{Object: o.Ref(), Finalizer: f, Reason: a.reason, RemovedBy: info.RemovedBy, Controller: who, Attribution: b.Attribution,
		Message: a.message, Related: a.related}, extra: a.remedies}, o, nil)
	return true
}

// csiSidecarDriver is the CSI driver whose sidecar removes finalizer f of
// o, and which sidecar; "" when f is no CSI sidecar's.
func csiSidecarDriver(r *run, o *snapshot.Object, f string) (driver, sidecar string) {
	switch {
	case f == rules.FinalizerExtProv && isKind(o, "", "PersistentVolume") && o.Facts != nil && o.Facts.PV != nil:
		return rules.VolumeReclaimer(o.Facts.PV, r.ix.snap.Source.ServerVersion).External, "external-provisioner"
	case strings.HasPrefix(f, "external-attacher/") && isKind(o, "storage.k8s.io", "VolumeAttachment") &&
		o.Facts != nil && o.Facts.Volume != nil && o.Facts.Volume.Attachment != nil:
		return o.Facts.Volume.Attachment.Attacher, "external-attacher"
	}
	return "", ""
}
