// Package purity holds the test that keeps kgc's pure core pure: no
// package under pkg/, except the ones that talk to a cluster (pkg/capture
// and pkg/apply), may depend on a cluster client, so that every analysis
// stays a function of the snapshot it is given. It also keeps internal/
// below pkg/: no package under internal/ imports one under pkg/.
package purity
