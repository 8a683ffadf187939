package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// These cases run kgc through framework.FaultProxy, which drops,
// throttles, fails and closes requests between kgc and the real API
// server, and count what kgc sent. docs/reliability.md holds the figures.

// reportNotes decodes an ApplyReport's notes.
func reportNotes(t *testing.T, res framework.KGCResult) []string {
	t.Helper()
	var doc struct {
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal(res.Stdout, &doc); err != nil {
		t.Fatalf("decoding the report: %v\n%s", err, res)
	}
	return doc.Notes
}

// TestFaultApplyDeleteResponseLost: the connection drops once the DELETE
// reached the API server. kgc sends no second DELETE: it re-reads the
// target, finds it gone, says the DELETE was accepted, and follows the
// cascade as planned.
func TestFaultApplyDeleteResponseLost(t *testing.T) {
	c := newApplyCase(t, "fault-delete-lost")
	path := c.plan(t)
	p := framework.NewFaultProxy(t, c.env.CP)
	p.Inject(&framework.Fault{Match: framework.Match{Method: "DELETE", Path: "/configmaps/owner", Times: 1}, Kind: framework.ResetAfter})
	res := c.env.RunKGCVia(t, p, "apply", path, "--yes", "--timeout", "90s", "-o", "json")
	rep := decodeApplyReport(t, res, 0)
	t.Logf("through the proxy: %s", p.Summary())
	if n := p.Count("DELETE", ""); n != 1 {
		t.Errorf("kgc sent %d DELETEs after a lost response, want exactly 1", n)
	}
	if rep.Outcome != "as-planned" || len(rep.Requests) != 1 || rep.Requests[0].Status != 0 {
		t.Errorf("outcome %s, requests %+v; want as-planned after one DELETE without response", rep.Outcome, rep.Requests)
	}
	want := "outcome of the DELETE unknown until re-read: accepted"
	if notes := reportNotes(t, res); !strings.Contains(strings.Join(notes, "\n"), want) {
		t.Errorf("notes %q lack %q", notes, want)
	}
	if got := c.exist(t); len(got) != 0 {
		t.Errorf("real control plane: %v still exist", got)
	}
}

// TestFaultApplyDeleteNeverArrived: the connection drops before the
// DELETE reaches the API server. kgc re-reads the target, finds it
// unchanged, says the DELETE was not accepted, and deletes nothing.
func TestFaultApplyDeleteNeverArrived(t *testing.T) {
	c := newApplyCase(t, "fault-delete-dropped")
	path := c.plan(t)
	p := framework.NewFaultProxy(t, c.env.CP)
	p.Inject(&framework.Fault{Match: framework.Match{Method: "DELETE", Path: "/configmaps/owner", Times: 1}, Kind: framework.ResetBefore})
	res := c.env.RunKGCVia(t, p, "apply", path, "--yes", "--timeout", "90s", "-o", "json")
	rep := decodeApplyReport(t, res, 1)
	t.Logf("through the proxy: %s", p.Summary())
	if n := p.Count("DELETE", ""); n != 1 || rep.Outcome != "rejected" {
		t.Errorf("%d DELETE(s), outcome %s; want 1 and rejected", n, rep.Outcome)
	}
	want := "outcome of the DELETE unknown until re-read: not accepted"
	if notes := reportNotes(t, res); !strings.Contains(strings.Join(notes, "\n"), want) {
		t.Errorf("notes %q lack %q", notes, want)
	}
	c.requireUntouched(t)
}

// TestFaultApplyFollowWatchClosed: every watch kgc opens while following
// is closed after half a second, and the first answers 410 Gone. kgc
// relists and rewatches, misses no deletion, and reports as planned.
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
	if p.Count("WATCH", "") < 2 {
		t.Errorf("kgc opened %d watch(es); the faults should have made it rewatch", p.Count("WATCH", ""))
	}
	if got := c.exist(t); len(got) != 0 {
		t.Errorf("real control plane: %v still exist", got)
	}
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
