package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// TestChainBelowTheStuckObject: a Cluster API Cluster held by its own
// controller's finalizer waits for its OpenStackCluster, held by CAPO's;
// the root cause is the deepest blocker.
func TestChainBelowTheStuckObject(t *testing.T) {
	// https://github.com/kubernetes-sigs/cluster-api-provider-openstack/issues/968:
	// the OpenStackCluster's controller cannot finish (its reconciler is
	// blocked), so the Cluster, whose controller runs and waits for its
	// infrastructure, never goes. Here CAPO has no available pod.
	capiRole := clusterRole("capi-manager", allow("cluster.x-k8s.io", "clusters clusters/status", "get list watch update patch"))
	capiBinding := clusterRoleBinding("capi-manager", "capi-manager", "capi-system", "capi-manager")
	capi := controllerWorkload(testobj.Deployment("capi-system", "capi-controller-manager"), "capi-manager", 1)
	capoRole := clusterRole("capo-manager", allow("infrastructure.cluster.x-k8s.io", "openstackclusters openstackclusters/status", "get list watch update patch"))
	capoBinding := clusterRoleBinding("capo-manager", "capo-manager", "capo-system", "capo-manager")
	capo := controllerWorkload(testobj.Deployment("capo-system", "capo-controller-manager"), "capo-manager", 0)
	clusterCRD := crdObj("cluster.x-k8s.io", "Cluster", "clusters", "Namespaced").Build()
	infraCRD := crdObj("infrastructure.cluster.x-k8s.io", "OpenStackCluster", "openstackclusters", "Namespaced").Build()

	for _, via := range []string{"ownerReference", "spec.infrastructureRef"} {
		cluster := gone(testobj.New("cluster.x-k8s.io/v1beta1", "Cluster", "fleet", "prod").Deleting(ago(3 * time.Hour)).Finalizers("cluster.cluster.x-k8s.io").Build())
		ib := testobj.New("infrastructure.cluster.x-k8s.io/v1beta1", "OpenStackCluster", "fleet", "prod").Deleting(ago(3 * time.Hour)).
			Finalizers("openstackcluster.infrastructure.cluster.x-k8s.io")
		if via == "ownerReference" {
			ib = ib.OwnedBy(cluster)
		} else {
			cluster.Facts = &snapshot.Facts{Refs: []snapshot.SpecRef{{Field: "spec.infrastructureRef", APIVersion: "infrastructure.cluster.x-k8s.io/v1beta1", Kind: "OpenStackCluster", Namespace: "fleet", Name: "prod"}}}
		}
		infra := gone(ib.Build())
		s := testobj.Snapshot(cluster, infra, capiRole, capiBinding, capi, capoRole, capoBinding, capo, clusterCRD, infraCRD).
			CRD("cluster.x-k8s.io", "Cluster", "clusters", true, "v1beta1").CRD("infrastructure.cluster.x-k8s.io", "OpenStackCluster", "openstackclusters", true, "v1beta1").Build()
		d, err := New(s, nil, Options{}).Diagnose(cluster.Metadata.UID)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.RootCauses) != 1 || d.RootCauses[0].Object.UID != infra.Metadata.UID || d.RootCauses[0].Reason != ReasonControllerPending {
			t.Fatalf("%s: root causes:\n%s\nwant only the OpenStackCluster's finalizer (CAPO not available)", via, describe(d.RootCauses))
		}
		if !strings.Contains(d.RootCauses[0].Remedies[0].Description, "capo-controller-manager") {
			t.Errorf("%s: first remedy %q, want CAPO's", via, d.RootCauses[0].Remedies[0].Description)
		}
		w := d.Blockers[0].WaitingFor
		for _, want := range []string{"Deployment/capi-controller-manager -n capi-system to finish its cleanup of Cluster/prod -n fleet, which waits for OpenStackCluster/prod -n fleet, held by finalizer openstackcluster.infrastructure.cluster.x-k8s.io whose controller Deployment/capo-controller-manager -n capo-system (controller-pending)"} {
			if !strings.Contains(w, want) {
				t.Errorf("%s: waiting for %q\nlacks %q", via, w, want)
			}
		}
	}
}
