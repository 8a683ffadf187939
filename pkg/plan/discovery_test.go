package plan

import (
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// apiService is an aggregated APIService for metrics.k8s.io/v1beta1,
// Available or not.
func apiService(available string) snapshot.Object {
	return testobj.New("apiregistration.k8s.io/v1", "APIService", "", "v1beta1.metrics.k8s.io").UID("api").
		Facts(&snapshot.Facts{APIService: &snapshot.APIServiceFacts{Group: "metrics.k8s.io", Version: "v1beta1",
			Service:   &snapshot.ServiceReference{Namespace: "metrics", Name: "metrics-server"},
			Available: &snapshot.Condition{Type: "Available", Status: available, Reason: "MissingEndpoints"}}}).Build()
}

func activeNS(name string, conds ...snapshot.Condition) snapshot.Object {
	return testobj.Namespace(name).UID("ns").
		Facts(&snapshot.Facts{Namespace: &snapshot.NamespaceFacts{Phase: "Active", SpecFinalizers: []string{rules.FinalizerNamespace}, Conditions: conds}}).Build()
}

// TestNamespaceWaitsForDiscovery: the namespace controller deletes what
// it can, and keeps the namespace's finalizer while any group fails
// discovery (namespaced_resources_deleter.go): an aggregated APIService
// that is not Available, or a failure the capture's own discovery
// recorded. Deleting the APIService lets the namespace go.
func TestNamespaceWaitsForDiscovery(t *testing.T) {
	del := []Action{Delete{UID: "ns", Policy: PolicyBackground}}
	c := cm("shop", "c").UID("c").Build()
	recorded := world(activeNS("shop"), c).Live().DiscoveryError("metrics.k8s.io/v1beta1", "the server is currently unable to handle the request").Build()
	runScenarios(t, []scenario{
		{name: "APIService not Available", snap: world(activeNS("shop"), c, apiService("False")).Build(), actions: del,
			want: map[string]string{"ns": "exists terminating", "c": "gone", "api": "exists"}},
		{name: "APIService Available", snap: world(activeNS("shop"), c, apiService("True")).Build(), actions: del,
			want: map[string]string{"ns": "gone", "c": "gone"}},
		{name: "APIService deleted too", snap: world(activeNS("shop"), c, apiService("False")).Build(),
			actions: append(del, Delete{UID: "api", Policy: PolicyBackground}), want: map[string]string{"ns": "gone", "api": "gone"}},
		{name: "discovery failed when captured", snap: recorded, actions: del, want: map[string]string{"ns": "exists terminating", "c": "gone"}},
	})
	_, p := simulate(t, world(activeNS("shop"), c, apiService("False")).Build(), del, Options{})
	if !strings.Contains(strings.Join(stepDetails(p), "\n"), "discovery of metrics.k8s.io/v1beta1 to succeed") {
		t.Errorf("no step says what the namespace waits for:\n%s", strings.Join(stepDetails(p), "\n"))
	}
}

// TestNamespaceConditionStands: a dump's terminating namespace whose
// controller reports that it cannot delete some content is never called
// finished, even when the dump shows no content (the content that fails
// is what the dump could not hold).
func TestNamespaceConditionStands(t *testing.T) {
	failing := snapshot.Condition{Type: rules.CondContentFailure, Status: "True", Message: "Failed to delete all resource types, 1 remaining: conversion webhook for example.com/v1, Kind=Gadget failed"}
	ns := testobj.Namespace("team-c").UID("ns").Deleting(testobj.CapturedAt).
		Facts(&snapshot.Facts{Namespace: &snapshot.NamespaceFacts{Phase: "Terminating", SpecFinalizers: []string{rules.FinalizerNamespace}, Conditions: []snapshot.Condition{failing}}}).Build()
	cleared := ns
	cleared.Facts = &snapshot.Facts{Namespace: &snapshot.NamespaceFacts{Phase: "Terminating", SpecFinalizers: []string{rules.FinalizerNamespace}}}
	runScenarios(t, []scenario{
		{name: "content failure stands", snap: world(ns).Build(), want: map[string]string{"ns": "exists terminating"}},
		{name: "no failure reported", snap: world(cleared).Build(), want: map[string]string{"ns": "gone"}},
	})
}

func stepDetails(p *Plan) []string {
	var out []string
	for _, s := range p.Steps {
		out = append(out, s.Actor+" "+s.Action+" "+s.Object.String()+" "+s.Detail)
	}
	return out
}
