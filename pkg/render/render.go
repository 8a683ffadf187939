// Package render turns kgc's results into what people and scripts read:
// trees and tables for terminals, DOT for Graphviz, and the versioned JSON
// and YAML documents of the output contract. Renderers are pure functions of
// their input; they never look at the clock, the environment or a cluster,
// so their output is deterministic and golden-tested. Whether to colour is
// decided by the caller (the command's streams) and passed in.
package render

import (
	"fmt"
	"io"

	"sigs.k8s.io/yaml"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// APIVersion of every document kgc prints.
const APIVersion = snapshot.APIVersion

// Document writes v as the machine-readable document format ("json" or
// "yaml"). JSON is indented with a trailing newline; YAML is converted from
// that JSON so both carry exactly the same fields.
func Document(w io.Writer, format string, v any) error {
	switch format {
	case "json":
		if err := streamJSON(w, v); err != nil {
			return fmt.Errorf("encoding json: %w", err)
		}
		return nil
	case "yaml":
		b, err := encodeJSON(v)
		if err != nil {
			return fmt.Errorf("encoding yaml: %w", err)
		}
		y, err := yaml.JSONToYAML(b)
		if err != nil {
			return fmt.Errorf("encoding yaml: %w", err)
		}
		_, err = w.Write(y)
		return err
	}
	return fmt.Errorf("unknown document format %q: use json or yaml", format)
}

// Style decides how text output is decorated. The zero value is plain text.
type Style struct {
	Color bool
	// Program is how the user runs kgc, for the commands an output
	// suggests: "kubectl kgc" as the kubectl plugin; "" is "kgc".
	Program string
}

// Cmd is the command line a suggestion starts with: "kgc", or "kubectl
// kgc" as the plugin.
func (s Style) Cmd() string {
	if s.Program == "" {
		return "kgc"
	}
	return s.Program
}

// ANSI colour names used across renderers, so one palette means one thing:
// red = deleted or terminating, yellow = blocked or waiting, cyan = virtual,
// green = kept, magenta = recreated by a controller, dim = detail.
const (
	Red     = "31"
	Green   = "32"
	Yellow  = "33"
	Magenta = "35"
	Cyan    = "36"
	Bold    = "1"
	Dim     = "2"
)

// Paint wraps s in an ANSI SGR code when colour is on.
func (s Style) Paint(code, text string) string {
	if !s.Color || code == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}
