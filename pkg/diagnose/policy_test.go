package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

func vap(name string, f snapshot.AdmissionPolicyFacts) snapshot.Object {
	return testobj.New("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", "", name).Facts(&snapshot.Facts{AdmissionPolicy: &f}).Build()
}

func vapBinding(name string, f snapshot.AdmissionPolicyBindingFacts) snapshot.Object {
	return testobj.New("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", "", name).Facts(&snapshot.Facts{AdmissionPolicyBinding: &f}).Build()
}

func matchRule(ops, groups, resources string) *snapshot.MatchResources {
	return &snapshot.MatchResources{ResourceRules: []snapshot.WebhookRule{{Operations: strings.Fields(ops), APIGroups: []string{groups},
		APIVersions: []string{"*"}, Resources: strings.Fields(resources)}}}
}

// TestPolicyDenies: a ValidatingAdmissionPolicy bound with Deny that
// judges the UPDATE removing a finalizer, or the namespace controller's
// DELETE, is the root cause, named with its binding and matching rule.
func TestPolicyDenies(t *testing.T) {
	// https://github.com/kubernetes/kubernetes/issues/129883: a policy
	// whose binding's paramRef has parameterNotFoundAction Deny; the
	// namespace's deletion removed the parameter first, and removing the
	// PVC's finalizer is "denied request: failed to configure binding: no
	// params found for policy binding with `Deny` parameterNotFoundAction".
	pvc := gone(testobj.PVC("test", "xxx-pvc").Deleting(ago(time.Hour)).Finalizers("storage.example.com/external-volume").Build())
	params := testobj.New("example.com/v1", "PolicyParams", "other", "params").Build()
	paramVAP := vap("xxx-vap", snapshot.AdmissionPolicyFacts{ParamKind: &snapshot.ParamKind{APIVersion: "example.com/v1", Kind: "PolicyParams"},
		MatchConstraints: matchRule("CREATE UPDATE", "", "persistentvolumeclaims"),
		Validations:      []snapshot.Validation{{Expression: "object.spec.storageClassName in params.allowed"}}})
	paramBinding := vapBinding("xxx-vapbind", snapshot.AdmissionPolicyBindingFacts{PolicyName: "xxx-vap", ValidationActions: []string{"Deny"},
		ParamRef: &snapshot.ParamRef{Name: "params", ParameterNotFoundAction: "Deny"}})
	allowBinding := vapBinding("xxx-vapbind", snapshot.AdmissionPolicyBindingFacts{PolicyName: "xxx-vap", ValidationActions: []string{"Deny"},
		ParamRef: &snapshot.ParamRef{Name: "params", ParameterNotFoundAction: "Allow"}})

	// A policy keeping ConfigMaps' finalizers from shrinking in namespace
	// orders: the finalizer's removal is an UPDATE it denies.
	ledger := gone(testobj.ConfigMap("orders", "ledger").Deleting(ago(time.Hour)).Finalizers("orders.example.com/archive").Build())
	orders := testobj.Namespace("orders").Label("kubernetes.io/metadata.name", "orders").Build()
	keep := vap("keep-finalizers", snapshot.AdmissionPolicyFacts{MatchConstraints: matchRule("UPDATE", "", "configmaps"),
		Validations: []snapshot.Validation{{Expression: "!has(oldObject.metadata.finalizers) || has(object.metadata.finalizers) && object.metadata.finalizers.size() >= oldObject.metadata.finalizers.size()",
			Message: "finalizers may not be removed"}}})
	inOrders := &snapshot.MatchResources{NamespaceSelector: &snapshot.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "orders"}}}
	keepBinding := vapBinding("keep-finalizers-orders", snapshot.AdmissionPolicyBindingFacts{PolicyName: "keep-finalizers", ValidationActions: []string{"Deny"}, MatchResources: inOrders})
	warnBinding := vapBinding("keep-finalizers-orders", snapshot.AdmissionPolicyBindingFacts{PolicyName: "keep-finalizers", ValidationActions: []string{"Warn", "Audit"}, MatchResources: inOrders})
	elsewhere := vapBinding("keep-finalizers-orders", snapshot.AdmissionPolicyBindingFacts{PolicyName: "keep-finalizers", ValidationActions: []string{"Deny"},
		MatchResources: &snapshot.MatchResources{NamespaceSelector: &snapshot.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "billing"}}}})
	unrelated := vap("keep-finalizers", snapshot.AdmissionPolicyFacts{MatchConstraints: matchRule("UPDATE", "", "configmaps"),
		Validations: []snapshot.Validation{{Expression: "object.data.size() < 100"}}})

	// A namespace whose content a policy keeps the namespace controller
	// from deleting: its rule names DELETE.
	ns := terminatingNS("vault", ago(time.Hour))
	secret := testobj.Secret("vault", "unseal-keys").Build()
	noDelete := vap("no-secret-deletes", snapshot.AdmissionPolicyFacts{MatchConstraints: matchRule("DELETE", "", "secrets"),
		Validations: []snapshot.Validation{{Expression: "false", Message: "secrets are never deleted"}}})
	noDeleteBinding := vapBinding("no-secret-deletes", snapshot.AdmissionPolicyBindingFacts{PolicyName: "no-secret-deletes", ValidationActions: []string{"Deny"}})

	// A pod past its grace period on a Ready node: the kubelet's final
	// DELETE (grace 0) is denied by a policy keeping pods of a tier from
	// being deleted.
	pod := grace(testobj.Pod("web", "web-0").Deleting(ago(time.Hour)).Facts(podFactsOf("n1", "Running")).Build(), 30)
	ready := node("n1", "True")
	noPodDeletes := vap("no-pod-deletes", snapshot.AdmissionPolicyFacts{MatchConstraints: matchRule("DELETE", "", "pods"),
		Validations: []snapshot.Validation{{Expression: "oldObject.metadata.labels.tier != 'db'"}}})
	noPodDeletesBinding := vapBinding("no-pod-deletes", snapshot.AdmissionPolicyBindingFacts{PolicyName: "no-pod-deletes", ValidationActions: []string{"Deny"}})

	tests := []struct {
		name   string
		snap   *snapshot.Snapshot
		target snapshot.Object
		denies bool
		says   []string
	}{
		{"a binding's missing parameter, Deny", testobj.Snapshot(pvc, params, paramVAP, paramBinding).CRD("example.com", "PolicyParams", "policyparams", true).Build(), pvc, true,
			[]string{"ValidatingAdmissionPolicy/xxx-vap, bound by ValidatingAdmissionPolicyBinding/xxx-vapbind with validationActions Deny",
				"its binding's paramRef names PolicyParams/params -n test, which does not exist, and its parameterNotFoundAction is Deny"}},
		{"a binding's missing parameter, Allow", testobj.Snapshot(pvc, params, paramVAP, allowBinding).CRD("example.com", "PolicyParams", "policyparams", true).Build(), pvc, false, nil},
		{"a validation reading the finalizers", testobj.Snapshot(ledger, orders, keep, keepBinding).Build(), ledger, true,
			[]string{"judges UPDATE of configmaps (matchConstraints.resourceRules[0]: operations UPDATE, apiGroups \"\", resources configmaps)",
				"its validations[0] reads the object's finalizers", "message \"finalizers may not be removed\"", "kgc does not evaluate CEL"}},
		{"bound with Warn and Audit only", testobj.Snapshot(ledger, orders, keep, warnBinding).Build(), ledger, false, nil},
		{"bound to another namespace", testobj.Snapshot(ledger, orders, keep, elsewhere).Build(), ledger, false, nil},
		{"a validation that is not about finalizers", testobj.Snapshot(ledger, orders, unrelated, keepBinding).Build(), ledger, false, nil},
		{"the kubelet's final DELETE", testobj.Snapshot(pod, ready, noPodDeletes, noPodDeletesBinding).Build(), pod, true,
			[]string{"judges DELETE of pods", "the API server denies the kubelet on node n1's final DELETE of the pod"}},
		{"the namespace controller's DELETE", testobj.Snapshot(ns, secret, noDelete, noDeleteBinding).Build(), ns, true,
			[]string{"judges DELETE of secrets", "the API server denies the namespace controller's delete of Secret/unseal-keys -n vault"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(tc.snap, nil, Options{}).Diagnose(tc.target.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.denies {
				for _, rc := range d.RootCauses {
					if rc.Reason == ReasonPolicyDenies {
						t.Errorf("claims a denial: %s", rc.Message)
					}
				}
				return
			}
			rc := rootCause(t, d, ReasonPolicyDenies)
			for _, s := range tc.says {
				if !strings.Contains(rc.Message, s) {
					t.Errorf("message %q lacks %q", rc.Message, s)
				}
			}
			var actions []string
			for _, rem := range rc.Remedies {
				actions = append(actions, rem.Action)
			}
			if got := strings.Join(actions, " "); !strings.Contains(got, ActionFixPolicy+" "+ActionPatchPolicyBinding+" "+ActionDeletePolicyBinding) {
				t.Errorf("remedies %s: want the policy fixed, then its binding relaxed, then removed", got)
			}
		})
	}
}

