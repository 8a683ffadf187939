package e2e

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// TestOutputFormatsAgree checks that -o yaml is the same document as -o json
// for plan, graph and why-stuck (output-contract.md). Both read one
// snapshot of the cluster: two live reads, a second apart, would differ in
// what the clock decides (a terminating object's age).
func TestOutputFormatsAgree(t *testing.T) {
	env := framework.Setup(t)
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "formats")
	owner := mk(t, ctx, env, "ConfigMap", ns, "owner")
	mk(t, ctx, env, "Secret", ns, "dep", owners(ref(owner, tr(), tr())))
	mk(t, ctx, env, "Secret", ns, "held", owners(ref(owner, tr(), nil)), finalizers(holdFinalizer))
	deleteNow(t, ctx, env, framework.Secrets, ns, "held", bg)
	if _, err := env.Settle(ctx, nsScope(ns, framework.ConfigMaps, framework.Secrets), quietBefore, settleLimit); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(t.TempDir(), "snapshot.json.gz")
	env.KGC(t, "snapshot", "--output-file", snap)
	for _, args := range [][]string{
		{"plan", "delete", "configmaps/owner", "-n", ns, "--cascade=foreground"},
		{"graph", "-n", ns},
		{"why-stuck", "secrets/held", "-n", ns},
	} {
		args = append(args, "-f", snap)
		asJSON := env.KGC(t, append(args, "-o", "json")...)
		if err := sameDocument(t, env, asJSON, append(args, "-o", "yaml")...); err != nil {
			t.Error(err)
		}
	}
}
