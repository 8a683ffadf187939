package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// TestFaultCaptureRetriesAndRecords: some lists answer 503, 500 or 429
// a few times and are retried; the list of ServiceAccounts fails every
// time. kgc snapshot reads everything else, records the failing type,
// and kgc plan on the live cluster marks the plan incomplete, naming it.
func TestFaultCaptureRetriesAndRecords(t *testing.T) {
	c := newApplyCase(t, "fault-capture")
	p := framework.NewFaultProxy(t, c.env.CP)
	list := func(path string) framework.Match {
		return framework.Match{Method: "GET", Path: path, Watch: "no", Times: 2}
	}
	p.Inject(
		&framework.Fault{Match: list("/configmaps"), Kind: framework.Status, Code: 503},
		&framework.Fault{Match: list("/secrets"), Kind: framework.Status, Code: 429, RetryAfter: "1"},
		&framework.Fault{Match: list("/roles"), Kind: framework.Status, Code: 500},
		&framework.Fault{Match: framework.Match{Method: "GET", Path: "/serviceaccounts", Watch: "no"}, Kind: framework.Status, Code: 500},
	)
	out := filepath.Join(t.TempDir(), "snap.json")
	res := c.env.RunKGCVia(t, p, "snapshot", "--output-file", out)
	t.Logf("kgc snapshot: exit %d\nstderr: %s\nthrough the proxy: %s", res.ExitCode, res.Stderr, p.Summary())
	if res.ExitCode != 0 {
		t.Fatalf("%s", res)
	}
	doc := readSnapshotDoc(t, out)
	for _, r := range doc.Resources {
		switch {
		case r.Resource == "serviceaccounts" && (r.Listed || !strings.Contains(r.Error, "HTTP 500")):
			t.Errorf("serviceaccounts: listed %v, error %q; want recorded as failed (HTTP 500)", r.Listed, r.Error)
		case (r.Resource == "configmaps" || r.Resource == "secrets" || r.Resource == "roles") && !r.Listed:
			t.Errorf("%s not listed after retryable errors: %s", r.Resource, r.Error)
		}
	}
	names := map[string]bool{}
	for _, o := range doc.Objects {
		if o.Metadata.Namespace == c.ns {
			names[o.Metadata.Name] = true
		}
	}
	for _, n := range c.names {
		if !names[n] {
			t.Errorf("the snapshot lacks %s of %s after retried lists", n, c.ns)
		}
	}
	if !strings.Contains(string(res.Stderr), "serviceaccounts") {
		t.Errorf("kgc snapshot does not warn about serviceaccounts:\n%s", res.Stderr)
	}

	planRes := c.env.RunKGCVia(t, p, "plan", "delete", "cm/owner", "-n", c.ns, "-o", "json")
	t.Logf("kgc plan: exit %d\nstderr: %s", planRes.ExitCode, planRes.Stderr)
	var pl struct {
		Complete bool     `json:"complete"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(planRes.Stdout, &pl); err != nil {
		t.Fatalf("decoding the plan: %v\n%s", err, planRes)
	}
	if pl.Complete || !strings.Contains(strings.Join(pl.Warnings, "\n"), "serviceaccounts") {
		t.Errorf("plan complete %v, warnings %q; want incomplete, naming serviceaccounts", pl.Complete, pl.Warnings)
	}
}

// TestFaultStalledAPIServer: the API server process is stopped (SIGSTOP):
// connections open, nothing answers. kgc snapshot ends on its own with
// a clear error instead of hanging (the harness kills kgc after two
// minutes and reports TimedOut).
func TestFaultStalledAPIServer(t *testing.T) {
	env := framework.Setup(t).Dedicated(t)
	if err := env.CP.PauseComponent("kube-apiserver"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.CP.ResumeComponent("kube-apiserver") })
	res := env.RunKGC(t, "snapshot", "--output-file", filepath.Join(t.TempDir(), "snap.json"), "--request-timeout", "3s")
	t.Logf("kgc snapshot against a stalled API server: exit %d after %s\nstderr: %s", res.ExitCode, res.Duration.Round(100*time.Millisecond), res.Stderr)
	if res.TimedOut || res.ExitCode == 0 {
		t.Fatalf("want kgc to end by itself with an error: %s", res)
	}
	if !strings.Contains(strings.ToLower(string(res.Stderr)), "timeout") && !strings.Contains(string(res.Stderr), "deadline") {
		t.Errorf("the error does not say the API server timed out:\n%s", res.Stderr)
	}
}
