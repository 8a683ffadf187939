package main

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/kgc-dev/kgc/pkg/render"
)

// isTerminal reports whether w is an interactive terminal. Progress bars
// and colour appear only there.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// styleFor is the one place commands decide colour: a terminal, and NO_COLOR unset.
func styleFor(w io.Writer) render.Style {
	return render.StyleFor(isTerminal(w), os.Getenv)
}

// programName is how the user runs kgc: "kubectl kgc" as the kubectl
// plugin, else "kgc" (the root command's display name, set by Run).
func programName(cmd *cobra.Command) string {
	if n := cmd.Root().Annotations[cobra.CommandDisplayNameAnnotation]; n != "" {
		return n
	}
	return "kgc"
}
