package plan

import (
	"fmt"
	"strings"

	"github.com/kgc-dev/kgc/pkg/rules"
)

// Policy is the propagationPolicy a DELETE sends (rules.Policy), from the
// --cascade flag through Options and the plan's request to the store.
type Policy = rules.Policy

// The propagation policies (rules.Policy's).
const (
	PolicyForeground = rules.PolicyForeground
	PolicyBackground = rules.PolicyBackground
	PolicyOrphan     = rules.PolicyOrphan
	PolicyDefault    = rules.PolicyDefault
)

// PolicyChoices are the --cascade values offered to users: kubectl's three
// and default.
func PolicyChoices() []string { return []string{"background", "foreground", "orphan", "default"} }

// ParsePolicy reads a --cascade value as kubectl does, in any case:
// background, foreground or orphan, and the deprecated true (background)
// and false (orphan); default or none sends no policy.
func ParsePolicy(s string) (Policy, error) {
	switch strings.ToLower(s) {
	case "background", "true":
		return PolicyBackground, nil
	case "foreground":
		return PolicyForeground, nil
	case "orphan", "false":
		return PolicyOrphan, nil
	case "default", "none":
		return PolicyDefault, nil
	}
	return "", fmt.Errorf("unknown cascade %q: use background, foreground, orphan or default", s)
}

// FinalizerAssumption says what happens to a finalizer no simulated
// controller removes (AssumeHang or AssumeRemove). Options.AssumeFinalizers
// takes it as a string.
type FinalizerAssumption string

// FinalizerAssumptions are the --assume-finalizers values, the default first.
func FinalizerAssumptions() []string { return []string{AssumeHang, AssumeRemove} }

// ParseFinalizerAssumption reads an --assume-finalizers value: hang or remove.
func ParseFinalizerAssumption(s string) (FinalizerAssumption, error) {
	switch s {
	case AssumeHang, AssumeRemove:
		return FinalizerAssumption(s), nil
	}
	return "", fmt.Errorf("unknown finalizer assumption %q: use hang or remove", s)
}
