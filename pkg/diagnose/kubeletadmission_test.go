package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// TestKubeletRefusedByAdmission: a pod past its grace period on a Ready
// node whose kubelet's final requests a webhook refuses is held by the
// webhook, not by "a container or unmount probably hanging". Modelled on
// kyverno/kyverno#2750 and #3039 (pods stuck terminating while Kyverno's
// validate.kyverno.svc-fail webhook has no Service: "failed calling
// webhook ... service \"kyverno-svc\" not found") and
// fluid-cloudnative/fluid#1399 ("could not get REST client: unable to load
// root certificates: unable to parse bytes as PEM block").
func TestKubeletRefusedByAdmission(t *testing.T) {
	pod := grace(testobj.Pod("shop", "web-0").Deleting(ago(time.Hour)).Facts(podFactsOf("n1", "Running")).Build(), 30)
	ready := node("n1", "True")
	svcRef := &snapshot.ServiceReference{Namespace: "kyverno", Name: "kyverno-svc"}
	onDelete := snapshot.WebhookRule{Operations: []string{"DELETE"}, APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}
	onStatus := snapshot.WebhookRule{Operations: []string{"UPDATE"}, APIGroups: []string{""}, APIVersions: []string{"*"}, Resources: []string{"pods/status"}}
	onPodsOnly := snapshot.WebhookRule{Operations: []string{"UPDATE"}, APIGroups: []string{""}, APIVersions: []string{"*"}, Resources: []string{"pods"}}
	svc := testobj.Service("kyverno", "kyverno-svc").Build()
	for _, tc := range []struct {
		name    string
		hook    snapshot.Webhook
		extra   []snapshot.Object
		reason  string
		says    []string
		firstIs string // the first remedy's description starts so
	}{
		{"DELETE refused, Service missing", snapshot.Webhook{Name: "validate.kyverno.svc-fail", Rules: []snapshot.WebhookRule{onDelete}, Service: svcRef, CAValidity: snapshot.CABundleValid}, nil,
			ReasonWebhookRejects, []string{"webhook validate.kyverno.svc-fail of ValidatingWebhookConfiguration/kyverno-resource-validating-webhook-cfg intercepts DELETE of pods with failurePolicy Fail",
				"Service/kyverno-svc -n kyverno does not exist", "the kubelet on node n1's final DELETE of the pod"}, "Bring back Service/kyverno-svc -n kyverno"},
		{"status update refused, caBundle not PEM", snapshot.Webhook{Name: "schedulepod.fluid.io", Rules: []snapshot.WebhookRule{onStatus}, Service: svcRef, CAValidity: snapshot.CABundleNotPEM},
			[]snapshot.Object{svc}, ReasonWebhookRejects, []string{"intercepts UPDATE of pods/status", "its caBundle is not PEM"}, "Put the CA certificate"},
		{"failurePolicy Ignore admits", snapshot.Webhook{Name: "soft", FailurePolicy: "Ignore", Rules: []snapshot.WebhookRule{onDelete}, Service: svcRef}, nil,
			ReasonKubeletNotConfirming, []string{"probably hanging"}, ""},
		{"a rule on pods does not match pods/status", snapshot.Webhook{Name: "pods-only", Rules: []snapshot.WebhookRule{onPodsOnly}, Service: svcRef}, nil,
			ReasonKubeletNotConfirming, []string{"probably hanging"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := webhookCfg("kyverno-resource-validating-webhook-cfg", tc.hook)
			objs := append([]snapshot.Object{pod, ready, cfg}, tc.extra...)
			d, err := New(testobj.Snapshot(objs...).Build(), nil, Options{}).Diagnose(pod.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			rc := rootCause(t, d, tc.reason)
			for _, s := range tc.says {
				if !strings.Contains(rc.Message, s) {
					t.Errorf("message %q lacks %q", rc.Message, s)
				}
			}
			if tc.reason == ReasonWebhookRejects {
				if len(d.RootCauses) != 1 || !strings.HasPrefix(rc.Remedies[0].Description, tc.firstIs) {
					t.Errorf("root causes:\n%s\nfirst remedy %+v, want it to start %q", describe(d.RootCauses), rc.Remedies[0], tc.firstIs)
				}
				if !strings.Contains(remedyActions(rc.Remedies), ActionPatchWebhook) {
					t.Errorf("remedies %s lack failurePolicy Ignore", remedyActions(rc.Remedies))
				}
			}
		})
	}
}
