// Package plan simulates deletions the way the Kubernetes API server and
// the kube-controller-manager garbage collector carry them out, with the
// controllers that finish deletions (namespace, CRD finalizer, kubelet,
// pod garbage collector, pvc/pv protection, Job tracking), and then the
// reconcile step of the controllers that create again what the delete
// removed while their owner survives (recreate.go). It is a pure
// function of a snapshot: no cluster access, no clock, no randomness, so a
// plan is the same every time for the same input. The rules it shares with
// the graph and the diagnosis live in pkg/rules; docs/architecture.md maps
// the files to upstream's.
package plan
