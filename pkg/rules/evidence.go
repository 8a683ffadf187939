package rules

import (
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// sharedRoots are domains under which unrelated projects register API
// groups (Kubernetes itself, the SIGs' x-k8s.io): a finalizer under one
// belongs to the subdomain, never to the root.
var sharedRoots = []string{"k8s.io", "x-k8s.io", "kubernetes.io", "openshift.io"}

// FinalizerFamily returns the API-group family of finalizer f, most
// specific first: its domain (the part before "/", or the whole
// finalizer when it is a domain, as longhorn.io is) and each parent
// domain of at least two labels that is not a shared root.
// "externalsecrets.external-secrets.io/externalsecret-cleanup" →
// [externalsecrets.external-secrets.io external-secrets.io];
// "cluster.cluster.x-k8s.io" → [cluster.cluster.x-k8s.io cluster.x-k8s.io].
// A projects registers its API groups under the domain it also names its
// finalizers after, so a group of the family is the project's.
func FinalizerFamily(f string) []string {
	d := FinalizerDomain(f)
	if d == "" {
		d = f
	}
	var out []string
	for strings.Count(d, ".") >= 1 && !slices.Contains(sharedRoots, d) {
		out = append(out, d)
		_, d, _ = strings.Cut(d, ".")
	}
	return out
}

// InFamily returns the domain of family that group belongs to (the group
// is the domain or a subdomain of it), the most specific first; "" when
// none.
func InFamily(group string, family []string) string {
	for _, d := range family {
		if group == d || strings.HasSuffix(group, "."+d) {
			return d
		}
	}
	return ""
}

// updateVerbs are the verbs that remove a finalizer: an UPDATE or a PATCH
// of the object.
var updateVerbs = []string{"update", "patch", "*"}

// RuleGrants reports whether rule lets its subject update or patch
// resource in group: exactly (the resource, or its finalizers
// subresource), or through every resource of the group ("*"). With
// resource "", any resource of the group counts. A rule for every API
// group ("*") is no evidence: cluster-admin can change anything.
func RuleGrants(rule snapshot.PolicyRule, group, resource string) (exact, any bool) {
	if !slices.Contains(rule.APIGroups, group) || !slices.ContainsFunc(rule.Verbs, func(v string) bool { return slices.Contains(updateVerbs, v) }) {
		return false, false
	}
	for _, r := range rule.Resources {
		switch {
		case r == "*", resource == "":
			any = true
		case resource != "" && (r == resource || r == resource+"/finalizers"):
			exact = true
		}
	}
	return exact, any || exact
}

// installLabels are the label keys an installation writes on everything
// it installs (CRDs and the controller alike): sharing one of their
// values ties a workload to the CRDs it serves.
var installLabels = []string{"app.kubernetes.io/part-of", "app.kubernetes.io/instance", "app.kubernetes.io/name", "helm.sh/chart", "cluster.x-k8s.io/provider", "app.kubernetes.io/managed-by"}

// genericInstallers are managed-by values every installation by the same
// tool carries: no evidence of one project.
var genericInstallers = []string{"helm", "tiller", "kustomize", "argocd", "kubectl", "flux", "kustomize-controller", "helm-controller", "olm", "operator-lifecycle-manager"}

// SharedInstallLabel returns the first standard installation label
// (key=value) a and b both carry, "" when none. managed-by counts only
// for a value naming a project, not a generic tool (Helm, kustomize…).
func SharedInstallLabel(a, b map[string]string) string {
	for _, k := range installLabels {
		v, ok := a[k]
		if !ok || v == "" || b[k] != v {
			continue
		}
		if k == "app.kubernetes.io/managed-by" && slices.Contains(genericInstallers, strings.ToLower(v)) {
			continue
		}
		return k + "=" + v
	}
	return ""
}
