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

// TestSnapshotOfAdmissionDumpKeepsNoCABundle: the fixture's webhook and
// conversion caBundles never reach a snapshot.
func TestSnapshotOfAdmissionDumpKeepsNoCABundle(t *testing.T) {
	dump := copyFixture(t, "testdata/whystuck-admission.yaml")
	out, stderr, code := runKGC(t, "snapshot", "-f", dump, "-o", "-")
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
