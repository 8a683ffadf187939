package rules

import (
	"fmt"
	"slices"
)

// What the API server does with a DELETE, as far as the garbage collector
// is concerned: the propagation policy a request sends, the default each
// type applies when it sends none, and the GC finalizers the generic
// registry's Delete puts on the object (k8s.io/apiserver
// pkg/registry/generic/registry/store.go: shouldOrphanDependents,
// shouldDeleteDependents, deletionFinalizersForGarbageCollection).

// Policy is the propagationPolicy a DELETE sends, spelled as the API
// server spells it, or PolicyDefault for none: the one type of the
// cascade from the --cascade flag to the simulated store.
type Policy string

// The propagation policies.
const (
	PolicyForeground Policy = "Foreground"
	PolicyBackground Policy = "Background"
	PolicyOrphan     Policy = "Orphan"
	// PolicyDefault sends no propagation policy, so the resource's own
	// default applies (orphan for ReplicationControllers and batch/v1
	// Jobs).
	PolicyDefault Policy = ""
)

// Validate is the API server's check of a request's propagationPolicy.
func (p Policy) Validate() error {
	switch p {
	case PolicyDefault, PolicyBackground, PolicyForeground, PolicyOrphan:
		return nil
	}
	return fmt.Errorf("unknown propagation policy %q: use Foreground, Background or Orphan", string(p))
}

// DeleteOptions are the fields of metav1.DeleteOptions that decide the
// GC finalizers: OrphanDependents is the deprecated field, which may not
// be combined with Policy.
type DeleteOptions struct {
	Policy           Policy
	OrphanDependents *bool
}

// GCPolicy is how a type's strategy treats dependents on DELETE.
type GCPolicy struct {
	// Unsupported: DefaultGarbageCollectionPolicy is Unsupported (events):
	// a DELETE never adds a GC finalizer.
	Unsupported bool
	// DefaultOrphan: the default policy is OrphanDependents.
	DefaultOrphan bool
}

// TypeGCPolicy is the DefaultGarbageCollectionPolicy of a type at the
// request's version (spec §1.2): kubectl, the collector and the namespace
// controller all use the preferred version.
func TypeGCPolicy(group, kind, version string) GCPolicy {
	return GCPolicy{Unsupported: kind == "Event" && (group == "" || group == "events.k8s.io"),
		DefaultOrphan: defaultOrphan(group, kind, version)}
}

func defaultOrphan(group, kind, version string) bool {
	switch {
	case group == "" && kind == "ReplicationController" && version == "v1":
		return true
	case group == "batch" && kind == "Job" && version == "v1":
		return true
	case group == "batch" && kind == "CronJob" && version == "v1beta1":
		return true
	case group == "extensions" && version == "v1beta1":
		return kind == "Deployment" || kind == "ReplicaSet" || kind == "DaemonSet" || kind == "ReplicationController"
	case group == "apps" && (version == "v1beta1" || version == "v1beta2"):
		return kind == "Deployment" || kind == "ReplicaSet" || kind == "DaemonSet" || kind == "StatefulSet"
	}
	return false
}

// shouldOrphanDependents: the request, else the object's GC finalizers
// (the first one wins), else the type's default.
func (t GCPolicy) shouldOrphanDependents(fins []string, opts DeleteOptions) bool {
	if t.Unsupported {
		return false
	}
	if opts.OrphanDependents != nil {
		return *opts.OrphanDependents
	}
	switch opts.Policy {
	case PolicyOrphan:
		return true
	case PolicyBackground, PolicyForeground:
		return false
	case PolicyDefault:
	}
	for _, f := range fins {
		if f == FinalizerOrphan {
			return true
		}
		if f == FinalizerForeground {
			return false
		}
	}
	return t.DefaultOrphan
}

// shouldDeleteDependents: the request, else the object's GC finalizers.
func (t GCPolicy) shouldDeleteDependents(fins []string, opts DeleteOptions) bool {
	if t.Unsupported || opts.OrphanDependents != nil {
		return false
	}
	switch opts.Policy {
	case PolicyForeground:
		return true
	case PolicyBackground, PolicyOrphan:
		return false
	case PolicyDefault:
	}
	for _, f := range fins {
		if f == FinalizerForeground {
			return true
		}
		if f == FinalizerOrphan {
			return false
		}
	}
	return false
}

// DeletionFinalizers is deletionFinalizersForGarbageCollection: the
// finalizer list a DELETE with opts leaves on an object of the type that
// has fins, and whether it differs from fins as a set.
func (t GCPolicy) DeletionFinalizers(fins []string, opts DeleteOptions) ([]string, bool) {
	nf := withGCFinalizers(fins, t.shouldOrphanDependents(fins, opts), t.shouldDeleteDependents(fins, opts))
	if SameSet(nf, fins) {
		return fins, false
	}
	return nf, true
}

// NamespaceDeleteFinalizers is the finalizer list the Namespace REST
// Delete asks for (pkg/registry/core/namespace/storage). Upstream
// rebuilds the list from a map (random order); kgc keeps the existing
// order and appends orphan then foregroundDeletion, so plans are stable.
func NamespaceDeleteFinalizers(fins []string, opts DeleteOptions) []string {
	wantOrphan, wantFg := slices.Contains(fins, FinalizerOrphan), slices.Contains(fins, FinalizerForeground)
	switch {
	case opts.OrphanDependents != nil:
		wantOrphan, wantFg = *opts.OrphanDependents, !*opts.OrphanDependents
	case opts.Policy != PolicyDefault:
		wantOrphan, wantFg = opts.Policy == PolicyOrphan, opts.Policy == PolicyForeground
	}
	return withGCFinalizers(fins, wantOrphan, wantFg)
}

// withGCFinalizers is fins without the GC finalizers, then orphan and
// foregroundDeletion as asked.
func withGCFinalizers(fins []string, orphan, foreground bool) []string {
	var nf []string
	for _, f := range fins {
		if f != FinalizerOrphan && f != FinalizerForeground {
			nf = append(nf, f)
		}
	}
	if orphan {
		nf = append(nf, FinalizerOrphan)
	}
	if foreground {
		nf = append(nf, FinalizerForeground)
	}
	return nf
}

// EffectivePolicy names the policy a finalizer list implements.
func EffectivePolicy(fins []string) Policy {
	switch {
	case slices.Contains(fins, FinalizerOrphan):
		return PolicyOrphan
	case slices.Contains(fins, FinalizerForeground):
		return PolicyForeground
	}
	return PolicyBackground
}

// SameSet reports whether a and b hold the same strings.
func SameSet(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}
