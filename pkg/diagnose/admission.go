package diagnose

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// This file judges what the API server calls out to while objects are
// deleted: the Service behind an aggregated APIService, behind a CRD's
// conversion webhook and behind an admission webhook. Each judgement rests
// on facts of the input (the APIService's Available condition, whether the
// Service and ready endpoints exist, whether the namespace holding them is
// being deleted) and says when the input cannot tell.

// serviceCheck is what the input says about a Service something calls.
type serviceCheck struct {
	ref snapshot.ObjectRef
	// problem is why calls to it fail, "" when the input shows nothing wrong.
	problem string
	// dying is the terminating namespace holding the Service, if any.
	dying *snapshot.Object
	// unknown is true when Services could not be listed.
	unknown bool
}

// checkService looks up the Service a webhook or an APIService calls: does
// it exist, does it have ready endpoints (when the input holds
// EndpointSlices), does its namespace live on.
func (r *run) checkService(s snapshot.ServiceReference) serviceCheck {
	c := serviceCheck{ref: snapshot.ObjectRef{APIVersion: "v1", Kind: "Service", Namespace: s.Namespace, Name: s.Name}}
	svc := r.ix.byName("", "Service", s.Namespace, s.Name)
	if svc != nil {
		c.ref = svc.Ref()
	}
	if ns := r.ix.byName("", "Namespace", "", s.Namespace); ns != nil && ns.Terminating() {
		c.dying = ns
	}
	name := s.String()
	switch {
	case svc == nil && !r.ix.listed("", "Service"):
		c.unknown = true
		if c.dying != nil {
			c.problem = name + " lives in namespace " + s.Namespace + ", which is being deleted"
		}
		return c
	case svc == nil:
		c.problem = name + " does not exist"
	case svc.Terminating():
		c.problem = name + " is being deleted"
	default:
		if ready, slices, ok := r.readyEndpoints(s.Namespace, s.Name); ok && ready == 0 {
			c.problem = name + " has no ready endpoints (" + plural(slices, "EndpointSlice") + ", none ready): no pod serves it"
			if slices == 0 {
				c.problem = name + " has no endpoints (no EndpointSlice names it): no pod serves it"
			}
		}
	}
	if c.dying != nil {
		if c.problem == "" {
			c.problem = name + " lives in namespace " + s.Namespace + ", which is being deleted: the namespace controller deletes the pods serving it"
		} else {
			c.problem += ", in namespace " + s.Namespace + ", which is being deleted"
		}
	}
	return c
}

// readyEndpoints counts a Service's ready endpoints over its EndpointSlices;
// ok is false when EndpointSlices were not listed.
func (r *run) readyEndpoints(ns, name string) (ready, slices int, ok bool) {
	if !r.ix.listed("discovery.k8s.io", "EndpointSlice") {
		return 0, 0, false
	}
	for _, e := range r.ix.ofKind("discovery.k8s.io", "EndpointSlice") {
		if e.Metadata.Namespace != ns || e.Metadata.Labels["kubernetes.io/service-name"] != name {
			continue
		}
		slices++
		if e.Facts != nil && e.Facts.EndpointSlice != nil {
			ready += e.Facts.EndpointSlice.Ready
		} else {
			// A slice without facts (a metadata-only input) may be ready.
			ready++
		}
	}
	return ready, slices, true
}

// apiServiceFacts returns an APIService's facts, or nil.
func apiServiceFacts(o *snapshot.Object) *snapshot.APIServiceFacts {
	if o == nil || o.Facts == nil {
		return nil
	}
	return o.Facts.APIService
}

