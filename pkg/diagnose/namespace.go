package diagnose

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Namespace condition types the namespace controller writes
// (pkg/controller/namespace/deletion/status_condition_utils.go).
const (
	condDiscoveryFailure  = rules.CondDiscoveryFailure
	condGVParsingFailure  = rules.CondGVParsingFailure
	condContentFailure    = rules.CondContentFailure
	condContentRemaining  = rules.CondContentRemaining
	condFinalizersRemains = rules.CondFinalizersRemained
)

// namespaceSpec explains a terminating namespace's spec.finalizers.
func (r *run) namespaceSpec(ns *snapshot.Object) []Blocker {
	var spec []string
	if f := ns.Facts; f != nil && f.Namespace != nil {
		spec = f.Namespace.SpecFinalizers
	} else {
		// Every namespace gets "kubernetes" at creation (PrepareForCreate);
		// a dump without the spec most likely still has it.
		spec = []string{rules.FinalizerNamespace}
		r.note("the snapshot holds no spec for %s: assuming spec.finalizers [kubernetes]", ns.Ref())
	}
	var out []Blocker
	for _, f := range spec {
		if f == rules.FinalizerNamespace {
			out = append(out, r.namespaceContent(ns))
			continue
		}
		b := Blocker{Object: ns.Ref(), Finalizer: f, Spec: true}
		r.controller(ns, f, true, &b)
		out = append(out, b)
	}
	return out
}

// standingCondition returns the first of the namespace controller's
// conditions that stands (status True), in the controller's order.
func standingCondition(ns *snapshot.Object) (snapshot.Condition, bool) {
	conds := conditions(ns)
	for _, t := range []string{condDiscoveryFailure, condGVParsingFailure, condContentFailure, condContentRemaining, condFinalizersRemains} {
		if c, ok := conds[t]; ok && c.Status == "True" {
			return c, true
		}
	}
	return snapshot.Condition{}, false
}

func conditions(ns *snapshot.Object) map[string]snapshot.Condition {
	out := map[string]snapshot.Condition{}
	if ns.Facts != nil && ns.Facts.Namespace != nil {
		for _, c := range ns.Facts.Namespace.Conditions {
			out[c.Type] = c
		}
	}
	return out
}

