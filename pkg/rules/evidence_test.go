package rules

import (
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

func TestFinalizerFamily(t *testing.T) {
	for f, want := range map[string]string{
		"externalsecrets.external-secrets.io/externalsecret-cleanup": "externalsecrets.external-secrets.io external-secrets.io",
		"cluster.cluster.x-k8s.io":                                   "cluster.cluster.x-k8s.io cluster.x-k8s.io",
		"longhorn.io":                                                "longhorn.io",
		"kubernetes.io/pvc-protection":                               "",
		"foregroundDeletion":                                         "",
		"example.com/cleanup":                                        "example.com",
	} {
		if got := strings.Join(FinalizerFamily(f), " "); got != want {
			t.Errorf("FinalizerFamily(%q) = %q, want %q", f, got, want)
		}
	}
	if d := InFamily("infrastructure.cluster.x-k8s.io", FinalizerFamily("openstackcluster.infrastructure.cluster.x-k8s.io")); d != "infrastructure.cluster.x-k8s.io" {
		t.Errorf("InFamily = %q", d)
	}
	if d := InFamily("addons.cluster.x-k8s.io", FinalizerFamily("openstackcluster.infrastructure.cluster.x-k8s.io")); d != "cluster.x-k8s.io" {
		t.Errorf("a group of the wider family is under %q, want cluster.x-k8s.io", d)
	}
	if d := InFamily("gateway.networking.x-k8s.io", FinalizerFamily("openstackcluster.infrastructure.cluster.x-k8s.io")); d != "" {
		t.Errorf("another SIG's group is in the family (through x-k8s.io): %q", d)
	}
}

func TestRuleGrants(t *testing.T) {
	rule := func(groups, resources, verbs string) snapshot.PolicyRule {
		return snapshot.PolicyRule{APIGroups: strings.Fields(groups), Resources: strings.Fields(resources), Verbs: strings.Fields(verbs)}
	}
	for _, tc := range []struct {
		name        string
		rule        snapshot.PolicyRule
		res         string
		exact, some bool
	}{
		{"the type", rule("external-secrets.io", "externalsecrets", "get update"), "externalsecrets", true, true},
		{"its finalizers", rule("external-secrets.io", "externalsecrets/finalizers", "update"), "externalsecrets", true, true},
		{"read only", rule("external-secrets.io", "externalsecrets", "get list watch"), "externalsecrets", false, false},
		{"another type of the group", rule("external-secrets.io", "secretstores", "patch"), "externalsecrets", false, false},
		{"every type of the group", rule("external-secrets.io", "*", "*"), "externalsecrets", false, true},
		{"any type of the group", rule("external-secrets.io", "secretstores", "patch"), "", false, true},
		{"cluster-admin is no evidence", rule("*", "*", "*"), "externalsecrets", false, false},
	} {
		exact, some := RuleGrants(tc.rule, "external-secrets.io", tc.res)
		if exact != tc.exact || some != tc.some {
			t.Errorf("%s: RuleGrants = %v, %v; want %v, %v", tc.name, exact, some, tc.exact, tc.some)
		}
	}
}
