package rules_test

import (
	"testing"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

func TestMonitoredByGC(t *testing.T) {
	all := []string{"create", "delete", "get", "list", "patch", "update", "watch"}
	cases := []struct {
		name string
		r    snapshot.Resource
		want bool
	}{
		{"configmaps are watched", snapshot.Resource{Resource: "configmaps", Kind: "ConfigMap", Verbs: all}, true},
		{"core events are DefaultIgnoredResources", snapshot.Resource{Resource: "events", Kind: "Event", Verbs: all}, false},
		{"events.k8s.io events are DefaultIgnoredResources", snapshot.Resource{Group: "events.k8s.io", Resource: "events", Kind: "Event", Verbs: all}, false},
		{"a custom resource called events in another group is watched", snapshot.Resource{Group: "example.com", Resource: "events", Kind: "Event", Verbs: all}, true},
		{"no watch verb: no informer", snapshot.Resource{Group: "metrics.k8s.io", Resource: "pods", Kind: "PodMetrics", Verbs: []string{"get", "list"}}, false},
		{"no delete verb: not deletable", snapshot.Resource{Resource: "bindings", Kind: "Binding", Verbs: []string{"create", "list", "watch"}}, false},
		{"an offline entry without verbs is assumed watched", snapshot.Resource{Group: "example.com", Resource: "widgets", Kind: "Widget"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := rules.MonitoredByGC(tc.r); got != tc.want {
				t.Errorf("MonitoredByGC() = %v, want %v", got, tc.want)
			}
		})
	}
}
