package snapshotio

import (
	"encoding/json"
	"fmt"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// admissionPolicyFacts reads a ValidatingAdmissionPolicy's spec (its
// match constraints, parameter kind, failure policy and validations) or
// a binding's (policy, actions, parameter, match resources); nothing
// else of either is kept.
func admissionPolicyFacts(f topFields, kind string) (*snapshot.Facts, error) {
	if kind == "ValidatingAdmissionPolicyBinding" {
		var b snapshot.AdmissionPolicyBindingFacts
		if f.spec != nil {
			if err := json.Unmarshal(f.spec, &b); err != nil {
				return nil, fmt.Errorf("spec: %w", err)
			}
		}
		return &snapshot.Facts{AdmissionPolicyBinding: &b}, nil
	}
	var v struct {
		FailurePolicy    string
		ParamKind        *snapshot.ParamKind
		MatchConstraints *snapshot.MatchResources
		MatchConditions  []json.RawMessage
		Validations      []snapshot.Validation
	}
	if f.spec != nil {
		if err := json.Unmarshal(f.spec, &v); err != nil {
			return nil, fmt.Errorf("spec: %w", err)
		}
	}
	return &snapshot.Facts{AdmissionPolicy: &snapshot.AdmissionPolicyFacts{FailurePolicy: v.FailurePolicy, ParamKind: v.ParamKind,
		MatchConstraints: v.MatchConstraints, MatchConditions: len(v.MatchConditions), Validations: v.Validations}}, nil
}

// rbacFacts reads a role's rules or a binding's roleRef and subjects.
func rbacFacts(f topFields) (*snapshot.Facts, error) {
	r := &snapshot.RBACFacts{}
	for _, part := range []struct {
		name string
		raw  []byte
		dst  any
	}{{"rules", f.rules, &r.Rules}, {"roleRef", f.roleRef, &r.RoleRef}, {"subjects", f.subjects, &r.Subjects}} {
		if part.raw == nil {
			continue
		}
		if err := json.Unmarshal(part.raw, part.dst); err != nil {
			return nil, fmt.Errorf("%s: %w", part.name, err)
		}
	}
	if f.aggregationRule != nil {
		var agg struct{ ClusterRoleSelectors []snapshot.LabelSelector }
		if err := json.Unmarshal(f.aggregationRule, &agg); err != nil {
			return nil, fmt.Errorf("aggregationRule: %w", err)
		}
		r.AggregationRule = agg.ClusterRoleSelectors
	}
	return &snapshot.Facts{RBAC: r}, nil
}
