package main

import (
	"github.com/spf13/cobra"

	"github.com/kgc-dev/kgc/internal/iostreams"
	"github.com/kgc-dev/kgc/pkg/render"
)

// outStyle is the style of what goes to stdout, errStyle of what goes to
// stderr: colour only on a terminal, and only when NO_COLOR is unset (the
// streams decide both, once).
func outStyle(s *iostreams.IOStreams) render.Style { return render.Style{Color: s.StdoutColor()} }

func errStyle(s *iostreams.IOStreams) render.Style { return render.Style{Color: s.StderrColor()} }

// programName is how the user runs kgc: "kubectl kgc" as the kubectl
// plugin, else "kgc" (the root command's display name, set by Run).
func programName(cmd *cobra.Command) string {
	if n := cmd.Root().Annotations[cobra.CommandDisplayNameAnnotation]; n != "" {
		return n
	}
	return "kgc"
}
