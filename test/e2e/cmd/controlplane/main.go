// Command controlplane starts the e2e suite's garbage-collector control
// plane (etcd, kube-apiserver and kube-controller-manager built from
// k8s.io/kubernetes, as the suite runs them) outside of a test, prints the
// path of its admin kubeconfig, and runs until interrupted. It is how the
// live benchmarks of test/bench get a cluster:
//
//	cd test/e2e && go run ./cmd/controlplane -kubeconfig /tmp/kgc-bench/kubeconfig
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

func main() {
	out := flag.String("kubeconfig", "", "also copy the admin kubeconfig to this path")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	bins, err := framework.EnsureControlPlaneBinaries(logf)
	if err != nil {
		return fmt.Errorf("building the control-plane binaries: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	cp, err := framework.Start(ctx, bins, framework.GCOnly, logf)
	cancel()
	if err != nil {
		return fmt.Errorf("starting the control plane: %w", err)
	}
	defer cp.Stop(false)
	path := cp.Kubeconfig
	if out != "" {
		if err := copyFile(cp.Kubeconfig, out); err != nil {
			return err
		}
		path = out
	}
	fmt.Println(path)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	return nil
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o600)
}