// namespaceContent explains the "kubernetes" spec finalizer: the
// namespace controller removes it once discovery succeeds and every
// namespaced object of a type with the delete verb is gone (spec §4;
// namespacedResourcesDeleter.Delete). Pods go first: other content is only
// deleted once no pod remains (OrderedNamespaceDeletion).
func (r *run) namespaceContent(ns *snapshot.Object) Blocker {
	b := Blocker{Object: ns.Ref(), Finalizer: rules.FinalizerNamespace, Spec: true, RemovedBy: rules.ActorNamespace}
	conds := conditions(ns)
	if ns.Facts != nil && ns.Facts.Namespace != nil {
		for _, c := range ns.Facts.Namespace.Conditions {
			if c.Status == "True" {
				b.Conditions = append(b.Conditions, c)
			}
		}
	}
	var content, pods []*snapshot.Object
	for _, o := range r.ix.inNamespace(ns.Metadata.Name) {
		if res, ok := r.ix.resource(o.APIVersion, o.Kind); ok && len(res.Verbs) > 0 && !res.HasVerb("delete") {
			// The namespace controller only lists and deletes types with
			// the delete verb; others never hold the namespace.
			continue
		}
		content = append(content, o)
		if isKind(o, "", "Pod") {
			pods = append(pods, o)
		}
	}
	var waits []string
	if len(content) > 0 {
		remain := " remain ("
		if len(content) == 1 {
			remain = " remains ("
		}
		waits = append(waits, "every object in the namespace to be gone: "+strconv.Itoa(len(content))+remain+countKinds(content)+")")
	}
	b.Objects = refsOf(content)
	b.StaleConditions = staleConditions(conds, content)

	dw, db := r.discoveryBlockers(ns, conds)
	waits = append(waits, dw...)
	b.Blockers = append(b.Blockers, db...)

	if fb := r.contentFailures(ns, conds); len(fb) > 0 {
		waits = append(waits, "its deletes to stop failing")
		b.Blockers = append(b.Blockers, fb...)
	}
	b.Blockers = append(b.Blockers, r.contentBlockers(ns, content, len(pods) > 0, conds)...)
	b.Blockers = append(b.Blockers, r.unseenContent(ns, conds, content)...)
	r.noteUnlistedContent()

	if len(waits) == 0 && len(b.Blockers) == 0 {
		if c, ok := standingCondition(ns); ok {
			// The namespace controller says something remains or fails:
			// never an all-clear while it does.
			b.WaitingFor = "what the namespace controller's " + c.Type + " condition reports"
			b.RootCause = r.addLeaf(leaf{obj: ns, rc: RootCause{Object: ns.Ref(), Finalizer: rules.FinalizerNamespace, Reason: ReasonContentNotInSnapshot, RemovedBy: rules.ActorNamespace,
				Message: "the namespace controller's " + c.Type + " condition stands (" + c.Message + "), yet the input shows nothing left in the namespace: it changed after the controller's last pass, or the input misses what the condition names"},
				extra: []Remedy{{Action: ActionWait, Description: "Look at the namespace's conditions and content now, then run kgc on a fresh snapshot",
					Command: "kubectl get namespace " + ns.Metadata.Name + " -o jsonpath='{range .status.conditions[*]}{.type}={.status}: {.message}{\"\\n\"}{end}'"}}}, ns, nil)
			return b
		}
		b.WaitingFor = "nothing left: the namespace controller finalizes it on its next pass"
		b.RootCause = r.inProgress(ns, rules.FinalizerNamespace, rules.ActorNamespace,
			"the namespace is empty: the namespace controller removes the kubernetes finalizer on its next pass", ns)

		return b
	}
	if len(waits) == 0 {
		waits = append(waits, "content the snapshot does not show to be gone")
	}
	b.WaitingFor = strings.Join(waits, "; ")
	return b
}

// staleConditions are the namespace controller's all-clear conditions
// (NamespaceContentRemaining or NamespaceFinalizersRemaining False) that
// the content the input holds contradicts. Under ordered namespace
// deletion the controller returns early while pods remain, and writes
// its all-clear defaults for both (kubernetes/kubernetes#138208): the
// objects win.
func staleConditions(conds map[string]snapshot.Condition, content []*snapshot.Object) []StaleCondition {
	var held []*snapshot.Object
	for _, o := range content {
		if len(o.Metadata.Finalizers) > 0 {
			held = append(held, o)
		}
	}
	var out []StaleCondition
	for _, c := range []struct {
		typ  string
		objs []*snapshot.Object
		what string
	}{{condContentRemaining, content, "still present"}, {condFinalizersRemains, held, "still carrying finalizers"}} {
		if cond, ok := conds[c.typ]; ok && cond.Status == "False" && len(c.objs) > 0 {
			out = append(out, StaleCondition{Condition: cond,
				ContradictedBy: plural(len(c.objs), "object") + " " + c.what + " (" + shortList(refStrings(c.objs)) + "): the condition is stale, the objects win"})
		}
	}
	return out
}

func refStrings(objs []*snapshot.Object) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.Ref().String())
	}
	return out
}

