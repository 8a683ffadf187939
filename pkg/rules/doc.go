// Package rules defines, once, the rules of the API server, the garbage
// collector and the controllers that finish deletions, as kgc applies them
// to a snapshot. The graph (pkg/graph), the simulator (pkg/plan) and the
// diagnosis (pkg/diagnose) all call these functions, so that `kgc graph`,
// `kgc plan` and `kgc why-stuck` cannot disagree about what the collector
// or a controller would do:
//
//   - ServedTypes: the RESTMapper over the snapshot's catalog, which
//     types are listed, watched, namespaced, and what discovery failed
//     (served.go);
//   - ClassifyReference: one owner reference as the collector's
//     isDangling, classifyReferences and addDependentToOwners judge it
//     (ownerref.go), and each verdict's contract name and one wording,
//     Class.Name, Reference.Finding, Reference.Message and
//     FindingMeaning (verdict.go);
//   - MonitoredByGC, ReferenceLess: the types the collector watches, and
//     its referenceLessThan order of identities (gc.go);
//   - Index, SortedNames: the collector's GETs over a snapshot (objectindex.go,
//     sortednames.go);
//   - ReplayOrder: the order in which a running collector observed the
//     objects (replay.go);
//   - Policy, TypeGCPolicy, DeletionFinalizers, NamespaceDeleteFinalizers,
//     EffectivePolicy: the propagation policy and what the API server's
//     DELETE does with it on each type (deletion.go);
//   - PodTermination, PodDeleteGrace, PodUsesClaim, PVBoundClaim,
//     JobTrackingDone: the kubelet, pod garbage collector, pvc/pv
//     protection and Job controller's decisions (controllers.go);
//   - VolumeReclaimer, ProvisionerWorkloads, NamesImplementation: what
//     becomes of a released volume's storage, and which workloads run a
//     provisioner, driver or class's controller (volumes.go);
//   - ClassOf, ClassOwnsFinalizer: the controller a class object (an
//     IngressClass, GatewayClass, StorageClass, VolumeSnapshotClass) or
//     the object itself names, and which finalizers it removes
//     (classes.go);
//   - Recreate, UndoAdvice: which controller creates a deleted object
//     again when its owner survives the delete — Deployment, ReplicaSet,
//     ReplicationController, StatefulSet, DaemonSet, Job, the
//     root-ca-cert-publisher, serviceaccount and endpointslice
//     controllers — under which name, why not when it does not, and what
//     to do instead (recreate.go);
//   - LookupFinalizer and the finalizer and actor names: who removes each
//     well-known finalizer (finalizers.go).
//   - Authorize, FinalizerVerbs: whether RBAC lets a ServiceAccount send
//     the request that removes a finalizer, as the API server's RBAC
//     authorizer decides (rbac.go);
//   - FactKindOf, HasFacts, PlanFacts: which kinds carry facts read from
//     their spec or status, which a capture lists in full, and which of
//     them a plan reads (facts.go).
//
// Each function cites the upstream function it follows (k8s.io/kubernetes
// v1.36.3). The package is pure: no clock, no cluster, no client-go.
package rules
