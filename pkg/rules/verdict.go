package rules

import (
	"fmt"
	"strings"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// The words of ClassifyReference's verdicts, in one place: `kgc graph`'s
// findings, why-stuck's garbageCollection and the DOT legend all say
// what the collector makes of a reference with these, so that they
// cannot word one verdict two ways.

// The classes' names in the output contract (why-stuck's
// garbageCollection.owners[].class).
const (
	ClassNameSolid           = "solid"
	ClassNameWaiting         = "waitingForDependentsDeletion"
	ClassNameDangling        = "dangling"
	ClassNameUnknown         = "unknown"
	ClassNameUnresolvable    = "unresolvable-kind"
	ClassNameNamespacedOwner = "namespaced-owner-of-cluster-scoped"
)

// Name is the class's name in the output contract.
func (c Class) Name() string {
	switch c {
	case Solid:
		return ClassNameSolid
	case Waiting:
		return ClassNameWaiting
	case Dangling:
		return ClassNameDangling
	case Unresolvable:
		return ClassNameUnresolvable
	case NamespacedOwnerOfClusterScoped:
		return ClassNameNamespacedOwner
	case Unknown:
		return ClassNameUnknown
	}
	return ClassNameUnknown
}

// The finding types a reference raises, as the Graph document of the
// output contract names them.
const (
	FindingDanglingOwner           = "dangling-owner"
	FindingUnknownOwner            = "unknown-owner"
	FindingCrossNamespaceOwner     = "cross-namespace-owner"
	FindingNamespacedOwnerOfGlobal = "namespaced-owner-of-cluster-scoped"
	FindingUnresolvableOwnerKind   = "unresolvable-owner-kind"
	FindingOwnerIdentityMismatch   = "owner-identity-mismatch"
)

// Finding is the type of the finding the verdict raises; "" for an owner
// that exists (Solid, Waiting).
func (v Reference) Finding() string {
	switch v.Class {
	case Solid, Waiting:
		return ""
	case Unresolvable:
		return FindingUnresolvableOwnerKind
	case NamespacedOwnerOfClusterScoped:
		return FindingNamespacedOwnerOfGlobal
	case Dangling, Unknown:
	}
	switch v.Why {
	case WhyDiscoveryFailed, WhyGroupUnknown, WhyUnlisted:
		return FindingUnknownOwner
	case WhyIdentityMismatch:
		return FindingOwnerIdentityMismatch
	case WhyCrossNamespace:
		return FindingCrossNamespaceOwner
	case WhyNone, WhyAbsent, WhyReplaced:
	}
	return FindingDanglingOwner
}

// FindingMeaning is what a finding type of a reference means, in a few
// words (the DOT legend's); "" for a type that does not judge a
// reference.
func FindingMeaning(typ string) string {
	switch typ {
	case FindingDanglingOwner:
		return "owner does not exist: the dependent will be deleted"
	case FindingCrossNamespaceOwner:
		return "owner in another namespace: treated as gone, the dependent will be deleted"
	case FindingOwnerIdentityMismatch:
		return "owner UID belongs to another object: treated as gone"
	case FindingUnresolvableOwnerKind:
		return "owner kind not served: the dependent is never collected"
	case FindingNamespacedOwnerOfGlobal:
		return "namespaced owner of a cluster-scoped object: never collected"
	case FindingUnknownOwner:
		return "owner's type not listed: whether it exists is unknown"
	}
	return ""
}

// OwnerRef names the owner as found: the object holding the reference's
// UID (or the owner, when it exists), else the owner as the reference
// describes it, looked up in Namespace.
func (v Reference) OwnerRef() snapshot.ObjectRef {
	if v.Owner != nil && v.Why != WhyReplaced {
		return v.Owner.Ref()
	}
	r := v.Ref
	return snapshot.ObjectRef{APIVersion: r.APIVersion, Kind: r.Kind, Namespace: v.Namespace, Name: r.Name, UID: r.UID}
}

// Message words the verdict on the reference of dep: what the
// collector's GET of the owner finds, and what it makes of the
// reference. It says nothing of dep's fate, which depends on its other
// references: the caller adds that.
func (v Reference) Message(cat *ServedTypes, dep snapshot.ObjectRef) string {
	ref, owner := v.Ref, v.OwnerRef().String()
	switch v.Class {
	case Solid:
		return fmt.Sprintf("%s names owner %s, which exists", dep, owner)
	case Waiting:
		return fmt.Sprintf("%s names owner %s, which is being deleted in the foreground", dep, owner)
	case Unresolvable:
		served := ""
		if r, _, known := cat.Resource(snapshot.GroupOf(ref.APIVersion), ref.Kind); known {
			served = fmt.Sprintf(" (the cluster serves %s only at %s)", ref.Kind, strings.Join(servedVersions(r), ", "))
		}
		return fmt.Sprintf("%s names an owner of kind %s %s that the cluster does not serve%s: the garbage collector cannot look it up",
			dep, ref.APIVersion, ref.Kind, served)
	case NamespacedOwnerOfClusterScoped:
		return fmt.Sprintf("cluster-scoped %s names owner %s/%s, but a %s is namespaced and cannot own a cluster-scoped object",
			dep, ref.Kind, ref.Name, ref.Kind)
	case Dangling, Unknown:
	}
	return v.danglingMessage(cat, dep, owner)
}

// danglingMessage words a reference whose owner the GET does not find.
func (v Reference) danglingMessage(cat *ServedTypes, dep snapshot.ObjectRef, owner string) string {
	ref := v.Ref
	switch v.Why {
	case WhyDiscoveryFailed, WhyGroupUnknown:
		return fmt.Sprintf("%s names owner %s of kind %s %s, which is not in the input, and kgc cannot tell whether the cluster serves that kind (%s)",
			dep, owner, ref.APIVersion, ref.Kind, v.Detail)
	case WhyIdentityMismatch:
		return fmt.Sprintf("%s names its owner as %s/%s with UID %s, but that UID belongs to %s: the garbage collector looks the owner up by kind and name, finds no match and treats it as gone",
			dep, ref.Kind, ref.Name, ref.UID, owner)
	case WhyCrossNamespace:
		if v.Namespace == "" || (v.Owner != nil && !sameCoordinates(v.Owner, snapshot.GroupOf(ref.APIVersion), ref)) {
			where := ""
			if v.Namespace != "" {
				where = " in namespace " + v.Namespace
			}
			return fmt.Sprintf("%s names its owner as %s/%s with UID %s, but that UID belongs to %s, and owner references cannot cross namespaces: the garbage collector looks the owner up by kind and name%s, finds no match and treats it as gone",
				dep, ref.Kind, ref.Name, ref.UID, owner, where)
		}
		return fmt.Sprintf("%s names owner %s, but owner references cannot cross namespaces: the garbage collector looks for the owner in namespace %s only and treats it as gone",
			dep, owner, v.Namespace)
	case WhyReplaced:
		return fmt.Sprintf("%s names owner %s with UID %s, but the %s of that name has UID %s (it was deleted and recreated)",
			dep, owner, ref.UID, ref.Kind, v.Owner.Metadata.UID)
	case WhyUnlisted:
		return fmt.Sprintf("%s names owner %s, which is not in the input, but %s, so kgc cannot tell whether the owner exists",
			dep, owner, cat.Unlisted(v.Type))
	case WhyNone, WhyAbsent:
	}
	return fmt.Sprintf("%s names owner %s, which does not exist", dep, owner)
}

func servedVersions(r snapshot.Resource) []string {
	if len(r.Versions) > 0 {
		return r.Versions
	}
	return []string{r.Version}
}
