package rules

import "github.com/kgc-dev/kgc/pkg/snapshot"

// What the garbage collector's graph builder watches, and how it orders
// the identities of a virtual owner.

// MonitoredByGC reports whether kube-controller-manager's garbage
// collector runs an informer for the type r: discovery offers delete, list
// and watch (GetDeletableResources) and the type is not one of
// DefaultIgnoredResources, the core and events.k8s.io events. Only
// monitored objects become graph nodes, and only their GC finalizers are
// ever processed. An entry without verbs (an offline catalog that cannot
// tell) is assumed monitored, as nearly every type is.
func MonitoredByGC(r snapshot.Resource) bool {
	if r.Resource == "events" && (r.Group == "" || r.Group == "events.k8s.io") {
		return false
	}
	if len(r.Verbs) == 0 {
		return true
	}
	return r.HasVerb("delete") && r.HasVerb("list") && r.HasVerb("watch")
}

// ReferenceLess is the garbage collector's referenceLessThan order of r
// and o (kind, apiVersion, namespace, name, uid), which decides the
// identity a virtual node takes next when the one it had turns out absent
// (getAlternateOwnerIdentity).
func ReferenceLess(r, o snapshot.ObjectRef) bool {
	if r.Kind != o.Kind {
		return r.Kind < o.Kind
	}
	if r.APIVersion != o.APIVersion {
		return r.APIVersion < o.APIVersion
	}
	if r.Namespace != o.Namespace {
		return r.Namespace < o.Namespace
	}
	if r.Name != o.Name {
		return r.Name < o.Name
	}
	return r.UID < o.UID
}
