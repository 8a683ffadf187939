package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

var auditIDRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// poll waits up to a minute for cond, or fails the test saying what.
func poll(t *testing.T, what string, cond func(ctx context.Context) bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		return cond(ctx), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// requireAsPlanned requires the report of the case's three objects, each
// as planned: the report a fault-free apply makes.
func requireAsPlanned(t *testing.T, rep applyReport) {
	t.Helper()
	if rep.Outcome != "as-planned" || len(rep.Objects) != 3 {
		t.Errorf("outcome %s, objects %+v; want the three objects as planned", rep.Outcome, rep.Objects)
	}
	for _, o := range rep.Objects {
		if o.Result != "as-planned" {
			t.Errorf("%s: %s, want as-planned", o.Object.Name, o.Result)
		}
	}
}

// TestFaultApplyFollowAPIServerRestarted: while kgc apply follows the
// cascade, the API server is restarted (down for 10 s), and kgc is kept
// from reaching it until the cascade has finished: dep-a, held by a
// finalizer the plan assumes removed, goes while kgc is disconnected.
// kgc relists, misses no deletion, and reports as planned, not timed out.
func TestFaultApplyFollowAPIServerRestarted(t *testing.T) {
	shared := framework.Setup(t)
	t.Parallel()
	env := shared.Dedicated(t) // the restart would break every other test's cluster
	ctx := context.Background()
	c := newApplyCaseIn(t, env, "fault-restart")
	if _, err := env.Client.CoreV1().Secrets(c.ns).Patch(ctx, "dep-a", types.MergePatchType,
		[]byte(`{"metadata":{"finalizers":["kgc.test/hold"]}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { releaseFinalizer(t, env, c.ns, "dep-a") })
	path := c.plan(t, "--assume-finalizers=remove")
	p := framework.NewFaultProxy(t, env.CP)
	run := env.StartKGCVia(t, p, "apply", path, "--yes", "--timeout", "150s", "-o", "json")
	poll(t, "kgc following a terminating dep-a", func(ctx context.Context) bool {
		s, err := env.Client.CoreV1().Secrets(c.ns).Get(ctx, "dep-a", metav1.GetOptions{})
		return err == nil && s.DeletionTimestamp != nil && p.Count("WATCH", "") >= 2
	})
	p.Inject(&framework.Fault{Match: framework.Match{Method: "GET"}, Kind: framework.Status, Code: 503})
	if err := env.CP.RestartAPIServer(ctx, 10*time.Second); err != nil {
		t.Fatalf("restarting the API server: %v", err)
	}
	releaseFinalizer(t, env, c.ns, "dep-a")
	poll(t, "dep-a gone", func(ctx context.Context) bool {
		_, err := env.Client.CoreV1().Secrets(c.ns).Get(ctx, "dep-a", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	refused := p.Fired()
	p.Clear()
	rep := decodeApplyReport(t, run.Wait(t), 0)
	t.Logf("through the proxy: %s", p.Summary())
	requireAsPlanned(t, rep)
	if n := p.Count("DELETE", ""); n != 1 || refused == 0 {
		t.Errorf("%d DELETE(s), %d request(s) refused while disconnected; want 1 DELETE and kgc disconnected for a while", n, refused)
	}
	c.requireGone(t)
}

// TestFaultRemedyPatchResponseLost: the connection drops once the
// remedy's PATCH reached the API server. kgc sends no second PATCH: it
// re-reads the ConfigMap, finds it gone, says the PATCH was accepted and
// reports as planned.
func TestFaultRemedyPatchResponseLost(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "fault-remedy-lost")
	why, _ := heldConfigMap(t, env, ns, "kgc.dev/hold")
	p := framework.NewFaultProxy(t, env.CP)
	p.Inject(&framework.Fault{Match: framework.Match{Method: "PATCH", Path: "/configmaps/held", Times: 1}, Kind: framework.ResetAfter})
	res := env.RunKGCVia(t, p, "apply", why, "--remedy", "remove-finalizer:configmap:"+ns+"/held:kgc.dev/hold", "--yes", "--timeout", "90s", "-o", "json")
	rep := decodeApplyReport(t, res, 0)
	t.Logf("through the proxy: %s", p.Summary())
	if n := p.Count("PATCH", ""); n != 1 || rep.Outcome != "as-planned" || len(rep.Requests) != 1 || rep.Requests[0].Status != 0 {
		t.Errorf("%d PATCH(es), outcome %s, requests %+v; want one PATCH without response, as planned", n, rep.Outcome, rep.Requests)
	}
	requireNote(t, res, "outcome of the PATCH unknown until re-read: accepted")
	if _, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, "held", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("real control plane: ConfigMap held still exists (%v)", err)
	}
}

// TestApplyReportAuditIDs: every request of a real apply carries the
// audit ID the API server gave it, and the API server's audit log holds
// that request under it (TestFaultApplyDeleteResponseLost: a request
// whose response was lost keeps the one kgc sent).
func TestApplyReportAuditIDs(t *testing.T) {
	c := newApplyCase(t, "apply-audit-id")
	path := c.plan(t)
	rep := c.apply(t, 0, path, "--yes", "--timeout", "90s")
	if len(rep.Requests) != 1 || !auditIDRE.MatchString(rep.Requests[0].AuditID) {
		t.Fatalf("requests %+v, want one with a UUID audit ID", rep.Requests)
	}
	ev := waitAuditEvent(t, c.env, rep.Requests[0].AuditID)
	if !ev.Is("delete", "configmaps", c.ns, "owner") {
		t.Errorf("the audit log's event %s is %s %s, want the DELETE of ConfigMap owner in %s", ev.AuditID, ev.Verb, ev.RequestURI, c.ns)
	}
}

// waitAuditEvent returns the completed request with this audit ID from
// the control plane's audit log, which the API server may write a moment
// after it answered.
func waitAuditEvent(t *testing.T, env *framework.Env, id string) framework.AuditEvent {
	t.Helper()
	var found *framework.AuditEvent
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		files, err := env.CP.AuditLogFiles()
		if err != nil {
			return false, err
		}
		events, err := framework.ReadAuditLog(files...)
		if err != nil {
			return false, err
		}
		for i := range events {
			if events[i].AuditID == id && events[i].Stage == "ResponseComplete" {
				found = &events[i]
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the audit log holds no completed request with audit ID %s: %v", id, err)
	}
	return *found
}

// TestFaultCaptureStallMidList: the API server answers discovery and the
// first list page, then nothing (every later list is held past the
// client's timeout). kgc snapshot and kgc plan end with an error saying
// the API server stopped answering, within about twice --request-timeout,
// instead of waiting it out for every try of every type.
func TestFaultCaptureStallMidList(t *testing.T) {
	c := newApplyCase(t, "fault-stall-list")
	p := framework.NewFaultProxy(t, c.env.CP)
	p.Inject(&framework.Fault{Match: framework.Match{Method: "GET", Query: "limit=", Watch: "no", From: 2}, Kind: framework.Delay, Delay: 5 * time.Minute})
	out := filepath.Join(t.TempDir(), "snap.json")
	for _, args := range [][]string{{"snapshot", "--output-file", out}, {"plan", "delete", "cm/owner", "-n", c.ns}} {
		res := c.env.RunKGCVia(t, p, append(args, "--request-timeout", "3s")...)
		t.Logf("kgc %s: exit %d after %s\nstderr: %s\nthrough the proxy: %s", args[0], res.ExitCode, res.Duration.Round(100*time.Millisecond), res.Stderr, p.Summary())
		if res.TimedOut || res.ExitCode == 0 {
			t.Fatalf("want kgc to end by itself with an error: %s", res)
		}
		if !strings.Contains(string(res.Stderr), "the API server stopped answering") || !strings.Contains(string(res.Stderr), "--request-timeout") {
			t.Errorf("kgc %s does not say the API server stopped answering:\n%s", args[0], res.Stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("kgc snapshot wrote %s from a partial read", out)
	}
}

// TestFaultWhyStuckUnreadType: why-stuck on the live cluster while a
// type fails to list (500 every time) names the type as unread and never
// gives an all-clear: for the object's own type, and for its dependents'.
func TestFaultWhyStuckUnreadType(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ns := env.Namespace(t, context.Background(), "fault-why")
	heldConfigMap(t, env, ns, "kgc.dev/hold")
	for _, typ := range []string{"/secrets", "/configmaps"} {
		p := framework.NewFaultProxy(t, env.CP)
		p.Inject(&framework.Fault{Match: framework.Match{Method: "GET", Path: typ, Watch: "no"}, Kind: framework.Status, Code: 500})
		res := env.RunKGCVia(t, p, "why-stuck", "cm/held", "-n", ns, "-o", "json")
		t.Logf("why-stuck with %s failing: %s\nthrough the proxy: %s", typ, res, p.Summary())
		var doc struct {
			Complete bool     `json:"complete"`
			Notes    []string `json:"notes"`
		}
		unread := strings.TrimPrefix(typ, "/")
		switch {
		case res.ExitCode == 0 && json.Unmarshal(res.Stdout, &doc) != nil:
			t.Errorf("%s failing: exit 0 without a diagnosis:\n%s", unread, res)
		case res.ExitCode == 0 && (doc.Complete || !strings.Contains(strings.Join(doc.Notes, "\n"), unread)):
			t.Errorf("%s failing: complete %v, notes %q; want incomplete, naming %s", unread, doc.Complete, doc.Notes, unread)
		case res.ExitCode != 0 && !strings.Contains(string(res.Stderr), unread):
			t.Errorf("%s failing: exit %d, and stderr does not name it:\n%s", unread, res.ExitCode, res.Stderr)
		}
	}
}
