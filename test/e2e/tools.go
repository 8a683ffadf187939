//go:build tools

// This file keeps the control-plane command packages in go.mod so that
// `go mod tidy` does not drop them: the harness builds them with
// `go build k8s.io/kubernetes/cmd/...` from this module, never imports them.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
