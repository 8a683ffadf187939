package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// recreateDiagnosis is the part of a Diagnosis the recreation test reads.
type recreateDiagnosis struct {
	RootCauses []struct {
		Object     framework.ObjectRef `json:"object"`
		Reason     string              `json:"reason"`
		RemovedBy  string              `json:"removedBy"`
		Controller string              `json:"controller"`
		Message    string              `json:"message"`
	} `json:"rootCauses"`
}

// requireRecreationLoop requires the diagnosis to call the ConfigMap
// name, created again while its owner was deleted, a recreation loop
// naming the Widget's controller and the manager its managedFields name
// as who recreates it, and never to blame a stalled collector.
func requireRecreationLoop(t *testing.T, out []byte, name, when string) {
	t.Helper()
	var d recreateDiagnosis
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("why-stuck output: %v\n%s", err, out)
	}
	found := false
	for _, rc := range d.RootCauses {
		if rc.Reason == "controller-stalled" || strings.Contains(rc.Message, "not acting") {
			t.Errorf("%s: a stalled collector blamed where the evidence shows recreation: %+v", when, rc)
		}
		if rc.Reason == "dependent-recreated" && rc.Object.Kind == "ConfigMap" && rc.Object.Name == name {
			found = true
			if !strings.Contains(rc.Controller, "Widget") || !strings.Contains(rc.Controller, `managedFields manager "widget-operator"`) || !strings.Contains(rc.Message, "this is a loop") {
				t.Errorf("%s: the loop does not name the Widget's controller as what recreates it: %+v", when, rc)
			}
		}
	}
	if !found {
		t.Errorf("%s: no dependent-recreated root cause on ConfigMap %s:\n%s", when, name, out)
	}
}

