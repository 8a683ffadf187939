// Package rules defines, once, the rules of the API server, the garbage
// collector and the controllers that finish deletions, as kgc applies them
// to a snapshot. The graph (pkg/graph), the simulator (pkg/plan) and the
// diagnosis (pkg/diagnose) all call these functions, so that `kgc graph`,
// `kgc plan` and `kgc why-stuck` cannot disagree about what the collector
// or a controller would do:
//
//   - Catalog: the RESTMapper, which types are listed, watched, namespaced,
//     and what discovery failed (catalog.go);
//   - ClassifyReference: one owner reference as the collector's
//     isDangling and classifyReferences judge it (ownerref.go);
//   - ReplayOrder: the order in which a running collector observed the
//     objects (replay.go);
//   - PodTermination, PodUsesClaim, PVHeldByClaim, JobTrackingDone: the
//     kubelet, pod garbage collector, pvc/pv protection and Job
//     controller's decisions (controllers.go);
//   - Recreate: which controller creates a deleted object again when its
//     owner survives the delete — Deployment, ReplicaSet,
//     ReplicationController, StatefulSet, DaemonSet, Job, the
//     root-ca-cert-publisher, serviceaccount and endpointslice
//     controllers — under which name, and why not when it does not
//     (recreate.go).
//
// Each function cites the upstream function it follows (k8s.io/kubernetes
// v1.36.3). The package is pure: no clock, no cluster, no client-go.
package rules
