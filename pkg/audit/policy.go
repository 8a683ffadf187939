package audit

import (
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// PolicyFinding is what an audit policy hides from a post-mortem.
type PolicyFinding struct {
	// Rule is the 1-based index of the rule at fault, 0 for the policy
	// itself (its omitStages, or requests no rule matches).
	Rule    int    `json:"rule"`
	Problem string `json:"problem"`
	Message string `json:"message"`
}

// Problems LintPolicy reports.
const (
	ProblemDeletesNotLogged        = "deletes-not-logged"
	ProblemDeletesAtMetadata       = "deletes-at-metadata"
	ProblemWrongGroup              = "wrong-group"
	ProblemResponseCompleteOmitted = "response-complete-omitted"
)

// policy is the part of an audit.k8s.io/v1 Policy the lint reads.
type policy struct {
	Kind       string       `json:"kind"`
	APIVersion string       `json:"apiVersion"`
	Rules      []policyRule `json:"rules"`
	OmitStages []string     `json:"omitStages"`
}

type policyRule struct {
	Level           string           `json:"level"`
	Users           []string         `json:"users"`
	UserGroups      []string         `json:"userGroups"`
	Verbs           []string         `json:"verbs"`
	Resources       []groupResources `json:"resources"`
	Namespaces      []string         `json:"namespaces"`
	NonResourceURLs []string         `json:"nonResourceURLs"`
	OmitStages      []string         `json:"omitStages"`
}

type groupResources struct {
	Group         string   `json:"group"`
	Resources     []string `json:"resources"`
	ResourceNames []string `json:"resourceNames"`
}

// LintPolicy reads an audit policy (YAML or JSON) and reports what it
// hides from a post-mortem, sorted by rule. Rules are matched as the
// kube-apiserver does (k8s.io/apiserver/pkg/audit/policy/checker.go): the
// first rule that matches a request decides its level, and a request no
// rule matches is not logged.
func LintPolicy(data []byte, file string) ([]PolicyFinding, error) {
	var p policy
	if err := yaml.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("reading audit policy %s: %w", file, err)
	}
	if p.Kind != "Policy" || !strings.HasPrefix(p.APIVersion, "audit.k8s.io/") {
		return nil, fmt.Errorf("%s is not an audit policy (kind %q, apiVersion %q): give the file of the kube-apiserver's --audit-policy-file", file, p.Kind, p.APIVersion)
	}
	var out []PolicyFinding
	if slices.Contains(p.OmitStages, StageResponseComplete) {
		out = append(out, PolicyFinding{0, ProblemResponseCompleteOmitted,
			"the policy's omitStages lists ResponseComplete: no request is logged with its response code, so a post-mortem cannot tell a delete that succeeded from one that failed; remove ResponseComplete from omitStages"})
	}
	for i, r := range p.Rules {
		out = append(out, wrongGroups(i+1, &r)...)
		if r.Level != LevelNone && slices.Contains(r.OmitStages, StageResponseComplete) {
			out = append(out, PolicyFinding{i + 1, ProblemResponseCompleteOmitted, fmt.Sprintf(
				"rule %d's omitStages lists ResponseComplete: the requests it matches are logged without their response code or deleted object; remove ResponseComplete from its omitStages", i+1)})
		}
	}
	out = append(out, hiddenDeletes(&p)...)
	slices.SortStableFunc(out, func(a, b PolicyFinding) int { return a.Rule - b.Rule })
	return out, nil
}

// coreless are resources that are not in the core group, by their group.
func coreless(resource string) string {
	switch resource {
	case "deployments", "replicasets", "statefulsets", "daemonsets", "controllerrevisions":
		return "apps"
	case "jobs", "cronjobs":
		return "batch"
	case "ingresses", "networkpolicies", "ingressclasses":
		return "networking.k8s.io"
	case "horizontalpodautoscalers":
		return "autoscaling"
	case "poddisruptionbudgets":
		return "policy"
	case "roles", "rolebindings", "clusterroles", "clusterrolebindings":
		return "rbac.authorization.k8s.io"
	case "customresourcedefinitions":
		return "apiextensions.k8s.io"
	case "leases":
		return "coordination.k8s.io"
	case "storageclasses", "volumeattachments", "csidrivers", "csinodes":
		return "storage.k8s.io"
	case "priorityclasses":
		return "scheduling.k8s.io"
	case "endpointslices":
		return "discovery.k8s.io"
	}
	return ""
}

func wrongGroups(rule int, r *policyRule) []PolicyFinding {
	var out []PolicyFinding
	for _, gr := range r.Resources {
		if gr.Group != "" {
			continue
		}
		for _, res := range gr.Resources {
			base, _, _ := strings.Cut(res, "/")
			if g := coreless(base); g != "" {
				out = append(out, PolicyFinding{rule, ProblemWrongGroup, fmt.Sprintf(
					"rule %d lists %q under group \"\" (the core group), so it never matches them: %s are in group %q; write {group: %q, resources: [%q]}",
					rule, res, base, g, g, res)})
			}
		}
	}
	return out
}
