package framework

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const (
	// SharedNodeGroupLabel marks the shared nodes (each played by a kwok
	// process of its own); every workload scenario's pods can land there.
	SharedNodeGroupLabel = "kgc.dev/kwok-group"
	sharedNodeGroup      = "shared"
	sharedNodeCount      = 2
	// kwokLeaseSeconds is the node lease duration kwok writes; it renews
	// every quarter of it (2 s), well within nodeMonitorGracePeriod.
	kwokLeaseSeconds = 8
)

// startSharedNodes creates the shared nodes, each with a kwok process
// that plays its kubelet, and waits until they are Ready.
func (cp *ControlPlane) startSharedNodes(ctx context.Context) error {
	cs, err := cp.clientset()
	if err != nil {
		return err
	}
	var names []string
	for i := range sharedNodeCount {
		name := fmt.Sprintf("kwok-%s-%d", sharedNodeGroup, i)
		if err := createNode(ctx, cs, name, map[string]string{SharedNodeGroupLabel: sharedNodeGroup}, nil); err != nil {
			return err
		}
		if err := cp.startKwok(name); err != nil {
			return err
		}
		names = append(names, name)
	}
	for _, name := range names {
		if err := waitNodeReady(ctx, cs, name, corev1.ConditionTrue, 2*time.Minute); err != nil {
			return err
		}
	}
	return nil
}

// startKwok starts a kwok process named kwok-NODE playing the kubelet of
// one node, as that node: its requests impersonate system:node:NODE (in
// system:nodes, and system:masters since only RBAC authorizes here, no
// Node authorizer), so the audit log names the node as a real kubelet's
// requests do. HOME points into Dir so that a user's ~/.kwok/kwok.yaml
// never adds stages.
func (cp *ControlPlane) startKwok(node string) error {
	kubeconfig := filepath.Join(cp.Dir, "kubeconfig-"+node)
	if err := writeNodeKubeconfig(kubeconfig, cp.APIServerURL, cp.Token, node); err != nil {
		return err
	}
	return cp.spawn("kwok-"+node, cp.bins.Kwok, []string{"HOME=" + cp.Dir},
		"--kubeconfig="+kubeconfig,
		"--config="+cp.bins.KwokStages,
		"--manage-single-node="+node,
		fmt.Sprintf("--node-lease-duration-seconds=%d", kwokLeaseSeconds),
		// Pod IPs come from this range; a /16 never runs out in a run.
		"--cidr=10.128.0.0/16",
	)
}

// writeNodeKubeconfig writes a kubeconfig with the admin token that
// impersonates node's kubelet.
func writeNodeKubeconfig(path, server, token, node string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kgc-e2e"] = &clientcmdapi.Cluster{Server: server, InsecureSkipTLSVerify: true}
	cfg.AuthInfos[node] = &clientcmdapi.AuthInfo{Token: token, Impersonate: "system:node:" + node,
		ImpersonateGroups: []string{"system:nodes", "system:masters", "system:authenticated"}}
	cfg.Contexts["kgc-e2e"] = &clientcmdapi.Context{Cluster: "kgc-e2e", AuthInfo: node}
	cfg.CurrentContext = "kgc-e2e"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("writing kubeconfig %s: %w", path, err)
	}
	return nil
}

func (cp *ControlPlane) clientset() (kubernetes.Interface, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating clientset: %w", err)
	}
	return cs, nil
}

func createNode(ctx context.Context, cs kubernetes.Interface, name string, labels map[string]string, taints []corev1.Taint) error {
	labels["kubernetes.io/hostname"] = name
	labels["type"] = "kwok"
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{Taints: taints},
	}
	if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating node %s: %w", name, err)
	}
	return nil
}

// waitNodeReady waits until the node's Ready condition has the status want.
func waitNodeReady(ctx context.Context, cs kubernetes.Interface, name string, want corev1.ConditionStatus, timeout time.Duration) error {
	var last corev1.ConditionStatus = "absent"
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		node, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil // not created yet, or a transient error: poll again
		}
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady {
				last = c.Status
			}
		}
		return last == want, nil
	})
	if err != nil {
		return fmt.Errorf("node %s Ready=%s after %s, want %s: %w", name, last, timeout, want, err)
	}
	return nil
}

// Node is a kwok node of its own that a test can take down.
type Node struct {
	Name string
	env  *Env
}

// AddNode creates a node played by a kwok process of its own, with the
// given taints (a test taints its node so that only its own pods, which
// tolerate the taint, land there), and waits until it is Ready. The node and
// its kwok are removed when the test ends.
func (e *Env) AddNode(t testing.TB, ctx context.Context, name string, taints ...corev1.Taint) *Node {
	t.Helper()
	if e.CP.Profile != Workloads {
		t.Fatalf("AddNode needs the workload control plane (Env.Workloads)")
	}
	if err := createNode(ctx, e.Client, name, map[string]string{}, taints); err != nil {
		t.Fatal(err)
	}
	n := &Node{Name: name, env: e}
	t.Cleanup(func() {
		n.StopKubelet()
		if err := e.Client.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting node %s: %v", name, err)
		}
	})
	if err := e.CP.startKwok(name); err != nil {
		t.Fatal(err)
	}
	if err := waitNodeReady(ctx, e.Client, name, corev1.ConditionTrue, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	return n
}

// StopKubelet stops the node's kwok: nothing renews its lease or confirms
// its pods' termination any more, as when a real node's kubelet dies.
func (n *Node) StopKubelet() { n.env.CP.StopComponent("kwok-" + n.Name) }

// WaitNotReady waits until the node lifecycle controller has given up on
// the node (Ready=Unknown).
func (n *Node) WaitNotReady(t testing.TB, ctx context.Context) {
	t.Helper()
	// The grace period, then generous room for a busy machine.
	if err := waitNodeReady(ctx, n.env.Client, n.Name, corev1.ConditionUnknown, nodeMonitorGracePeriod+2*time.Minute); err != nil {
		t.Fatal(err)
	}
}
