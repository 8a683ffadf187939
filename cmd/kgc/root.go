package main

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Run builds the command tree and executes it with args (args[0] is the
// program name, used to tell whether kgc runs as the kubectl plugin). It is
// the whole program minus os.Exit, so tests drive it directly.
func Run(streams genericiooptions.IOStreams, args []string) int {
	name := "kgc"
	if len(args) > 0 && strings.HasPrefix(filepath.Base(args[0]), "kubectl-") {
		name = "kubectl kgc"
	}
	root := newRootCmd(streams, name)
	if len(args) > 0 {
		args = args[1:]
	}
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return exitCode(err, streams.ErrOut)
}

// newRootCmd wires every subcommand. The ConfigFlags are shared so that
// --kubeconfig, --context, -n and friends mean what they mean in kubectl.
func newRootCmd(streams genericiooptions.IOStreams, name string) *cobra.Command {
	configFlags := genericclioptions.NewConfigFlags(true)
	root := &cobra.Command{
		Use:   "kgc",
		Short: "Kubernetes garbage-collection forensics and dry runs",
		Long: `kgc explains what the Kubernetes garbage collector will do and why deletions get stuck.

  plan delete   what a delete would take with it, step by step, as the API server and GC would do it
  why-stuck     which finalizers hold a terminating object, who should remove them, and the way out
  graph         the owner graph the garbage collector keeps, with its hazards flagged
  snapshot      capture a metadata-only snapshot of a cluster for offline analysis

Every analysis command reads the live cluster, or dumps and snapshots with -f.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: name},
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	configFlags.AddFlags(root.PersistentFlags())
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%w", err) })

	for _, add := range commandFactories() {
		root.AddCommand(add(streams, configFlags))
	}
	return root
}

// commandFactory builds one subcommand; each lives in its own file.
type commandFactory func(genericiooptions.IOStreams, *genericclioptions.ConfigFlags) *cobra.Command

// commandFactories lists the subcommands in help order.
func commandFactories() []commandFactory {
	return []commandFactory{
		newGraphCmd,
		newPlanCmd,
		newSnapshotCmd,
		newWhyStuckCmd,
		newVersionCmd,
	}
}
