package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// Issue 35, items 3 and 1: a controller RBAC forbids to remove its
// finalizer, and a ValidatingAdmissionPolicy that denies the removal. On
// the real plane the request is refused as kgc says, and once the
// remedy kgc prints is applied (its exact kubectl command), the same
// request succeeds and the object goes.

// forbiddenDiagnosis is the part of a Diagnosis these tests read.
type forbiddenDiagnosis struct {
	RootCauses []forbiddenRootCause `json:"rootCauses"`
}

type forbiddenRootCause struct {
	Object     framework.ObjectRef   `json:"object"`
	Finalizer  string                `json:"finalizer"`
	Reason     string                `json:"reason"`
	Message    string                `json:"message"`
	Controller string                `json:"controller"`
	Related    []framework.ObjectRef `json:"related"`
	Remedies   []struct {
		Action  string `json:"action"`
		Command string `json:"command"`
		Risk    string `json:"risk"`
	} `json:"remedies"`
}

// command is the command of the root cause's remedy of action.
func (rc forbiddenRootCause) command(t *testing.T, action string) string {
	t.Helper()
	for _, rem := range rc.Remedies {
		if rem.Action == action {
			return rem.Command
		}
	}
	t.Fatalf("remedies %+v, want a %s", rc.Remedies, action)
	return ""
}

func forbiddenWhyStuck(t *testing.T, env *framework.Env, args ...string) forbiddenDiagnosis {
	t.Helper()
	out := env.KGC(t, append(append([]string{"why-stuck"}, args...), "-o", "json")...)
	var d forbiddenDiagnosis
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("why-stuck output: %v\n%s", err, out)
	}
	t.Logf("kgc why-stuck %s:\n%s", strings.Join(args, " "), out)
	return d
}

// runRemedy runs a remedy's kubectl command against the plane, as a user
// pastes it, with the kubectl the harness built first on the PATH.
func runRemedy(t *testing.T, env *framework.Env, command string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", command)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.CP.Kubeconfig, "PATH="+filepath.Dir(env.Kubectl())+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("remedy %q: %v\n%s", command, err, out)
	}
	t.Logf("remedy %q:\n%s", command, out)
}

// dynamicAs is a dynamic client acting as user (the admin impersonates
// it).
func dynamicAs(t *testing.T, env *framework.Env, user string) dynamic.Interface {
	t.Helper()
	c, err := dynamic.NewForConfig(asUser(env, user))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// removeFinalizersPatch empties metadata.finalizers, as a controller
// removing its last finalizer does.
var removeFinalizersPatch = []byte(`{"metadata":{"finalizers":null}}`)

// TestWhyStuckControllerForbidden: a bucket operator (a Deployment
// carrying the finalizer's domain, one pod available) whose ServiceAccount
// RBAC lets read buckets but neither patch nor update them. Acting as
// that ServiceAccount, the real API server refuses the finalizer's
// removal; kgc says controller-forbidden, naming the verbs, the resource,
// the ServiceAccount and the ClusterRole to extend. Its grant, run as
// printed, lets the same request through and the Bucket goes.
func TestWhyStuckControllerForbidden(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	crd := framework.CRD{Group: "forbid1.e2e.kgc.dev", Kind: "Bucket", Plural: "buckets", Namespace: true}
	env.CreateCRD(t, ctx, crd)
	ns := env.Namespace(t, ctx, "forbid1")
	ops := env.Namespace(t, ctx, "forbid1-ops")
	const fin = "buckets.forbid1.e2e.kgc.dev/cleanup"
	role := readOnlyOperator(t, ctx, env, ops, "bucket-operator", crd.Group, crd.Plural, fin)
	mkCR(t, ctx, env, crd, ns, "logs", finalizers(fin))
	deleteNow(t, ctx, env, crd.GVR(), ns, "logs", bg)

	sa := dynamicAs(t, env, "system:serviceaccount:"+ops+":bucket-operator")
	_, err := sa.Resource(crd.GVR()).Namespace(ns).Patch(ctx, "logs", types.MergePatchType, removeFinalizersPatch, metav1.PatchOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("real control plane: the operator's removal of %s: %v, want Forbidden", fin, err)
	}

	d := forbiddenWhyStuck(t, env, crd.TypeArg()+"/logs", "-n", ns)
	if len(d.RootCauses) != 1 {
		t.Fatalf("root causes %+v, want one", d.RootCauses)
	}
	rc := d.RootCauses[0]
	if rc.Reason != "controller-forbidden" || rc.Finalizer != fin || rc.Controller != "Deployment/bucket-operator -n "+ops {
		t.Errorf("root cause %s %s (%s), controller %q; want controller-forbidden naming Deployment/bucket-operator -n %s", rc.Object, rc.Finalizer, rc.Reason, rc.Controller, ops)
	}
	for _, want := range []string{"ServiceAccount/bucket-operator -n " + ops, "neither patch nor update on buckets.forbid1.e2e.kgc.dev in namespace " + ns,
		"grants it ClusterRole/" + role + ": get, list, watch on buckets"} {
		if !strings.Contains(rc.Message, want) {
			t.Errorf("message %q lacks %q", rc.Message, want)
		}
	}
	if len(rc.Remedies) == 0 || rc.Remedies[0].Action != "grant-rbac" || !strings.HasPrefix(rc.Remedies[0].Command, "kubectl patch clusterrole "+role+" ") || rc.Remedies[0].Risk == "" {
		t.Fatalf("remedies %+v, want the grant on ClusterRole/%s first, with its risk", rc.Remedies, role)
	}

	runRemedy(t, env, rc.Remedies[0].Command)
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := sa.Resource(crd.GVR()).Namespace(ns).Patch(ctx, "logs", types.MergePatchType, removeFinalizersPatch, metav1.PatchOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("after the grant, the operator still may not remove %s: %v", fin, err)
	}
	if _, err := env.Dynamic.Resource(crd.GVR()).Namespace(ns).Get(ctx, "logs", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("real control plane: the Bucket should be gone once its finalizer is removed: %v", err)
	}
}

// readOnlyOperator installs an operator that may read resource of group
// and not change it, its Deployment labelled with the finalizer's domain
// (installController); it returns the ClusterRole's name.
func readOnlyOperator(t *testing.T, ctx context.Context, env *framework.Env, opsNS, name, group, resource, fin string) string {
	t.Helper()
	if _, err := env.Client.CoreV1().ServiceAccounts(opsNS).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	domain, _, _ := strings.Cut(fin, "/")
	return installController(t, ctx, env, opsNS, name, rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: []string{"get", "list", "watch"}},
		map[string]string{domain + "/controller": "true"})
}

