package rules

import "github.com/kgc-dev/kgc/pkg/snapshot"

// Class is how the garbage collector judges one owner reference of a
// dependent (attemptToDeleteItem's classifyReferences and isDangling).
type Class int

const (
	// Solid: the owner exists and is not deleting its dependents.
	Solid Class = iota
	// Waiting: the owner exists and is being deleted with
	// foregroundDeletion (waitingForDependentsDeletion).
	Waiting
	// Dangling: the GET by the reference's name finds nothing, or an
	// object with another UID.
	Dangling
	// Unknown: the owner is not in the snapshot, but kgc cannot tell
	// whether it exists (its type was not listed, or may be served).
	Unknown
	// Unresolvable: the RESTMapper cannot map the kind at that version;
	// the item errors and is retried forever.
	Unresolvable
	// NamespacedOwnerOfClusterScoped: a cluster-scoped dependent names a
	// namespaced kind; the item errors and is dropped
	// (namespacedOwnerOfClusterScopedObjectErr).
	NamespacedOwnerOfClusterScoped
)

// Why a Dangling reference dangles, or an Unknown one is unknown.
type Why int

const (
	WhyNone Why = iota
	// WhyAbsent: no object of that kind and name.
	WhyAbsent
	// WhyReplaced: the object of that name has another UID (deleted and
	// recreated).
	WhyReplaced
	// WhyCrossNamespace: the UID belongs to a namespaced object of
	// another namespace than the dependent's, whatever its kind and name
	// (addDependentToOwners' invalid namespace); the collector looks in
	// the dependent's only.
	WhyCrossNamespace
	// WhyIdentityMismatch: the UID belongs to an object of the
	// dependent's namespace (or cluster-scoped) of another kind or name.
	WhyIdentityMismatch
	// WhyUnlisted: the owner's type was not listed.
	WhyUnlisted
	// WhyDiscoveryFailed: the catalog cannot map the kind, and discovery
	// of its group version failed (ServedTypes.UnknownKind).
	WhyDiscoveryFailed
	// WhyGroupUnknown: the catalog cannot map the kind, and offline input
	// does not say whether its group is served (ServedTypes.UnknownKind).
	WhyGroupUnknown
)

// KindUnknown reports whether the reference's kind could not be mapped but
// may be served.
func (v Reference) KindUnknown() bool { return v.Why == WhyDiscoveryFailed || v.Why == WhyGroupUnknown }

// Reference is the verdict on one owner reference.
type Reference struct {
	Ref   snapshot.OwnerReference
	Class Class
	Why   Why
	// Type is the owner's type as mapped (zero unless the kind mapped).
	Type snapshot.Resource
	// Namespace is where the collector looks the owner up: the
	// dependent's for a namespaced kind, "" otherwise.
	Namespace string
	// Owner is the object found: the owner for Solid and Waiting, the
	// object of that name for WhyReplaced, the object holding the UID for
	// WhyCrossNamespace and WhyIdentityMismatch; nil otherwise.
	Owner *snapshot.Object
	// Detail is ServedTypes.UnknownKind's reason when KindUnknown.
	Detail string
}

// Lookup finds objects the way the collector's GETs would: by type,
// namespace and name, and by UID (to explain a reference that dangles).
type Lookup interface {
	ByName(group, kind, namespace, name string) *snapshot.Object
	ByUID(uid string) *snapshot.Object
}

// RefLookup is a Lookup that finds a reference's owner by name faster
// knowing the UID the reference names. ByRef(group, kind, namespace, ref)
// returns exactly ByName(group, kind, namespace, ref.Name).
type RefLookup interface {
	Lookup
	ByRef(group, kind, namespace string, ref snapshot.OwnerReference) *snapshot.Object
}

// ownerByName is the collector's GET of ref's owner by name.
func ownerByName(look Lookup, group, kind, namespace string, ref snapshot.OwnerReference) *snapshot.Object {
	if rl, ok := look.(RefLookup); ok {
		return rl.ByRef(group, kind, namespace, ref)
	}
	return look.ByName(group, kind, namespace, ref.Name)
}

// Dependent is the object whose reference is judged.
type Dependent struct {
	Namespace  string
	Namespaced bool
}

