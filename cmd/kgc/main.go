// Command kgc is a garbage-collection forensics and dry-run tool for
// Kubernetes, also installable as the kubectl plugin kubectl-kgc.
package main

import (
	"os"

	"github.com/kgc-dev/kgc/internal/iostreams"
)

func main() {
	f := NewFactory(iostreams.System())
	f.TuneMemory = tuneProcessMemory
	os.Exit(Run(f, os.Args))
}