// explainAPIService refines a discovery failure with what the APIService
// says about itself and what the input shows of its Service. It returns
// the reason (discovery-failure when the input holds nothing more,
// apiservice-unavailable, or namespace-blocks-itself when the Service
// lives in a namespace being deleted) and the sentence to add.
func (r *run) explainAPIService(apisvc *snapshot.Object, held *snapshot.Object) (reason, why string, related []snapshot.ObjectRef) {
	f := apiServiceFacts(apisvc)
	if f == nil {
		return ReasonDiscoveryFailure, "", nil
	}
	var parts []string
	reason = ReasonDiscoveryFailure
	if a := f.Available; a != nil && a.Status != "True" {
		reason = ReasonAPIServiceUnavailable
		s := apisvc.Ref().String() + " is not Available"
		if a.Reason != "" {
			s += " (" + a.Reason
			if a.Message != "" {
				s += ": " + a.Message
			}
			s += ")"
		}
		parts = append(parts, s)
	}
	if f.Service != nil {
		c := r.checkService(*f.Service)
		related = append(related, c.ref)
		switch {
		case c.dying != nil:
			reason = ReasonNamespaceBlocksItself
			dying := "namespace " + c.dying.Metadata.Name
			if held != nil && held.Metadata.UID == c.dying.Metadata.UID {
				parts = append(parts, "its "+c.problem+": the extension serving the API lives in this very namespace, so it can never be available again while the namespace waits for its discovery; the namespace blocks itself")
			} else {
				parts = append(parts, "its "+c.problem+": the extension serving the API lives in "+dying+", so it can never be available again while "+dying+" waits for its discovery; "+dying+" blocks itself, and every other terminating namespace with it")
			}
		case c.problem != "":
			parts = append(parts, "its "+c.problem)
		case c.unknown:
			parts = append(parts, "whether its "+f.Service.String()+" exists is unknown (Services were not listed)")
		}
	}
	return reason, strings.Join(parts, "; "), related
}

// Namespace content failures: the namespace controller's
// NamespaceDeletionContentFailure message is "Failed to delete all
// resource types, N remaining: ERR, ERR" (status_condition_utils.go),
// each ERR the error of a list or delete of one resource.
var (
	// "conversion webhook for example.com/v1, Kind=Widget failed: Post ...: service \"x\" not found"
	// (apiextensions-apiserver pkg/apiserver/conversion/webhook_converter.go).
	reConversion = regexp.MustCompile(`conversion webhook for ([A-Za-z0-9.-]*)/([A-Za-z0-9]+), Kind=([A-Za-z0-9]+) (?:failed|returned)`)
	// "failed calling webhook \"guard.example.com\": ..." (a webhook that
	// cannot be called) and "admission webhook \"guard.example.com\" denied
	// the request: ..." (k8s.io/apiserver pkg/admission/plugin/webhook/errors).
	reWebhookCall   = regexp.MustCompile(`failed calling webhook "([^"]+)"`)
	reWebhookDenied = regexp.MustCompile(`admission webhook "([^"]+)" denied the request`)
	// "ValidatingAdmissionPolicy 'NAME' with binding 'BINDING' denied
	// request: ..." (k8s.io/apiserver pkg/admission/plugin/policy/validating
	// dispatcher.go).
	// The API server's error before it names what was denied:
	// `secrets "x" is forbidden: ValidatingAdmissionPolicy ...`.
	rePolicyDenied  = regexp.MustCompile(`(?:([a-z0-9.-]+) "([^"]+)" is forbidden: )?ValidatingAdmissionPolicy '([^']+)' with binding '([^']+)' denied request`)
	reUnexpected    = regexp.MustCompile(`unexpected items still remain in namespace: \S+ for gvr: ([a-z0-9.-]*)/[a-z0-9]+, Resource=([a-z0-9-]+)`)
	reContentPrefix = regexp.MustCompile(`^Failed to delete all resource types, \d+ remaining: `)
)

