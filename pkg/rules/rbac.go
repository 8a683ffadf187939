package rules

import (
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// RBAC as the API server's authorizer applies it to a ServiceAccount
// (k8s.io/kubernetes plugin/pkg/auth/authorizer/rbac: rbac.go
// VisitRulesFor, appliesTo, and pkg/apis/rbac/v1 evaluation_helpers.go
// RuleAllows): what a running controller may do decides whether it can
// remove its finalizer at all. A controller RBAC forbids the UPDATE or
// PATCH that removes it runs, fails with 403 on every attempt, and never
// finishes.

// FinalizerVerbs are the verbs of the request that removes a finalizer:
// a PATCH (what kubectl and most controllers send) or an UPDATE.
var FinalizerVerbs = []string{"patch", "update"}

// ServiceAccountUser is the user name of a ServiceAccount's tokens.
func ServiceAccountUser(ns, name string) string { return "system:serviceaccount:" + ns + ":" + name }

// AccessRequest is a request as the RBAC authorizer sees it: any of
// Verbs on Resource of Group, in Namespace ("" for a cluster-scoped
// resource).
type AccessRequest struct {
	Verbs     []string
	Group     string
	Resource  string
	Namespace string
}

// RBACInput is the input's RBAC objects.
type RBACInput struct {
	// Role returns the Role (kind "Role", of namespace ns) or the
	// ClusterRole (kind "ClusterRole", ns "") a binding refers to, nil
	// when the input does not hold it.
	Role func(kind, ns, name string) *snapshot.Object
	// ClusterRoles are every ClusterRole, for aggregation.
	ClusterRoles []*snapshot.Object
	// Bindings are the RoleBindings and ClusterRoleBindings.
	Bindings []*snapshot.Object
}

// BoundRole is one binding that names the subject, and what the role it
// grants allows of the request's resource.
type BoundRole struct {
	Binding *snapshot.Object
	RoleRef snapshot.RoleRef
	// Role is nil when the input does not hold it.
	Role *snapshot.Object
	// Applies is false for a RoleBinding of another namespace than the
	// request's (or any RoleBinding, for a cluster-scoped resource).
	Applies bool
	// Allows is true when the role allows one of the request's verbs.
	Allows bool
	// Verbs are the verbs the role's rules allow on the resource.
	Verbs []string
	// Aggregated is true for a ClusterRole with an aggregationRule,
	// whose rules the aggregation controller rewrites.
	Aggregated bool
	// Direct is true when the binding names the ServiceAccount itself
	// (not a group it belongs to).
	Direct bool
}

// Access is the authorizer's answer for a ServiceAccount.
type Access struct {
	Allowed bool
	// Bound are the bindings naming the ServiceAccount (directly, by
	// its user name or by one of its groups), in input order.
	Bound []BoundRole
}

// Unresolved are the bound roles that apply but that the input lacks:
// any of them may grant the request, so a denial cannot be claimed.
func (a Access) Unresolved() []BoundRole {
	var out []BoundRole
	for _, b := range a.Bound {
		if b.Applies && b.Role == nil {
			out = append(out, b)
		}
	}
	return out
}

// Authorize evaluates req for ServiceAccount ns/name against the input's
// RBAC, as the RBAC authorizer does: a ClusterRoleBinding grants its
// ClusterRole everywhere, a RoleBinding its role in its own namespace
// only (never a cluster-scoped resource).
func Authorize(in RBACInput, ns, name string, req AccessRequest) Access {
	var out Access
	for _, b := range in.Bindings {
		f := b.Facts
		if f == nil || f.RBAC == nil || f.RBAC.RoleRef == nil {
			continue
		}
		bound, direct := bindsServiceAccount(b, ns, name)
		if !bound {
			continue
		}
		ref := *f.RBAC.RoleRef
		roleNS := ""
		if ref.Kind == "Role" {
			roleNS = b.Metadata.Namespace
		}
		br := BoundRole{Binding: b, RoleRef: ref, Role: in.Role(ref.Kind, roleNS, ref.Name), Direct: direct,
			Applies: b.Kind == "ClusterRoleBinding" || req.Namespace != "" && b.Metadata.Namespace == req.Namespace}
		if br.Role != nil {
			rs := effectiveRules(in, br.Role)
			br.Aggregated = br.Role.Facts != nil && br.Role.Facts.RBAC != nil && len(br.Role.Facts.RBAC.AggregationRule) > 0
			for _, r := range rs {
				if !apiGroupMatches(r, req.Group) || !resourceMatches(r, req.Resource) {
					continue
				}
				for _, v := range r.Verbs {
					if !slices.Contains(br.Verbs, v) {
						br.Verbs = append(br.Verbs, v)
					}
				}
				br.Allows = br.Allows || slices.ContainsFunc(req.Verbs, func(v string) bool { return verbMatches(r, v) })
			}
		}
		out.Allowed = out.Allowed || br.Applies && br.Allows
		out.Bound = append(out.Bound, br)
	}
	return out
}

// bindsServiceAccount reports whether a binding's subjects include
// ServiceAccount ns/name: by kind ServiceAccount (its namespace defaulting
// to a RoleBinding's), by its user name, or by one of the groups every
// ServiceAccount token carries (rbac.go appliesToUser,
// serviceaccount.MakeGroupNames, system:authenticated); direct when it
// names the ServiceAccount itself.
func bindsServiceAccount(b *snapshot.Object, ns, name string) (bound, direct bool) {
	user := ServiceAccountUser(ns, name)
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
	for _, s := range b.Facts.RBAC.Subjects {
		switch s.Kind {
		case "ServiceAccount":
			sns := s.Namespace
			if sns == "" {
				sns = b.Metadata.Namespace
			}
			if sns == ns && s.Name == name {
				return true, true
			}
		case "User":
			if s.Name == user {
				return true, true
			}
		case "Group":
			bound = bound || slices.Contains(groups, s.Name)
		}
	}
	return bound, false
}

// effectiveRules are a role's rules, with, for an aggregated ClusterRole,
// the rules of every ClusterRole its selectors select (the aggregation
// controller writes them into it; an input taken before it ran, or
// written by hand, may lack them).
func effectiveRules(in RBACInput, role *snapshot.Object) []snapshot.PolicyRule {
	if role.Facts == nil || role.Facts.RBAC == nil {
		return nil
	}
	out := role.Facts.RBAC.Rules
	for _, sel := range role.Facts.RBAC.AggregationRule {
		for _, c := range in.ClusterRoles {
			if c == role || c.Facts == nil || c.Facts.RBAC == nil || len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
				continue
			}
			if m, ok := SelectorMatches(&sel, c.Metadata.Labels); ok && m {
				out = append(slices.Clip(out), c.Facts.RBAC.Rules...)
			}
		}
	}
	return out
}

func verbMatches(r snapshot.PolicyRule, verb string) bool {
	return slices.Contains(r.Verbs, "*") || slices.Contains(r.Verbs, verb)
}

func apiGroupMatches(r snapshot.PolicyRule, group string) bool {
	return slices.Contains(r.APIGroups, "*") || slices.Contains(r.APIGroups, group)
}

// resourceMatches is RBAC's ResourceMatches for a request on resource
// itself or on "resource/subresource": "*", the exact name, or
// "*/subresource".
func resourceMatches(r snapshot.PolicyRule, resource string) bool {
	_, sub, _ := strings.Cut(resource, "/")
	for _, x := range r.Resources {
		if x == "*" || x == resource || sub != "" && x == "*/"+sub {
			return true
		}
	}
	return false
}
