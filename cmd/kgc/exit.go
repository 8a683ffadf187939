package main

import (
	"errors"
	"fmt"
	"io"
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
