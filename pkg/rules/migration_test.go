package rules_test

import (
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// TestInTreePlugins checks each row of the migration table against what
// the rest of kgc reads: a PersistentVolume spec field the reader keeps,
// the in-tree name, and a successor that deletes on a current server.
func TestInTreePlugins(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range rules.InTreePlugins {
		t.Run(p.Spec, func(t *testing.T) {
			if seen[p.Spec] || !strings.HasPrefix(p.Name, "kubernetes.io/") || !strings.HasPrefix(p.Source, "https://") {
				t.Fatalf("bad row %+v", p)
			}
			seen[p.Spec] = true
			current := rules.VolumeReclaimer(&snapshot.PVFacts{ReclaimPolicy: rules.ReclaimDelete, Plugin: p.Spec}, "v1.36.3")
			byName := rules.VolumeReclaimer(&snapshot.PVFacts{ReclaimPolicy: rules.ReclaimDelete, ProvisionedBy: p.Name}, "v1.36.3")
			if current != byName {
				t.Errorf("by spec %+v, by provisioned-by %+v", current, byName)
			}
			if p.Driver == "" {
				if current.Deletable || p.Removed > 36 {
					t.Errorf("no successor, removed in 1.%d, yet %+v", p.Removed, current)
				}
				return
			}
			if p.MigrationGA == 0 || p.MigrationGA > p.Removed || current.External != p.Driver || !current.Migrated || p.Controller == "" {
				t.Errorf("migrated to %s: %+v", p.Driver, current)
			}
			ctl := testobj.Deployment("kube-system", p.Controller).Build()
			if len(rules.ProvisionerWorkloads(p.Driver, []*snapshot.Object{&ctl})) != 1 {
				t.Errorf("%s's controller %s is not recognised as its provisioner", p.Driver, p.Controller)
			}
			if old := rules.VolumeReclaimer(&snapshot.PVFacts{Plugin: p.Spec}, "v1.20.0"); !old.Deletable || old.External != "" {
				t.Errorf("before migration the in-tree deleter deletes: %+v", old)
			}
		})
	}
}

func TestServerMinor(t *testing.T) {
	for in, want := range map[string]int{"": 0, "v1.36.3": 36, "v1.27.16-eks-a18cd3a": 27, "v1.30.4+k3s1": 30, "garbage": 0, "v2.1.0": 0} {
		if got := rules.ServerMinor(in); got != want {
			t.Errorf("rules.ServerMinor(%q) = %d, want %d", in, got, want)
		}
	}
}
