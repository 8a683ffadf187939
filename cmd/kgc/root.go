package main

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// Run builds the command tree around f and executes it with args
// (args[0] is the program name, used to tell whether kgc runs as the
// kubectl plugin). It is the whole program minus os.Exit, so tests drive
// it directly, with a factory of their own (fake streams, cluster,
// interrupts).
func Run(f *Factory, args []string) int {
	name := "kgc"
	if len(args) > 0 && strings.HasPrefix(filepath.Base(args[0]), "kubectl-") {
		name = "kubectl kgc"
	}
	root := newRootCmd(f, name)
	if len(args) > 0 {
		args = args[1:]
	}
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return exitCode(err, f.IOStreams.ErrOut)
}

// newRootCmd wires every subcommand. The ConfigFlags are shared so that
// --kubeconfig, --context, -n and friends mean what they mean in kubectl.
func newRootCmd(f *Factory, name string) *cobra.Command {
	streams, configFlags := f.IOStreams, f.ConfigFlags
	root := &cobra.Command{
		Use:   "kgc",
		Short: "Kubernetes garbage-collection forensics and dry runs",
		Long: `kgc explains what the Kubernetes garbage collector will do and why deletions get stuck.

  plan delete   what a delete would take with it, step by step, as the API server and GC would do it
  apply         carry out a reviewed plan live, refusing when the cluster moved, and check the cascade
  why-stuck     which finalizers hold a terminating object, who should remove them, and the way out
  graph         the owner graph the garbage collector keeps, with its hazards flagged
  snapshot      capture a metadata-only snapshot of a cluster for offline analysis
  postmortem    who deleted what, the chain of controllers that carried it out, from the audit log

Every analysis command reads the live cluster, or dumps and snapshots with -f.
Use "kgc options" for the cluster-connection flags (--kubeconfig, --context, ...) every command accepts.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: name},
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	configFlags.AddFlags(root.PersistentFlags())
	hideConfigFlags(root.PersistentFlags())
	registerConfigFlagCompletion(root, configFlags)
	root.SetFlagErrorFunc(flagError)

	for _, add := range commandFactories() {
		root.AddCommand(add(f))
	}
	// cobra adds its completion command only when executing; adding it
	// now lets requireKnownSubcommands guard it too, and documents it.
	root.InitDefaultCompletionCmd()
	strictHelp(root)
	requireKnownSubcommands(root)
	if name != "kgc" {
		renameExamples(root, name)
	}
	return root
}

// requireKnownSubcommands makes every command that only groups others
// (kgc, kgc plan, kgc completion) reject an argument that names none of
// them: cobra would print the help and exit 0 for `kgc plan delte`, and a
// script would carry on. Without arguments the help is still printed.
func requireKnownSubcommands(c *cobra.Command) {
	if c.HasSubCommands() && !c.Runnable() {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommandError(cmd, args[0])
			}
			return nil
		}
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		// "kgc [flags]" would suggest flags alone do something.
		c.DisableFlagsInUseLine = true
		// cobra's own default, which it sets only on its own path.
		c.SuggestionsMinimumDistance = 2
	}
	for _, sub := range c.Commands() {
		requireKnownSubcommands(sub)
	}
}

// flagError makes a flag mistake a usage error. On a command that only
// groups others, a mistyped subcommand comes first: in `kgc plan delte
// deploy/x -f dump`, -f is unknown only because delte is.
func flagError(cmd *cobra.Command, err error) error {
	if args := cmd.Flags().Args(); cmd.HasSubCommands() && len(args) > 0 {
		return unknownCommandError(cmd, args[0])
	}
	return usageErrorf("%w", err)
}

// commandFactory builds one subcommand; each lives in its own file.
type commandFactory func(*Factory) *cobra.Command

// commandFactories lists the subcommands in help order.
func commandFactories() []commandFactory {
	return []commandFactory{
		newGraphCmd,
		newPlanCmd,
		newApplyCmd,
		newSnapshotCmd,
		newWhyStuckCmd,
		newPostmortemCmd,
		newVersionCmd,
		newOptionsCmd,
	}
}

// renameExamples makes every example say what the user runs: `kubectl kgc
// why-stuck …` when kgc runs as the kubectl plugin.
func renameExamples(c *cobra.Command, name string) {
	c.Example = strings.ReplaceAll(c.Example, "  kgc ", "  "+name+" ")
	c.Long = strings.ReplaceAll(c.Long, "\"kgc ", "\""+name+" ")
	for _, sub := range c.Commands() {
		renameExamples(sub, name)
	}
}
