package framework

import (
	"context"
	"path/filepath"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WithAPIServerArgs adds kube-apiserver flags (for example lower
// --max-requests-inflight, so that a priority level gets a single seat).
func WithAPIServerArgs(args ...string) Option {
	return func(cp *ControlPlane) { cp.apiServerArgs = append(cp.apiServerArgs, args...) }
}

// ServiceAccountToken creates the ServiceAccount ns/name bound cluster-wide
// to a ClusterRole of rules, and returns a bearer token for it (a
// TokenRequest, valid an hour): an identity outside system:masters, which
// API Priority and Fairness exempts, and with no more rights than rules.
// Its user name is system:serviceaccount:NS:NAME.
func (e *Env) ServiceAccountToken(t testing.TB, ctx context.Context, ns, name string, rules []rbacv1.PolicyRule) string {
	t.Helper()
	sa, err := e.Client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating ServiceAccount %s/%s: %v", ns, name, err)
	}
	role := "kgc-e2e-" + ns + "-" + name
	if _, err := e.Client.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role}, Rules: rules}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating ClusterRole %s: %v", role, err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}},
	}
	if _, err := e.Client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating ClusterRoleBinding %s: %v", role, err)
	}
	hour := int64(3600)
	tr, err := e.Client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa.Name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &hour}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("requesting a token for ServiceAccount %s/%s: %v", ns, name, err)
	}
	return tr.Status.Token
}

// KubeconfigAs writes a kubeconfig that reaches the API server through
// the proxy with token instead of the admin's.
func (p *FaultProxy) KubeconfigAs(t testing.TB, token string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig-via-proxy-as")
	if err := writeKubeconfig(path, p.URL, token); err != nil {
		t.Fatalf("fault proxy: %v", err)
	}
	return path
}

// RunKGCWith runs kgc as RunKGC does, with another kubeconfig (another
// identity, or through a proxy).
func (e *Env) RunKGCWith(t testing.TB, kubeconfig string, args ...string) KGCResult {
	t.Helper()
	return e.startKGC(t, kubeconfig, args...).Wait(t)
}

// Answered is how many requests the proxy forwarded that the API server
// answered with code (429: throttled by API Priority and Fairness); the
// faults the proxy injects itself are not counted.
func (p *FaultProxy) Answered(code int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.answered[code]
}

func (p *FaultProxy) countAnswer(code int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.answered == nil {
		p.answered = map[int]int{}
	}
	p.answered[code]++
}