// contentFailures turns a standing NamespaceDeletionContentFailure into
// root causes: a conversion webhook that cannot be called, an admission
// webhook that rejects the deletes, or, when the message names neither,
// the failure itself.
func (r *run) contentFailures(ns *snapshot.Object, conds map[string]snapshot.Condition) []Blocker {
	c, ok := conds[condContentFailure]
	if !ok || c.Status != "True" {
		return nil
	}
	var out []Blocker
	msg := reContentPrefix.ReplaceAllString(c.Message, "")
	seen := map[string]bool{}
	for _, m := range reConversion.FindAllStringSubmatchIndex(msg, -1) {
		group, version, kind := msg[m[2]:m[3]], msg[m[4]:m[5]], msg[m[6]:m[7]]
		if seen[group+"/"+kind] {
			continue
		}
		seen[group+"/"+kind] = true
		out = append(out, r.conversionFailure(ns, group, version, kind, excerpt(msg, m[0])))
	}
	for _, re := range []*regexp.Regexp{reWebhookCall, reWebhookDenied} {
		for _, m := range re.FindAllStringSubmatchIndex(msg, -1) {
			name := msg[m[2]:m[3]]
			if seen["webhook "+name] {
				continue
			}
			seen["webhook "+name] = true
			out = append(out, r.reportedWebhook(ns, name, excerpt(msg, m[0]), re == reWebhookDenied))
		}
	}
	for _, m := range rePolicyDenied.FindAllStringSubmatchIndex(msg, -1) {
		policy, binding := msg[m[6]:m[7]], msg[m[8]:m[9]]
		if seen["policy "+policy+"/"+binding] {
			continue
		}
		seen["policy "+policy+"/"+binding] = true
		what := "its deletes"
		if m[2] >= 0 {
			what = "its delete of " + r.contentName(ns, msg[m[2]:m[3]], msg[m[4]:m[5]])
		}
		out = append(out, r.reportedPolicy(ns, policy, binding, what, excerpt(msg, m[0])))
	}
	if len(out) > 0 {
		return out
	}
	// "unexpected items still remain in namespace: NS for gvr: /v1,
	// Resource=pods" (namespaced_resources_deleter.go) is objects without
	// finalizers that are still there: when the input holds some of that
	// resource in the namespace, the content blockers explain them.
	rest := msg
	for _, m := range reUnexpected.FindAllStringSubmatch(msg, -1) {
		if r.holdsResource(ns, m[1], m[2]) {
			rest = strings.Replace(rest, m[0], "", 1)
		}
	}
	if strings.Trim(rest, ", ") == "" {
		return nil
	}
	b := Blocker{Object: ns.Ref(), Finalizer: rules.FinalizerNamespace, Spec: true, RemovedBy: rules.ActorNamespace,
		WaitingFor: "the namespace controller's deletes to succeed: its last pass failed"}
	b.RootCause = r.addLeaf(leaf{obj: ns, rc: RootCause{Object: ns.Ref(), Finalizer: rules.FinalizerNamespace, Reason: ReasonContentFailure, RemovedBy: rules.ActorNamespace,
		Message: "the namespace controller reports that it failed to list or delete some content (" + condContentFailure + "): " + c.Message},
		extra: []Remedy{{Action: ActionFixController, Description: "Repeat what the namespace controller does, type by type, to see the error it gets, and fix its cause",
			Command: "kubectl api-resources --verbs=list,delete --namespaced -o name | xargs -n 1 kubectl get -n " + ns.Metadata.Name + " --ignore-not-found --show-kind -o name"}}}, ns, nil)
	return []Blocker{b}
}

// contentName names the object of resource (a plural, "secrets" or
// "widgets.example.com") called name in namespace ns as every output
// does when the input holds it. The namespace controller deletes a type's
// content as a collection, and the API server's error then names no
// object ("Unknown"): the input's objects of that resource are named.
func (r *run) contentName(ns *snapshot.Object, resource, name string) string {
	var all []string
	for _, o := range r.ix.inNamespace(ns.Metadata.Name) {
		if res, ok := r.ix.resource(o.APIVersion, o.Kind); ok && (res.Resource == resource || res.Resource+"."+res.Group == resource) {
			if o.Metadata.Name == name {
				return o.Ref().String()
			}
			all = append(all, o.Ref().String())
		}
	}
	if len(all) > 0 {
		return resource + " (" + shortList(all) + ")"
	}
	return resource + " \"" + name + "\""
}

// holdsResource reports whether the input holds objects of group/resource
// in namespace ns.
func (r *run) holdsResource(ns *snapshot.Object, group, resource string) bool {
	for _, o := range r.ix.inNamespace(ns.Metadata.Name) {
		if res, ok := r.ix.resource(o.APIVersion, o.Kind); ok && res.Group == group && res.Resource == resource {
			return true
		}
	}
	return false
}

// excerpt is the error starting at i, up to the next error of the
// aggregated message (or 300 bytes).
func excerpt(msg string, i int) string {
	rest := msg[i:]
	end := len(rest)
	for _, sep := range []string{", Internal error occurred: ", ", conversion webhook for ", ", failed calling webhook", ", admission webhook "} {
		if j := strings.Index(rest[1:], sep); j >= 0 && j+1 < end {
			end = j + 1
		}
	}
	if end > 300 {
		end = 300
		return rest[:end] + "…"
	}
	return rest[:end]
}

