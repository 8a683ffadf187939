package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// Stuck deletions, made real, diagnosed with `kgc why-stuck`: the root cause
// kgc names must be the object and finalizer that really hold everything.

func whyStuck(t *testing.T, env *framework.Env, args ...string) framework.Diagnosis {
	t.Helper()
	full := append([]string{"why-stuck"}, append(args, "-o", "json")...)
	out := env.KGC(t, full...)
	t.Logf("kgc %s:\n%s", strings.Join(full, " "), out)
	var d framework.Diagnosis
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("decoding diagnosis: %v", err)
	}
	if d.APIVersion != "kgc.dev/v1alpha1" || d.Kind != "Diagnosis" {
		t.Errorf("diagnosis header: %s %s", d.APIVersion, d.Kind)
	}
	// A user reads the way out next: every root cause needs a remedy that
	// names the object.
	for _, rc := range d.RootCauses {
		named := false
		for _, r := range d.Remedies {
			if strings.Contains(r.Command, rc.Object.Name) || strings.Contains(r.Description, rc.Object.Name) {
				named = true
			}
		}
		if !named {
			t.Errorf("no remedy names root cause %s: %+v", rc.Object, d.Remedies)
		}
	}
	return d
}

// requireRootCause fails unless the diagnosis names uid with finalizer among
// its root causes.
func requireRootCause(t *testing.T, d framework.Diagnosis, uid, finalizer string) {
	t.Helper()
	for _, rc := range d.RootCauses {
		if rc.Object.UID == uid && rc.Finalizer == finalizer {
			return
		}
	}
	raw, _ := json.MarshalIndent(d, "", "  ")
	t.Errorf("root causes do not name %s with finalizer %q:\n%s", uid, finalizer, raw)
}

func TestWhyStuckCustomFinalizer(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	crd := framework.CRD{Group: "stuck1.e2e.kgc.dev", Kind: "Database", Plural: "databases", Namespace: true}
	env.CreateCRD(t, ctx, crd)
	ns := env.Namespace(t, ctx, "stuck1")
	db := mkCR(t, ctx, env, crd, ns, "orders", finalizers(holdFinalizer))
	deleteNow(t, ctx, env, crd.GVR(), ns, "orders", bg)
	if _, err := env.Settle(ctx, nsScope(ns, crd.GVR()), quietBefore, settleLimit); err != nil {
		t.Fatal(err)
	}
	d := whyStuck(t, env, crd.TypeArg()+"/orders", "-n", ns)
	if d.Kind != "Diagnosis" || d.Object.UID != string(db.GetUID()) || !d.Terminating {
		t.Errorf("diagnosis header: kind %q object %s terminating %v", d.Kind, d.Object, d.Terminating)
	}
	requireRootCause(t, d, string(db.GetUID()), holdFinalizer)
	if len(d.Blockers) == 0 || d.Blockers[0].Finalizer != holdFinalizer || d.Blockers[0].RemovedBy != "unknown" {
		t.Errorf("blockers should name %s, removed by an unknown controller: %+v", holdFinalizer, d.Blockers)
	}
}

func TestWhyStuckNamespaceWithFinalizedCustomResource(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	crd := framework.CRD{Group: "stuck2.e2e.kgc.dev", Kind: "Bucket", Plural: "buckets", Namespace: true}
	env.CreateCRD(t, ctx, crd)
	ns := env.Namespace(t, ctx, "stuck2")
	bucket := mkCR(t, ctx, env, crd, ns, "logs", finalizers(holdFinalizer))
	mk(t, ctx, env, "ConfigMap", ns, "settings")
	if err := env.Client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Wait until the namespace controller has done what it can: the
	// ConfigMap is gone, the bucket is terminating under its finalizer and
	// the namespace reports it in its conditions.
	err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		n, err := env.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range n.Status.Conditions {
			if c.Type == "NamespaceFinalizersRemaining" && c.Status == "True" && strings.Contains(c.Message, holdFinalizer) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("namespace controller never reported the remaining finalizer: %v", err)
	}
	nsObj, err := env.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := whyStuck(t, env, "namespace/"+ns)
	if d.Object.UID != string(nsObj.UID) || !d.Terminating {
		t.Errorf("diagnosis header: object %s terminating %v", d.Object, d.Terminating)
	}
	requireRootCause(t, d, string(bucket.GetUID()), holdFinalizer)
	for _, rc := range d.RootCauses {
		if rc.Object.Kind == "ConfigMap" {
			t.Errorf("root causes name the ConfigMap, which the namespace controller already deleted: %+v", rc)
		}
	}
}

func TestWhyStuckForegroundChain(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "stuck3")
	// app ← tier{b} ← leaf{b}, leaf held by a finalizer: deleting app in the
	// foreground makes the GC delete tier in the foreground, which waits for
	// leaf, which waits for its finalizer.
	app := mk(t, ctx, env, "ConfigMap", ns, "app")
	tier := mk(t, ctx, env, "ConfigMap", ns, "tier", owners(ref(app, tr(), tr())))
	leaf := mk(t, ctx, env, "Secret", ns, "leaf", owners(ref(tier, tr(), tr())), finalizers(holdFinalizer))
	time.Sleep(time.Second) // let the GC observe the chain first
	deleteNow(t, ctx, env, framework.ConfigMaps, ns, "app", fg)
	states, err := env.Settle(ctx, nsScope(ns, framework.ConfigMaps, framework.Secrets), quietAfter, settleLimit)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"app", "tier"} {
		s, ok := stateByName(states, "ConfigMap", name)
		if !ok || !s.Terminating {
			t.Fatalf("setup: %s should be waiting for its dependents: %s", name, framework.Fingerprint(states))
		}
	}
	if s, ok := stateByName(states, "Secret", "leaf"); !ok || !s.Terminating {
		t.Fatalf("setup: leaf should be terminating: %s", framework.Fingerprint(states))
	}
	d := whyStuck(t, env, "configmap/app", "-n", ns)
	if d.Object.UID != string(app.GetUID()) {
		t.Errorf("diagnosis of %s, want app %s", d.Object, app.GetUID())
	}
	requireRootCause(t, d, string(leaf.GetUID()), holdFinalizer)
	for _, rc := range d.RootCauses {
		if rc.Object.UID == string(app.GetUID()) || rc.Object.UID == string(tier.GetUID()) {
			t.Errorf("root causes name %s, which only waits for others: %+v", rc.Object, rc)
		}
	}
	// The blocker tree must lead from app's foregroundDeletion to tier.
	if len(d.Blockers) == 0 || d.Blockers[0].Finalizer != "foregroundDeletion" || d.Blockers[0].RemovedBy != "garbagecollector" {
		t.Errorf("top blocker should be foregroundDeletion removed by the garbagecollector: %+v", d.Blockers)
	}
}
