package audit

import (
	"fmt"
	"slices"
	"strings"
)

// The lint asks the policy, rule by rule as the kube-apiserver would,
// at which level it logs a set of deletes: the ones every post-mortem
// needs (the garbage collector's, the namespace controller's, the
// kubelets', a person's, of the common kinds) and the ones that the
// policy's own rules name (their users, groups, namespaces, resources).

// probe is one delete request.
type probe struct {
	verb, user                   string
	groups                       []string
	group, resource, subresource string
	namespace, name              string
}

func (p probe) String() string {
	what := p.resource
	if p.group != "" {
		what += "." + p.group
	}
	if p.namespace != "" {
		what += " in " + p.namespace
	}
	return fmt.Sprintf("%s of %s by %s", p.verb, what, p.user)
}

type probeUser struct {
	name   string
	groups []string
}

func probeUsers(p *policy) []probeUser {
	auth := "system:authenticated"
	users := []probeUser{
		{"system:serviceaccount:kube-system:generic-garbage-collector", []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", auth}},
		{"system:serviceaccount:kube-system:namespace-controller", []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", auth}},
		{"system:node:node-1", []string{"system:nodes", auth}},
		{"alice", []string{auth}},
	}
	for _, r := range p.Rules {
		for _, u := range r.Users {
			users = append(users, probeUser{u, []string{auth}})
		}
		for _, g := range r.UserGroups {
			users = append(users, probeUser{"a member of " + g, []string{g, auth}})
		}
	}
	return users
}

type probeResource struct{ group, resource, name string }

func probeResources(p *policy) []probeResource {
	res := []probeResource{{"apps", "deployments", ""}, {"apps", "replicasets", ""}, {"", "pods", ""}, {"", "namespaces", ""},
		{"", "configmaps", ""}, {"", "secrets", ""}, {"batch", "jobs", ""}, {"apps", "statefulsets", ""}, {"example.com", "widgets", ""}}
	for _, r := range p.Rules {
		for _, gr := range r.Resources {
			for _, name := range append([]string{""}, gr.ResourceNames...) {
				for _, rs := range gr.Resources {
					base, _, _ := strings.Cut(rs, "/")
					// the reader drops requests on noise: hiding them is fine
					if base != "*" && gr.Group != "*" && !noise(base) {
						res = append(res, probeResource{gr.Group, base, name})
					}
				}
			}
		}
	}
	return res
}

func probes(p *policy) []probe {
	namespaces := []string{"team-a", "kube-system"}
	for _, r := range p.Rules {
		namespaces = append(namespaces, r.Namespaces...)
	}
	var out []probe
	for _, u := range probeUsers(p) {
		for _, res := range probeResources(p) {
			for _, ns := range namespaces {
				if res.resource == "namespaces" {
					ns = ""
				}
				for _, verb := range []string{"delete", "deletecollection"} {
					out = append(out, probe{verb: verb, user: u.name, groups: u.groups, group: res.group, resource: res.resource, namespace: ns, name: res.name})
				}
			}
		}
	}
	return out
}

// matches is upstream's ruleMatches for a resource request.
func (r *policyRule) matches(p *probe) bool {
	if len(r.Users) > 0 && !slices.Contains(r.Users, p.user) {
		return false
	}
	if len(r.UserGroups) > 0 && !slices.ContainsFunc(p.groups, func(g string) bool { return slices.Contains(r.UserGroups, g) }) {
		return false
	}
	if len(r.Verbs) > 0 && !slices.Contains(r.Verbs, p.verb) {
		return false
	}
	if len(r.Namespaces) > 0 || len(r.Resources) > 0 {
		return r.matchesResource(p)
	}
	return len(r.NonResourceURLs) == 0 // a rule of non-resource URLs only never matches a resource request
}

func (r *policyRule) matchesResource(p *probe) bool {
	if len(r.Namespaces) > 0 && !slices.Contains(r.Namespaces, p.namespace) {
		return false
	}
	if len(r.Resources) == 0 {
		return true
	}
	combined := p.resource
	if p.subresource != "" {
		combined += "/" + p.subresource
	}
	for _, gr := range r.Resources {
		if gr.Group != p.group && gr.Group != "*" {
			continue
		}
		if len(gr.Resources) == 0 {
			return true
		}
		if len(gr.ResourceNames) > 0 && !slices.Contains(gr.ResourceNames, p.name) {
			continue
		}
		for _, res := range gr.Resources {
			if res == combined || res == "*" ||
				p.subresource != "" && res == "*/"+p.subresource ||
				strings.HasSuffix(res, "/*") && p.resource == strings.TrimSuffix(res, "/*") {
				return true
			}
		}
	}
	return false
}

// hiddenDeletes reports, per rule, the deletes it is the first to match
// at level None or Metadata; rule 0 stands for the deletes no rule matches.
func hiddenDeletes(p *policy) []PolicyFinding {
	type key struct {
		rule    int
		problem string
	}
	hidden := map[key][]string{}
	var order []key
	for _, pr := range probes(p) {
		rule, level := 0, LevelNone
		for i := range p.Rules {
			if p.Rules[i].matches(&pr) {
				rule, level = i+1, p.Rules[i].Level
				break
			}
		}
		problem := ProblemDeletesNotLogged
		switch level {
		case LevelNone:
		case LevelMetadata:
			problem = ProblemDeletesAtMetadata
		default:
			continue
		}
		k := key{rule, problem}
		if _, ok := hidden[k]; !ok {
			order = append(order, k)
		}
		if s := pr.String(); !slices.Contains(hidden[k], s) {
			hidden[k] = append(hidden[k], s)
		}
	}
	var out []PolicyFinding
	for _, k := range order {
		out = append(out, PolicyFinding{k.rule, k.problem, hiddenMessage(k.rule, k.problem, hidden[k])})
	}
	return out
}

func hiddenMessage(rule int, problem string, examples []string) string {
	what := examples[0]
	if len(examples) > 1 {
		what += fmt.Sprintf(" (and %d more)", len(examples)-1)
	}
	fix := "{level: RequestResponse, verbs: [delete, deletecollection]}"
	switch {
	case problem == ProblemDeletesAtMetadata:
		return fmt.Sprintf("rule %d logs deletes at Metadata level, e.g. %s: their DeleteOptions (the propagation policy) and the deleted objects' owner references are not logged; put %s before it", rule, what, fix)
	case rule == 0:
		return fmt.Sprintf("no rule matches some deletes, e.g. %s, and a request no rule matches is not logged; add %s to the policy", what, fix)
	}
	return fmt.Sprintf("rule %d (level None) is the first to match some deletes, e.g. %s, so they are not logged; put %s before it", rule, what, fix)
}
