package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// ValidatingAdmissionPolicies on the deletion path. A policy bound with
// validationActions Deny that judges the UPDATE removing a finalizer (or
// the namespace controller's DELETE, or the kubelet's final DELETE of a
// pod) and refuses it holds the deletion as a failing webhook does,
// whoever sends the request; so does one the namespace controller's
// condition quotes (reportedPolicy). kgc matches the
// policy's and its binding's rules and selectors (admissionRule,
// webhookSelects: the webhooks' matcher) and claims a denial on either of:
//
//   - certain: the policy takes a parameter and its binding names one the
//     input shows is missing, with parameterNotFoundAction Deny (or names
//     none at all, with failurePolicy Fail): every request it matches is
//     denied before any expression runs;
//   - likely: a validation's CEL expression reads the object's finalizers
//     (for the UPDATE removing one) or the policy's rule names DELETE
//     itself (for a DELETE). kgc does not run CEL: the message says so,
//     and the first remedy is the server-side dry run that shows the
//     policy's verdict.

const admissionGroup = "admissionregistration.k8s.io"

// denyingPolicy is a policy whose binding denies a request.
type denyingPolicy struct {
	policy, binding *snapshot.Object
	pf              *snapshot.AdmissionPolicyFacts
	bf              *snapshot.AdmissionPolicyBindingFacts
	// rule is the index of the matching matchConstraints.resourceRules.
	rule int
	// why says why it denies; validation is the index of the validation
	// that does (-1: the parameter).
	why        string
	validation int
	certain    bool
	// param is the missing parameter, if that is why.
	param  *snapshot.ObjectRef
	unsure string
}

// denyingPolicies are the bound policies that deny op on o.
func (r *run) denyingPolicies(o *snapshot.Object, op string) []denyingPolicy {
	res, ok := r.ix.resource(o.APIVersion, o.Kind)
	group, version := snapshot.SplitAPIVersion(o.APIVersion)
	if !ok || group == admissionGroup {
		return nil
	}
	var out []denyingPolicy
	for _, b := range r.ix.ofKind(admissionGroup, "ValidatingAdmissionPolicyBinding") {
		bf := bindingFacts(b)
		if bf == nil || !slices.Contains(bf.ValidationActions, "Deny") {
			continue
		}
		p := r.ix.byName(admissionGroup, "ValidatingAdmissionPolicy", "", bf.PolicyName)
		if p == nil || p.Facts == nil || p.Facts.AdmissionPolicy == nil || p.Facts.AdmissionPolicy.MatchConstraints == nil {
			continue
		}
		d := denyingPolicy{policy: p, binding: b, pf: p.Facts.AdmissionPolicy, bf: bf, validation: -1}
		mc := d.pf.MatchConstraints
		match := func(m *snapshot.MatchResources, all bool) (int, bool) {
			i := admissionRule(m.ResourceRules, o.Metadata.Name, group, version, res.Resource, "", op, res.Namespaced)
			if all && len(m.ResourceRules) == 0 {
				i = 0
			}
			if i < 0 || admissionRule(m.ExcludeResourceRules, o.Metadata.Name, group, version, res.Resource, "", op, res.Namespaced) >= 0 {
				return i, false
			}
			selects, unsure := r.webhookSelects(selectorHook(m, d.pf.MatchConditions), o, res.Namespaced)
			d.unsure = unsure
			return i, selects
		}
		var selects bool
		if d.rule, selects = match(mc, false); !selects {
			continue
		}
		if bf.MatchResources != nil {
			if _, selects = match(bf.MatchResources, true); !selects {
				continue
			}
		}
		if r.policyDenies(o, op, &d) {
			out = append(out, d)
		}
	}
	return out
}

func bindingFacts(b *snapshot.Object) *snapshot.AdmissionPolicyBindingFacts {
	if b.Facts == nil {
		return nil
	}
	return b.Facts.AdmissionPolicyBinding
}

// selectorHook carries a policy's or binding's selectors and match
// conditions as a webhook's, for webhookSelects: one way to apply them.
func selectorHook(m *snapshot.MatchResources, conditions int) snapshot.Webhook {
	some := func(s *snapshot.LabelSelector) bool {
		return s != nil && (len(s.MatchLabels) > 0 || len(s.MatchExpressions) > 0)
	}
	h := snapshot.Webhook{NamespaceSelector: some(m.NamespaceSelector), ObjectSelector: some(m.ObjectSelector), MatchConditions: conditions}
	if h.NamespaceSelector {
		h.NamespaceLabelSelector = m.NamespaceSelector
	}
	if h.ObjectSelector {
		h.ObjectLabelSelector = m.ObjectSelector
	}
	return h
}

