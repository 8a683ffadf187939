package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
)

// TestApplyInterruptedWhileFollowing: Ctrl-C while kgc apply follows a
// cascade held by a finalizer. The plan assumed finalizers are removed,
// so dep-a is planned deleted and the follow waits on it; SIGINT must
// stop the follow long before --timeout, print the report so far (the
// DELETE sent, the owner and dep-b done, dep-a in progress with
// why-stuck's verdict naming the finalizer) and exit 11.
func TestApplyInterruptedWhileFollowing(t *testing.T) {
	c := newApplyCase(t, "apply-int")
	env, ctx := c.env, context.Background()
	if _, err := env.Client.CoreV1().Secrets(c.ns).Patch(ctx, "dep-a", types.MergePatchType,
		[]byte(`{"metadata":{"finalizers":["`+lateFinalizer+`"]}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { releaseFinalizer(t, env, c.ns, "dep-a") })
	path := c.plan(t, "--assume-finalizers=remove")

	run := env.StartKGC(t, "apply", path, "--yes", "--timeout", "10m", "-o", "json")
	// Once dep-a is terminating, the collector has acted on apply's
	// DELETE and kgc is following: the finalizer holds dep-a for good.
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		s, err := env.Client.CoreV1().Secrets(c.ns).Get(ctx, "dep-a", metav1.GetOptions{})
		return err == nil && s.DeletionTimestamp != nil, nil
	})
	if err != nil {
		t.Fatalf("real control plane: dep-a never started terminating: %v", err)
	}
	// The watch reports the state it lists first: give it a moment to
	// have seen dep-a terminating (not required for the verdict below).
	time.Sleep(500 * time.Millisecond)
	run.Interrupt(t)
	res := run.Wait(t)
	if res.TimedOut {
		t.Fatalf("kgc did not end after SIGINT: %s", res)
	}
	rep := decodeApplyReport(t, res, applyExitInterrupted)
	if rep.Outcome != "interrupted" || len(rep.Requests) != 1 || rep.Requests[0].Verb != "DELETE" {
		t.Fatalf("outcome %s with requests %+v; want interrupted after the one DELETE", rep.Outcome, rep.Requests)
	}
	results := map[string]string{}
	for _, o := range rep.Objects {
		results[o.Object.Name] = o.Result
		if o.Object.Name == "dep-a" && !strings.Contains(o.WhyStuck, lateFinalizer) {
			t.Errorf("dep-a: why-stuck %q, want it to name finalizer %s", o.WhyStuck, lateFinalizer)
		}
	}
	if results["dep-a"] != "in-progress" || results["owner"] != "as-planned" || results["dep-b"] != "as-planned" {
		t.Errorf("results %v; want dep-a in-progress, owner and dep-b as-planned", results)
	}
	if !strings.Contains(string(res.Stderr), "interrupted: following stops") {
		t.Errorf("stderr does not say the interrupt stopped following:\n%s", res.Stderr)
	}
}