// installController installs a controller the way evidence sees one: a
// ClusterRole of rule bound to ServiceAccount opsNS/name, and a Deployment
// of labels running as it whose status says one pod is available (nothing
// runs pods on this plane, so the status is written through its
// subresource). It returns the ClusterRole's name.
func installController(t *testing.T, ctx context.Context, env *framework.Env, opsNS, name string, rule rbacv1.PolicyRule, labels map[string]string) string {
	t.Helper()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: opsNS + "-" + name}, Rules: []rbacv1.PolicyRule{rule}}
	if _, err := env.Client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: opsNS + "-" + name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: opsNS}}}
	if _, err := env.Client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Client.RbacV1().ClusterRoleBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
		_ = env.Client.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
	})
	one := int32(1)
	sel := map[string]string{"app": name}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: opsNS, Labels: labels},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel},
				Spec: corev1.PodSpec{ServiceAccountName: name, Containers: []corev1.Container{{Name: "manager", Image: "example.invalid/operator:1"}}}}}}
	created, err := env.Client.AppsV1().Deployments(opsNS).Create(ctx, dep, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status = appsv1.DeploymentStatus{ObservedGeneration: created.Generation, Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, UpdatedReplicas: 1}
	if _, err := env.Client.AppsV1().Deployments(opsNS).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return role.Name
}

// TestWhyStuckAdmissionPolicyDeniesFinalizerRemoval: a
// ValidatingAdmissionPolicy keeping ConfigMaps' finalizers from shrinking,
// bound with Deny to one namespace; a ConfigMap there deleted while it
// carries a finalizer. The real API server denies the removal; kgc names
// the policy, its binding and the matching rule (policy-denies). Its
// remedy relaxing the binding to Warn and Audit, run as printed, lets
// the removal through and the ConfigMap goes.
func TestWhyStuckAdmissionPolicyDeniesFinalizerRemoval(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "vap1")
	policy := keepFinalizersPolicy(t, ctx, env, ns)
	mk(t, ctx, env, "ConfigMap", ns, "ledger", finalizers(holdFinalizer))
	deleteNow(t, ctx, env, framework.ConfigMaps, ns, "ledger", bg)

	// The policy is compiled and applied asynchronously: wait until a
	// server-side dry run of the removal is denied.
	var denied error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		_, denied = env.Dynamic.Resource(framework.ConfigMaps).Namespace(ns).Patch(ctx, "ledger", types.MergePatchType, removeFinalizersPatch,
			metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
		return denied != nil && strings.Contains(denied.Error(), "ValidatingAdmissionPolicy '"+policy+"'"), nil
	})
	if err != nil {
		t.Fatalf("real control plane: the policy never denied the removal (last answer: %v)", denied)
	}

	d := forbiddenWhyStuck(t, env, "cm/ledger", "-n", ns)
	if len(d.RootCauses) != 1 {
		t.Fatalf("root causes %+v, want one", d.RootCauses)
	}
	rc := d.RootCauses[0]
	if rc.Reason != "policy-denies" || rc.Object.Kind != "ValidatingAdmissionPolicy" || rc.Object.Name != policy {
		t.Errorf("root cause %s (%s), want policy-denies on ValidatingAdmissionPolicy/%s", rc.Object, rc.Reason, policy)
	}
	for _, want := range []string{"bound by ValidatingAdmissionPolicyBinding/" + policy + " with validationActions Deny",
		"matchConstraints.resourceRules[0]: operations UPDATE", "reads the object's finalizers", "removing finalizer " + holdFinalizer} {
		if !strings.Contains(rc.Message, want) {
			t.Errorf("message %q lacks %q", rc.Message, want)
		}
	}
	runRemedy(t, env, rc.command(t, "patch-policy-binding"))
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := env.Dynamic.Resource(framework.ConfigMaps).Namespace(ns).Patch(ctx, "ledger", types.MergePatchType, removeFinalizersPatch, metav1.PatchOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("after relaxing the binding, the removal is still denied: %v", err)
	}
	if _, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, "ledger", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("real control plane: the ConfigMap should be gone once its finalizer is removed: %v", err)
	}
}

