package main

// outputFormat is an -o value. Each command accepts its own few, listed
// next to it (graphOutputs, planOutputs, …) and checked as flags are parsed.
type outputFormat string

const (
	outputAuto  outputFormat = "" // the command picks (why-stuck: tree for one object, table for many)
	outputText  outputFormat = "text"
	outputTree  outputFormat = "tree"
	outputTable outputFormat = "table"
	outputDOT   outputFormat = "dot"
	outputJSON  outputFormat = "json"
	outputYAML  outputFormat = "yaml"
)

// isDocument reports whether f is one of the versioned JSON/YAML documents.
func (f outputFormat) isDocument() bool { return f == outputJSON || f == outputYAML }
