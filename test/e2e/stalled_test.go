package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// TestStalledGarbageCollector: with kube-controller-manager stopped, a
// foreground delete leaves foregroundDeletion on an object that has nothing
// to wait for. Right after the delete kgc calls it in progress; read with
// a capture time well past what the step takes, it names the stalled
// garbage collector and --fail-if stuck fires. It runs on a control plane
// of its own, since it stops the controller manager.
func TestStalledGarbageCollector(t *testing.T) {
	shared := framework.Setup(t)
	t.Parallel()
	env := shared.Dedicated(t)
	ctx := context.Background()
	if !env.CP.StopComponent("kube-controller-manager") {
		t.Fatal("no kube-controller-manager to stop")
	}
	ns := "stalled-gc"
	if _, err := env.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm, err := env.Client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fg := metav1.DeletePropagationForeground
	if err := env.Client.CoreV1().ConfigMaps(ns).Delete(ctx, cm.Name, metav1.DeleteOptions{PropagationPolicy: &fg}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	got, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, cm.Name, metav1.GetOptions{})
	if err != nil || got.DeletionTimestamp == nil {
		t.Fatalf("the owner should wait for a garbage collector that does not run: %v %+v", err, got)
	}

	var now struct {
		RootCauses []struct{ Reason string } `json:"rootCauses"`
	}
	env.KGCJSON(t, &now, "why-stuck", "cm/owner", "-n", ns, "-o", "json")
	if len(now.RootCauses) != 1 || now.RootCauses[0].Reason != "in-progress" {
		t.Errorf("right after the delete: root causes %+v, want one in progress", now.RootCauses)
	}

	snap := filepath.Join(t.TempDir(), "s.json")
	env.KGC(t, "snapshot", "--output-file", snap)
	later := got.DeletionTimestamp.Add(10 * time.Minute).UTC().Format(time.RFC3339)
	res := env.RunKGC(t, "why-stuck", "cm/owner", "-n", ns, "-f", snap, "--captured-at", later, "-o", "json", "--fail-if", "stuck")
	if res.ExitCode != 3 {
		t.Fatalf("ten minutes on: %s, want exit 3 (--fail-if stuck)", res)
	}
	var stalled struct {
		RootCauses []struct{ Reason, RemovedBy, Message string } `json:"rootCauses"`
	}
	if err := json.Unmarshal(res.Stdout, &stalled); err != nil {
		t.Fatal(err)
	}
	if len(stalled.RootCauses) != 1 || stalled.RootCauses[0].Reason != "controller-stalled" || stalled.RootCauses[0].RemovedBy != "garbagecollector" {
		t.Errorf("ten minutes on: root causes %+v, want the garbage collector stalled", stalled.RootCauses)
	}
}