// TestPolicyReportedByTheNamespaceController: the namespace controller's
// NamespaceDeletionContentFailure quoting a policy's denial names it,
// whether or not kgc can evaluate the policy (here its validation is not
// about finalizers, and its rule matches every operation).
func TestPolicyReportedByTheNamespaceController(t *testing.T) {
	cond := snapshot.Condition{Type: condContentFailure, Status: "True", Reason: "ContentDeletionFailed",
		Message: `Failed to delete all resource types, 1 remaining: secrets "unseal-keys" is forbidden: ValidatingAdmissionPolicy 'protect-secrets' with binding 'protect-secrets-vault' denied request: secrets are never deleted`}
	ns := terminatingNS("vault", ago(time.Hour), cond)
	p := vap("protect-secrets", snapshot.AdmissionPolicyFacts{MatchConstraints: matchRule("*", "", "secrets"),
		Validations: []snapshot.Validation{{Expression: "request.userInfo.username != 'system:serviceaccount:kube-system:namespace-controller'"}}})
	b := vapBinding("protect-secrets-vault", snapshot.AdmissionPolicyBindingFacts{PolicyName: "protect-secrets", ValidationActions: []string{"Deny"}})
	secret := testobj.Secret("vault", "unseal-keys").Build()
	// The namespace controller's DeleteCollection: the error names no
	// object (kgc's e2e sees "secrets \"Unknown\" is forbidden").
	cond.Message = strings.Replace(cond.Message, `"unseal-keys"`, `"Unknown"`, 1)
	collection := terminatingNS("vault", ago(time.Hour), cond)
	collection.Metadata.UID = ns.Metadata.UID
	for _, tc := range []struct {
		name     string
		objs     []snapshot.Object
		on, what string
	}{
		{"the policy in the input", []snapshot.Object{ns, p, b, secret}, "ValidatingAdmissionPolicy/protect-secrets", "Secret/unseal-keys -n vault"},
		{"deleted as a collection", []snapshot.Object{collection, p, b, secret}, "ValidatingAdmissionPolicy/protect-secrets", "secrets (Secret/unseal-keys -n vault)"},
		{"the policy not in the input", []snapshot.Object{ns}, "Namespace/vault", `secrets "unseal-keys"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(testobj.Snapshot(tc.objs...).Build(), nil, Options{}).Diagnose(tc.objs[0].Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			rc := rootCause(t, d, ReasonPolicyDenies)
			if rc.Object.String() != tc.on || !strings.Contains(rc.Message, "ValidatingAdmissionPolicy/protect-secrets, bound by ValidatingAdmissionPolicyBinding/protect-secrets-vault, denies its delete of "+tc.what) {
				t.Errorf("root cause on %s: %s; want it on %s naming the policy, its binding and %s", rc.Object, rc.Message, tc.on, tc.what)
			}
		})
	}
}
