package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The cluster-connection flags every command inherits (--kubeconfig,
// --context, --as, …) are listed once, by `kgc options`, as kubectl does:
// twenty lines of them under every command's help would bury its own flags.
// They stay usable everywhere; only their listing moves.

// hideConfigFlags hides the inherited cluster-connection flags from help,
// all but -n/--namespace, which most commands' examples use.
func hideConfigFlags(flags *pflag.FlagSet) {
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Name != "namespace" {
			f.Hidden = true
		}
	})
}

func newOptionsCmd(f *Factory) *cobra.Command {
	streams := f.IOStreams
	return &cobra.Command{
		Use:   "options",
		Short: "List the cluster-connection flags every command accepts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(streams.Out, "The following options can be passed to any command:")
			fmt.Fprintln(streams.Out)
			fs := pflag.NewFlagSet("options", pflag.ContinueOnError)
			cmd.Root().PersistentFlags().VisitAll(func(f *pflag.Flag) {
				c := *f
				c.Hidden = false
				fs.AddFlag(&c)
			})
			fmt.Fprint(streams.Out, fs.FlagUsages())
			return nil
		},
	}
}

// strictHelp makes `kgc help TOPIC` fail as a usage error when TOPIC names
// no command, instead of printing the root help and exiting 0.
func strictHelp(root *cobra.Command) {
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(cmd *cobra.Command, args []string) error {
			c, rest, err := root.Find(args)
			switch {
			case err != nil || c == nil:
				return unknownCommandError(root, args[0])
			case len(rest) > 0:
				return unknownCommandError(c, rest[0])
			}
			return c.Help()
		},
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			var names []string
			for _, c := range root.Commands() {
				if c.IsAvailableCommand() {
					names = append(names, c.Name())
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
	})
}