// conversionFailure is a namespace whose content of one custom type cannot
// be listed or deleted because the CRD's conversion webhook fails.
func (r *run) conversionFailure(ns *snapshot.Object, group, version, kind, detail string) Blocker {
	b := Blocker{Object: ns.Ref(), Finalizer: rules.FinalizerNamespace, Spec: true, RemovedBy: rules.ActorNamespace}
	var crd *snapshot.Object
	for _, o := range r.ix.ofKind("apiextensions.k8s.io", "CustomResourceDefinition") {
		if f := o.Facts; f != nil && f.CRD != nil && f.CRD.Group == group && f.CRD.Kind == kind {
			crd = o
		}
	}
	what := kind + " (" + group + "/" + version + ")"
	b.WaitingFor = "the API server to convert " + what + " objects, so the namespace controller can list and delete them"
	rc := RootCause{Object: ns.Ref(), Reason: ReasonConversionWebhook, RemovedBy: rules.ActorNamespace}
	msg := "the namespace controller cannot list or delete " + what + " objects: the API server converts them through their CRD's conversion webhook, and that call fails (" + detail + ")"
	var extra []Remedy
	if crd != nil {
		rc.Object = crd.Ref()
		b.Objects = []snapshot.ObjectRef{crd.Ref()}
		c := r.checkConversion(crd)
		rc.Related = c.related
		for _, p := range c.problems {
			msg += "; " + p
		}
		if len(c.problems) == 0 && c.detail != "" {
			msg += "; " + c.detail
		}
		extra = c.remedies
	} else {
		msg += "; the input holds no CRD for " + kind + "." + group + ", so its webhook's service cannot be checked"
		extra = append(extra, Remedy{Action: ActionFixService, Description: "Find the conversion webhook of the CRD serving " + kind + "." + group + " and make its service answer",
			Command: "kubectl get customresourcedefinitions -o custom-columns=NAME:.metadata.name,STRATEGY:.spec.conversion.strategy,SERVICE:.spec.conversion.webhook.clientConfig.service.name | grep " + group})
	}
	rc.Message = msg
	b.RootCause = r.addLeaf(leaf{obj: crd, rc: rc, extra: extra}, ns, nil)
	return b
}

// Admission webhooks. Removing a finalizer is an UPDATE (kubectl patch and
// the controllers' patches alike), deleting content a DELETE: a webhook
// that intercepts them and cannot be called rejects them all when its
// failurePolicy is Fail (the default).

// webhookObjects are the webhook configurations of the input.
func (r *run) webhookObjects() []*snapshot.Object {
	var out []*snapshot.Object
	for _, k := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
		out = append(out, r.ix.ofKind("admissionregistration.k8s.io", k)...)
	}
	return out
}

// failingWebhook is a webhook that rejects a request it intercepts.
type failingWebhook struct {
	config  *snapshot.Object
	index   int
	hook    snapshot.Webhook
	service serviceCheck
	// unsure names what of the webhook kgc could not evaluate against
	// the object ("" when nothing): it may exclude the object.
	unsure string
}

// rejectingWebhooks are the webhooks with failurePolicy Fail that
// intercept op on o's resource and whose Service the input shows cannot
// answer (absent, no ready endpoints, in a namespace being deleted).
func (r *run) rejectingWebhooks(o *snapshot.Object, op string) []failingWebhook {
	return r.rejectingWebhooksOn(o, "", op)
}

// rejectingWebhooksOn is rejectingWebhooks for a request on subresource
// sub of o ("status": the kubelet's status update of a pod); "" for o
// itself.
func (r *run) rejectingWebhooksOn(o *snapshot.Object, sub, op string) []failingWebhook {
	res, ok := r.ix.resource(o.APIVersion, o.Kind)
	if !ok {
		return nil
	}
	group, version := snapshot.SplitAPIVersion(o.APIVersion)
	if group == "admissionregistration.k8s.io" {
		// Admission configuration is exempt from webhooks
		// (predicates/rules IsExemptAdmissionConfigurationResource).
		return nil
	}
	var out []failingWebhook
	for _, cfg := range r.webhookObjects() {
		if cfg.Facts == nil || cfg.Facts.WebhookConfiguration == nil {
			continue
		}
		for i, h := range cfg.Facts.WebhookConfiguration.Webhooks {
			if h.FailurePolicy != "" && h.FailurePolicy != "Fail" || h.Service == nil && h.URLHost == "" || !webhookMatchesSub(h, group, version, res.Resource, sub, op, res.Namespaced) {
				continue
			}
			selects, unsure := r.webhookSelects(h, o, res.Namespaced)
			if !selects {
				continue
			}
			c := r.checkWebhookBackend(h)
			if c.problem == "" {
				continue
			}
			out = append(out, failingWebhook{config: cfg, index: i, hook: h, service: c, unsure: unsure})
		}
	}
	return out
}

