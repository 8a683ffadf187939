// Package graph rebuilds the owner graph the kube-controller-manager garbage
// collector keeps (its GraphBuilder's uidToNode), from a snapshot, and flags
// the owner-reference hazards that make the collector delete too much,
// nothing, or retry forever.
//
// Build replays the snapshot's objects as if the collector's informers had
// delivered them, one add event each, in creation order, into the graph
// of pkg/collector, which the simulator (pkg/plan) runs its collector on
// too: nodes, edges and flags are what a freshly started collector would
// show on its debug handler. The package is pure: no clock, no cluster.
//
// Where a snapshot cannot say what a running collector would hold, kgc
// chooses, and says so here:
//
//   - A virtual node takes the namespace (and the coordinates) of the first
//     dependent that names it. kgc replays objects in creation order
//     (creationTimestamp, then resourceVersion, then contract order), which
//     is the order a collector running since before they were created saw
//     them. A collector restarted since lists them per type instead; a
//     dependent deleted since may have named the owner first; and one that
//     found the owner absent in one namespace switches the identity to
//     another dependent's (getAlternateOwnerIdentity). So when dependents in
//     several namespaces name one missing owner the namespace can differ.
//     The one switch that always happens is modelled: an absent owner of a
//     namespaced kind named by a cluster-scoped object ends up with no
//     namespace (see settleVirtualIdentities).
//   - A running collector removes a virtual node once it has confirmed the
//     owner is gone (a virtual delete event) and its debug handler then
//     draws a "missing" vertex for references still pointing there. kgc
//     cannot know what was already verified and keeps the node virtual.
//   - An object whose type is not in the snapshot's catalog is taken as
//     watched: it exists, so its type is served, and nearly every served
//     type supports delete, list and watch.
//   - Of several objects with one UID (mixed or edited input) the first in
//     creation order is the node; a duplicate-uid finding names them all.
//   - An owner reference without a UID names no node (the API server
//     rejects it); an invalid-owner-reference finding reports it.
package graph
