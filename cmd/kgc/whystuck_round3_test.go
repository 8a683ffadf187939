package main

import (
	"path/filepath"
	"testing"

	"github.com/kgc-dev/kgc/internal/golden"
)

// TestWhyStuckRound3Golden: the third round's situations as a user sees
// them (cmd/kgc/testdata/whystuck-round3.yaml says which public report
// each is modelled on): Rancher's finalizer without its agent, a pod whose
// kubelet a webhook refuses, a foreground delete looping on a recreated
// StatefulSet, a ConfigMap waiting for the ClusterRole it owns, and a CRD
// whose conversion webhook's caBundle is not PEM.
func TestWhyStuckRound3Golden(t *testing.T) {
	dump := copyFixture(t, "testdata/whystuck-round3.yaml")
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"whystuck_round3_all.table.golden", []string{"why-stuck", "-A", "-f", dump}},
		{"whystuck_round3_rancher.tree.golden", []string{"why-stuck", "ns/team-r", "-f", dump}},
		{"whystuck_round3_pod.tree.golden", []string{"why-stuck", "pod/web-0", "-n", "web", "-f", dump}},
		{"whystuck_round3_loop.tree.golden", []string{"why-stuck", "clickhousecluster/clickhouse", "-n", "db", "-f", dump}},
		{"whystuck_round3_stranded.tree.golden", []string{"why-stuck", "cm/owner", "-n", "app", "-f", dump}},
		{"whystuck_round3_crd.tree.golden", []string{"why-stuck", "crd/addresspools.metallb.io", "-f", dump}},
		{"whystuck_round3_loop.json.golden", []string{"why-stuck", "clickhousecluster/clickhouse", "-n", "db", "-f", dump, "-o", "json"}},
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