// webhookMatches applies a webhook's rules to a request on a resource
// itself (not a subresource), as the rule matcher of k8s.io/apiserver
// pkg/admission/plugin/webhook/predicates/rules does: "*" matches any
// resource, "pods/*" and "*/*" also match pods itself. Selectors and
// match conditions are not evaluated.
func webhookMatches(h snapshot.Webhook, group, version, resource, op string, namespaced bool) bool {
	return webhookMatchesSub(h, group, version, resource, "", op, namespaced)
}

// webhookMatchesSub is webhookMatches for subresource sub of resource
// ("" for the resource itself): "pods/status", "pods/*", "*/status" and
// "*/*" match pods/status, "pods" and "*" do not.
func webhookMatchesSub(h snapshot.Webhook, group, version, resource, sub, op string, namespaced bool) bool {
	return admissionRule(h.Rules, "", group, version, resource, sub, op, namespaced) >= 0
}

// admissionRule is the index of the first of rules that matches a
// request (op on resource/sub of group/version, on an object named name)
// as k8s.io/apiserver's rule matcher does, -1 when none: the one matcher
// of webhooks and admission policies. A rule's resourceNames (policies
// only) limit it to those names.
func admissionRule(rules []snapshot.WebhookRule, name, group, version, resource, sub, op string, namespaced bool) int {
	anyOf := func(list []string, v string) bool { return slices.Contains(list, "*") || slices.Contains(list, v) }
	resourceOf := func(list []string) bool {
		for _, x := range list {
			res, s, _ := strings.Cut(x, "/")
			if (res == "*" || res == resource) && (sub == "" && (s == "" || s == "*") || sub != "" && (s == sub || s == "*")) {
				return true
			}
		}
		return false
	}
	for i, rule := range rules {
		scopeOK := rule.Scope == "" || rule.Scope == "*" || (rule.Scope == "Namespaced") == namespaced
		if scopeOK && anyOf(rule.Operations, op) && anyOf(rule.APIGroups, group) && anyOf(rule.APIVersions, version) && resourceOf(rule.Resources) &&
			(len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, name)) {
			return i
		}
	}
	return -1
}

// webhookSelects applies a webhook's selectors to o as the API server
// does (k8s.io/apiserver pkg/admission/plugin/webhook/predicates): the
// namespaceSelector to the labels of o's namespace (of o itself for a
// Namespace; a cluster-scoped object is not subject to it), the
// objectSelector to o's labels. It returns false when a selector excludes
// o, and what it could not evaluate: a selector a snapshot older than
// 2026-11-24 did not keep, a namespace not in the input, match
// conditions (CEL, which kgc does not run).
func (r *run) webhookSelects(h snapshot.Webhook, o *snapshot.Object, namespaced bool) (bool, string) {
	var unsure []string
	if h.NamespaceSelector && (namespaced || isKind(o, "", "Namespace")) {
		ns := o
		if namespaced {
			ns = r.ix.byName("", "Namespace", "", o.Metadata.Namespace)
		}
		switch match, ok := rules.SelectorMatches(h.NamespaceLabelSelector, labelsOf(ns)); {
		case h.NamespaceLabelSelector == nil || ns == nil || !ok:
			unsure = append(unsure, "its namespaceSelector")
		case !match:
			return false, ""
		}
	}
	if h.ObjectSelector {
		switch match, ok := rules.SelectorMatches(h.ObjectLabelSelector, o.Metadata.Labels); {
		case h.ObjectLabelSelector == nil || !ok:
			unsure = append(unsure, "its objectSelector")
		case !match:
			return false, ""
		}
	}
	if h.MatchConditions > 0 {
		unsure = append(unsure, "its matchConditions")
	}
	return true, strings.Join(unsure, " and ")
}

func labelsOf(o *snapshot.Object) map[string]string {
	if o == nil {
		return nil
	}
	return o.Metadata.Labels
}