// TestWhyStuckRecreationLoop: an operator, played by the test, that
// reconciles a Widget while it is deleted (as operators do:
// ClickHouse/clickhouse-operator#309,
// open-telemetry/opentelemetry-operator#2364): it keeps one ConfigMap of
// the Widget's, controlled by it with blockOwnerDeletion and carrying the
// operator's finalizer; when it finds it being deleted it creates a
// replacement, then releases the old one. kgc plan warns before the
// foreground delete; on the real plane the collector deletes each
// ConfigMap in turn and the Widget never goes (each replacement is in the
// collector's graph before the ConfigMap it replaces is gone). The moment
// is frozen right after a recreation (the controller manager stopped, the
// replacement there): why-stuck calls it a recreation loop naming the
// Widget's controller and its managedFields manager, widget-operator, now
// and read ten minutes later, never a stalled collector. It runs on a
// control plane of its own, since it stops the controller manager.
func TestWhyStuckRecreationLoop(t *testing.T) {
	shared := framework.Setup(t)
	t.Parallel()
	env := shared.Dedicated(t)
	ctx := context.Background()
	widgets := framework.CRD{Group: "loop.e2e.kgc.dev", Kind: "Widget", Plural: "widgets", Namespace: true}
	env.CreateCRD(t, ctx, widgets)
	ns := env.Namespace(t, ctx, "loop")
	widget := env.MustCreate(t, ctx, widgets.GVR(), widgets.New(ns, "app"))
	op := &widgetOperator{env: env, ns: ns, owner: framework.Ref(widget, ptrTrue(), ptrTrue())}
	if err := op.reconcile(ctx); err != nil {
		t.Fatal(err)
	}

	res := env.RunKGC(t, "plan", "delete", widgets.TypeArg()+"/app", "-n", ns, "--cascade=foreground", "-o", "json")
	var plan struct {
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(res.Stdout, &plan); err != nil {
		t.Fatalf("plan: %v\n%s", err, res)
	}
	if !strings.Contains(strings.Join(plan.Warnings, "\n"), "creates them again") {
		t.Errorf("kgc plan does not warn before the foreground delete of a Widget owning a blocking dependent: %q", plan.Warnings)
	}

	opCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for opCtx.Err() == nil {
			_ = op.reconcile(opCtx)
			time.Sleep(20 * time.Millisecond)
		}
	}()
	t.Cleanup(func() { stop(); wg.Wait() })
	fg := metav1.DeletePropagationForeground
	if err := env.Dynamic.Resource(widgets.GVR()).Namespace(ns).Delete(ctx, "app", metav1.DeleteOptions{PropagationPolicy: &fg}); err != nil {
		t.Fatal(err)
	}
	// The loop on the real plane: the collector deleted three ConfigMaps,
	// the operator replaced each, and two seconds have passed
	// (timestamps have a resolution of a second).
	deleted := time.Now()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		return op.created.Load() >= 4 && time.Since(deleted) > 2*time.Second, nil
	})
	if err != nil {
		t.Fatalf("real control plane: the collector did not delete the replacements (%d created): %v", op.created.Load(), err)
	}
	if !env.CP.StopComponent("kube-controller-manager") {
		t.Fatal("no kube-controller-manager to stop")
	}
	var cm corev1.ConfigMap
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		l, err := env.Client.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: "widget=app"})
		if err != nil || len(l.Items) != 1 || l.Items[0].DeletionTimestamp != nil {
			return false, nil
		}
		cm = l.Items[0]
		return true, nil
	})
	if err != nil {
		t.Fatalf("the operator did not settle on one replacement: %v", err)
	}
	stop()
	wg.Wait()
	w, err := env.Dynamic.Resource(widgets.GVR()).Namespace(ns).Get(ctx, "app", metav1.GetOptions{})
	if err != nil || w.GetDeletionTimestamp() == nil || !cm.CreationTimestamp.After(w.GetDeletionTimestamp().Time) {
		t.Fatalf("real control plane: want the Widget held and its ConfigMap created after its deletion began (%v): %v, %v", err, w, cm.CreationTimestamp)
	}
	t.Logf("the operator created %d ConfigMaps after the Widget's deletion began", op.created.Load()-1)

	out := env.KGC(t, "why-stuck", widgets.TypeArg()+"/app", "-n", ns, "-o", "json")
	requireRecreationLoop(t, out, cm.Name, "now")
	snap := filepath.Join(t.TempDir(), "s.json")
	env.KGC(t, "snapshot", "--output-file", snap)
	later := w.GetDeletionTimestamp().Add(10 * time.Minute).UTC().Format(time.RFC3339)
	out = env.KGC(t, "why-stuck", widgets.TypeArg()+"/app", "-n", ns, "-f", snap, "--captured-at", later, "-o", "json")
	requireRecreationLoop(t, out, cm.Name, "ten minutes on")
}

func ptrTrue() *bool { t := true; return &t }

// widgetOperator keeps one live ConfigMap of the Widget's: when none is
// live it creates one (the manager widget-operator, its finalizer, the
// Widget as controller with blockOwnerDeletion), then releases those
// being deleted by removing its finalizer.
type widgetOperator struct {
	env     *framework.Env
	ns      string
	owner   metav1.OwnerReference
	created atomic.Int32
}

const widgetFinalizer = "loop.e2e.kgc.dev/operator"

func (op *widgetOperator) reconcile(ctx context.Context) error {
	cms := op.env.Client.CoreV1().ConfigMaps(op.ns)
	l, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "widget=app"})
	if err != nil {
		return err
	}
	live := false
	for _, c := range l.Items {
		live = live || c.DeletionTimestamp == nil
	}
	if !live {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "app-config-", Labels: map[string]string{"widget": "app"},
			Finalizers: []string{widgetFinalizer}, OwnerReferences: []metav1.OwnerReference{op.owner}}}
		if _, err := cms.Create(ctx, cm, metav1.CreateOptions{FieldManager: "widget-operator"}); err != nil {
			return err
		}
		op.created.Add(1)
	}
	for _, c := range l.Items {
		if c.DeletionTimestamp != nil {
			patch := []byte(`{"metadata":{"finalizers":null}}`)
			if _, err := cms.Patch(ctx, c.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "widget-operator"}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
	}
	return nil
}
