package snapshot

import "strings"

// Keep markers are annotations by which a tool that deletes objects is
// asked to leave one alone: Helm's uninstall, Argo CD's and Flux's
// pruning. The garbage collector honours none of them, so a cascade can
// take an object its owners meant to keep; kgc keeps the marker (never
// the annotations themselves) so that a plan can say so and apply can
// refuse.
const (
	helmResourcePolicy = "helm.sh/resource-policy"
	argoSyncOptions    = "argocd.argoproj.io/sync-options"
	fluxPrune          = "kustomize.toolkit.fluxcd.io/prune"
)

// KeepMarker returns "key=value" when the annotation key=value asks
// deleting tools to keep its object, and "" otherwise:
// helm.sh/resource-policy=keep, an Argo CD sync option Delete=false or
// Prune=false, or kustomize.toolkit.fluxcd.io/prune=disabled.
func KeepMarker(key, value string) string {
	keep := false
	switch key {
	case helmResourcePolicy:
		keep = value == "keep"
	case fluxPrune:
		keep = value == "disabled"
	case argoSyncOptions:
		for _, opt := range strings.Split(value, ",") {
			opt = strings.TrimSpace(opt)
			keep = keep || opt == "Delete=false" || opt == "Prune=false"
		}
	}
	if !keep {
		return ""
	}
	return key + "=" + value
}

// IsKeepAnnotation reports whether the annotation key can carry a keep
// marker, so that a reader decodes only those values.
func IsKeepAnnotation(key string) bool {
	return key == helmResourcePolicy || key == argoSyncOptions || key == fluxPrune
}

// KeepMarkers returns the keep markers among annotations, joined by ", "
// in key order; "" when there is none.
func KeepMarkers(annotations map[string]string) string {
	var out []string
	for _, k := range []string{argoSyncOptions, helmResourcePolicy, fluxPrune} {
		if m := KeepMarker(k, annotations[k]); m != "" {
			out = append(out, m)
		}
	}
	return strings.Join(out, ", ")
}

// SetKeepMarker records marker in o's facts.
func SetKeepMarker(o *Object, marker string) {
	if marker == "" {
		return
	}
	if o.Facts == nil {
		o.Facts = &Facts{}
	}
	o.Facts.Keep = marker
}

// SetKeep records the keep markers among annotations in o's facts, for
// readers of objects that come decoded (a live capture).
func SetKeep(o *Object, annotations map[string]string) { SetKeepMarker(o, KeepMarkers(annotations)) }
