package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes. They are decided here and nowhere else, so that scripts can
// rely on them (docs/reference/exit-codes.md).
const (
	exitOK    = 0
	exitError = 1 // the command could not do its job (bad input, cluster unreachable)
	exitUsage = 2 // the command line is wrong
	exitGate  = 3 // a --fail-if condition matched: the result is valid but a pipeline should stop
)

// exitError carries an exit code through cobra's error return.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// usageErrorf marks a command-line mistake (exit 2).
func usageErrorf(format string, a ...any) error {
	return &codedError{code: exitUsage, err: fmt.Errorf(format, a...)}
}

// unknownCommandError is the usage error for an argument that names no
// subcommand of cmd, in cobra's (and kubectl's) words, with cobra's
// suggestions of what was meant.
func unknownCommandError(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	} else {
		msg += fmt.Sprintf(": run '%s --help' for its commands", cmd.CommandPath())
	}
	return usageErrorf("%s", msg)
}

// gateError marks a matched --fail-if condition (exit 3); the result has
// already been printed.
func gateError(err error) error { return &codedError{code: exitGate, err: err} }

// exitCode maps an error returned by a command to the process exit code and
// prints it once, on stderr.
func exitCode(err error, errOut io.Writer) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(errOut, "error: %v\n", err)
	var ce *codedError
	if errors.As(err, &ce) {
		return ce.code
	}
	return exitError
}
