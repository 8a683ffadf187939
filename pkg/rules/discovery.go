package rules

import (
	"regexp"
	"sort"
	"strings"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Namespace condition types the namespace controller writes
// (pkg/controller/namespace/deletion/status_condition_utils.go).
const (
	CondDiscoveryFailure   = "NamespaceDeletionDiscoveryFailure"
	CondGVParsingFailure   = "NamespaceDeletionGroupVersionParsingFailure"
	CondContentFailure     = "NamespaceDeletionContentFailure"
	CondContentRemaining   = "NamespaceContentRemaining"
	CondFinalizersRemained = "NamespaceFinalizersRemaining"
)

// The namespace controller discovers every namespaced type before it
// deletes a namespace's content, and any group version whose discovery
// fails makes deleteAllContent return an error after deleting what it
// could (upstream namespaced_resources_deleter.go): the namespace keeps
// its kubernetes finalizer, even once empty, until discovery succeeds or
// the failing APIService is gone. An aggregated APIService that is not
// Available is such a failure, whether or not the input recorded a
// discovery of its own (a dump has none).

// APIServiceGroupVersion is the group/version an APIService serves: from
// its spec, or without it from its name ("v1beta1.metrics.k8s.io").
func APIServiceGroupVersion(o *snapshot.Object) string {
	if o.Facts != nil && o.Facts.APIService != nil && o.Facts.APIService.Version != "" {
		f := o.Facts.APIService
		if f.Group == "" {
			return f.Version
		}
		return f.Group + "/" + f.Version
	}
	v, g, ok := strings.Cut(o.Metadata.Name, ".")
	if !ok {
		return o.Metadata.Name
	}
	return g + "/" + v
}

// APIServiceUnavailable reports whether APIService o is served by a
// Service (a Local one is kube-apiserver itself) and its Available
// condition is known and not True: the aggregator then fails discovery of
// its group version.
func APIServiceUnavailable(o *snapshot.Object) bool {
	if o.Facts == nil || o.Facts.APIService == nil {
		return false
	}
	f := o.Facts.APIService
	return f.Service != nil && f.Available != nil && f.Available.Status != "True"
}

// FailingDiscovery returns the group versions whose discovery fails while
// the APIServices apiServices exist: those the input's discovery recorded
// (with its error), unless the APIService serving one was in the input
// (had) and is gone from apiServices, then those of the unavailable
// APIServices (without an error: the APIService's condition says why),
// each group version once.
func FailingDiscovery(recorded []DiscoveryFailure, had map[string]bool, apiServices []*snapshot.Object) []DiscoveryFailure {
	exists := map[string]bool{}
	for _, a := range apiServices {
		exists[APIServiceGroupVersion(a)] = true
	}
	seen := map[string]bool{}
	var out []DiscoveryFailure
	for _, f := range recorded {
		if seen[f.GroupVersion] || (had[f.GroupVersion] && !exists[f.GroupVersion]) {
			continue
		}
		seen[f.GroupVersion] = true
		out = append(out, f)
	}
	for _, a := range apiServices {
		if gv := APIServiceGroupVersion(a); APIServiceUnavailable(a) && !seen[gv] {
			seen[gv] = true
			out = append(out, DiscoveryFailure{GroupVersion: gv})
		}
	}
	return out
}

// reGroupVersion finds group versions in a discovery error message:
// "…: metrics.k8s.io/v1beta1: the server is currently unable to handle
// the request".
var reGroupVersion = regexp.MustCompile(`\b([a-z0-9-]+(?:\.[a-z0-9-]+)+/v[0-9]+(?:(?:alpha|beta)[0-9]+)?)\b`)

// FailingGroupVersions extracts the group versions a discovery error
// message names, sorted and without duplicates.
func FailingGroupVersions(msg string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range reGroupVersion.FindAllStringSubmatch(msg, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	return out
}

// StandingNamespaceFailure says what a terminating namespace's own
// conditions, as the input holds them, report blocking its finalization
// beyond what the input shows, or "": a content or group-version parsing
// failure (the input cannot show when it ends), or, from a dump (no
// discovery of its own: liveDiscovery false), a discovery failure of a
// group version no APIService of the input serves (served: those whose
// fate FailingDiscovery follows). A condition that stands is the namespace
// controller's last word; kgc never calls such a namespace finished.
func StandingNamespaceFailure(ns *snapshot.Object, served map[string]bool, liveDiscovery bool) string {
	if ns == nil || ns.Facts == nil || ns.Facts.Namespace == nil {
		return ""
	}
	for _, c := range ns.Facts.Namespace.Conditions {
		if c.Status != "True" {
			continue
		}
		switch c.Type {
		case CondContentFailure, CondGVParsingFailure:
			return "the namespace controller reports " + c.Type + ": " + c.Message
		case CondDiscoveryFailure:
			if liveDiscovery {
				continue
			}
			gvs := FailingGroupVersions(c.Message)
			for _, gv := range gvs {
				if !served[gv] {
					return "the namespace controller reports that discovery of " + gv + " fails (" + c.Type + ")"
				}
			}
			if len(gvs) == 0 {
				return "the namespace controller reports " + c.Type + ": " + c.Message
			}
		}
	}
	return ""
}
