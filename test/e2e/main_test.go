// Package e2e runs kgc against a real control plane (etcd, kube-apiserver and
// kube-controller-manager's garbage collector and namespace controller, all
// v1.36.3, on loopback) and checks kgc's graph, plans and diagnoses against
// what that control plane really does.
package e2e

import (
	"testing"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }
