package diagnose

import (
	"regexp"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// A CustomResourceDefinition being deleted waits on its
// customresourcecleanup finalizer: the CRD finalizer
// (apiextensions-apiserver pkg/controller/finalizer) lists every instance
// through the storage version, deletes them namespace by namespace, polls
// until none is left, and writes each step into the CRD's Terminating
// condition. A failing list or delete is InstanceDeletionFailed, retried
// for ever: a root cause, never progress. Instances stored at another
// version than the storage version are converted on every read, through
// the CRD's conversion webhook when it has one.

// CRD finalizer Terminating reasons (crd_finalizer.go).
const (
	crdDeletionFailed = "InstanceDeletionFailed"
	crdDeletionCheck  = "InstanceDeletionCheck"
)

func crdFacts(o *snapshot.Object) *snapshot.CRDFacts {
	if o == nil || o.Facts == nil {
		return nil
	}
	return o.Facts.CRD
}

// crdKind is the group and kind a CRD serves, from its facts or, without
// them, from its name and the catalog.
func (r *run) crdKind(crd *snapshot.Object) (group, kind string) {
	if f := crdFacts(crd); f != nil {
		return f.Group, f.Kind
	}
	plural, g, ok := strings.Cut(crd.Metadata.Name, ".")
	if !ok {
		return "", ""
	}
	for _, res := range r.ix.snap.Resources {
		if res.Group == g && res.Resource == plural {
			kind = res.Kind
		}
	}
	return g, kind
}

// staleVersions are the versions objects of the CRD are still stored at
// besides its storage version: reading them needs a conversion. nil when
// the input does not say (no status.storedVersions).
func staleVersions(f *snapshot.CRDFacts) []string {
	if f == nil {
		return nil
	}
	storage := f.StorageVersion()
	var out []string
	for _, v := range f.StoredVersions {
		if v != storage {
			out = append(out, v)
		}
	}
	return out
}

// crd explains customresourcecleanup.apiextensions.k8s.io: the CRD
// finalizer deletes every instance, then waits for the list to be empty.
func (r *run) crd(crd *snapshot.Object, b *Blocker) {
	group, kind := r.crdKind(crd)
	b.RemovedBy = rules.ActorCRDFinalizer
	facts := crdFacts(crd)
	var cond *snapshot.Condition
	if facts != nil && facts.Terminating != nil && facts.Terminating.Status == "True" {
		cond = facts.Terminating
		b.Conditions = []snapshot.Condition{*cond}
	}
	if kind == "" {
		r.note("the snapshot holds no spec for %s: its instances are unknown", crd.Ref())
	} else if !r.ix.listed(group, kind) {
		r.note("%s instances could not be listed: those holding %s are unknown", kind, crd.Ref())
	}
	instances := r.ix.ofKind(group, kind)
	failing := r.crdFailure(crd, kind, cond)
	if failing != nil {
		failing.Objects = refsOf(instances)
		b.Blockers = append(b.Blockers, *failing)
	}
	if kind == "" || len(instances) == 0 {
		switch {
		case failing != nil:
			b.WaitingFor = "the CRD finalizer to list and delete the " + kindOr(kind) + " instances: it fails"
		case cond != nil && cond.Reason == crdDeletionCheck:
			b.WaitingFor = "the instances the CRD finalizer still finds to be gone"
			b.RootCause = r.addLeaf(leaf{obj: crd, rc: RootCause{Object: crd.Ref(), Finalizer: rules.FinalizerCRD, Reason: ReasonContentNotInSnapshot, RemovedBy: rules.ActorCRDFinalizer,
				Message: "the CRD finalizer reports that instances remain (" + cond.Reason + ": " + cond.Message + "), and the input holds none: they are held by finalizers of their own, or the input misses them"},
				extra: []Remedy{{Action: ActionWait, Description: "List the remaining instances and their finalizers, then run kgc on a snapshot that includes them",
					Command: "kubectl get " + crd.Metadata.Name + " -A -o custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,FINALIZERS:.metadata.finalizers"}}}, crd, nil)
		default:
			b.WaitingFor = "the CRD finalizer to see that no instance remains"
			b.RootCause = r.inProgress(crd, rules.FinalizerCRD, rules.ActorCRDFinalizer, "no instance remains: the CRD finalizer removes its finalizer on its next pass", crd)
		}
		return
	}
	b.WaitingFor = "every " + kind + " to be gone: " + plural(len(instances), "instance") + " " + words.Agree(len(instances), "remains", "remain")
	b.Objects = refsOf(instances)
	var pending []*snapshot.Object
	for _, o := range instances {
		if o.Terminating() {
			b.Blockers = append(b.Blockers, r.explainHeld(o, crd, nil)...)
		} else {
			pending = append(pending, o)
		}
	}
	if len(pending) > 0 && failing == nil {
		// With its list failing, the finalizer deletes nothing: the
		// failure above is why these are still here.
		nb := Blocker{Object: crd.Ref(), Finalizer: rules.FinalizerCRD, RemovedBy: rules.ActorCRDFinalizer,
			WaitingFor: "the CRD finalizer to delete " + plural(len(pending), kind), Objects: refsOf(pending)}
		nb.RootCause = r.progress(crd, crd, rules.FinalizerCRD, rules.ActorCRDFinalizer, "the CRD finalizer has yet to delete "+plural(len(pending), kind), crd, nil)
		r.leaves[nb.RootCause-1].rc.Related = refsOf(pending)
		b.Blockers = append(b.Blockers, nb)
	}
}

func kindOr(kind string) string {
	if kind == "" {
		return "custom"
	}
	return kind
}

// crdFailure is the blocker for a CRD finalizer that cannot list or delete
// the instances: a conversion webhook that cannot be called while
// instances are stored at a version needing conversion, or the
// finalizer's own InstanceDeletionFailed. nil when neither.
func (r *run) crdFailure(crd *snapshot.Object, kind string, cond *snapshot.Condition) *Blocker {
	facts := crdFacts(crd)
	failed := cond != nil && cond.Reason == crdDeletionFailed
	conv := r.checkConversion(crd)
	stale := staleVersions(facts)
	caFailed := failed && reCABundleError.MatchString(cond.Message)
	reported := failed && (reConversion.MatchString(cond.Message) || caFailed)
	if caFailed {
		conv = r.caBundleReported(crd, conv)
	}
	said := ""
	if cond != nil {
		said = " (its Terminating condition: " + cond.Reason + ": " + cond.Message + ")"
	}
	b := Blocker{Object: crd.Ref(), Finalizer: rules.FinalizerCRD, RemovedBy: rules.ActorCRDFinalizer}
	rc := RootCause{Object: crd.Ref(), Finalizer: rules.FinalizerCRD, RemovedBy: rules.ActorCRDFinalizer}
	var extra []Remedy
	switch {
	case len(conv.problems) > 0 && len(stale) > 0, reported:
		b.WaitingFor = "the API server to convert the stored " + kindOr(kind) + " instances through " + crd.Metadata.Name + "'s conversion webhook, so the CRD finalizer can list and delete them"
		rc.Reason = ReasonConversionWebhook
		rc.Related = conv.related
		msg := "the CRD finalizer cannot list the " + kindOr(kind) + " instances it must delete"
		if len(stale) > 0 {
			msg += ": some are stored at " + strings.Join(stale, ", ") + " (status.storedVersions " + strings.Join(facts.StoredVersions, ", ") + "), and reading them at the storage version " + facts.StorageVersion() + " goes through the conversion webhook"
		}
		switch {
		case len(conv.problems) > 0:
			msg += ", which cannot be called: " + strings.Join(conv.problems, "; ")
		case conv.detail != "":
			msg += ", which fails; " + conv.detail
		}
		rc.Message = msg + said
		extra = conv.remedies
	case failed:
		b.WaitingFor = "the CRD finalizer's list and deletes of the " + kindOr(kind) + " instances to succeed: its last pass failed"
		rc.Reason = ReasonInstanceDeletionFailed
		rc.Message = "the CRD finalizer failed to list or delete the " + kindOr(kind) + " instances" + said + ": it retries, and fails the same way until the cause is fixed; nothing is progressing"
		extra = []Remedy{{Action: ActionFixController, Description: "Repeat the list the CRD finalizer makes to see the error it gets, and fix its cause",
			Command: "kubectl get " + crd.Metadata.Name + " -A"}}
	default:
		return nil
	}
	b.RootCause = r.addLeaf(leaf{obj: crd, rc: rc, extra: extra}, crd, nil)
	return &b
}

// conversionCheck is what the input says about a CRD's conversion webhook.
type conversionCheck struct {
	// problems say why calls to it fail; empty when the input shows
	// nothing wrong.
	problems []string
	// detail says what was checked when no problem was found.
	detail   string
	related  []snapshot.ObjectRef
	remedies []Remedy
}

// checkConversion judges a CRD's conversion webhook: a caBundle without a
// certificate, the Service it calls (missing, without ready endpoints, in
// a namespace being deleted), an empty caBundle for an in-cluster Service.
// Its remedies are fixing what fails, then turning conversion off.
func (r *run) checkConversion(crd *snapshot.Object) conversionCheck {
	var c conversionCheck
	f := crdFacts(crd)
	if f == nil || f.Conversion == nil {
		return c
	}
	conv, name := f.Conversion, crd.Ref().String()
	switch conv.CAValidity {
	case snapshot.CABundleNotPEM, snapshot.CABundleNoCertificate:
		what := "is not PEM"
		if conv.CAValidity == snapshot.CABundleNoCertificate {
			what = "holds no certificate"
		}
		c.problems = append(c.problems, "the caBundle of "+name+"'s conversion webhook "+what+", so the API server cannot build a client for it: every call fails before it is sent")
		c.remedies = append(c.remedies, caBundleRemedy(crd))
	}
	switch {
	case conv.Service != nil:
		sc := r.checkService(*conv.Service)
		c.related = []snapshot.ObjectRef{sc.ref}
		switch {
		case sc.problem != "":
			c.problems = append(c.problems, "the conversion webhook of "+name+" calls a Service that cannot answer: "+sc.problem)
		case conv.CAValidity == snapshot.CABundleEmpty:
			c.problems = append(c.problems, "the caBundle of "+name+"'s conversion webhook is empty, so the API server checks the certificate of "+conv.Service.String()+" against its own system roots, which do not sign an in-cluster webhook's certificate")
			c.remedies = append(c.remedies, caBundleRemedy(crd))
		case sc.unknown:
			c.detail = name + " calls " + conv.Service.String() + ", which the input does not show (Services were not listed)"
		default:
			c.detail = name + " calls " + conv.Service.String() + ", which exists: the webhook itself fails"
		}
		c.remedies = append([]Remedy{{Action: ActionFixService,
			Description: "Bring back what serves " + crd.Metadata.Name + "'s conversion webhook (" + conv.Service.String() + " and its pods: reinstall or scale up the operator that owns the CRD)",
			Command:     "kubectl get service " + conv.Service.Name + " -n " + conv.Service.Namespace + " && kubectl get endpointslices -n " + conv.Service.Namespace + " -l kubernetes.io/service-name=" + conv.Service.Name}}, c.remedies...)
	case conv.URLHost != "":
		c.detail = name + " calls " + conv.URLHost + ", outside the cluster"
		c.remedies = append([]Remedy{{Action: ActionFixService, Description: "Make the conversion webhook at " + conv.URLHost + " answer again"}}, c.remedies...)
	}
	if conv.CAValidity == snapshot.CABundleNotPEM || conv.CAValidity == snapshot.CABundleNoCertificate {
		// The caBundle fails every call before it is sent: fixing it comes
		// before anything about the backend.
		ca := caBundleRemedy(crd)
		c.remedies = append([]Remedy{ca}, slices.DeleteFunc(c.remedies, func(r Remedy) bool { return r.Description == ca.Description })...)
	}
	c.remedies = append(c.remedies, conversionOffRemedy(crd))
	return c
}

// reCABundleError is how the API server reports a webhook client it
// could not build from a caBundle (k8s.io/client-go transport's
// rootCertPool, "unable to load root certificates: unable to parse bytes
// as PEM block", and crypto/x509's "data does not contain any valid RSA
// or ECDSA certificates"): on a CRD finalizer's list, the conversion
// webhook's, which is built before any instance is read.
var reCABundleError = regexp.MustCompile(`unable to load root certificates|unable to parse bytes as PEM block|does not contain any valid RSA or ECDSA certificates`)

// caBundleReported adds to c what the CRD finalizer's own condition says
// when it quotes a caBundle error: the conversion webhook's caBundle is
// not a certificate, even when the input keeps no word of it (a dump
// without the conversion's facts).
func (r *run) caBundleReported(crd *snapshot.Object, c conversionCheck) conversionCheck {
	if f := crdFacts(crd); f != nil && f.Conversion != nil && (f.Conversion.CAValidity == snapshot.CABundleNotPEM || f.Conversion.CAValidity == snapshot.CABundleNoCertificate) {
		return c // checkConversion said it from the caBundle itself
	}
	c.problems = append([]string{"the API server cannot load the caBundle of " + crd.Ref().String() + "'s conversion webhook (spec.conversion.webhook.clientConfig.caBundle) as PEM certificates, so it cannot build a client for the webhook: the list fails before any call is sent"}, c.problems...)
	c.detail = ""
	c.remedies = append([]Remedy{caBundleRemedy(crd)}, c.remedies...)
	if len(c.remedies) == 1 {
		c.remedies = append(c.remedies, conversionOffRemedy(crd))
	}
	return c
}

// conversionOffRemedy switches a CRD's conversion to None: safe when no
// stored version needs converting (status.storedVersions holds only the
// storage version), lossy otherwise.
func conversionOffRemedy(crd *snapshot.Object) Remedy {
	f := crdFacts(crd)
	kind := "instance"
	if f != nil && f.Kind != "" {
		kind = f.Kind
	}
	rm := Remedy{Action: ActionPatchCRDConversion,
		Description: "If every stored " + kind + " is at one version with one schema, switch spec.conversion.strategy to None on " + crd.Metadata.Name + " so that the API server serves them without the webhook",
		Command:     "kubectl patch customresourcedefinition " + crd.Metadata.Name + ` --type=json -p '[{"op":"test","path":"/spec/conversion/strategy","value":"Webhook"},{"op":"replace","path":"/spec/conversion","value":{"strategy":"None"}}]'`,
		Risk:        "objects stored at another version are served with only their apiVersion changed: fields that differ between versions are lost or misread"}
	if f != nil && len(f.StoredVersions) > 0 && len(staleVersions(f)) == 0 {
		rm.Description = "No stored version needs converting (status.storedVersions is " + strings.Join(f.StoredVersions, ", ") +
			", the storage version): switch spec.conversion.strategy to None on " + crd.Metadata.Name + " so that the API server reads them without the webhook"
		rm.Risk = "clients reading another served version than " + f.StorageVersion() + " get the stored object with only its apiVersion changed until the webhook is back"
	}
	return rm
}

// caBundleRemedy puts a CA that signs the webhook's serving certificate
// back into the CRD.
func caBundleRemedy(crd *snapshot.Object) Remedy {
	return Remedy{Action: ActionFixService,
		Description: "Put the CA certificate that signed the conversion webhook's serving certificate, base64 of PEM, into spec.conversion.webhook.clientConfig.caBundle of " + crd.Metadata.Name +
			" (cert-manager's cainjector does it for a CRD annotated cert-manager.io/inject-ca-from; an operator's own injector otherwise)",
		Command: "kubectl get customresourcedefinition " + crd.Metadata.Name + " -o jsonpath='{.spec.conversion.webhook.clientConfig.caBundle}' | base64 -d | openssl x509 -noout -subject -enddate"}
}
