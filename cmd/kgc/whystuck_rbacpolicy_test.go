package main

import (
	"path/filepath"
	"testing"

	"github.com/kgc-dev/kgc/internal/golden"
)

// TestWhyStuckRBACAndPolicyGolden: controllers RBAC forbids to act and
// admission policies that deny, as a user sees them
// (cmd/kgc/testdata/whystuck-rbac-policy.yaml says which public report
// each is modelled on): a CSI provisioner that may not patch
// persistentvolumes, a policy keeping finalizers from shrinking, and a
// binding whose parameter went with its namespace.
func TestWhyStuckRBACAndPolicyGolden(t *testing.T) {
	dump := copyFixture(t, "testdata/whystuck-rbac-policy.yaml")
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"whystuck_rbacpolicy_all.table.golden", []string{"why-stuck", "-A", "-f", dump}},
		{"whystuck_rbacpolicy_pv.tree.golden", []string{"why-stuck", "pv/pvc-881d9151-32bb-11e9-ba24-024270471d6d", "-f", dump}},
		{"whystuck_rbacpolicy_ledger.tree.golden", []string{"why-stuck", "cm/ledger", "-n", "orders", "-f", dump}},
		{"whystuck_rbacpolicy_param.tree.golden", []string{"why-stuck", "ns/test", "-f", dump}},
		{"whystuck_rbacpolicy_pv.json.golden", []string{"why-stuck", "pv/pvc-881d9151-32bb-11e9-ba24-024270471d6d", "-f", dump, "-o", "json"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			out, stderr, code := runKGC(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			golden.Assert(t, filepath.Join("testdata", tc.golden), out)
		})
	}
}
