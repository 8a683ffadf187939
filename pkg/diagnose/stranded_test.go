package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// TestStrandedClusterScopedDependent: a namespaced owner deleted in the
// foreground waits for a cluster-scoped dependent (a ClusterRole owned by
// it, as NetApp/trident#474's ClusterRoles were owned by their namespaced
// TridentProvisioner). The collector never deletes that dependent
// (kubernetes/kubernetes#92743: it cannot resolve a namespaced owner from
// a cluster-scoped object), so "set blockOwnerDeletion=false and the
// collector deletes it" is false: the remedies delete it, or unblock it
// saying it then leaks.
func TestStrandedClusterScopedDependent(t *testing.T) {
	owner := testobj.ConfigMap("app", "owner").UID("cm").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerForeground).Build()
	role := testobj.ClusterRole("app-reader").UID("cr").OwnedBy(owner).Build()
	d, err := New(testobj.Snapshot(owner, role).Build(), nil, Options{}).Diagnose(owner.Metadata.UID)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, rc := range d.RootCauses {
		for i, rem := range rc.Remedies {
			if strings.Contains(rem.Description+rem.Risk, "garbage collector then deletes ClusterRole/app-reader") ||
				strings.Contains(rem.Risk, "deletes ClusterRole/app-reader in the background") {
				t.Errorf("remedy %d promises the collector deletes the ClusterRole: %+v", i, rem)
			}
			if rem.Action == ActionUnblockOwnerReference && strings.Contains(rem.Command, "app-reader") {
				found = true
				if rem.Leaks == "" || !strings.Contains(rem.Risk, "stays for ever") {
					t.Errorf("unblocking does not say the ClusterRole leaks: %+v", rem)
				}
				if i == 0 || rc.Remedies[0].Action != ActionDelete || !strings.Contains(rc.Remedies[0].Command, "kubectl delete clusterroles.rbac.authorization.k8s.io app-reader") {
					t.Errorf("remedies %s: want deleting the ClusterRole first", remedyActions(rc.Remedies))
				}
			}
		}
	}
	if !found {
		t.Errorf("no remedy on the ClusterRole's owner reference:\n%s", describe(d.RootCauses))
	}
}
