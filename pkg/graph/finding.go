package graph

import "github.com/kgc-dev/kgc/pkg/snapshot"

// Finding types, as in the Graph document of the output contract
// (invalid-owner-reference is kgc's addition).
const (
	FindingCycle                   = "cycle"
	FindingDanglingOwner           = "dangling-owner"
	FindingUnknownOwner            = "unknown-owner"
	FindingCrossNamespaceOwner     = "cross-namespace-owner"
	FindingNamespacedOwnerOfGlobal = "namespaced-owner-of-cluster-scoped"
	FindingUnresolvableOwnerKind   = "unresolvable-owner-kind"
	FindingOwnerIdentityMismatch   = "owner-identity-mismatch"
	FindingDuplicateUID            = "duplicate-uid"
	FindingStuckFinalizer          = "stuck-finalizer"
	FindingInvalidOwnerReference   = "invalid-owner-reference"
)

// Finding is one hazard in the graph, naming the objects involved (the
// dependent first, then its owners) and saying in words what the garbage
// collector will do about it.
type Finding struct {
	Type    string               `json:"type"`
	Objects []snapshot.ObjectRef `json:"objects"`
	Message string               `json:"message"`
}
