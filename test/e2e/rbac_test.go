package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// TestNamespaceScopedUser runs kgc as a user whom RBAC lets into one
// namespace only (the admin role bound there by a RoleBinding, reached
// with --as): every list at cluster scope is forbidden, as for most
// developers on a shared cluster. kgc must answer about that namespace as
// kubectl get -n does (the graph, the plan and why-stuck see its objects),
// and where the user may read nothing of what they ask about, exit
// non-zero as kubectl's Forbidden does, never with an empty all-clear.
func TestNamespaceScopedUser(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "nsuser")
	user := "kgc-e2e-" + ns
	bindNamespaceAdmin(t, ctx, env, ns, user)

	dep := mk(t, ctx, env, "Deployment", ns, "web")
	rs := mk(t, ctx, env, "ReplicaSet", ns, "web-1", owners(ref(dep, tr(), tr())))
	pod := mk(t, ctx, env, "Pod", ns, "web-1-a", owners(ref(rs, tr(), tr())))
	held := mk(t, ctx, env, "ConfigMap", ns, "held", finalizers(holdFinalizer))
	deleteNow(t, ctx, env, framework.ConfigMaps, ns, "held", bg)
	waitReadable(t, ctx, env, ns, user)
	as := []string{"--as", user}

	var g framework.Graph
	env.KGCJSON(t, &g, append(as, "graph", "-n", ns, "-o", "json")...)
	for _, o := range []string{string(dep.GetUID()), string(rs.GetUID()), string(pod.GetUID())} {
		if !hasNode(g, o) {
			t.Errorf("graph -n %s as %s: no node %s; nodes %+v", ns, user, o, g.Nodes)
		}
	}

	res := env.RunKGC(t, append(as, "plan", "delete", "deploy/web", "-n", ns, "-o", "json")...)
	var p framework.Plan
	if err := json.Unmarshal(res.Stdout, &p); err != nil || res.ExitCode != 0 || p.Target.UID != string(dep.GetUID()) ||
		fateOf(p, string(rs.GetUID())) != "deleted" || fateOf(p, string(pod.GetUID())) != "deleted" {
		t.Errorf("plan delete deploy/web -n %s as %s: want the deployment's plan deleting its replicaset and pod (decode error %v)\n%s", ns, user, err, res)
	}

	res = env.RunKGC(t, append(as, "why-stuck", "-n", ns, "--fail-if", "stuck", "-o", "json")...)
	t.Logf("%s", res)
	var list struct {
		Kind  string                `json:"kind"`
		Items []framework.Diagnosis `json:"items"`
	}
	if err := json.Unmarshal(res.Stdout, &list); err != nil || res.ExitCode != 3 || len(list.Items) != 1 || list.Items[0].Object.UID != string(held.GetUID()) {
		t.Errorf("why-stuck -n %s --fail-if stuck as %s: want the held ConfigMap and exit 3 (decode error %v)\n%s", ns, user, err, res)
	}
	if !strings.Contains(string(res.Stderr), `warning: RBAC kept User "`+user+`" from listing`) {
		t.Errorf("why-stuck as %s: no RBAC summary on stderr\n%s", user, res)
	}

	// The Namespace itself cannot be listed, but the user may GET it.
	nsObj, err := env.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var d framework.Diagnosis
	env.KGCJSON(t, &d, append(as, "why-stuck", "ns/"+ns, "-o", "json")...)
	if d.Object.UID != string(nsObj.UID) {
		t.Errorf("why-stuck ns/%s as %s explains %+v, want the namespace", ns, user, d.Object)
	}

	for _, args := range [][]string{
		{"why-stuck", "-n", "default", "--fail-if", "stuck"},
		{"graph", "-n", "kube-system"},
		{"plan", "delete", "deploy/web", "-n", "default"},
		{"graph", "-A"},
	} {
		res := env.RunKGC(t, append(as, args...)...)
		t.Logf("%s", res)
		if res.ExitCode != 1 || len(res.Stdout) != 0 || !strings.Contains(string(res.Stderr), `User "`+user+`"`) || !strings.Contains(string(res.Stderr), "forbidden") {
			t.Errorf("kgc %s as %s: want exit 1 and the refusal naming the user, nothing on stdout\n%s", strings.Join(args, " "), user, res)
		}
	}
}

// bindNamespaceAdmin gives user the admin role in ns. The control plane
// here runs no clusterrole-aggregation controller (only the garbage
// collector and the namespace controller), so the admin ClusterRole has no
// rules of its own yet: the roles it aggregates are bound as well, which
// is what admin amounts to on a real cluster.
func bindNamespaceAdmin(t *testing.T, ctx context.Context, env *framework.Env, ns, user string) {
	t.Helper()
	for _, role := range []string{"admin", "system:aggregate-to-admin", "system:aggregate-to-edit", "system:aggregate-to-view"} {
		rb := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "kgc-e2e-", Namespace: ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
		}
		if _, err := env.Client.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
			t.Fatalf("binding %s to %s in %s: %v", role, user, ns, err)
		}
	}
}

// waitReadable waits until user may list pods in ns, the RoleBinding
// having reached the authorizer's cache, and checks that the cluster
// scope stays forbidden: the premise of the test.
func waitReadable(t *testing.T, ctx context.Context, env *framework.Env, ns, user string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", env.CP.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Impersonate.UserName = user
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("%s still may not list pods in %s: %v", user, ns, err)
	}
	if _, err := c.CoreV1().Pods("").List(ctx, metav1.ListOptions{}); err == nil {
		t.Fatalf("%s may list pods at cluster scope: the test needs a user bound in one namespace", user)
	}
}

func hasNode(g framework.Graph, uid string) bool {
	for _, n := range g.Nodes {
		if n.UID == uid {
			return true
		}
	}
	return false
}

func fateOf(p framework.Plan, uid string) string {
	for _, o := range p.Objects {
		if o.Object.UID == uid {
			return o.Fate
		}
	}
	return ""
}