// policyDenies decides whether a matching policy denies op, and why.
func (r *run) policyDenies(o *snapshot.Object, op string, d *denyingPolicy) bool {
	if pk := d.pf.ParamKind; pk != nil && pk.Kind != "" {
		fail := d.pf.FailurePolicy == "" || d.pf.FailurePolicy == "Fail"
		ref := d.bf.ParamRef
		switch {
		case ref == nil && fail:
			d.why, d.certain = "the policy takes a parameter ("+pk.Kind+") but its binding names none, so its evaluation fails, and failurePolicy Fail denies", true
			return true
		case ref != nil && ref.Name != "" && ref.ParameterNotFoundAction != "Allow":
			ns := ref.Namespace
			if ns == "" {
				ns = o.Metadata.Namespace
			}
			if pres, ok := r.ix.resource(pk.APIVersion, pk.Kind); ok && !pres.Namespaced {
				ns = ""
			}
			group := snapshot.GroupOf(pk.APIVersion)
			if r.ix.listed(group, pk.Kind) && r.ix.byName(group, pk.Kind, ns, ref.Name) == nil {
				d.param = &snapshot.ObjectRef{APIVersion: pk.APIVersion, Kind: pk.Kind, Namespace: ns, Name: ref.Name}
				d.why, d.certain = "its binding's paramRef names "+d.param.String()+", which does not exist, and its parameterNotFoundAction is Deny", true
				return true
			}
		}
	}
	for i, v := range d.pf.Validations {
		switch {
		case op == "UPDATE" && strings.Contains(v.Expression, "finalizers"):
			d.why = "its validations[" + fmt.Sprint(i) + "] reads the object's finalizers (" + quoteCEL(v) + ")"
		case op == "DELETE" && slices.Contains(d.pf.MatchConstraints.ResourceRules[d.rule].Operations, "DELETE"):
			d.why = "its rule names DELETE itself and its validations[" + fmt.Sprint(i) + "] judges it (" + quoteCEL(v) + ")"
		default:
			continue
		}
		d.validation = i
		return true
	}
	return false
}

// quoteCEL quotes a validation's expression (cut to 200 bytes) and its
// message.
func quoteCEL(v snapshot.Validation) string {
	e := v.Expression
	if len(e) > 200 {
		e = e[:200] + "…"
	}
	s := "`" + strings.Join(strings.Fields(e), " ") + "`"
	if v.Message != "" {
		s += ", message \"" + v.Message + "\""
	}
	return s
}

// ruleWords names a policy's matching rule.
func ruleWords(d denyingPolicy) string {
	rs := d.pf.MatchConstraints.ResourceRules
	if d.rule < 0 || d.rule >= len(rs) {
		return "matchConstraints"
	}
	x := rs[d.rule]
	return fmt.Sprintf("matchConstraints.resourceRules[%d]: operations %s, apiGroups %s, resources %s", d.rule,
		strings.Join(x.Operations, ","), quoteGroups(x.APIGroups), strings.Join(x.Resources, ","))
}

func quoteGroups(gs []string) string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = fmt.Sprintf("%q", g)
	}
	return strings.Join(out, ",")
}

// policiesHolding returns, for a finalizer removal (an UPDATE) of o, a
// blocker per bound policy that denies it.
func (r *run) policiesHolding(o *snapshot.Object, f string) []Blocker {
	var out []Blocker
	for _, d := range r.denyingPolicies(o, "UPDATE") {
		out = append(out, r.policyBlocker(o, "UPDATE", "removing finalizer "+f, d, o, slices.Index(o.Metadata.Finalizers, f)))
	}
	return out
}

// policyBlocker is a bound policy denying the request that would let o
// go: the root cause, whoever is to send it.
func (r *run) policyBlocker(o *snapshot.Object, op, why string, d denyingPolicy, held *snapshot.Object, fin int) Blocker {
	name := "admission policy " + d.policy.Metadata.Name
	b := Blocker{Object: d.policy.Ref(), RemovedBy: name, Objects: []snapshot.ObjectRef{d.binding.Ref()},
		WaitingFor: name + " to admit " + why + ": " + d.binding.Ref().String() + " binds it with validationActions Deny"}
	msg := d.policy.Ref().String() + ", bound by " + d.binding.Ref().String() + " with validationActions " + strings.Join(d.bf.ValidationActions, ",") +
		", judges " + op + " of " + r.ix.kubectlType(o.Ref()) + " (" + ruleWords(d) + ") and " + d.why + ": the API server denies " + why + ", whoever sends it"
	if !d.certain {
		msg += " (kgc does not evaluate CEL; a denied request fails with \"ValidatingAdmissionPolicy '" + d.policy.Metadata.Name + "' with binding '" + d.binding.Metadata.Name + "' denied request\")"
	}
	if d.unsure != "" {
		msg += " (" + d.unsure + ", which kgc cannot evaluate here, may exclude " + o.Ref().String() + ")"
	}
	related := []snapshot.ObjectRef{d.binding.Ref()}
	if d.param != nil {
		related = append(related, *d.param)
	}
	b.RootCause = r.addLeaf(leaf{obj: d.policy, rc: RootCause{Object: d.policy.Ref(), Reason: ReasonPolicyDenies, RemovedBy: name, Message: msg, Related: related},
		extra: r.policyRemedies(o, d, fin)}, held, nil)
	l := r.leaves[b.RootCause-1]
	if !slices.Contains(r.byObject[o.Metadata.UID], l) {
		r.byObject[o.Metadata.UID] = append(r.byObject[o.Metadata.UID], l)
	}
	return b
}

