package main

import (
	"path/filepath"
	"testing"

	"github.com/kgc-dev/kgc/internal/golden"
)

// TestWhyStuckChainsAndVolumesGolden: a Cluster waiting for its held
// OpenStackCluster, whose operator's own validating webhook is named in
// its finalizer's remedies, and a pod whose volume's CSI driver was
// uninstalled.
func TestWhyStuckChainsAndVolumesGolden(t *testing.T) {
	dump := copyFixture(t, "testdata/whystuck-chains-volumes.yaml")
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"whystuck_chains_volumes_all.table.golden", []string{"why-stuck", "-A", "-f", dump}},
		{"whystuck_chains_cluster.tree.golden", []string{"why-stuck", "cluster/prod", "-n", "fleet", "-f", dump}},
		{"whystuck_volumes_postgres.tree.golden", []string{"why-stuck", "pod/postgres-0", "-n", "db", "-f", dump}},
		{"whystuck_volumes_released.tree.golden", []string{"why-stuck", "pv/pvc-9b21", "-f", dump}},
		{"whystuck_volumes_postgres.json.golden", []string{"why-stuck", "pod/postgres-0", "-n", "db", "-f", dump, "-o", "json"}},
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
