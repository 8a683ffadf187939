package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// TestPostMortemExportForms reads the shipped example's log as each
// managed platform exports it (examples-postmortem/exports, written from
// audit.log.gz by pkg/audit's TestShippedExports): kgc gives the
// attributions the native log gives, but for what the form loses, which
// the file's window.files[].losses says.
func TestPostMortemExportForms(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	dir := exampleDir()
	run := func(log string) framework.PostMortem {
		t.Helper()
		res := env.RunKGC(t, "postmortem", "-n", "team-a", "--audit-log", log,
			"--before", filepath.Join(dir, "before.json.gz"), "--after", filepath.Join(dir, "after.json.gz"), "-o", "json")
		requireNoSecret(t, res)
		if res.ExitCode != 0 {
			t.Fatalf("%s", res)
		}
		var pm framework.PostMortem
		if err := json.Unmarshal(res.Stdout, &pm); err != nil {
			t.Fatalf("decoding: %v\n%s", err, res)
		}
		return pm
	}
	native := run(filepath.Join(dir, "audit.log.gz"))
	exports, err := filepath.Glob(filepath.Join(dir, "exports", "*"))
	if err != nil || len(exports) < 7 {
		t.Fatalf("exports %v (%v): regenerate with go test ./pkg/audit -run TestShippedExports -update", exports, err)
	}
	for _, p := range exports {
		t.Run(filepath.Base(p), func(t *testing.T) {
			pm := run(p)
			f := pm.Window.Files[0]
			if f.Format == "" || f.Format == "native" || f.Bad != 0 || f.Events != native.Window.Files[0].Events {
				t.Errorf("read as %q: %d events, %d bad; want an export's form, %d events, none bad", f.Format, f.Events, f.Bad, native.Window.Files[0].Events)
			}
			if f.Format == "gke-logentry" {
				checkGKE(t, native, pm, strings.Join(f.Losses, "\n"))
				return
			}
			if want, got := attributions(native), attributions(pm); want != got {
				t.Errorf("attributions differ from the native log's:\n%s", strings.Join(jsonDiff(json.RawMessage(want), json.RawMessage(got)), "\n"))
			}
		})
	}
}

// attributions is what a post-mortem says, but where it read it from.
func attributions(pm framework.PostMortem) string {
	pm.Window = framework.PMWindow{}
	b, _ := json.Marshal(pm)
	return string(b)
}

// checkGKE: Cloud Audit Logs keep no impersonated user, and say so. The
// root request is the same, as its sender's; every object has the fate
// it has on the native log, but the kubelets' final deletes (sent by the
// harness impersonating each node) are requests of their own.
func checkGKE(t *testing.T, native, gke framework.PostMortem, losses string) {
	t.Helper()
	if !strings.Contains(losses, "no impersonated user") {
		t.Errorf("losses %q: want them to say GKE keeps no impersonated user", losses)
	}
	root := func(pm framework.PostMortem) *framework.PMRoot {
		for i, r := range pm.Roots {
			if r.Request.Object.Kind == "Namespace" && r.Request.Object.Name == "team-a" {
				return &pm.Roots[i]
			}
		}
		t.Fatalf("no root deletes Namespace team-a: %+v", pm.Roots)
		return nil
	}
	n, g := root(native), root(gke)
	if g.Request.AuditID != n.Request.AuditID || g.Request.User != n.Request.User || g.Request.ImpersonatedUser != "" || n.Request.ImpersonatedUser != "alice" {
		t.Errorf("root request %s by %s as %q, want %s by %s (native: as %q)", g.Request.AuditID, g.Request.User, g.Request.ImpersonatedUser,
			n.Request.AuditID, n.Request.User, n.Request.ImpersonatedUser)
	}
	if want, got := fates(native), fates(gke); want != got {
		t.Errorf("fates differ:\n%s\nwant\n%s", got, want)
	}
}

// fates lists every object of every root with what became of it.
func fates(pm framework.PostMortem) string {
	seen := map[string]string{}
	for _, r := range pm.Roots {
		framework.Walk(r.Cascade, nil, func(l, _ *framework.PMLink) {
			seen[l.Object.Kind+"/"+l.Object.Name] = l.Result
		})
	}
	b, _ := json.Marshal(seen) // sorted keys
	return string(b)
}
