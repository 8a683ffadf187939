package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/internal/golden"
)

// TestWhyStuckAdmissionGolden: deletions held by what the API server calls
// out to (an unavailable APIService served from a namespace being deleted,
// a CRD conversion webhook whose service is gone, an admission webhook
// with no ready endpoints).
func TestWhyStuckAdmissionGolden(t *testing.T) {
	dump := copyFixture(t, "testdata/whystuck-admission.yaml")
	tests := []struct {
		golden string
		args   []string
	}{
		{"whystuck_admission_all.table.golden", []string{"why-stuck", "-A", "-f", dump}},
		{"whystuck_admission_metrics.tree.golden", []string{"why-stuck", "ns/metrics", "-f", dump}},
		{"whystuck_admission_team_c.tree.golden", []string{"why-stuck", "ns/team-c", "-f", dump}},
		{"whystuck_admission_team_c.json.golden", []string{"why-stuck", "ns/team-c", "-f", dump, "-o", "json"}},
		{"whystuck_admission_team_d.tree.golden", []string{"why-stuck", "ns/team-d", "-f", dump}},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			out, stderr, code := runKGC(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			golden.Assert(t, filepath.Join("testdata", tc.golden), out)
		})
	}
}

// TestWhyStuckAttributionGolden: the controller of each finalizer is
// named on evidence: kgc's table (the AWS Load Balancer Controller, absent
// although an AWS storage driver runs; Argo CD's application controller,
// running), and the owner of a CRD (a Crossplane provider uninstalled while
// Crossplane's core runs).
func TestWhyStuckAttributionGolden(t *testing.T) {
	dump := copyFixture(t, "testdata/whystuck-attribution.yaml")
	tests := []struct {
		golden string
		args   []string
	}{
		{"whystuck_attribution_all.table.golden", []string{"why-stuck", "-A", "-f", dump}},
		{"whystuck_attribution_bucket.json.golden", []string{"why-stuck", "bucket/logs", "-f", dump, "-o", "json"}},
		{"whystuck_attribution_front.tree.golden", []string{"why-stuck", "svc/front", "-n", "shop", "-f", dump}},
		{"whystuck_attribution_argocd.tree.golden", []string{"why-stuck", "app/shop", "-n", "argocd", "-f", dump}},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			out, stderr, code := runKGC(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			for _, wrong := range []string{"ebs-csi-controller", "deployment/crossplane "} {
				if strings.Contains(out, wrong) {
					t.Errorf("the output names %s, which no evidence names", wrong)
				}
			}
			golden.Assert(t, filepath.Join("testdata", tc.golden), out)
		})
	}
}

// TestSnapshotOfAdmissionDumpKeepsNoCABundle: the fixture's webhook and
// conversion caBundles never reach a snapshot.
func TestSnapshotOfAdmissionDumpKeepsNoCABundle(t *testing.T) {
	dump := copyFixture(t, "testdata/whystuck-admission.yaml")
	out, stderr, code := runKGC(t, "snapshot", "-f", dump)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, secret := range []string{"caBundle", "LS0tLS1CRUdJTi", "/validate", `"path"`} {
		if strings.Contains(out, secret) {
			t.Errorf("snapshot keeps %q", secret)
		}
	}
	for _, fact := range []string{`"webhookConfiguration"`, `"apiService"`, `"endpointSlice"`, `"conversion"`} {
		if !strings.Contains(out, fact) {
			t.Errorf("snapshot lacks the %s facts", fact)
		}
	}
}
