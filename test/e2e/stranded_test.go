package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// TestStrandedClusterScopedDependentRemedies: a namespaced ConfigMap
// deleted in the foreground waits for a ClusterRole it owns (with
// blockOwnerDeletion), which the collector never deletes. why-stuck's
// remedies are applied and their promises observed on the real plane:
// deleting the ClusterRole finishes the owner; setting
// blockOwnerDeletion=false finishes the owner too, and the ClusterRole
// stays, as the remedy's risk says (it leaks; round two promised "the
// garbage collector then deletes it").
func TestStrandedClusterScopedDependentRemedies(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "stranded")
	yes := true
	for _, how := range []string{"delete", "unblock"} {
		owner := env.MustCreate(t, ctx, framework.ConfigMaps, framework.Obj("v1", "ConfigMap", ns, "owner-"+how))
		role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + how,
			OwnerReferences: []metav1.OwnerReference{framework.Ref(owner, &yes, nil)}}}
		if _, err := env.Client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = env.Client.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
		})
		fg := metav1.DeletePropagationForeground
		if err := env.Client.CoreV1().ConfigMaps(ns).Delete(ctx, owner.GetName(), metav1.DeleteOptions{PropagationPolicy: &fg}); err != nil {
			t.Fatal(err)
		}
	}
	// The collector has had its chance (a dangling canary created after
	// the deletes is gone), and the owners stay.
	waitCollectorTurn(t, env, ns, "canary-1")
	for _, how := range []string{"delete", "unblock"} {
		cm, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, "owner-"+how, metav1.GetOptions{})
		if err != nil || cm.DeletionTimestamp == nil {
			t.Fatalf("real control plane: owner-%s is not held (%v)", how, err)
		}
	}
	var doc struct {
		RootCauses []struct {
			Remedies []struct {
				Action, Description, Command, Risk, Leaks string
			} `json:"remedies"`
		} `json:"rootCauses"`
	}
	out := env.KGC(t, "why-stuck", "cm/owner-delete", "-n", ns, "-o", "json")
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	var del, unblock bool
	for _, rc := range doc.RootCauses {
		for _, r := range rc.Remedies {
			switch {
			case r.Action == "delete" && strings.Contains(r.Command, ns+"-delete"):
				del = true
			case r.Action == "unblock-owner-reference":
				unblock = true
				if r.Leaks == "" || strings.Contains(r.Risk, "then deletes") {
					t.Errorf("unblocking promises what the collector does not do: %+v", r)
				}
			}
		}
	}
	if !del || !unblock {
		t.Fatalf("why-stuck offers delete %v, unblock %v:\n%s", del, unblock, out)
	}
	// Remedy 1: delete the ClusterRole yourself.
	if err := env.Client.RbacV1().ClusterRoles().Delete(ctx, ns+"-delete", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Remedy 2: blockOwnerDeletion=false on the other.
	patch := []byte(`[{"op":"replace","path":"/metadata/ownerReferences/0/blockOwnerDeletion","value":false}]`)
	if _, err := env.Client.RbacV1().ClusterRoles().Patch(ctx, ns+"-unblock", types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{"delete", "unblock"} {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			_, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, "owner-"+how, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		if err != nil {
			t.Errorf("real control plane: after the %s remedy owner-%s is still there: %v", how, how, err)
		}
	}
	// The promise of the unblock remedy's risk: with its owner gone, the
	// collector looks at the ClusterRole again (an update queues it) and
	// leaves it. A dangling canary queued after it and deleted by the
	// collector says it has had its turn.
	label := []byte(`{"metadata":{"labels":{"kgc.dev/poke":"1"}}}`)
	if _, err := env.Client.RbacV1().ClusterRoles().Patch(ctx, ns+"-unblock", types.MergePatchType, label, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitCollectorTurn(t, env, ns, "canary-2")
	if _, err := env.Client.RbacV1().ClusterRoles().Get(ctx, ns+"-unblock", metav1.GetOptions{}); err != nil {
		t.Errorf("real control plane: the unblocked ClusterRole is gone (%v): the remedy says it leaks", err)
	}
}

// waitCollectorTurn creates ConfigMap name in ns owned by an owner that
// never existed and waits until the garbage collector deletes it: the
// collector has then worked through what was queued before it.
func waitCollectorTurn(t *testing.T, env *framework.Env, ns, name string) {
	t.Helper()
	ctx := context.Background()
	canary := framework.Obj("v1", "ConfigMap", ns, name)
	canary.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "gone", UID: types.UID("00000000-0000-0000-0000-0000000000aa")}})
	env.MustCreate(t, ctx, framework.ConfigMaps, canary)
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("real control plane: the collector did not delete the dangling %s: %v", name, err)
	}
}
