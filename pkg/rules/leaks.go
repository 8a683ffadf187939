package rules

import (
	"strings"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Leaks says what removing finalizer f from o by hand may leave behind
// that no Kubernetes API will clean up any more; "" when kgc knows of
// nothing. A finalizer exists so that its controller can clean something
// up before the object goes; these are the cleanups whose skipping costs
// more than a stale object:
//
//   - service.kubernetes.io/load-balancer-cleanup (the service controller,
//     k8s.io/cloud-provider controllers/service) and the load-balancer
//     controllers' own finalizers (AWS Load Balancer Controller
//     service.k8s.aws/resources and ingress.k8s.aws/resources, GKE's
//     gke.networking.io/l4-ilb-v1 and networking.gke.io/l4-netlb-v1): the
//     cloud load balancer;
//   - kubernetes.io/pv-controller and the CSI external-provisioner's
//     finalizer on a PersistentVolume whose reclaim policy is not Retain:
//     the disk in the storage backend;
//   - customresourcecleanup.apiextensions.k8s.io: the remaining instances,
//     left in etcd where no API serves them.
func Leaks(f string, o *snapshot.Object) string {
	switch {
	case f == FinalizerLB || isLoadBalancerFinalizer(f):
		return "the cloud load balancer of " + o.Ref().String() + ", which keeps running and costing money until deleted in the cloud console"
	case f == FinalizerPVCtrl || f == FinalizerExtProv:
		if o.Facts != nil && o.Facts.PV != nil && o.Facts.PV.ReclaimPolicy == "Retain" {
			return ""
		}
		return "the volume's disk in the storage backend, which nothing deletes any more"
	case f == FinalizerCRD:
		return "every remaining instance of the custom resource, left in etcd where no API serves it until the CRD is recreated"
	}
	return ""
}

func isLoadBalancerFinalizer(f string) bool {
	switch f {
	case "service.k8s.aws/resources", "ingress.k8s.aws/resources", "gke.networking.io/l4-ilb-v1", "networking.gke.io/l4-netlb-v1":
		return true
	}
	return strings.HasSuffix(f, "/load-balancer-cleanup")
}