// policyRemedies: confirm with a dry run, fix the policy or its binding's
// parameter, or, more destructive, let requests through or unbind it.
func (r *run) policyRemedies(o *snapshot.Object, d denyingPolicy, fin int) []Remedy {
	p, b := d.policy.Metadata.Name, d.binding.Metadata.Name
	var out []Remedy
	if fin >= 0 && !d.certain {
		out = append(out, Remedy{Action: ActionCheckPolicy,
			Description: "Confirm that " + d.policy.Ref().String() + " denies the removal: a server-side dry run is admitted or denied as the real request would be",
			Command:     fmt.Sprintf(`kubectl patch %s --type=json -p '[{"op":"remove","path":"/metadata/finalizers/%d"}]' --dry-run=server`, r.ix.kubectlTarget(o.Ref()), fin)})
	}
	switch {
	case d.param != nil:
		out = append(out, Remedy{Action: ActionFixPolicy, Description: "Create " + d.param.String() + ", the parameter " + d.binding.Ref().String() + " names, or point its paramRef at one that exists",
			Command: "kubectl edit validatingadmissionpolicybinding " + b})
	case d.validation >= 0:
		out = append(out, Remedy{Action: ActionFixPolicy,
			Description: fmt.Sprintf("Fix validations[%d] of %s so that it admits this request (or exclude the object with the binding's matchResources)", d.validation, d.policy.Ref()),
			Command:     "kubectl edit validatingadmissionpolicy " + p,
			Risk:        "the policy no longer checks what the change lets through"})
	default:
		out = append(out, Remedy{Action: ActionFixPolicy, Description: "Fix " + d.policy.Ref().String() + " or its binding " + b, Command: "kubectl edit validatingadmissionpolicy " + p})
	}
	return append(out,
		Remedy{Action: ActionPatchPolicyBinding, Description: "Let requests through while the policy is fixed: set the validationActions of binding " + b + " to Warn and Audit",
			Command: "kubectl patch validatingadmissionpolicybinding " + b + ` --type=merge -p '{"spec":{"validationActions":["Warn","Audit"]}}'`,
			Risk:    "every request policy " + p + " judges through this binding is admitted, its violations only warned about and audited, until Deny is restored"},
		Remedy{Action: ActionDeletePolicyBinding, Description: "Remove binding " + b + ": policy " + p + " no longer judges the requests it covered",
			Command: "kubectl delete validatingadmissionpolicybinding " + b,
			Risk:    "nothing checks those requests until the binding is recreated (its installer may recreate it on its next sync)"})
}

// reportedPolicy is a policy the namespace controller's condition names as
// denying its deletes: certain, whatever kgc can evaluate of it.
func (r *run) reportedPolicy(ns *snapshot.Object, policy, binding, what, detail string) Blocker {
	p := r.ix.byName(admissionGroup, "ValidatingAdmissionPolicy", "", policy)
	b := r.ix.byName(admissionGroup, "ValidatingAdmissionPolicyBinding", "", binding)
	name := "admission policy " + policy
	msg := "the namespace controller reports that " + snapshot.KubectlName("ValidatingAdmissionPolicy", "", policy) + ", bound by " +
		snapshot.KubectlName("ValidatingAdmissionPolicyBinding", "", binding) + ", denies " + what + " (" + detail + ")"
	if p == nil || b == nil || bindingFacts(b) == nil || p.Facts == nil || p.Facts.AdmissionPolicy == nil || p.Facts.AdmissionPolicy.MatchConstraints == nil {
		msg += "; the input does not hold the policy and its binding"
		bl := Blocker{Object: ns.Ref(), Finalizer: rules.FinalizerNamespace, Spec: true, RemovedBy: rules.ActorNamespace, WaitingFor: name + " to admit the namespace controller's deletes"}
		bl.RootCause = r.addLeaf(leaf{obj: ns, rc: RootCause{Object: ns.Ref(), Finalizer: rules.FinalizerNamespace, Reason: ReasonPolicyDenies, RemovedBy: rules.ActorNamespace, Message: msg},
			extra: []Remedy{{Action: ActionFixPolicy, Description: "Fix policy " + policy + " or its binding " + binding + " so that it admits the namespace controller's deletes",
				Command: "kubectl get validatingadmissionpolicybinding " + binding + " -o yaml"}}}, ns, nil)
		return bl
	}
	d := denyingPolicy{policy: p, binding: b, pf: p.Facts.AdmissionPolicy, bf: bindingFacts(b), validation: -1, certain: true}
	bl := Blocker{Object: p.Ref(), RemovedBy: name, Objects: []snapshot.ObjectRef{b.Ref()}, WaitingFor: name + " to admit the namespace controller's deletes"}
	bl.RootCause = r.addLeaf(leaf{obj: p, rc: RootCause{Object: p.Ref(), Reason: ReasonPolicyDenies, RemovedBy: name, Message: msg, Related: []snapshot.ObjectRef{b.Ref()}},
		extra: r.policyRemedies(ns, d, -1)}, ns, nil)
	return bl
}