// keepFinalizersPolicy creates a policy denying UPDATEs of ConfigMaps
// that shrink metadata.finalizers and its binding (same name) limited to
// namespace ns; it returns their name.
func keepFinalizersPolicy(t *testing.T, ctx context.Context, env *framework.Env, ns string) string {
	t.Helper()
	name := "keep-finalizers-" + ns
	fail := admissionv1.Fail
	p := &admissionv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: admissionv1.ValidatingAdmissionPolicySpec{
		FailurePolicy: &fail,
		MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
			Operations: []admissionv1.OperationType{admissionv1.Update},
			Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}}},
		Validations: []admissionv1.Validation{{
			Expression: "!has(oldObject.metadata.finalizers) || has(object.metadata.finalizers) && object.metadata.finalizers.size() >= oldObject.metadata.finalizers.size()",
			Message:    "finalizers may not be removed"}}}}
	return createPolicy(t, ctx, env, ns, p)
}

// TestWhyStuckAdmissionPolicyDeniesNamespaceContentDeletes: a policy
// whose rule names DELETE of Secrets, bound with Deny to one namespace;
// the namespace is deleted with a Secret in it. The namespace controller's
// DELETE is denied and its NamespaceDeletionContentFailure condition
// quotes the policy; kgc names the policy and its binding (policy-denies).
// Removing the binding, as kgc prints it, lets the namespace go.
func TestWhyStuckAdmissionPolicyDeniesNamespaceContentDeletes(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "vap2")
	if _, err := env.Client.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "unseal-keys"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	name := noDeletesPolicy(t, ctx, env, ns)
	var denied error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		denied = env.Client.CoreV1().Secrets(ns).Delete(ctx, "unseal-keys", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
		return denied != nil && strings.Contains(denied.Error(), "ValidatingAdmissionPolicy '"+name+"'"), nil
	})
	if err != nil {
		t.Fatalf("real control plane: the policy never denied the Secret's deletion (last answer: %v)", denied)
	}
	if err := env.Client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		n, err := env.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NamespaceDeletionContentFailure && c.Status == corev1.ConditionTrue && strings.Contains(c.Message, name) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("real control plane: the namespace controller never reported the policy's denial")
	}

	d := forbiddenWhyStuck(t, env, "ns/"+ns)
	var rc *forbiddenRootCause
	for i := range d.RootCauses {
		if d.RootCauses[i].Reason == "policy-denies" && d.RootCauses[i].Object.Name == name {
			rc = &d.RootCauses[i]
		}
	}
	if rc == nil {
		t.Fatalf("root causes %+v, want policy-denies on ValidatingAdmissionPolicy/%s", d.RootCauses, name)
	}
	if !strings.Contains(rc.Message, "ValidatingAdmissionPolicyBinding/"+name) || !strings.Contains(rc.Message, "Secret/unseal-keys -n "+ns) {
		t.Errorf("message %q does not name the binding and the Secret", rc.Message)
	}
	runRemedy(t, env, rc.command(t, "delete-policy-binding"))
	err = wait.PollUntilContextTimeout(ctx, time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := env.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Errorf("real control plane: namespace %s is still there after its binding was removed", ns)
	}
}

// noDeletesPolicy creates a policy denying every DELETE of Secrets and
// its binding (same name) limited to namespace ns; it returns their name.
func noDeletesPolicy(t *testing.T, ctx context.Context, env *framework.Env, ns string) string {
	t.Helper()
	name := "no-secret-deletes-" + ns
	p := &admissionv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: admissionv1.ValidatingAdmissionPolicySpec{
		MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
			Operations: []admissionv1.OperationType{admissionv1.Delete},
			Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"secrets"}}}}}},
		Validations: []admissionv1.Validation{{Expression: "false", Message: "secrets are never deleted"}}}}
	return createPolicy(t, ctx, env, ns, p)
}

// createPolicy creates policy p and a binding of the same name, with
// Deny, limited to namespace ns; both go at the end of the test.
func createPolicy(t *testing.T, ctx context.Context, env *framework.Env, ns string, p *admissionv1.ValidatingAdmissionPolicy) string {
	t.Helper()
	name := p.Name
	if _, err := env.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	b := &admissionv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
		PolicyName: name, ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
		MatchResources: &admissionv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}}}}
	if _, err := env.Client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Delete(context.Background(), name, metav1.DeleteOptions{})
		_ = env.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return name
}
