package report

import "github.com/kgc-dev/kgc/pkg/plan"

// Backup is what --backup wrote before the first request.
type Backup struct {
	Dir string `json:"dir"`
	// Files are the objects written, one YAML file each, relative to Dir.
	Files []string `json:"files"`
}

// RemedyApplied is what the report says of an applied remedy.
type RemedyApplied struct {
	ID          string `json:"id"`
	Action      string `json:"action"`
	Description string `json:"description"`
	// RootCause is the root cause it resolves, as the fresh diagnosis
	// found it: reason and message.
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// Leaks is what the remedy may leave behind outside the cluster.
	Leaks string `json:"leaks,omitempty"`
}

// PolicyName words a propagationPolicy for a person: none sent means
// the resource's own default applies.
func PolicyName(p plan.Policy) string {
	if p == plan.PolicyDefault {
		return "none: the resource's default"
	}
	return string(p)
}