// webhookBlocker is a webhook rejecting the request that would let o go:
// the root cause, whatever controller is to remove the finalizer.
func (r *run) webhookBlocker(o *snapshot.Object, op, why string, w failingWebhook, held *snapshot.Object) Blocker {
	b := Blocker{Object: w.config.Ref(), WaitingFor: "webhook " + w.hook.Name + " to answer: it intercepts " + op + " of " + o.Ref().String() + " (" + why + ") with failurePolicy Fail"}
	var related []snapshot.ObjectRef
	if w.service.ref.Name != "" {
		related = []snapshot.ObjectRef{w.service.ref}
	}
	b.Objects = related
	msg := "webhook " + w.hook.Name + " of " + w.config.Ref().String() + " intercepts " + op + " of " + r.ix.kubectlType(o.Ref()) + " with failurePolicy Fail, and its " + w.service.problem +
		": the API server rejects every " + op + " it intercepts, so " + why + " fails whoever sends it"
	if w.unsure != "" {
		msg += " (" + w.unsure + ", which kgc cannot evaluate here, may exclude " + o.Ref().String() + ")"
	}
	b.RemovedBy = "webhook " + w.hook.Name
	b.RootCause = r.addLeaf(leaf{obj: w.config, rc: RootCause{Object: w.config.Ref(), Reason: ReasonWebhookRejects, RemovedBy: b.RemovedBy, Message: msg, Related: related},
		extra: webhookRemedies(w)}, held, nil)
	// What waits for o waits for the webhook too.
	l := r.leaves[b.RootCause-1]
	if !slices.Contains(r.byObject[o.Metadata.UID], l) {
		r.byObject[o.Metadata.UID] = append(r.byObject[o.Metadata.UID], l)
	}
	return b
}

// badCABundle says why a webhook's caBundle fails every call, "" when it
// does not (or the input does not say).
func badCABundle(h snapshot.Webhook) string {
	switch h.CAValidity {
	case snapshot.CABundleNotPEM:
		return "its caBundle is not PEM (\"unable to load root certificates: unable to parse bytes as PEM block\"), so the API server cannot build a client for it: every call fails before it is sent"
	case snapshot.CABundleNoCertificate:
		return "its caBundle holds no certificate, so the API server cannot build a client for it: every call fails before it is sent"
	}
	return ""
}

// checkWebhookBackend is why a webhook cannot answer: a caBundle that is
// not a certificate, then its Service (checkService); a webhook called by
// URL outside the cluster is judged by its caBundle alone.
func (r *run) checkWebhookBackend(h snapshot.Webhook) serviceCheck {
	var c serviceCheck
	if h.Service != nil {
		c = r.checkService(*h.Service)
	}
	if ca := badCABundle(h); ca != "" {
		if c.problem != "" {
			ca += "; and its " + c.problem
		}
		c.problem = strings.TrimPrefix(ca, "its ")
	}
	return c
}

// webhookRemedies: fix its caBundle or its Service, or, more destructive,
// let requests through without it, or remove it.
func webhookRemedies(w failingWebhook) []Remedy {
	typ := strings.ToLower(w.config.Kind) // mutatingwebhookconfiguration
	var fix []Remedy
	if badCABundle(w.hook) != "" {
		fix = append(fix, Remedy{Action: ActionFixService,
			Description: fmt.Sprintf("Put the CA certificate that signed webhook %s's serving certificate, base64 of PEM, into webhooks[%d].clientConfig.caBundle of %s (cert-manager's cainjector does it for a configuration annotated cert-manager.io/inject-ca-from; the webhook's own installer otherwise)", w.hook.Name, w.index, w.config.Metadata.Name),
			Command:     fmt.Sprintf("kubectl get %s %s -o jsonpath='{.webhooks[%d].clientConfig.caBundle}' | base64 -d | openssl x509 -noout -subject -enddate", typ, w.config.Metadata.Name, w.index)})
	}
	if svc := w.hook.Service; svc != nil && (badCABundle(w.hook) == "" || strings.Contains(w.service.problem, svc.String())) {
		fix = append(fix, Remedy{Action: ActionFixService, Description: "Bring back " + svc.String() + " and the pods behind it (reinstall or scale up what serves webhook " + w.hook.Name + ")",
			Command: "kubectl get service " + svc.Name + " -n " + svc.Namespace + " && kubectl get endpointslices -n " + svc.Namespace + " -l kubernetes.io/service-name=" + svc.Name})
	}
	return append(fix, webhookBypass(w, typ)...)
}

