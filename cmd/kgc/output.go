package main

// outputFormat is an -o value. Each command accepts those that fit it,
// listed next to it (graphOutputs, planOutputs, …) and checked as flags are
// parsed, and a value means the same in every command (TestOutputsMeanTheSame):
//
//	text   the command's own report for a person (its default)
//	tree   owners above their dependents (graph, why-stuck)
//	table  one row per object, kubectl get style (graph, why-stuck, plan)
//	dot    Graphviz, in the one drawing style (graph, plan, postmortem)
//	json   the command's versioned document (every command)
//	yaml   the same document in YAML (every command)
//	html   one self-contained page for people (graph, plan, why-stuck, postmortem)
type outputFormat string

const (
	outputAuto  outputFormat = "" // the command picks (why-stuck: tree for one object, table for many)
	outputText  outputFormat = "text"
	outputTree  outputFormat = "tree"
	outputTable outputFormat = "table"
	outputDOT   outputFormat = "dot"
	outputJSON  outputFormat = "json"
	outputYAML  outputFormat = "yaml"
	outputHTML  outputFormat = "html"
)

// isDocument reports whether f is one of the versioned JSON/YAML documents.
func (f outputFormat) isDocument() bool { return f == outputJSON || f == outputYAML }
