package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// TestWebhookNamedInTheFinalizersRemedy: a webhook that can be called and
// intercepts the UPDATE removing a finalizer is named, with its
// configuration, in that finalizer's remedies when it is the project's
// own (its rules name the object's group, or it is served from the
// controller's namespace); a catch-all webhook of another project is not.
// Modelled on kubewarden/adm-controller#100 (a defaulting webhook adding
// the kubewarden finalizer back on every update of a policy being
// deleted), ai-dynamo/grove#416 (a validating webhook denying the UPDATE
// that removes a PodCliqueSet's finalizer) and chaos-mesh/chaos-mesh#1994
// (the webhook rejects the update of the finalizer).
func TestWebhookNamedInTheFinalizersRemedy(t *testing.T) {
	const group = "policies.kubewarden.io"
	role := clusterRole("kubewarden-controller", allow(group, "clusteradmissionpolicies", "get list watch update patch"))
	binding := clusterRoleBinding("kubewarden-controller", "kubewarden-controller", "kubewarden", "kubewarden-controller")
	ctrl := controllerWorkload(testobj.Deployment("kubewarden", "kubewarden-controller"), "kubewarden-controller", 1)
	crd := crdObj(group, "ClusterAdmissionPolicy", "clusteradmissionpolicies", "Cluster").Build()
	svc := func(ns, name string) []snapshot.Object {
		return []snapshot.Object{testobj.Service(ns, name).Build(), testobj.New("discovery.k8s.io/v1", "EndpointSlice", ns, name+"-x").Label("kubernetes.io/service-name", name).
			Facts(&snapshot.Facts{EndpointSlice: &snapshot.EndpointSliceFacts{Endpoints: 1, Ready: 1}}).Build()}
	}
	hook := func(kind, name string, groups []string, svcNS, svcName string) snapshot.Object {
		return testobj.New("admissionregistration.k8s.io/v1", kind, "", name).Facts(&snapshot.Facts{WebhookConfiguration: &snapshot.WebhookConfigurationFacts{
			Webhooks: []snapshot.Webhook{{Name: name + ".example.io", Rules: []snapshot.WebhookRule{{Operations: []string{"CREATE", "UPDATE"}, APIGroups: groups, APIVersions: []string{"*"}, Resources: []string{"*"}}},
				Service: &snapshot.ServiceReference{Namespace: svcNS, Name: svcName}}}}}).Build()
	}
	policy := gone(testobj.New(group+"/v1", "ClusterAdmissionPolicy", "", "privileged").Deleting(ago(time.Hour)).Finalizers("kubewarden.io/cleanup").Build())
	base := append(append([]snapshot.Object{policy, role, binding, ctrl, crd}, svc("kubewarden", "kubewarden-webhook")...), svc("kyverno", "kyverno-svc")...)

	tests := []struct {
		name  string
		hooks []snapshot.Object
		named []string
	}{
		{"the project's defaulting webhook (rules name its group)",
			[]snapshot.Object{hook("MutatingWebhookConfiguration", "kubewarden-defaulting", []string{group}, "kubewarden", "kubewarden-webhook")},
			[]string{"MutatingWebhookConfiguration/kubewarden-defaulting"}},
		{"a validating webhook served from the controller's namespace",
			[]snapshot.Object{hook("ValidatingWebhookConfiguration", "kubewarden-validate", []string{"*"}, "kubewarden", "kubewarden-webhook")},
			[]string{"ValidatingWebhookConfiguration/kubewarden-validate"}},
		{"a catch-all policy engine elsewhere is no evidence",
			[]snapshot.Object{hook("MutatingWebhookConfiguration", "kyverno-resource", []string{"*"}, "kyverno", "kyverno-svc")}, nil},
		{"a webhook of another group is not asked",
			[]snapshot.Object{hook("MutatingWebhookConfiguration", "other", []string{"example.com"}, "kubewarden", "kubewarden-webhook")}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := testobj.Snapshot(append(append([]snapshot.Object{}, base...), tc.hooks...)...).At(at).CRD(group, "ClusterAdmissionPolicy", "clusteradmissionpolicies", false, "v1").Build()
			d, err := New(s, nil, Options{}).Diagnose(policy.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			rc := rootCause(t, d, ReasonControllerNotFinishing)
			var checks []Remedy
			for _, rem := range rc.Remedies {
				if rem.Action == ActionCheckWebhook {
					checks = append(checks, rem)
				}
			}
			if len(checks) != len(tc.named) {
				t.Fatalf("check-webhook remedies %+v, want %d naming %v", checks, len(tc.named), tc.named)
			}
			for i, want := range tc.named {
				if !strings.Contains(checks[i].Description, want) || !strings.Contains(rc.Message, want) {
					t.Errorf("remedy %q or message %q does not name %s", checks[i].Description, rc.Message, want)
				}
				if checks[i].Command != `kubectl patch clusteradmissionpolicies.policies.kubewarden.io privileged --type=json -p '[{"op":"remove","path":"/metadata/finalizers/0"}]' --dry-run=server -o jsonpath='{.metadata.finalizers}'` {
					t.Errorf("command %s", checks[i].Command)
				}
			}
			if last := rc.Remedies[len(rc.Remedies)-1]; last.Action != ActionRemoveFinalizer {
				t.Errorf("last remedy %s, want the finalizer removal after the webhook check", last.Action)
			}
		})
	}
}