// discoveryBlocker is a failing API group holding the namespace: its root
// cause names the APIService when the snapshot has it.
func (r *run) discoveryBlocker(ns *snapshot.Object, gv, detail string) Blocker {
	b := Blocker{Object: ns.Ref(), Finalizer: rules.FinalizerNamespace, Spec: true, RemovedBy: rules.ActorNamespace}
	rc := RootCause{Object: ns.Ref(), Finalizer: rules.FinalizerNamespace, Reason: ReasonDiscoveryFailure, RemovedBy: rules.ActorNamespace}
	if gv == "" {
		b.WaitingFor = "API discovery to succeed: " + detail
		rc.Message = "the namespace controller's discovery fails (" + detail + "), so it never finalizes a namespace"
	} else {
		apisvc := apiServiceName(gv)
		b.WaitingFor = "discovery of " + gv + " to succeed"
		msg := "discovery of " + gv + " fails"
		if detail != "" {
			msg += " (" + detail + ")"
		}
		rc.Message = msg + ": the namespace controller cannot tell whether the namespace still holds objects of that group, so it never removes the kubernetes finalizer of any terminating namespace; fix or remove " + snapshot.KubectlName("APIService", "", apisvc)
		ref := snapshot.ObjectRef{APIVersion: "apiregistration.k8s.io/v1", Kind: "APIService", Name: apisvc}
		rc.Related = []snapshot.ObjectRef{ref}
		if o := r.ix.byName("apiregistration.k8s.io", "APIService", "", apisvc); o != nil {
			ref = o.Ref()
			b.Objects = []snapshot.ObjectRef{ref}
			reason, why, related := r.explainAPIService(o, ns)
			rc.Reason = reason
			rc.Related = append([]snapshot.ObjectRef{ref}, related...)
			if why != "" {
				rc.Message = msg + ": " + why + ". The namespace controller cannot tell whether the namespace still holds objects of that group, so it never removes the kubernetes finalizer of any terminating namespace"
			}
		}
	}
	b.RootCause = r.addLeaf(leaf{obj: ns, rc: rc}, ns, nil)
	return b
}

// apiServiceName is the APIService that serves group/version: "v1beta1.metrics.k8s.io".
func apiServiceName(gv string) string {
	g, v := snapshot.SplitAPIVersion(gv)
	if g == "" {
		return gv
	}
	return v + "." + g
}

// discoveryBlockers: any failing group makes deleteAllContent return an
// error, so the namespace is never finalized even once it is empty.
func (r *run) discoveryBlockers(ns *snapshot.Object, conds map[string]snapshot.Condition) (waits []string, bs []Blocker) {
	// The input's own discovery failures, and an APIService that is not
	// Available, whose group version fails discovery whether or not the
	// input recorded that discovery (a dump has none of its own).
	failures := rules.FailingDiscovery(r.ix.cat.DiscoveryFailures(), nil, r.ix.ofKind("apiregistration.k8s.io", "APIService"))
	failing := map[string]bool{}
	for _, f := range failures {
		failing[f.GroupVersion] = true
		waits = append(waits, "discovery of "+f.GroupVersion+" to succeed")
		bs = append(bs, r.discoveryBlocker(ns, f.GroupVersion, f.Error))
	}
	if c, ok := conds[condDiscoveryFailure]; ok && c.Status == "True" {
		// An offline dump has no discovery of its own: the condition's
		// message names the failing group versions. A condition that
		// stands is the namespace controller's last word, so the group
		// versions it names hold the namespace even when the input's
		// discovery did not fail for them.
		gvs := rules.FailingGroupVersions(c.Message)
		captured := len(r.ix.cat.DiscoveryFailures()) > 0
		for _, gv := range gvs {
			if failing[gv] || captured {
				// The input's own discovery, which found other failures,
				// is newer than the condition.
				continue
			}
			failing[gv] = true
			waits = append(waits, "discovery of "+gv+" to succeed")
			bs = append(bs, r.discoveryBlocker(ns, gv, "reported by the namespace's "+condDiscoveryFailure+" condition"))
		}
		if len(gvs) == 0 && len(failures) == 0 {
			waits = append(waits, "discovery of every API group to succeed")
			bs = append(bs, r.discoveryBlocker(ns, "", c.Message))
		}
	}
	if c, ok := conds[condGVParsingFailure]; ok && c.Status == "True" {
		waits = append(waits, "every group/version to parse")
		bs = append(bs, r.discoveryBlocker(ns, "", c.Message))
	}

	return waits, bs
}

