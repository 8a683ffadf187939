package diagnose

import (
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Who removes a finalizer, and how kgc knows. A third-party finalizer's
// controller is named only on evidence, tried in this order:
//
//  1. well-known: kgc's table of finalizers (rules.LookupFinalizerOn),
//     Kubernetes' own and those of widely installed projects, each with
//     its source; for the latter, the workloads the project publishes its
//     controller as are looked for by exact name.
//  2. crd-owner: the CRD serving the object, and that CRD's owner
//     references: the package that installed the CRD (a Crossplane
//     ProviderRevision, an operator's own object) runs its controller, and
//     an owner that is gone is itself the root cause.
//  3. workload-label: a Deployment, StatefulSet or DaemonSet whose name or
//     label values equal the finalizer's full domain (or whose label keys
//     are under it). A shared word ("acme" in acme-controller for
//     finalizers.acme.io) is not evidence.
//
// Otherwise the diagnosis says that no controller for the finalizer was
// found in the input, and never points at a workload's logs.

// Evidence kinds and confidences of an Attribution.
const (
	EvidenceWellKnown     = "well-known"
	EvidenceCRDOwner      = "crd-owner"
	EvidenceWorkloadLabel = "workload-label"
	EvidenceNone          = "none"
	// EvidenceClass: a class field of the object (a Service's
	// loadBalancerClass) names the implementation that owns it.
	EvidenceClass = "class-object"

	ConfidenceHigh   = "high"
	ConfidenceMedium = "medium"
	ConfidenceNone   = "none"
)

// attribution is the evidence for who removes finalizer f of o, and what
// the input says about whether that controller runs.
type attribution struct {
	att      Attribution
	reason   string
	message  string
	related  []snapshot.ObjectRef
	remedies []Remedy
}

// attribute finds the evidence for the controller of a finalizer kgc does
// not simulate.
func (r *run) attribute(o *snapshot.Object, f string, info rules.FinalizerInfo) attribution {
	if info.Ecosystem && len(info.Workloads) > 0 && !info.ByDomain {
		return r.byPublishedName(o, f, info)
	}
	if a, ok := r.byCRDOwner(o, f, info); ok {
		return a
	}
	if a, ok := r.byDomain(o, f); ok {
		return a
	}
	if a, ok := r.byFamily(o, f); ok {
		return a
	}
	if info.ByDomain {
		return r.byProject(o, f, info)
	}
	if info.Ecosystem {
		// Known, but where it runs varies with the install.
		return attribution{att: Attribution{Evidence: EvidenceWellKnown, Confidence: ConfidenceHigh, Controller: info.RemovedBy, Detail: wellKnownDetail(f, info)},
			reason:  ReasonControllerUnknown,
			message: info.RemovedBy + " removes " + f + " (" + info.Source + "), but nothing in the input shows where it runs, so whether it runs is unknown",
			remedies: []Remedy{{Action: ActionFixController, Description: "Check that " + info.RemovedBy + " runs and what it reports about " + o.Ref().String(),
				Command: "kubectl describe " + r.ix.kubectlTarget(o.Ref())}}}
	}
	return r.notFound(o, f)
}

// going reports whether a workload is going away: being deleted itself,
// or in a namespace being deleted.
func (r *run) going(w *snapshot.Object) bool {
	return w.Terminating() || r.namespaceGoing(w.Metadata.Namespace)
}

// available is how many of a workload's pods are available; nil when its
// status was not read.
func available(w *snapshot.Object) *int32 {
	if w.Facts == nil || w.Facts.Workload == nil {
		return nil
	}
	return w.Facts.Workload.Available
}

func wellKnownDetail(f string, info rules.FinalizerInfo) string {
	return "kgc's table of well-known finalizers: " + f + " is removed by " + info.RemovedBy + " (source: " + info.Source + ")"
}

// byPublishedName looks for an ecosystem controller under the names its
// project publishes it as.
func (r *run) byPublishedName(o *snapshot.Object, f string, info rules.FinalizerInfo) attribution {
	a := attribution{att: Attribution{Evidence: EvidenceWellKnown, Confidence: ConfidenceHigh, Controller: info.RemovedBy, Detail: wellKnownDetail(f, info)}}
	var live, dying []*snapshot.Object
	for _, w := range r.workloads("published:"+strings.Join(info.Workloads, ","), func(w *snapshot.Object) bool {
		return slices.Contains(info.Workloads, w.Metadata.Name) || slices.Contains(info.Workloads, w.Metadata.Labels["app.kubernetes.io/name"])
	}) {
		if r.going(w) {
			dying = append(dying, w)
		} else {
			live = append(live, w)
		}
	}
	a.att.Objects = refsOf(append(append([]*snapshot.Object{}, live...), dying...))
	names := strings.Join(info.Workloads, ", ")
	a.fill(r, o, f, info.RemovedBy, live, dying, r.workloadsListed(),
		"no Deployment, StatefulSet or DaemonSet named "+names+" is in the input: it is not installed, or runs outside the cluster",
		"Reinstall "+info.RemovedBy+" (published as "+names+") so that it finishes its cleanup and removes "+f+" itself",
		"kubectl get deployments,statefulsets,daemonsets -A | grep -w -e "+strings.Join(info.Workloads, " -e "))
	return a
}

// fill states the controller's presence: running (its logs are named, as
// the evidence names it), only being deleted, unknown, or absent.
func (a *attribution) fill(r *run, o *snapshot.Object, f, who string, live, dying []*snapshot.Object, listed bool, absent, reinstall, grep string) {
	switch {
	case len(live) > 0:
		w := live[0]
		a.related = refsOf(live)
		runs := who + " runs (" + w.Ref().String() + ")"
		if who == w.Ref().String() {
			runs = who + " runs"
		}
		logs := Remedy{Action: ActionFixController, Description: "Read the logs of " + w.Ref().String() + " for errors about " + o.Ref().String() + " and fix what it reports",
			Command: "kubectl logs " + logsTarget(w) + " --tail=200"}
		status := Remedy{Action: ActionFixController, Description: "Read the status and events of " + o.Ref().String() + ": what its controller's cleanup is waiting on",
			Command: "kubectl describe " + r.ix.kubectlTarget(o.Ref())}
		switch n := available(w); {
		case n == nil:
			a.reason = ReasonControllerPending
			a.message = runs + " but has not removed " + f + ": it is failing its cleanup for this object, or not reconciling it; its logs say why"
			a.remedies = []Remedy{logs}
		case *n == 0:
			a.reason = ReasonControllerPending
			a.message = who + " is installed (" + w.Ref().String() + ") but none of its pods is available, so nothing removes " + f + " until it runs again"
			a.remedies = []Remedy{{Action: ActionFixController, Description: "Find why " + w.Ref().String() + " has no available pod (its pods' events, scheduling, image pulls) and fix it",
				Command: "kubectl describe " + r.ix.kubectlTarget(w.Ref())}, logs}
		default:
			a.reason = ReasonControllerNotFinishing
			a.message = runs + " and is available (" + words.Count(int(*n), "pod") + " available), yet " + f + " stays: it is running but not finishing its cleanup of " + o.Ref().String() +
				" (failing it, or waiting on something the cleanup needs); its logs and the object's status say which"
			a.remedies = []Remedy{logs, status}
		}
	case len(dying) > 0:
		w := dying[0]
		a.reason = ReasonControllerTerminating
		a.related = refsOf(dying)
		gone := who + " is going away: " + w.Ref().String() + " is being deleted itself"
		if who == w.Ref().String() {
			gone = who + " is being deleted itself"
		}
		a.message = gone + ", typically with the namespace it runs in, so nothing will remove " + f
		if ns := w.Metadata.Namespace; r.namespaceGoing(ns) {
			a.message = who + " is gone with its namespace: it lives in " + ns + ", which is being deleted, so nothing will remove " + f + " once it stops"
		}
		a.remedies = []Remedy{{Action: ActionFixController, Description: "Run " + who + " again outside the namespace being deleted (reinstall it), so it can finish its cleanup and remove " + f}}
	case !listed:
		a.reason = ReasonControllerUnknown
		a.message = "workloads could not be listed, so whether " + who + " runs is unknown"
		a.remedies = []Remedy{{Action: ActionFixController, Description: "Check that " + who + " runs", Command: grep}}
	default:
		a.reason = ReasonControllerAbsent
		a.message = who + " removes " + f + ", and " + absent
		a.remedies = []Remedy{{Action: ActionFixController, Description: reinstall, Command: grep}}
	}
}

// byCRDOwner attributes a custom resource's finalizer to the package that
// installed its CRD, as the CRD's owner references record it.
func (r *run) byCRDOwner(o *snapshot.Object, f string, info rules.FinalizerInfo) (attribution, bool) {
	crd := r.crdOf(o)
	if crd == nil || len(crd.Metadata.OwnerReferences) == 0 {
		return attribution{}, false
	}
	ref := crd.Metadata.OwnerReferences[0]
	for _, x := range crd.Metadata.OwnerReferences {
		if x.IsController() {
			ref = x
		}
	}
	ownerRef := snapshot.ObjectRef{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, UID: ref.UID}
	owner := r.ix.byUID(ref.UID)
	who := "the controller of " + ref.Kind + "/" + ref.Name
	a := attribution{att: Attribution{Evidence: EvidenceCRDOwner, Confidence: ConfidenceMedium, Controller: who,
		Detail:  crd.Ref().String() + ", which serves " + o.Kind + ", is owned by " + ref.Kind + "/" + ref.Name + ": the package that installed the CRD runs its controller",
		Objects: []snapshot.ObjectRef{crd.Ref(), ownerRef}}}
	if info.Ecosystem {
		a.att.Detail = wellKnownDetail(f, info) + "; " + a.att.Detail
	}
	switch {
	case owner == nil && r.ix.listed(snapshot.GroupOf(ref.APIVersion), ref.Kind):
		// The package was uninstalled and left its CRD behind.
		a.att.Confidence = ConfidenceHigh
		a.reason = ReasonControllerAbsent
		a.related = []snapshot.ObjectRef{crd.Ref(), ownerRef}
		a.message = crd.Ref().String() + " is owned by " + ref.Kind + "/" + ref.Name + ", which is gone: the package that installed the CRD, and ran the controller that removes " + f + ", was uninstalled, so nothing will remove it"
		a.remedies = []Remedy{{Action: ActionFixController, Description: "Reinstall the package " + ref.Kind + "/" + ref.Name + " belonged to, so that its controller finishes its cleanup and removes " + f + " itself",
			Command: "kubectl get " + r.ix.kubectlType(ownerRef)}}
		return a, true
	case owner == nil:
		a.reason = ReasonControllerUnknown
		a.related = []snapshot.ObjectRef{crd.Ref(), ownerRef}
		a.message = crd.Ref().String() + " is owned by " + ref.Kind + "/" + ref.Name + ", whose type could not be listed, so whether the package that runs the controller removing " + f + " is still installed is unknown"
		a.remedies = []Remedy{{Action: ActionFixController, Description: "Check that " + ref.Kind + "/" + ref.Name + " is installed and healthy", Command: "kubectl get " + r.ix.kubectlType(ownerRef) + " " + ref.Name}}
		return a, true
	}
	// The package is there: its workloads are those it owns.
	var live, dying []*snapshot.Object
	for _, w := range r.workloads("owned-by:"+owner.Metadata.UID, func(w *snapshot.Object) bool {
		return slices.ContainsFunc(w.Metadata.OwnerReferences, func(x snapshot.OwnerReference) bool { return x.UID == owner.Metadata.UID })
	}) {
		if r.going(w) {
			dying = append(dying, w)
		} else {
			live = append(live, w)
		}
	}
	if owner.Terminating() {
		dying = append([]*snapshot.Object{owner}, dying...)
		live = nil
	}
	a.att.Objects = append(a.att.Objects, refsOf(append(append([]*snapshot.Object{}, live...), dying...))...)
	if len(live) == 0 && len(dying) == 0 {
		a.reason = ReasonControllerUnknown
		a.related = []snapshot.ObjectRef{owner.Ref()}
		a.message = crd.Ref().String() + " is owned by " + owner.Ref().String() + ", which is installed, but no workload it owns is in the input, so whether its controller runs is unknown"
		a.remedies = []Remedy{{Action: ActionFixController, Description: "Check the health of " + owner.Ref().String() + " and of the controller it runs",
			Command: "kubectl describe " + r.ix.kubectlTarget(owner.Ref())}}
		return a, true
	}
	a.fill(r, o, f, who, live, dying, true, "", "", "")
	return a, true
}

// crdOf returns the CRD serving o's kind, or nil.
func (r *run) crdOf(o *snapshot.Object) *snapshot.Object {
	group := snapshot.GroupOf(o.APIVersion)
	for _, c := range r.ix.ofKind("apiextensions.k8s.io", "CustomResourceDefinition") {
		if f := c.Facts; f != nil && f.CRD != nil && f.CRD.Group == group && f.CRD.Kind == o.Kind {
			return c
		}
	}
	return nil
}

// finalizerDomains are the domains a controller could carry for finalizer
// f: its domain ("finalizers.acme.io"), and that domain without a leading
// "finalizer."/"finalizers." label ("acme.io"). A domain without a dot
// (or none) identifies nothing.
func finalizerDomains(f string) []string {
	d := rules.FinalizerDomain(f)
	if d == "" && strings.Contains(f, ".") {
		d = f
	}
	if !strings.Contains(d, ".") {
		return nil
	}
	out := []string{d}
	for _, p := range []string{"finalizer.", "finalizers."} {
		if rest, ok := strings.CutPrefix(d, p); ok && strings.Contains(rest, ".") {
			out = append(out, rest)
		}
	}
	return out
}

// carriesDomain says where a workload's name or a label value equals one
// of the domains, or a label key lies under one ("" when nowhere).
func carriesDomain(w *snapshot.Object, domains []string) string {
	for _, d := range domains {
		if w.Metadata.Name == d {
			return "its name is " + d
		}
		keys := make([]string, 0, len(w.Metadata.Labels))
		for k := range w.Metadata.Labels {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if v := w.Metadata.Labels[k]; v == d || strings.HasPrefix(k, d+"/") {
				return "its label " + k + "=" + v + " carries " + d
			}
		}
	}
	return ""
}

// byDomain attributes a finalizer to workloads carrying its full domain.
func (r *run) byDomain(o *snapshot.Object, f string) (attribution, bool) {
	domains := finalizerDomains(f)
	if len(domains) == 0 {
		return attribution{}, false
	}
	var live, dying []*snapshot.Object
	for _, w := range r.workloads("domain:"+strings.Join(domains, ","), func(w *snapshot.Object) bool { return carriesDomain(w, domains) != "" }) {
		if w.Metadata.UID == o.Metadata.UID {
			continue
		}
		if r.going(w) {
			dying = append(dying, w)
		} else {
			live = append(live, w)
		}
	}
	if len(live) == 0 && len(dying) == 0 {
		return attribution{}, false
	}
	all := append(append([]*snapshot.Object{}, live...), dying...)
	who := all[0].Ref().String()
	a := attribution{att: Attribution{Evidence: EvidenceWorkloadLabel, Confidence: ConfidenceMedium, Controller: who,
		Detail:  who + " carries the finalizer's domain: " + carriesDomain(all[0], domains),
		Objects: refsOf(all)}}
	a.fill(r, o, f, who, live, dying, true, "", "", "")
	return a, true
}

// notFound is a finalizer for which the input names no controller.
func (r *run) notFound(o *snapshot.Object, f string) attribution {
	domains := finalizerDomains(f)
	a := attribution{att: Attribution{Evidence: EvidenceNone, Confidence: ConfidenceNone,
		Detail: "not in kgc's table of well-known finalizers"}, reason: ReasonControllerNotFound}
	var where []string
	if crd := r.crdOf(o); crd != nil {
		a.att.Detail += "; " + crd.Ref().String() + " has no owner"
		where = append(where, "the package that installed "+crd.Ref().String())
	}
	if len(domains) > 0 {
		a.att.Detail += "; no Deployment, StatefulSet or DaemonSet carries the domain " + strings.Join(domains, " / ") + " in its name or labels"
	} else {
		a.att.Detail += "; the finalizer names no domain to look for"
	}
	a.message = "no controller for this finalizer found in the input (see the evidence): whatever added " + f + " is the only thing that removes it, and if it was uninstalled, nothing will"
	if !r.workloadsListed() {
		a.reason = ReasonControllerUnknown
		a.message = "no controller for this finalizer found in the input, and workloads could not be listed: " + a.att.Detail
	}
	desc := "Find what adds " + f + " (its documentation"
	for _, w := range where {
		desc += ", " + w
	}
	desc += ") and make sure it runs; it then finishes its cleanup and removes the finalizer itself"
	rem := Remedy{Action: ActionFixController, Description: desc}
	switch crd := r.crdOf(o); {
	case crd != nil:
		rem.Command = "kubectl get customresourcedefinition " + crd.Metadata.Name + " --show-labels"
	case len(domains) > 0:
		rem.Command = "kubectl get deployments,statefulsets,daemonsets -A --show-labels | grep -F " + domains[len(domains)-1]
	}
	a.remedies = []Remedy{rem}
	return a
}

// workloads returns the Deployments, StatefulSets and DaemonSets matching,
// kept under key: a cluster-wide diagnosis asks the same for every object
// carrying the same finalizer.
func (r *run) workloads(key string, match func(*snapshot.Object) bool) []*snapshot.Object {
	if m, ok := r.d.workloads[key]; ok {
		return m
	}
	var out []*snapshot.Object
	defer func() { r.d.workloads[key] = out }()
	for _, gk := range workloadKinds {
		if gk[1] == "Pod" {
			continue
		}
		for _, w := range r.ix.ofKind(gk[0], gk[1]) {
			if match(w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// workloadsListed reports whether any workload type was listed, so that
// finding none means something.
func (r *run) workloadsListed() bool {
	for _, gk := range workloadKinds {
		if gk[1] != "Pod" && r.ix.listed(gk[0], gk[1]) {
			return true
		}
	}
	return false
}

// controller explains a finalizer only a controller removes, built-in or
// third-party, and says on what evidence it names that controller.
func (r *run) controller(o *snapshot.Object, f string, spec bool, b *Blocker) {
	info := rules.LookupFinalizerOn(f, snapshot.GroupOf(o.APIVersion))
	b.RemovedBy = info.RemovedBy
	if r.csiSidecarForbidden(o, f, info, b) {
		return
	}
	a, classed := r.byClass(o, f)
	switch {
	case classed:
	case f == rules.FinalizerLB:
		r.loadBalancer(o, info, b)
		return
	case info.WellKnown && !info.Ecosystem:
		b.Attribution = &Attribution{Evidence: EvidenceWellKnown, Confidence: ConfidenceHigh, Controller: info.RemovedBy, Detail: wellKnownDetail(f, info)}
		b.WaitingFor = info.Condition
		b.RootCause = r.addLeaf(leaf{obj: o, rc: RootCause{Object: o.Ref(), Finalizer: f, Reason: ReasonControllerPending, RemovedBy: info.RemovedBy, Attribution: b.Attribution,
			Message: r.staleMsg(o, "the "+info.RemovedBy+" removes it once "+info.Condition, info.RemovedBy)}}, o, nil)
		return
	default:
		a = r.attribute(o, f, info)
	}
	r.attributed(o, f, spec, info, a, b)
}

// attributed explains finalizer f of o, which the controller a names
// removes (or nothing the input shows, when a names none).
func (r *run) attributed(o *snapshot.Object, f string, spec bool, info rules.FinalizerInfo, a attribution, b *Blocker) {
	where := "metadata.finalizers"
	if spec {
		where = "spec.finalizers"
	}
	r.rbacCause(o, f, &a)
	b.RemovedBy = rules.ActorUnknown
	switch {
	case a.att.Evidence == EvidenceClass:
		b.RemovedBy = a.att.Controller
	case info.Ecosystem:
		b.RemovedBy = info.RemovedBy
	}
	b.Attribution = &a.att
	b.Controller = a.att.Controller
	who := "the controller that added " + f
	if a.att.Controller != "" {
		who = a.att.Controller
	}
	b.WaitingFor = who + " to finish its cleanup and remove " + f + " from " + where
	if info.Ecosystem && a.att.Evidence != EvidenceClass {
		b.WaitingFor = who + " to remove " + f + " once " + info.Condition
	}
	hooks, hookRemedies := r.finalizerWebhookRemedies(o, f, controllerNamespaces(a.related))
	rc := RootCause{Object: o.Ref(), Finalizer: f, Reason: a.reason, RemovedBy: b.RemovedBy, Controller: b.Controller, Attribution: b.Attribution, Message: a.message + hooks, Related: a.related}
	if below := r.heldBelow(o); len(below) > 0 {
		// The chain first: its deepest blockers are the root causes, and
		// their remedies come first.
		first := len(r.leaves)
		chain := r.chainBelow(o, below, b)
		r.chains[o.Metadata.UID] = o.Ref().String() + ", which waits for " + chain
		b.WaitingFor = who + " to finish its cleanup of " + o.Ref().String() + ", which waits for " + chain
		if (a.reason == ReasonControllerNotFinishing || a.reason == ReasonControllerPending) && stuckAmong(r.leaves[first:]) {
			// Its controller runs: it finishes once what it waits for,
			// itself stuck, is gone.
			return
		}
		rc.Message += "; and it waits for " + chain
	}
	b.RootCause = r.addLeaf(leaf{obj: o, rc: rc, extra: append(a.remedies, hookRemedies...)}, o, nil)
}

// controllerNamespaces are the namespaces of the workloads among refs.
func controllerNamespaces(refs []snapshot.ObjectRef) []string {
	var out []string
	for _, ref := range refs {
		if ref.Namespace != "" && slices.ContainsFunc(workloadKinds, func(gk [2]string) bool { return gk[1] == ref.Kind && gk[1] != "Pod" }) && !slices.Contains(out, ref.Namespace) {
			out = append(out, ref.Namespace)
		}
	}
	return out
}
