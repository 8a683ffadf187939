package e2e

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// TestSmoke checks the harness itself: the control plane is up and its
// garbage collector deletes a dependent after a background delete of its owner.
func TestSmoke(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "smoke")

	owner := env.MustCreate(t, ctx, framework.ConfigMaps, framework.Obj("v1", "ConfigMap", ns, "owner"))
	dep := framework.Obj("v1", "Secret", ns, "dependent")
	dep.SetOwnerReferences([]metav1.OwnerReference{framework.Ref(owner, nil, nil)})
	env.MustCreate(t, ctx, framework.Secrets, dep)

	g, err := env.FetchGCGraph(ctx, string(owner.GetUID()))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("GC graph for the owner:\n%s", g.Raw)

	bg := metav1.DeletePropagationBackground
	if err := env.Client.CoreV1().ConfigMaps(ns).Delete(ctx, "owner", metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
		t.Fatalf("deleting owner: %v", err)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := env.Client.CoreV1().Secrets(ns).Get(ctx, "dependent", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("dependent not collected after its owner was deleted: %v", err)
	}
}