// ClassifyReference judges ref of dep as isDangling and classifyReferences
// do (garbagecollector.go): map the kind at the reference's version, refuse
// a namespaced owner of a cluster-scoped dependent, GET the owner by name
// in the dependent's namespace and compare UIDs; an owner being deleted
// with foregroundDeletion is waited for. The absent-owner cache is the
// caller's: it only saves GETs.
func ClassifyReference(cat *ServedTypes, look Lookup, dep Dependent, ref snapshot.OwnerReference) Reference {
	v := Reference{Ref: ref}
	typ, ok := cat.Mapping(ref.APIVersion, ref.Kind)
	if !ok {
		if why, detail := cat.UnknownKind(ref.APIVersion); why != WhyNone {
			v.Class, v.Why, v.Detail = Unknown, why, detail
		} else {
			v.Class = Unresolvable
		}
		if dep.Namespaced {
			v.Namespace = dep.Namespace
		}
		return v
	}
	v.Type = typ
	if typ.Namespaced && !dep.Namespaced {
		v.Class = NamespacedOwnerOfClusterScoped
		v.Owner = look.ByUID(ref.UID)
		return v
	}
	if typ.Namespaced {
		v.Namespace = dep.Namespace
	}
	byName := ownerByName(look, typ.Group, typ.Kind, v.Namespace, ref)
	if byName != nil && byName.Metadata.UID == ref.UID {
		v.Owner, v.Class = byName, Solid
		if WaitingForDependentsDeletion(byName) {
			v.Class = Waiting
		}
		return v
	}
	v.Class, v.Why = Dangling, danglingWhy(look, typ, dep.Namespace, byName, ref)
	switch v.Why {
	case WhyReplaced:
		v.Owner = byName
	case WhyCrossNamespace, WhyIdentityMismatch:
		v.Owner = look.ByUID(ref.UID)
	case WhyUnlisted:
		v.Class = Unknown
	case WhyNone, WhyAbsent, WhyDiscoveryFailed, WhyGroupUnknown:
		// Nothing holds the UID or the name: no owner to name.
	}
	return v
}

// danglingWhy says why the GET did not find the owner. The object holding
// the reference's UID is judged as addDependentToOwners judges the node
// of that UID: a namespaced one in another namespace than the dependent's
// is an invalid namespace whatever its kind and name
// (reportInvalidNamespaceOwnerRef), else one of another kind or name
// does not match the reference's coordinates.
func danglingWhy(look Lookup, typ snapshot.Resource, depNamespace string, byName *snapshot.Object, ref snapshot.OwnerReference) Why {
	if o := look.ByUID(ref.UID); o != nil {
		switch {
		case InvalidOwnerNamespace(o.Metadata.Namespace, depNamespace):
			return WhyCrossNamespace
		case !sameCoordinates(o, typ.Group, ref):
			return WhyIdentityMismatch
		}
	}
	switch {
	case byName != nil:
		return WhyReplaced
	case !typ.Listed:
		return WhyUnlisted
	}
	return WhyAbsent
}

// InvalidOwnerNamespace reports whether the object holding an owner
// reference's UID, in ownerNamespace ("" when cluster-scoped), cannot be
// the owner of a dependent in dependentNamespace: the collector finds a
// namespaced dependent's owner in its own namespace or the cluster's
// scope, and a cluster-scoped dependent's in the cluster's scope only;
// any other is an invalid namespace (addDependentToOwners and
// processGraphChanges' reportInvalidNamespaceOwnerRef, the
// OwnerRefInvalidNamespace event).
func InvalidOwnerNamespace(ownerNamespace, dependentNamespace string) bool {
	return ownerNamespace != "" && ownerNamespace != dependentNamespace
}

// sameCoordinates reports whether o is of group and of ref's kind and
// name (ownerReferenceMatchesCoordinates, by group: the collector's node
// holds the version its informer watches).
func sameCoordinates(o *snapshot.Object, group string, ref snapshot.OwnerReference) bool {
	return snapshot.GroupOf(o.APIVersion) == group && o.Kind == ref.Kind && o.Metadata.Name == ref.Name
}

// WaitingForDependentsDeletion reports whether o is being deleted in the
// foreground: deletionTimestamp set and the foregroundDeletion finalizer
// still there (the collector's isDeletingDependents on the live object).
func WaitingForDependentsDeletion(o *snapshot.Object) bool {
	return o.Terminating() && o.HasFinalizer(FinalizerForeground)
}
