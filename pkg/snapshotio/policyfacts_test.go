package snapshotio

import (
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// TestReadAdmissionPolicyFacts: a ValidatingAdmissionPolicy keeps its
// match constraints, parameter kind, failure policy and validations, its
// binding its policy, actions, parameter and match resources, an
// aggregated ClusterRole its selectors; nothing else of them (audit
// annotations, variables, message expressions), and all survive a
// snapshot file.
func TestReadAdmissionPolicyFacts(t *testing.T) {
	s := readString(t, `apiVersion: v1
kind: List
items:
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingAdmissionPolicy
  metadata: {name: keep, uid: p1}
  spec:
    paramKind: {apiVersion: example.com/v1, kind: Params}
    matchConstraints:
      namespaceSelector: {matchLabels: {team: a}}
      resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [UPDATE], resources: [configmaps], resourceNames: [ledger]}]
      excludeResourceRules: [{apiGroups: [""], apiVersions: [v1], operations: ["*"], resources: [secrets]}]
    matchConditions: [{name: c, expression: "true"}]
    validations: [{expression: "object.metadata.finalizers.size() > 0", message: keep them, messageExpression: "'x' + string(params.token)"}]
    auditAnnotations: [{key: k, valueExpression: "'hunter2'"}]
    variables: [{name: v, expression: "'hunter3'"}]
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingAdmissionPolicyBinding
  metadata: {name: keep-a, uid: b1}
  spec:
    policyName: keep
    validationActions: [Deny, Audit]
    paramRef: {name: params, namespace: ops, parameterNotFoundAction: Deny}
    matchResources: {objectSelector: {matchLabels: {tier: db}}}
- apiVersion: rbac.authorization.k8s.io/v1
  kind: ClusterRole
  metadata: {name: monitoring, uid: r1}
  aggregationRule:
    clusterRoleSelectors: [{matchLabels: {rbac.example.com/aggregate-to-monitoring: "true"}}]
  rules: []
`)
	by := map[string]*snapshot.Object{}
	for i := range s.Objects {
		by[s.Objects[i].Kind] = &s.Objects[i]
	}
	check := func(s *snapshot.Snapshot) {
		t.Helper()
		for i := range s.Objects {
			by[s.Objects[i].Kind] = &s.Objects[i]
		}
		p := by["ValidatingAdmissionPolicy"].Facts.AdmissionPolicy
		if p == nil || p.ParamKind == nil || p.ParamKind.Kind != "Params" || p.MatchConditions != 1 || p.MatchConstraints == nil ||
			len(p.MatchConstraints.ResourceRules) != 1 || strings.Join(p.MatchConstraints.ResourceRules[0].ResourceNames, ",") != "ledger" ||
			len(p.MatchConstraints.ExcludeResourceRules) != 1 || p.MatchConstraints.NamespaceSelector.MatchLabels["team"] != "a" ||
			len(p.Validations) != 1 || p.Validations[0].Message != "keep them" {
			t.Errorf("policy facts %+v", p)
		}
		b := by["ValidatingAdmissionPolicyBinding"].Facts.AdmissionPolicyBinding
		if b == nil || b.PolicyName != "keep" || strings.Join(b.ValidationActions, ",") != "Deny,Audit" || b.ParamRef == nil ||
			b.ParamRef.Namespace != "ops" || b.ParamRef.ParameterNotFoundAction != "Deny" || b.MatchResources.ObjectSelector.MatchLabels["tier"] != "db" {
			t.Errorf("binding facts %+v", b)
		}
		if r := by["ClusterRole"].Facts.RBAC; len(r.AggregationRule) != 1 || r.AggregationRule[0].MatchLabels["rbac.example.com/aggregate-to-monitoring"] != "true" {
			t.Errorf("aggregated role facts %+v", r)
		}
	}
	check(s)
	var out strings.Builder
	if err := Write(&out, s); err != nil {
		t.Fatal(err)
	}
	check(readString(t, out.String()))
	for _, dropped := range []string{"hunter2", "hunter3", "params.token"} {
		if strings.Contains(out.String(), dropped) {
			t.Errorf("the snapshot keeps %q", dropped)
		}
	}
}
