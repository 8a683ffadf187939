package diagnose

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// terminatingCRD is a CRD of group/Kind being deleted, served at v1beta1
// and v1 (storage v1), with the given conversion, storedVersions and
// Terminating condition.
func terminatingCRD(group, kind, plural string, conv *snapshot.CRDConversion, stored []string, cond *snapshot.Condition) snapshot.Object {
	return testobj.New("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", plural+"."+group).Deleting(ago(2 * time.Hour)).
		Finalizers(rules.FinalizerCRD).Facts(&snapshot.Facts{CRD: &snapshot.CRDFacts{Group: group, Kind: kind, Plural: plural, Scope: "Namespaced",
		Versions:   []snapshot.CRDVersion{{Name: "v1beta1", Served: true}, {Name: "v1", Served: true, Storage: true}},
		Conversion: conv, StoredVersions: stored, Terminating: cond, Established: true}}).Build()
}

func remedyActions(rs []Remedy) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Action)
	}
	return strings.Join(out, ",")
}

// TestCRDThatDoesNotFinishDeleting: the CRD finalizer's own word and the
// conversion webhook decide; a failure is never progress.
func TestCRDThatDoesNotFinishDeleting(t *testing.T) {
	failedList := &snapshot.Condition{Type: "Terminating", Status: "True", Reason: "InstanceDeletionFailed",
		Message: `could not list instances: conversion webhook for example.com/v1, Kind=Widget failed: Post "https://widget-conversion.widget-system.svc:443/convert?timeout=30s": service "widget-conversion" not found`}
	svcConv := &snapshot.CRDConversion{Strategy: "Webhook", Service: &snapshot.ServiceReference{Namespace: "widget-system", Name: "widget-conversion"}, CAValidity: snapshot.CABundleValid}
	other := testobj.Service("kube-system", "kube-dns").Build()

	t.Run("conversion webhook whose Service is gone, instances stored at another version", func(t *testing.T) {
		// https://github.com/kubernetes/kubernetes/issues/71925 (CRD
		// deletion fails while its conversion webhook is unavailable:
		// the finalizer cannot list the instances) and #118357 (the
		// conformance test's crd-webhook CRDs left behind, their webhook
		// Service deleted with its namespace).
		crd := terminatingCRD("example.com", "Widget", "widgets", svcConv, []string{"v1beta1", "v1"}, failedList)
		s := testobj.Snapshot(crd, other).CRD("example.com", "Widget", "widgets", true, "v1", "v1beta1").
			Unlisted("example.com", "Widget", "conversion webhook for example.com/v1, Kind=Widget failed (HTTP 500)").Build()
		d, err := New(s, nil, Options{}).Diagnose(crd.Metadata.UID)
		if err != nil {
			t.Fatal(err)
		}
		rc := rootCause(t, d, ReasonConversionWebhook)
		if rc.Object.UID != crd.Metadata.UID || rc.Finalizer != rules.FinalizerCRD || relatedName(rc, "Service") != "widget-conversion" {
			t.Errorf("root cause %s %s related %+v, want the CRD's cleanup finalizer and its webhook Service", rc.Object, rc.Finalizer, rc.Related)
		}
		for _, want := range []string{"stored at v1beta1", "storage version v1", "Service/widget-conversion -n widget-system does not exist", "InstanceDeletionFailed"} {
			if !strings.Contains(rc.Message, want) {
				t.Errorf("message %q lacks %q", rc.Message, want)
			}
		}
		if got := remedyActions(rc.Remedies); !strings.HasPrefix(got, ActionFixService+","+ActionPatchCRDConversion) {
			t.Errorf("remedies %s, want the Service fixed first, then conversion turned off", got)
		}
		if strings.Contains(d.Summary, "nothing is stuck") || len(d.RootCauses) != 1 {
			t.Errorf("summary %q, root causes:\n%s", d.Summary, describe(d.RootCauses))
		}
		if len(d.Blockers) != 1 || len(d.Blockers[0].Conditions) != 1 || d.Blockers[0].Conditions[0].Reason != "InstanceDeletionFailed" {
			t.Errorf("the blocker does not show the Terminating condition: %+v", d.Blockers)
		}
	})

	t.Run("caBundle that is not PEM, predicted before the finalizer reports", func(t *testing.T) {
		conv := &snapshot.CRDConversion{Strategy: "Webhook", URLHost: "hooks.example.net", CAValidity: snapshot.CABundleNotPEM}
		crd := terminatingCRD("example.com", "Widget", "widgets", conv, []string{"v1beta1", "v1"}, nil)
		w := testobj.New("example.com/v1", "Widget", "shop", "w").Build()
		s := testobj.Snapshot(crd, w).CRD("example.com", "Widget", "widgets", true, "v1", "v1beta1").Build()
		d, err := New(s, nil, Options{}).Diagnose(crd.Metadata.UID)
		if err != nil {
			t.Fatal(err)
		}
		rc := rootCause(t, d, ReasonConversionWebhook)
		if !strings.Contains(rc.Message, "caBundle of CustomResourceDefinition/widgets.example.com's conversion webhook is not PEM") {
			t.Errorf("message %q does not name the caBundle", rc.Message)
		}
		if !strings.Contains(remedyActions(rc.Remedies), ActionFixService) || !strings.Contains(rc.Remedies[0].Description, "caBundle") {
			t.Errorf("remedies %+v, want the caBundle fixed first", rc.Remedies)
		}
		for _, x := range d.RootCauses {
			if x.Reason == ReasonInProgress || x.Reason == ReasonControllerStalled {
				t.Errorf("the pending Widget is reported as %s while the list fails: %s", x.Reason, x.Message)
			}
		}
	})

	t.Run("no instance stored at another version: the broken webhook holds nothing", func(t *testing.T) {
		gone := &snapshot.CRDConversion{Strategy: "Webhook", Service: &snapshot.ServiceReference{Namespace: "widget-system", Name: "widget-conversion"}, CAValidity: snapshot.CABundleValid}
		crd := terminatingCRD("example.com", "Widget", "widgets", gone, []string{"v1"}, nil)
		s := testobj.Snapshot(crd, other).CRD("example.com", "Widget", "widgets", true, "v1", "v1beta1").Build()
		d, err := New(s, nil, Options{}).Diagnose(crd.Metadata.UID)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.RootCauses) != 1 || d.RootCauses[0].Reason != ReasonInProgress {
			t.Errorf("root causes:\n%s\nwant only the CRD finalizer's next pass (nothing to convert)", describe(d.RootCauses))
		}
	})

	t.Run("InstanceDeletionFailed quoting a caBundle that is not PEM", func(t *testing.T) {
		// https://github.com/metallb/metallb/issues/1501: deleting
		// addresspools.metallb.io, whose conversion webhook's caBundle is
		// "Cg==" (a newline), the CRD finalizer reports "could not list
		// instances: unable to find a custom resource client for
		// addresspools.metallb.io: unable to load root certificates:
		// unable to parse bytes as PEM block", which names no webhook.
		cond := &snapshot.Condition{Type: "Terminating", Status: "True", Reason: "InstanceDeletionFailed",
			Message: "could not list instances: unable to find a custom resource client for addresspools.metallb.io: unable to load root certificates: unable to parse bytes as PEM block"}
		svc := &snapshot.ServiceReference{Namespace: "metallb-system", Name: "webhook-service"}
		for name, tc := range map[string]struct {
			conv   *snapshot.CRDConversion
			stored []string
			safe   bool // no stored version needs converting
		}{
			"the input keeps no word of the caBundle": {&snapshot.CRDConversion{Strategy: "Webhook", Service: svc}, []string{"v1beta1"}, true},
			"the caBundle read as not PEM":            {&snapshot.CRDConversion{Strategy: "Webhook", Service: svc, CAValidity: snapshot.CABundleNotPEM}, []string{"v1alpha1", "v1beta1"}, false},
			"a dump without the conversion's facts":   {nil, nil, false},
		} {
			t.Run(name, func(t *testing.T) {
				crd := terminatingCRD("metallb.io", "AddressPool", "addresspools", tc.conv, tc.stored, cond)
				crd.Facts.CRD.Versions = []snapshot.CRDVersion{{Name: "v1alpha1", Served: true}, {Name: "v1beta1", Served: true, Storage: true}}
				ws := testobj.Service("metallb-system", "webhook-service").Build()
				s := testobj.Snapshot(crd, ws).CRD("metallb.io", "AddressPool", "addresspools", true, "v1beta1").Build()
				d, err := New(s, nil, Options{}).Diagnose(crd.Metadata.UID)
				if err != nil {
					t.Fatal(err)
				}
				rc := rootCause(t, d, ReasonConversionWebhook)
				if !strings.Contains(rc.Message, "caBundle of CustomResourceDefinition/addresspools.metallb.io's conversion webhook") {
					t.Errorf("message %q does not name the conversion webhook's caBundle", rc.Message)
				}
				acts := remedyActions(rc.Remedies)
				at := slices.IndexFunc(rc.Remedies, func(r Remedy) bool { return r.Action == ActionPatchCRDConversion })
				if !strings.HasPrefix(acts, ActionFixService) || !strings.Contains(rc.Remedies[0].Description, "caBundle") || at < 0 ||
					strings.Contains(remedyActions(rc.Remedies[:at]), ActionRemoveFinalizer) {
					t.Fatalf("remedies %s (%+v), want the caBundle fixed first, and conversion turned off before any finalizer removal", acts, rc.Remedies)
				}
				off := rc.Remedies[at]
				if !strings.Contains(off.Description, "spec.conversion.strategy to None") ||
					strings.HasPrefix(off.Description, "No stored version needs converting") != tc.safe {
					t.Errorf("conversion-off remedy %q: want it to say whether a stored version needs converting (safe: %v)", off.Description, tc.safe)
				}
				if len(d.RootCauses) != 1 {
					t.Errorf("root causes:\n%s", describe(d.RootCauses))
				}
			})
		}
	})

	t.Run("InstanceDeletionFailed for another cause", func(t *testing.T) {
		cond := &snapshot.Condition{Type: "Terminating", Status: "True", Reason: "InstanceDeletionFailed", Message: "could not issue all deletes: etcdserver: request timed out"}
		crd := terminatingCRD("example.com", "Widget", "widgets", nil, []string{"v1"}, cond)
		w := testobj.New("example.com/v1", "Widget", "shop", "w").Build()
		s := testobj.Snapshot(crd, w).CRD("example.com", "Widget", "widgets", true, "v1").Build()
		d, err := New(s, nil, Options{}).Diagnose(crd.Metadata.UID)
		if err != nil {
			t.Fatal(err)
		}
		rc := rootCause(t, d, ReasonInstanceDeletionFailed)
		if !strings.Contains(rc.Message, "etcdserver: request timed out") || rc.Remedies[0].Command != "kubectl get widgets.example.com -A" {
			t.Errorf("root cause %q, remedies %+v", rc.Message, rc.Remedies)
		}
		if len(d.RootCauses) != 1 {
			t.Errorf("root causes:\n%s", describe(d.RootCauses))
		}
	})

	t.Run("an instance held by its own finalizer", func(t *testing.T) {
		// https://github.com/rook/rook/issues/2188: clusters.ceph.rook.io
		// hangs in deletion while a Cluster keeps its operator's
		// finalizer.
		cond := &snapshot.Condition{Type: "Terminating", Status: "True", Reason: "InstanceDeletionCheck", Message: "could not confirm zero CustomResources remaining: timed out waiting for the condition"}
		crd := terminatingCRD("ceph.rook.io", "Cluster", "clusters", nil, []string{"v1"}, cond)
		cl := gone(testobj.New("ceph.rook.io/v1", "Cluster", "rook", "rook").Deleting(ago(2 * time.Hour)).Finalizers("cluster.ceph.rook.io").Build())
		s := testobj.Snapshot(crd, cl).CRD("ceph.rook.io", "Cluster", "clusters", true, "v1").Build()
		d, err := New(s, nil, Options{}).Diagnose(crd.Metadata.UID)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.RootCauses) != 1 || d.RootCauses[0].Object.UID != cl.Metadata.UID || d.RootCauses[0].Finalizer != "cluster.ceph.rook.io" {
			t.Errorf("root causes:\n%s\nwant the Cluster's finalizer", describe(d.RootCauses))
		}
	})
}
