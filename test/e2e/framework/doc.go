// Package framework runs a real Kubernetes control plane (etcd,
// kube-apiserver and a kube-controller-manager that runs only the garbage
// collector and the namespace controller) on loopback for kgc's end-to-end
// tests, and gives the tests what they need to compare kgc's output with
// what that control plane really does: clients, a kgc runner, a parser for
// the garbage collector's debug graph and a "wait until quiet" helper.
//
// One control plane is started per test package from TestMain (see Main);
// tests isolate themselves by namespace and by CRD names.
package framework
