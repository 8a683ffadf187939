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