// webhookBypass are the remedies that go around a webhook that cannot
// answer: let requests through, or delete its configuration.
func webhookBypass(w failingWebhook, typ string) []Remedy {
	return []Remedy{
		{Action: ActionPatchWebhook, Description: "Let requests through while webhook " + w.hook.Name + " cannot be called: set its failurePolicy to Ignore",
			Command: fmt.Sprintf(`kubectl patch %s %s --type=json -p '[{"op":"test","path":"/webhooks/%d/name","value":"%s"},{"op":"replace","path":"/webhooks/%d/failurePolicy","value":"Ignore"}]'`,
				typ, w.config.Metadata.Name, w.index, w.hook.Name, w.index),
			Risk: "every request it intercepts is admitted without its checks or mutations until it answers again"},
		{Action: ActionDeleteWebhook, Description: "If what served webhook " + w.hook.Name + " was uninstalled, delete its stale configuration " + w.config.Metadata.Name,
			Command: "kubectl delete " + typ + " " + w.config.Metadata.Name,
			Risk:    "every webhook of the configuration stops checking requests until it is reinstalled"},
	}
}

// reportedWebhook is a webhook the namespace controller's condition names
// as failing or denying its deletes.
func (r *run) reportedWebhook(ns *snapshot.Object, name, detail string, denied bool) Blocker {
	for _, cfg := range r.webhookObjects() {
		if cfg.Facts == nil || cfg.Facts.WebhookConfiguration == nil {
			continue
		}
		for i, h := range cfg.Facts.WebhookConfiguration.Webhooks {
			if h.Name != name {
				continue
			}
			w := failingWebhook{config: cfg, index: i, hook: h, service: r.checkWebhookBackend(h)}
			b := Blocker{Object: cfg.Ref(), WaitingFor: "webhook " + name + " to admit the namespace controller's deletes"}
			msg := "the namespace controller reports that webhook " + name + " of " + cfg.Ref().String() + " rejects its deletes (" + detail + ")"
			if w.service.problem != "" {
				msg += "; its " + w.service.problem
			}
			var extra []Remedy
			if h.Service != nil {
				b.Objects = []snapshot.ObjectRef{w.service.ref}
				extra = webhookRemedies(w)
				if denied {
					// It answers: only removing it changes its verdict.
					extra = webhookBypass(w, strings.ToLower(cfg.Kind))[1:]
				}
			}
			b.RemovedBy = "webhook " + name
			b.RootCause = r.addLeaf(leaf{obj: cfg, rc: RootCause{Object: cfg.Ref(), Reason: ReasonWebhookRejects, RemovedBy: b.RemovedBy, Message: msg, Related: b.Objects}, extra: extra}, ns, nil)
			return b
		}
	}
	b := Blocker{Object: ns.Ref(), Finalizer: rules.FinalizerNamespace, Spec: true, RemovedBy: rules.ActorNamespace,
		WaitingFor: "webhook " + name + " to admit the namespace controller's deletes"}
	b.RootCause = r.addLeaf(leaf{obj: ns, rc: RootCause{Object: ns.Ref(), Finalizer: rules.FinalizerNamespace, Reason: ReasonWebhookRejects, RemovedBy: rules.ActorNamespace,
		Message: "the namespace controller reports that webhook " + name + " rejects its deletes (" + detail + "); the input holds no webhook configuration naming it"},
		extra: []Remedy{{Action: ActionFixService, Description: "Find the configuration of webhook " + name + " and make its service answer",
			Command: "kubectl get mutatingwebhookconfigurations,validatingwebhookconfigurations -o custom-columns=NAME:.metadata.name,WEBHOOKS:.webhooks[*].name | grep " + name}}}, ns, nil)
	return b
}

// webhooksHolding returns, for a finalizer removal (an UPDATE) of o, a
// blocker per webhook that rejects it.
func (r *run) webhooksHolding(o *snapshot.Object, f string) []Blocker {
	var out []Blocker
	for _, w := range r.rejectingWebhooks(o, "UPDATE") {
		out = append(out, r.webhookBlocker(o, "UPDATE", "removing finalizer "+f, w, o))
	}
	return out
}

