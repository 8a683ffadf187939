package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
	"github.com/kgc-dev/kgc/pkg/snapshotio"
)

// admissionDump is the fixture of cmd/kgc's why-stuck admission goldens.
func admissionDump(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshotio.ReadFiles([]string{"../../cmd/kgc/testdata/whystuck-admission.yaml"}, nil, snapshotio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func diagnoseByName(t *testing.T, s *snapshot.Snapshot, kind, ns, name string) *Diagnosis {
	t.Helper()
	for _, o := range s.Objects {
		if o.Kind == kind && o.Metadata.Namespace == ns && o.Metadata.Name == name {
			d, err := New(s, nil, Options{}).Diagnose(o.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
	}
	t.Fatalf("no %s %s/%s", kind, ns, name)
	return nil
}

func rootCause(t *testing.T, d *Diagnosis, reason string) RootCause {
	t.Helper()
	for _, rc := range d.RootCauses {
		if rc.Reason == reason {
			return rc
		}
	}
	t.Fatalf("no %s root cause:\n%s", reason, describe(d.RootCauses))
	return RootCause{}
}

func TestNamespaceBlocksItselfThroughItsAPIService(t *testing.T) {
	s := admissionDump(t)
	for _, ns := range []string{"metrics", "team-c"} {
		d := diagnoseByName(t, s, "Namespace", "", ns)
		rc := rootCause(t, d, ReasonNamespaceBlocksItself)
		for _, want := range []string{"MissingEndpoints", "Service/metrics-server -n metrics", "blocks itself"} {
			if !strings.Contains(rc.Message, want) {
				t.Errorf("%s: message %q lacks %q", ns, rc.Message, want)
			}
		}
		if relatedName(rc, "APIService") != "v1beta1.metrics.k8s.io" || relatedName(rc, "Service") != "metrics-server" {
			t.Errorf("%s: related = %+v, want the APIService and its Service", ns, rc.Related)
		}
		// Making it available again is impossible: deleting it comes first.
		if rc.Remedies[0].Action != ActionDeleteAPIService || rc.Remedies[0].Command != "kubectl delete apiservice v1beta1.metrics.k8s.io" {
			t.Errorf("%s: first remedy = %+v, want the APIService deleted", ns, rc.Remedies[0])
		}
		for _, r := range rc.Remedies {
			if r.Action == ActionFixAPIService {
				t.Errorf("%s: offers to make the APIService available again: %s", ns, r.Description)
			}
		}
	}
}

func TestUnavailableAPIServiceElsewhere(t *testing.T) {
	ns := terminatingNS("team-x", ago(time.Hour))
	apisvc := testobj.New("apiregistration.k8s.io/v1", "APIService", "", "v1beta1.custom.metrics.k8s.io").Facts(&snapshot.Facts{APIService: &snapshot.APIServiceFacts{
		Group: "custom.metrics.k8s.io", Version: "v1beta1", Service: &snapshot.ServiceReference{Namespace: "monitoring", Name: "adapter"},
		Available: &snapshot.Condition{Type: "Available", Status: "False", Reason: "ServiceNotFound", Message: `service/adapter in "monitoring" is not present`}}}).Build()
	svc := testobj.New("v1", "Service", "kube-system", "kube-dns").Build()
	d, err := New(testobj.Snapshot(ns, apisvc, svc).Build(), nil, Options{}).Diagnose(ns.Metadata.UID)
	if err != nil {
		t.Fatal(err)
	}
	rc := rootCause(t, d, ReasonAPIServiceUnavailable)
	if !strings.Contains(rc.Message, "ServiceNotFound") || !strings.Contains(rc.Message, "Service/adapter -n monitoring does not exist") {
		t.Errorf("message %q does not say why", rc.Message)
	}
	if rc.Remedies[0].Action != ActionFixAPIService {
		t.Errorf("first remedy %s, want fix-apiservice (the extension lives outside the namespace)", rc.Remedies[0].Action)
	}
}

func TestConversionWebhookWithoutService(t *testing.T) {
	d := diagnoseByName(t, admissionDump(t), "Namespace", "", "team-c")
	rc := rootCause(t, d, ReasonConversionWebhook)
	if rc.Object.Name != "gadgets.example.com" || relatedName(rc, "Service") != "gadget-conversion" {
		t.Errorf("root cause on %s related %+v, want the CRD and its conversion Service", rc.Object, rc.Related)
	}
	if !strings.Contains(rc.Message, "Service/gadget-conversion -n gadget-system does not exist") {
		t.Errorf("message %q does not name the missing service", rc.Message)
	}
	var actions []string
	for _, r := range rc.Remedies {
		actions = append(actions, r.Action)
	}
	if strings.Join(actions, ",") != ActionFixService+","+ActionPatchCRDConversion {
		t.Errorf("remedies %v", actions)
	}
}

// TestStandingConditionIsNeverAllClear: a namespace the input shows empty
// but whose controller still reports content or failures is never "in
// progress".
func TestStandingConditionIsNeverAllClear(t *testing.T) {
	for _, c := range []snapshot.Condition{
		{Type: condContentRemaining, Status: "True", Message: "Some resources are remaining: configmaps. has 2 resource instances"},
		{Type: condFinalizersRemains, Status: "True", Message: "Some content in the namespace has finalizers remaining: a.io/x in 1 resource instances"},
		{Type: condContentFailure, Status: "True", Message: "Failed to delete all resource types, 1 remaining: the server was unable to return a response in the time allotted"},
		{Type: condGVParsingFailure, Status: "True", Message: "couldn't parse"},
	} {
		ns := terminatingNS("quiet", ago(time.Hour), c)
		cm := testobj.New("v1", "ConfigMap", "other", "x").Build()
		d, err := New(testobj.Snapshot(ns, cm).Build(), nil, Options{}).Diagnose(ns.Metadata.UID)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(d.Summary, "nothing is stuck") {
			t.Errorf("%s: %s", c.Type, d.Summary)
		}
		for _, rc := range d.RootCauses {
			if rc.Reason == ReasonInProgress {
				t.Errorf("%s: in-progress root cause while the condition stands: %s", c.Type, rc.Message)
			}
		}
		if len(d.RootCauses) == 0 || d.RootCauses[0].Finalizer != rules.FinalizerNamespace {
			t.Errorf("%s: root causes %s", c.Type, describe(d.RootCauses))
		}
	}
}

func webhookCfg(name string, h snapshot.Webhook) snapshot.Object {
	return testobj.New("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "", name).
		Facts(&snapshot.Facts{WebhookConfiguration: &snapshot.WebhookConfigurationFacts{Webhooks: []snapshot.Webhook{h}}}).Build()
}

func TestWebhookRejectingFinalizerRemoval(t *testing.T) {
	cm := testobj.ConfigMap("app", "settings").Deleting(ago(time.Hour)).Finalizers("example.io/keep").Build()
	rule := snapshot.WebhookRule{Operations: []string{"UPDATE"}, APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}
	svcRef := &snapshot.ServiceReference{Namespace: "policy", Name: "guard"}
	svc := testobj.Service("policy", "guard").Build()
	dying := testobj.Namespace("policy").Deleting(ago(time.Hour)).Build()
	other := testobj.Service("kube-system", "kube-dns").Build()
	appNS := testobj.Namespace("app").Label("team", "shop").Build()
	slice := testobj.New("discovery.k8s.io/v1", "EndpointSlice", "policy", "guard-1").Label("kubernetes.io/service-name", "guard").
		Facts(&snapshot.Facts{EndpointSlice: &snapshot.EndpointSliceFacts{Endpoints: 1, Ready: 1}}).Build()
	tests := []struct {
		name   string
		hook   snapshot.Webhook
		extra  []snapshot.Object
		reject string // substring of the message; "" = no webhook root cause
	}{
		{"service gone", snapshot.Webhook{Name: "g.io", Rules: []snapshot.WebhookRule{rule}, Service: svcRef}, []snapshot.Object{other}, "Service/guard -n policy does not exist"},
		{"service in a namespace being deleted", snapshot.Webhook{Name: "g.io", FailurePolicy: "Fail", Rules: []snapshot.WebhookRule{rule}, Service: svcRef}, []snapshot.Object{svc, dying}, "which is being deleted"},
		{"failurePolicy Ignore", snapshot.Webhook{Name: "g.io", FailurePolicy: "Ignore", Rules: []snapshot.WebhookRule{rule}, Service: svcRef}, []snapshot.Object{other}, ""},
		{"CREATE only", snapshot.Webhook{Name: "g.io", Rules: []snapshot.WebhookRule{{Operations: []string{"CREATE"}, APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}, Service: svcRef}, []snapshot.Object{other}, ""},
		{"every resource and subresource", snapshot.Webhook{Name: "g.io", Rules: []snapshot.WebhookRule{{Operations: []string{"*"}, APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}}}, Service: svcRef}, []snapshot.Object{other}, "Service/guard -n policy does not exist"},
		{"configmaps/* also matches configmaps", snapshot.Webhook{Name: "g.io", Rules: []snapshot.WebhookRule{{Operations: []string{"UPDATE"}, APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps/*"}}}, Service: svcRef}, []snapshot.Object{other}, "Service/guard -n policy does not exist"},
		{"a subresource only", snapshot.Webhook{Name: "g.io", Rules: []snapshot.WebhookRule{{Operations: []string{"UPDATE"}, APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps/status"}}}, Service: svcRef}, []snapshot.Object{other}, ""},
		{"another resource", snapshot.Webhook{Name: "g.io", Rules: []snapshot.WebhookRule{{Operations: []string{"*"}, APIGroups: []string{""}, APIVersions: []string{"*"}, Resources: []string{"secrets"}}}, Service: svcRef}, []snapshot.Object{other}, ""},
		{"service answers", snapshot.Webhook{Name: "g.io", Rules: []snapshot.WebhookRule{rule}, Service: svcRef}, []snapshot.Object{svc, slice}, ""},
		{"services not listed", snapshot.Webhook{Name: "g.io", Rules: []snapshot.WebhookRule{rule}, Service: svcRef}, nil, ""},
		{"namespaceSelector selects the namespace", snapshot.Webhook{Name: "g.io", Rules: []snapshot.WebhookRule{rule}, Service: svcRef, NamespaceSelector: true,
			NamespaceLabelSelector: &snapshot.LabelSelector{MatchLabels: map[string]string{"team": "shop"}}}, []snapshot.Object{other, appNS}, "Service/guard -n policy does not exist"},
		{"namespaceSelector excludes the namespace", snapshot.Webhook{Name: "g.io", Rules: []snapshot.WebhookRule{rule}, Service: svcRef, NamespaceSelector: true,
			NamespaceLabelSelector: &snapshot.LabelSelector{MatchExpressions: []snapshot.LabelSelectorRequirement{{Key: "team", Operator: "NotIn", Values: []string{"shop"}}}}}, []snapshot.Object{other, appNS}, ""},
		{"namespaceSelector, namespace not in the input", snapshot.Webhook{Name: "g.io", Rules: []snapshot.WebhookRule{rule}, Service: svcRef, NamespaceSelector: true,
			NamespaceLabelSelector: &snapshot.LabelSelector{MatchLabels: map[string]string{"team": "shop"}}}, []snapshot.Object{other}, "its namespaceSelector, which kgc cannot evaluate here, may exclude"},
		{"objectSelector excludes the object", snapshot.Webhook{Name: "g.io", Rules: []snapshot.WebhookRule{rule}, Service: svcRef, ObjectSelector: true,
			ObjectLabelSelector: &snapshot.LabelSelector{MatchExpressions: []snapshot.LabelSelectorRequirement{{Key: "guarded", Operator: "Exists"}}}}, []snapshot.Object{other}, ""},
		{"objectSelector selects the object", snapshot.Webhook{Name: "g.io", Rules: []snapshot.WebhookRule{rule}, Service: svcRef, ObjectSelector: true,
			ObjectLabelSelector: &snapshot.LabelSelector{MatchExpressions: []snapshot.LabelSelectorRequirement{{Key: "guarded", Operator: "DoesNotExist"}}}}, []snapshot.Object{other}, "Service/guard -n policy does not exist"},
		{"match conditions", snapshot.Webhook{Name: "g.io", Rules: []snapshot.WebhookRule{rule}, Service: svcRef, MatchConditions: 1}, []snapshot.Object{other}, "its matchConditions, which kgc cannot evaluate here"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := append([]snapshot.Object{cm, webhookCfg("guard", tc.hook)}, tc.extra...)
			b := testobj.Snapshot(objs...)
			if tc.name == "services not listed" {
				b = b.Without("", "Service")
			}
			d, err := New(b.Build(), nil, Options{}).Diagnose(cm.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			var got *RootCause
			for i := range d.RootCauses {
				if d.RootCauses[i].Reason == ReasonWebhookRejects {
					got = &d.RootCauses[i]
				}
			}
			switch {
			case tc.reject == "" && got != nil:
				t.Errorf("webhook root cause without evidence: %s", got.Message)
			case tc.reject != "" && got == nil:
				t.Fatalf("no webhook root cause:\n%s", describe(d.RootCauses))
			case tc.reject != "":
				if !strings.Contains(got.Message, tc.reject) || !strings.Contains(got.Message, "removing finalizer example.io/keep") {
					t.Errorf("message %q", got.Message)
				}
				var actions []string
				for _, r := range got.Remedies {
					actions = append(actions, r.Action)
				}
				if strings.Join(actions, ",") != "fix-service,patch-webhook,delete-webhook-configuration" {
					t.Errorf("remedies %v", actions)
				}
				if len(got.Holds) != 1 || got.Holds[0].UID != cm.Metadata.UID {
					t.Errorf("holds %v", got.Holds)
				}
			}
		})
	}
}

// TestWebhookRejectingNamespaceDeletes: the namespace controller's DELETE
// of remaining content is rejected.
func TestWebhookRejectingNamespaceDeletes(t *testing.T) {
	ns := terminatingNS("app", ago(time.Hour))
	cm := testobj.ConfigMap("app", "settings").Build()
	hook := snapshot.Webhook{Name: "g.io", Rules: []snapshot.WebhookRule{{Operations: []string{"DELETE"}, APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}},
		Service: &snapshot.ServiceReference{Namespace: "policy", Name: "guard"}}
	d, err := New(testobj.Snapshot(ns, cm, webhookCfg("guard", hook), testobj.Service("kube-system", "kube-dns").Build()).Build(), nil, Options{}).Diagnose(ns.Metadata.UID)
	if err != nil {
		t.Fatal(err)
	}
	rc := rootCause(t, d, ReasonWebhookRejects)
	if !strings.Contains(rc.Message, "the namespace controller's delete of ConfigMap/settings -n app") {
		t.Errorf("message %q", rc.Message)
	}
	for _, r := range d.RootCauses {
		if r.Reason == ReasonInProgress || r.Reason == ReasonControllerStalled {
			t.Errorf("the rejected delete is also called %s: %s", r.Reason, r.Message)
		}
	}
}

// TestContentFailureNamesTheWebhook: the namespace controller's
// NamespaceDeletionContentFailure quotes the webhook that rejected its
// deletes.
func TestContentFailureNamesTheWebhook(t *testing.T) {
	hook := snapshot.Webhook{Name: "validate.guard.example.io", Service: &snapshot.ServiceReference{Namespace: "policy", Name: "guard"},
		Rules: []snapshot.WebhookRule{{Operations: []string{"CREATE"}, APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}
	const prefix = "Failed to delete all resource types, 1 remaining: "
	for _, c := range []struct {
		name, msg  string
		withConfig bool
		object     string
		actions    string
	}{
		{"call fails", `Internal error occurred: failed calling webhook "validate.guard.example.io": failed to call webhook: Post "https://guard.policy.svc:443/validate?timeout=10s": service "guard" not found`,
			true, "ValidatingWebhookConfiguration/guard", "fix-service,patch-webhook,delete-webhook-configuration,"},
		{"denied", `admission webhook "validate.guard.example.io" denied the request: deletion is frozen`,
			true, "ValidatingWebhookConfiguration/guard", "delete-webhook-configuration,"},
		{"configuration not in the input", `Internal error occurred: failed calling webhook "validate.guard.example.io": context deadline exceeded`,
			false, "Namespace/app", "fix-service,remove-finalizer,"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ns := terminatingNS("app", ago(time.Hour), snapshot.Condition{Type: condContentFailure, Status: "True", Message: prefix + c.msg})
			objs := []snapshot.Object{ns, testobj.Service("kube-system", "kube-dns").Build()}
			if c.withConfig {
				objs = append(objs, webhookCfg("guard", hook))
			}
			d, err := New(testobj.Snapshot(objs...).Build(), nil, Options{}).Diagnose(ns.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			rc := rootCause(t, d, ReasonWebhookRejects)
			if rc.Object.String() != c.object || !strings.Contains(rc.Message, "webhook validate.guard.example.io") {
				t.Errorf("root cause on %s: %s", rc.Object, rc.Message)
			}
			actions := ""
			for _, r := range rc.Remedies {
				actions += r.Action + ","
			}
			if actions != c.actions {
				t.Errorf("remedies %s, want %s", actions, c.actions)
			}
		})
	}
}

func TestConversionFailureWithoutItsCRD(t *testing.T) {
	ns := terminatingNS("app", ago(time.Hour), snapshot.Condition{Type: condContentFailure, Status: "True",
		Message: `Failed to delete all resource types, 1 remaining: conversion webhook for stable.example.com/v2, Kind=CronTab failed: Post "https://x.y.svc:443/c": dial tcp 10.0.0.1:443: connect: connection refused`})
	d, err := New(testobj.Snapshot(ns).Build(), nil, Options{}).Diagnose(ns.Metadata.UID)
	if err != nil {
		t.Fatal(err)
	}
	rc := rootCause(t, d, ReasonConversionWebhook)
	if rc.Object.Kind != "Namespace" || !strings.Contains(rc.Message, "CronTab (stable.example.com/v2)") || !strings.Contains(rc.Message, "holds no CRD for CronTab.stable.example.com") {
		t.Errorf("root cause on %s: %s", rc.Object, rc.Message)
	}
}
