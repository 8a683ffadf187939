package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// These cases run kgc through framework.FaultProxy, which drops,
// throttles, fails and closes requests between kgc and the real API
// server, and count what kgc sent. docs/reliability.md holds the figures.

// requireNote requires the ApplyReport of res to hold the note want.
func requireNote(t *testing.T, res framework.KGCResult, want string) {
	t.Helper()
	var doc struct {
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal(res.Stdout, &doc); err != nil {
		t.Fatalf("decoding the report: %v\n%s", err, res)
	}
	if !slices.Contains(doc.Notes, want) {
		t.Errorf("notes %q lack %q", doc.Notes, want)
	}
}

// requireGone requires every object of the case to be gone.
func (c *applyCase) requireGone(t *testing.T) {
	t.Helper()
	if got := c.exist(t); len(got) != 0 {
		t.Errorf("real control plane: %v still exist", got)
	}
}

// applyDroppingDelete plans the delete of a new case and applies it
// through a proxy that drops the connection of its DELETE (kind: before
// or after it reached the API server); it requires the exit code.
func applyDroppingDelete(t *testing.T, prefix string, kind framework.FaultKind, code int) (*applyCase, *framework.FaultProxy, framework.KGCResult, applyReport) {
	t.Helper()
	c := newApplyCase(t, prefix)
	path := c.plan(t)
	p := framework.NewFaultProxy(t, c.env.CP)
	p.Inject(&framework.Fault{Match: framework.Match{Method: "DELETE", Path: "/configmaps/owner", Times: 1}, Kind: kind})
	res := c.env.RunKGCVia(t, p, "apply", path, "--yes", "--timeout", "90s", "-o", "json")
	t.Logf("through the proxy: %s", p.Summary())
	return c, p, res, decodeApplyReport(t, res, code)
}

// TestFaultApplyDeleteResponseLost: the connection drops once the DELETE
// reached the API server. kgc sends no second DELETE: it re-reads the
// target, finds it gone, says the DELETE was accepted, and follows the
// cascade as planned.
func TestFaultApplyDeleteResponseLost(t *testing.T) {
	c, p, res, rep := applyDroppingDelete(t, "fault-delete-lost", framework.ResetAfter, 0)
	if n := p.Count("DELETE", ""); n != 1 {
		t.Errorf("kgc sent %d DELETEs after a lost response, want exactly 1", n)
	}
	if rep.Outcome != "as-planned" || len(rep.Requests) != 1 || rep.Requests[0].Status != 0 || !auditIDRE.MatchString(rep.Requests[0].AuditID) {
		t.Errorf("outcome %s, requests %+v; want as-planned after one DELETE without response, with the audit ID kgc sent", rep.Outcome, rep.Requests)
	}
	requireNote(t, res, "outcome of the DELETE unknown until re-read: accepted")
	c.requireGone(t)
}

// TestFaultApplyDeleteNeverArrived: the connection drops before the
// DELETE reaches the API server. kgc re-reads the target, finds it
// unchanged, says the DELETE was not accepted, and deletes nothing.
func TestFaultApplyDeleteNeverArrived(t *testing.T) {
	c, p, res, rep := applyDroppingDelete(t, "fault-delete-dropped", framework.ResetBefore, 1)
	if n := p.Count("DELETE", ""); n != 1 || rep.Outcome != "rejected" {
		t.Errorf("%d DELETE(s), outcome %s; want 1 and rejected", n, rep.Outcome)
	}
	requireNote(t, res, "outcome of the DELETE unknown until re-read: not accepted")
	c.requireUntouched(t)
}

// TestFaultApplyFollowWatchClosed: every watch kgc opens while following
// is closed after half a second, and the first answers 410 Gone. kgc
// relists (and rewatches while anything planned is left), misses no
// deletion, and reports as planned.
func TestFaultApplyFollowWatchClosed(t *testing.T) {
	c := newApplyCase(t, "fault-watch")
	path := c.plan(t)
	p := framework.NewFaultProxy(t, c.env.CP)
	p.Inject(
		&framework.Fault{Match: framework.Match{Watch: "yes", Nth: 1}, Kind: framework.WatchGone},
		&framework.Fault{Match: framework.Match{Watch: "yes"}, Kind: framework.CloseWatch, Delay: 500 * time.Millisecond},
	)
	rep := decodeApplyReport(t, c.env.RunKGCVia(t, p, "apply", path, "--yes", "--timeout", "90s", "-o", "json"), 0)
	t.Logf("through the proxy: %s", p.Summary())
	if rep.Outcome != "as-planned" || len(rep.Objects) != 3 {
		t.Errorf("outcome %s, objects %+v; want the three objects as planned", rep.Outcome, rep.Objects)
	}
	for _, o := range rep.Objects {
		if o.Result != "as-planned" {
			t.Errorf("%s: %s, want as-planned", o.Object.Name, o.Result)
		}
	}
	// The first watch's 410 makes kgc relist; it rewatches only while
	// something planned is left, which a fast collector may not leave.
	if p.Fired() == 0 {
		t.Errorf("no fault fired (%d watch(es) opened): this test checked nothing", p.Count("WATCH", ""))
	}
	c.requireGone(t)
}

// TestFaultApplyPreflightThrottled: every list of Secrets during the
// pre-flight check answers 429 with Retry-After. kgc retries a bounded
// number of times, then refuses: the check could not be completed; no
// DELETE is sent.
func TestFaultApplyPreflightThrottled(t *testing.T) {
	c := newApplyCase(t, "fault-429")
	path := c.plan(t)
	p := framework.NewFaultProxy(t, c.env.CP)
	p.Inject(&framework.Fault{Match: framework.Match{Method: "GET", Path: "/secrets", Watch: "no"}, Kind: framework.Status, Code: 429, RetryAfter: "1"})
	res := c.env.RunKGCVia(t, p, "apply", path, "--yes", "--timeout", "90s", "-o", "json")
	rep := decodeApplyReport(t, res, 1)
	t.Logf("through the proxy: %s", p.Summary())
	if rep.Outcome != "refused" || rep.Refusal == nil || rep.Refusal.Reason != "incomplete" || p.Count("DELETE", "") != 0 {
		t.Fatalf("outcome %s, refusal %+v, %d DELETE(s); want refused as incomplete, none sent", rep.Outcome, rep.Refusal, p.Count("DELETE", ""))
	}
	if !strings.Contains(string(res.Stdout), "the check could not be completed") {
		t.Errorf("the report does not say the check could not be completed:\n%s", res.Stdout)
	}
	if n := p.Count("GET", "/secrets"); n > 60 {
		t.Errorf("%d lists of Secrets under 429: the retries are not bounded", n)
	}
	c.requireUntouched(t)
}
