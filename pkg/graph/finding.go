package graph

import (
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Finding types, as in the Graph document of the output contract
// (invalid-owner-reference is kgc's addition). Those judging one owner
// reference are the verdicts of rules.ClassifyReference, named there.
const (
	FindingCycle                   = "cycle"
	FindingDanglingOwner           = rules.FindingDanglingOwner
	FindingUnknownOwner            = rules.FindingUnknownOwner
	FindingCrossNamespaceOwner     = rules.FindingCrossNamespaceOwner
	FindingNamespacedOwnerOfGlobal = rules.FindingNamespacedOwnerOfGlobal
	FindingUnresolvableOwnerKind   = rules.FindingUnresolvableOwnerKind
	FindingOwnerIdentityMismatch   = rules.FindingOwnerIdentityMismatch
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