// contentBlockers explains the namespace's content: what is terminating,
// the pods the namespace controller deletes first, and the rest, which it
// deletes once every pod is gone.
func (r *run) contentBlockers(ns *snapshot.Object, content []*snapshot.Object, hasPods bool, conds map[string]snapshot.Condition) []Blocker {
	var bs []Blocker
	var pendingPods, waitingForPods, pendingOther []*snapshot.Object
	for _, o := range content {
		if o.Terminating() {
			bs = append(bs, r.explainHeld(o, ns, nil)...)
			continue
		}
		if hooks := r.rejectingWebhooks(o, "DELETE"); len(hooks) > 0 && (!hasPods || isKind(o, "", "Pod")) {
			// The namespace controller's DELETE of it is rejected.
			for _, w := range hooks {
				bs = append(bs, r.webhookBlocker(o, "DELETE", "the namespace controller's delete of "+o.Ref().String(), w, ns))
			}
			continue
		}
		if ps := r.denyingPolicies(o, "DELETE"); len(ps) > 0 && (!hasPods || isKind(o, "", "Pod")) {
			for _, p := range ps {
				bs = append(bs, r.policyBlocker(o, "DELETE", "the namespace controller's delete of "+o.Ref().String(), p, ns, -1))
			}
			continue
		}
		switch {
		case isKind(o, "", "Pod"):
			pendingPods = append(pendingPods, o)
		case hasPods:
			waitingForPods = append(waitingForPods, o)
		default:
			pendingOther = append(pendingOther, o)
		}
	}
	if len(pendingPods) > 0 {
		bs = append(bs, r.pendingContent(ns, pendingPods, conds))
	}
	if len(waitingForPods) > 0 {
		// Not a leaf: these go as soon as the pods above are gone, and
		// then what holds them holds the namespace.
		wb := Blocker{Object: ns.Ref(), Finalizer: rules.FinalizerNamespace, Spec: true, RemovedBy: rules.ActorNamespace,
			WaitingFor: "the pods to be gone: the namespace controller deletes the other " + plural(len(waitingForPods), "object") + " (" + countKinds(waitingForPods) + ") only after every pod" + willHold(waitingForPods),
			Objects:    refsOf(waitingForPods)}
		for _, o := range waitingForPods {
			wb.Blockers = append(wb.Blockers, r.afterDeletion(o, ns, nil)...)
		}
		bs = append(bs, wb)
	}
	if len(pendingOther) > 0 {
		bs = append(bs, r.pendingContent(ns, pendingOther, conds))
	}
	return bs
}

// pendingContent is content the namespace controller has yet to delete:
// it deletes everything with propagationPolicy=Background on every pass.
func (r *run) pendingContent(ns *snapshot.Object, objs []*snapshot.Object, conds map[string]snapshot.Condition) Blocker {
	b := Blocker{Object: ns.Ref(), Finalizer: rules.FinalizerNamespace, Spec: true, RemovedBy: rules.ActorNamespace,
		WaitingFor: "the namespace controller to delete " + plural(len(objs), "object") + " (" + countKinds(objs) + ")" + willHold(objs),
		Objects:    refsOf(objs)}
	msg := "the namespace controller has yet to delete " + plural(len(objs), "object") + " (" + countKinds(objs) + ")"
	if c, ok := conds[condContentFailure]; ok && c.Status == "True" {
		msg += "; its last pass failed: " + c.Message
	}
	b.RootCause = r.progress(ns, ns, rules.FinalizerNamespace, rules.ActorNamespace, msg, ns, nil)
	r.leaves[b.RootCause-1].rc.Related = refsOf(objs)
	for _, o := range objs {
		b.Blockers = append(b.Blockers, r.afterDeletion(o, ns, nil)...)
	}
	return b
}

