package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kgc-dev/kgc/internal/iostreams"
	"github.com/kgc-dev/kgc/pkg/apply"
	"github.com/kgc-dev/kgc/pkg/capture"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Factory hands every command what it takes from outside its own flags:
// the streams and what is known of them, the cluster-connection flags,
// the live capture, kgc apply's cluster client, and the process's
// interrupts. NewFactory makes the real ones; a test replaces any of them
// (a fake cluster, an interrupt channel of its own, streams that claim to
// be a terminal) and drives the command through Run.
type Factory struct {
	IOStreams *iostreams.IOStreams
	// ConfigFlags are cli-runtime's --kubeconfig, --context, -n, …,
	// shared by every command as kubectl shares them.
	ConfigFlags *genericclioptions.ConfigFlags
	// Capture reads the live cluster the ConfigFlags name.
	Capture func(ctx context.Context, opts capture.Options) (*snapshot.Snapshot, error)
	// Cluster connects kgc apply to the live cluster; opts are the options
	// of the captures it makes to check the plan still holds.
	Cluster func(opts capture.Options) (apply.Cluster, error)
	// Signals are the interrupts kgc apply relays; nil: the process's
	// own (SIGINT).
	Signals <-chan os.Signal
	// Exit ends the process at once, on a second interrupt.
	Exit func(code int)
	// TuneMemory tunes the process's garbage collector for a phase of a
	// post-mortem of a big log. Only the process sets it (main): the
	// garbage collector's settings are the process's, and tests that run
	// commands in-process keep their own.
	TuneMemory func(memoryPhase)
}

// NewFactory is the factory of the real process around ios.
func NewFactory(ios *iostreams.IOStreams) *Factory {
	f := &Factory{IOStreams: ios, ConfigFlags: genericclioptions.NewConfigFlags(true), Exit: os.Exit}
	f.Capture = f.liveCapture
	f.Cluster = f.liveCluster
	return f
}

// liveCapture captures through the kubeconfig.
func (f *Factory) liveCapture(ctx context.Context, opts capture.Options) (*snapshot.Snapshot, error) {
	cfg, err := f.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("cannot load the kubeconfig: %w; pass --kubeconfig, or read dumps with -f", err)
	}
	return capture.Capture(ctx, cfg, opts)
}

// liveCluster is the cluster of the kubeconfig, for kgc apply.
func (f *Factory) liveCluster(opts capture.Options) (apply.Cluster, error) {
	cfg, err := f.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("cannot load the kubeconfig: %w; pass --kubeconfig", err)
	}
	mapper, err := f.ConfigFlags.ToRESTMapper()
	if err != nil {
		return nil, fmt.Errorf("cannot read the cluster's API types: %w", err)
	}
	live, err := apply.NewLive(cfg, mapper)
	if err != nil {
		return nil, err
	}
	live.CaptureOptions = opts
	return live, nil
}

// runner is a command's options: Complete fills in what the flags leave
// to the environment (the arguments, the kubeconfig's namespace), Validate
// checks the flags together, Run does the work. Every command runs them
// in that order (runE), kubectl's way.
type runner interface {
	Complete(cmd *cobra.Command, args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// runE is a command's RunE for its options: Complete, Validate, Run, and
// the first error ends it.
func runE(o runner) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := o.Complete(cmd, args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		return o.Run(cmd.Context())
	}
}
