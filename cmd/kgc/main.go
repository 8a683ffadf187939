// Command kgc is a garbage-collection forensics and dry-run tool for
// Kubernetes, also installable as the kubectl plugin kubectl-kgc.
package main

import (
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func main() {
	os.Exit(Run(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}, os.Args))
}