// updateWebhooks are the webhooks that intercept the UPDATE removing a
// finalizer of o and can be called, so they may rewrite or refuse it: a
// mutating webhook may put the finalizer back (a defaulting webhook
// adding it to every object it admits), a validating one may deny the
// removal. Only the project's own webhooks are named, whose rules name
// o's API group itself (not "*") or whose Service lives in one of
// ctrlNS, the namespaces of the controller the evidence names: a
// catch-all policy engine intercepts everything and is no evidence.
// Those that cannot be called are rejectingWebhooks, root causes of
// their own.
func (r *run) updateWebhooks(o *snapshot.Object, ctrlNS []string) []failingWebhook {
	res, ok := r.ix.resource(o.APIVersion, o.Kind)
	group, version := snapshot.SplitAPIVersion(o.APIVersion)
	if !ok || group == "admissionregistration.k8s.io" {
		return nil
	}
	var out []failingWebhook
	for _, cfg := range r.webhookObjects() {
		if cfg.Facts == nil || cfg.Facts.WebhookConfiguration == nil || cfg.Terminating() {
			continue
		}
		for i, h := range cfg.Facts.WebhookConfiguration.Webhooks {
			if !webhookMatches(h, group, version, res.Resource, "UPDATE", res.Namespaced) {
				continue
			}
			own := slices.ContainsFunc(h.Rules, func(rule snapshot.WebhookRule) bool { return slices.Contains(rule.APIGroups, group) })
			if !own && (h.Service == nil || !slices.Contains(ctrlNS, h.Service.Namespace)) {
				continue
			}
			selects, unsure := r.webhookSelects(h, o, res.Namespaced)
			if !selects {
				continue
			}
			w := failingWebhook{config: cfg, index: i, hook: h, unsure: unsure}
			if h.Service != nil {
				if w.service = r.checkService(*h.Service); w.service.problem != "" {
					// Failing closed it is a root cause already
					// (webhooksHolding); failing open it is skipped.
					continue
				}
			}
			out = append(out, w)
		}
	}
	return out
}

// finalizerWebhookRemedies name, in the remedies of finalizer f of o, the
// webhooks that may rewrite or refuse its removal, with a server-side dry
// run of that removal: it shows the finalizers the API server would keep
// after every mutating webhook, or the webhook that denies it.
func (r *run) finalizerWebhookRemedies(o *snapshot.Object, f string, ctrlNS []string) (string, []Remedy) {
	hooks := r.updateWebhooks(o, ctrlNS)
	i := slices.Index(o.Metadata.Finalizers, f)
	if len(hooks) == 0 || i < 0 {
		return "", nil
	}
	var names []string
	var out []Remedy
	mutating, validating := false, false
	for _, w := range hooks {
		what := "may refuse the UPDATE that removes " + f
		if w.config.Kind == "MutatingWebhookConfiguration" {
			what = "may put " + f + " back as soon as it is removed"
			mutating = true
		} else {
			validating = true
		}
		why := "its rules name " + snapshot.GroupOf(o.APIVersion)
		if w.hook.Service != nil && slices.Contains(ctrlNS, w.hook.Service.Namespace) {
			why = "it is served from namespace " + w.hook.Service.Namespace + ", where the controller runs"
		}
		if w.unsure != "" {
			why += "; " + w.unsure + " may exclude the object"
		}
		names = append(names, "webhook "+w.hook.Name+" of "+w.config.Ref().String())
		out = append(out, Remedy{Action: ActionCheckWebhook,
			Description: "Webhook " + w.hook.Name + " of " + w.config.Ref().String() + " intercepts the UPDATE of " + o.Ref().String() + " (" + why + ") and " + what +
				": a server-side dry run of the removal shows the finalizers that would remain, or the webhook's refusal (a webhook with side effects refuses dry runs)",
			Command: fmt.Sprintf(`kubectl patch %s --type=json -p '[{"op":"remove","path":"/metadata/finalizers/%d"}]' --dry-run=server -o jsonpath='{.metadata.finalizers}'`, r.ix.kubectlTarget(o.Ref()), i)})
	}
	may := "refuse it"
	switch {
	case mutating && validating:
		may = "put it back or refuse it"
	case mutating:
		may = "put it back"
	}
	return "; " + strings.Join(names, " and ") + " intercept" + verbS(len(names)) + " the UPDATE that removes it, and may " + may, out
}