var (
	// "pods. has 1 resource instances", "widgets.example.com has 2 resource instances"
	reRemaining = regexp.MustCompile(`([a-z0-9-]+)\.([a-z0-9.-]*) has (\d+) resource instances`)
	// "example.com/cleanup in 2 resource instances"
	reFinalizerRemaining = regexp.MustCompile(`([^\s,:]+) in (\d+) resource instances`)
)

// unseenContent reads NamespaceContentRemaining for types whose remaining
// objects the snapshot does not show (it could not list them): the
// namespace controller sees them, kgc does not.
func (r *run) unseenContent(ns *snapshot.Object, conds map[string]snapshot.Condition, content []*snapshot.Object) []Blocker {
	c, ok := conds[condContentRemaining]
	if !ok || c.Status != "True" {
		return nil
	}
	var fins []string
	if fc, ok := conds[condFinalizersRemains]; ok && fc.Status == "True" {
		for _, m := range reFinalizerRemaining.FindAllStringSubmatch(fc.Message, -1) {
			fins = append(fins, m[1]+" ("+m[2]+")")
		}
	}
	var out []Blocker
	for _, m := range reRemaining.FindAllStringSubmatch(c.Message, -1) {
		resource, group := m[1], m[2]
		n, _ := strconv.Atoi(m[3])
		seen := 0
		var res *snapshot.Resource
		for i := range r.ix.snap.Resources {
			x := &r.ix.snap.Resources[i]
			if x.Resource == resource && x.Group == group {
				res = x
			}
		}
		for _, o := range content {
			if res != nil && o.Kind == res.Kind && snapshot.GroupOf(o.APIVersion) == group {
				seen++
			}
		}
		if seen >= n {
			continue
		}
		qr := resource
		if group != "" {
			qr += "." + group
		}
		msg := fmt.Sprintf("the namespace status reports %d %s remaining that kgc could not list", n, qr)
		switch {
		case res != nil && res.Listed:
			// The condition is the controller's last pass; the input,
			// which lists the type, holds fewer.
			msg = fmt.Sprintf("the namespace controller last reported %d %s remaining (%s), and the input, which lists them, holds %d: they went away after its last pass (it then finalizes the namespace on its next one), or the input misses them", n, qr, condContentRemaining, seen)
		case res != nil && !r.ix.snap.ListFailed(*res):
			msg = fmt.Sprintf("the namespace status reports %d %s remaining, which the input does not hold", n, qr)
		}
		if len(fins) > 0 {
			msg += "; finalizers remaining in the namespace: " + strings.Join(fins, ", ")
		}
		b := Blocker{Object: ns.Ref(), Finalizer: rules.FinalizerNamespace, Spec: true, RemovedBy: rules.ActorNamespace,
			WaitingFor: fmt.Sprintf("%d %s (not in the snapshot) to be gone", n, qr)}
		b.RootCause = r.addLeaf(leaf{obj: ns, rc: RootCause{Object: ns.Ref(), Finalizer: rules.FinalizerNamespace, Reason: ReasonContentNotInSnapshot,
			RemovedBy: rules.ActorNamespace, Message: msg},
			extra: []Remedy{{Action: ActionWait, Description: "List the remaining " + qr + " and their finalizers with an account allowed to, then run kgc on a snapshot that includes them",
				Command: "kubectl get " + qr + " -n " + ns.Metadata.Name + " -o custom-columns=NAME:.metadata.name,FINALIZERS:.metadata.finalizers"}}}, ns, nil)
		out = append(out, b)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].WaitingFor < out[j].WaitingFor })
	return out
}

// willHold warns about content not yet deleted that carries finalizers:
// once deleted it waits for them, and its controllers may be gone.
func willHold(objs []*snapshot.Object) string {
	var parts []string
	for _, o := range objs {
		if len(o.Metadata.Finalizers) > 0 {
			parts = append(parts, o.Ref().String()+" ("+strings.Join(o.Metadata.Finalizers, ", ")+")")
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; once deleted, these will wait for their finalizers: " + strings.Join(parts, ", ")
}
