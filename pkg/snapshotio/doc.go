// Package snapshotio reads and writes snapshot.Snapshot: it is the model's
// codecs. ReadFiles reads dumps and snapshot files offline; an Extractor
// reduces the API server's responses (JSON list pages, single objects,
// protobuf metadata lists) to model objects for pkg/capture; Write and
// WriteFile write a snapshot file, gzipped when its name says so.
//
// ReadFiles reads `kubectl get -o yaml|json` output (single objects,
// Lists, multi-document YAML), `kubectl cluster-info dump` folders and kgc
// snapshots, gzipped or not. JSON Lists are streamed item by item, and so
// are kubectl's YAML Lists bigger than 32 MiB, so dumps of a million
// objects are read in bounded memory (JSON is much faster: YAML parsing
// dominates). A dump has no discovery, so its catalog is the built-in
// table of Kubernetes 1.36 types plus the CRDs found in it, and the rule
// for "listed" is: a type counts as listed when at least one object of it
// appears in the input, or a typed list of it (an empty ReplicaSetList, as
// kubectl cluster-info dump writes). A type absent from a dump is "not
// listed": its missing owners are unknown, not dangling. A kgc snapshot of
// a live cluster keeps its own, discovered, catalog. An input with no
// object at all is an error, not an empty cluster.
//
// What is kept of an object is the model's: metadata without annotations
// or managedFields, and the facts of the kinds that have them, never a
// secret. Read objects share memory (label maps, strings, ownerReference
// booleans) to keep big snapshots small: treat them as read-only.
package snapshotio
