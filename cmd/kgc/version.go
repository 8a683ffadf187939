package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/kgc-dev/kgc/internal/iostreams"
	"github.com/kgc-dev/kgc/pkg/render"
)

// version is set by the release build (-ldflags "-X main.version=...").
var version = "dev"

type versionOptions struct {
	streams *iostreams.IOStreams
	output  outputFormat
}

type versionInfo struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Version    string `json:"version"`
	GoVersion  string `json:"goVersion"`
	Commit     string `json:"commit,omitempty"`
}

func newVersionCmd(f *Factory) *cobra.Command {
	o := &versionOptions{streams: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the kgc version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return o.Run()
		},
	}
	enumVar(cmd, &o.output, "output", "o", string(outputAuto), oneOf(outputText, outputJSON, outputYAML), "output format, one line of text by default")
	return cmd
}

func (o *versionOptions) Run() error {
	info := versionInfo{APIVersion: render.APIVersion, Kind: "Version", Version: version}
	if bi, ok := debug.ReadBuildInfo(); ok {
		info.GoVersion = bi.GoVersion
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				info.Commit = s.Value
			}
		}
	}
	if o.output.isDocument() {
		return render.Document(o.streams.Out, string(o.output), info)
	}
	commit := info.Commit
	if commit == "" {
		commit = "unknown"
	}
	_, err := fmt.Fprintf(o.streams.Out, "kgc %s (commit %s, %s)\n", info.Version, commit, info.GoVersion)
	return err
}
