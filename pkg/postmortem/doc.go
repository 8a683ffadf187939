// Package postmortem rebuilds, from the API server's audit log and
// snapshots taken before and after, what happened in a deletion: for every
// object that went, the request that started it (the root), the chain of
// controllers that carried it out, how each link is known, and what kgc's
// plan would have predicted.
//
// The hard part is that the log names only the object each request was
// about. The garbage collector's DELETE names the dependent, never the
// owner that caused it; the namespace controller sweeps a namespace with a
// deletecollection per type, naming no object; a pod's final DELETE comes
// from its kubelet; custom resources go with their CRD through storage,
// with no request at all. So every link says how it is known: from the
// log itself (audit), from the before snapshot (snapshot), from kgc's
// simulation of the root request (model), or from closeness in time only
// (timing, a guess). Where nothing shows how an object went, it is listed
// as unexplained, never fitted into a chain.
//
// The package is pure: it reads an audit.Log and snapshots, never a cluster.
package postmortem
