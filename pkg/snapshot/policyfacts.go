package snapshot

// The facts of ValidatingAdmissionPolicies (admissionregistration.k8s.io/v1)
// and their bindings: a policy whose binding denies the UPDATE that
// removes a finalizer, or the DELETE the namespace controller sends,
// holds a deletion as a failing webhook does. Kept: what decides which
// requests a policy judges (its match constraints, the binding's), how a
// failure or a denial ends (failurePolicy, validationActions, the
// parameter a binding names), and the validations' CEL expressions and
// messages, which say what a policy checks (code written into the
// policy, never data of the objects it judges). Not kept: audit
// annotations, variables, message expressions.

// AdmissionPolicyFacts are a ValidatingAdmissionPolicy's.
type AdmissionPolicyFacts struct {
	// FailurePolicy is Fail or Ignore as written; empty means the API
	// default, Fail: a policy that cannot be evaluated (its parameter
	// type missing, an expression failing) denies what it matches.
	FailurePolicy string `json:"failurePolicy,omitempty"`
	// ParamKind is spec.paramKind: the type of the parameter objects
	// its bindings name (nil: the policy takes no parameter).
	ParamKind *ParamKind `json:"paramKind,omitempty"`
	// MatchConstraints is spec.matchConstraints: the requests it judges.
	MatchConstraints *MatchResources `json:"matchConstraints,omitempty"`
	// MatchConditions counts its CEL match conditions, which kgc does
	// not evaluate.
	MatchConditions int `json:"matchConditions,omitempty"`
	// Validations are its validations' expressions and messages.
	Validations []Validation `json:"validations,omitempty"`
}

// ParamKind is the apiVersion and kind of a policy's parameters.
type ParamKind struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

// MatchResources is a policy's matchConstraints or a binding's
// matchResources.
type MatchResources struct {
	NamespaceSelector    *LabelSelector `json:"namespaceSelector,omitempty"`
	ObjectSelector       *LabelSelector `json:"objectSelector,omitempty"`
	ResourceRules        []WebhookRule  `json:"resourceRules,omitempty"`
	ExcludeResourceRules []WebhookRule  `json:"excludeResourceRules,omitempty"`
}

// Validation is one CEL validation of a policy.
type Validation struct {
	Expression string `json:"expression"`
	Message    string `json:"message,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// AdmissionPolicyBindingFacts are a ValidatingAdmissionPolicyBinding's.
type AdmissionPolicyBindingFacts struct {
	PolicyName string `json:"policyName,omitempty"`
	// ValidationActions are Deny, Warn and Audit: only Deny refuses.
	ValidationActions []string  `json:"validationActions,omitempty"`
	ParamRef          *ParamRef `json:"paramRef,omitempty"`
	// MatchResources narrows the policy's matchConstraints (nil: every
	// request the policy matches).
	MatchResources *MatchResources `json:"matchResources,omitempty"`
}

// ParamRef is the parameter object a binding hands its policy.
type ParamRef struct {
	Name      string         `json:"name,omitempty"`
	Namespace string         `json:"namespace,omitempty"`
	Selector  *LabelSelector `json:"selector,omitempty"`
	// ParameterNotFoundAction is Allow or Deny: what a request gets
	// when no parameter object is found.
	ParameterNotFoundAction string `json:"parameterNotFoundAction,omitempty"`
}
