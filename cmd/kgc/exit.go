package main

import (
	"errors"
	"fmt"
	"github.com/kgc-dev/kgc/pkg/apply/report"
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

	// kgc apply. A refusal deleted nothing; each reason has its own code
	// so that a pipeline can tell "re-plan" from "raise the cap".
	exitStale        = 4 // the plan no longer holds (or has no basis): re-plan
	exitOtherCluster = 5 // the plan was made against another cluster, or from files
	exitLimit        = 6 // --max-deletions exceeded, or the plan leaves objects terminating
	exitNotConfirmed = 7 // no --yes, no matching --confirm, no terminal, or a wrong answer
	exitDiverged     = 8 // the DELETE was sent and reality differs from the plan
	exitTimedOut     = 9 // the DELETE was sent and --timeout passed with objects in progress
	// exitApplied: the plan was carried out already; nothing left to do
	// (stale would say the world moved).
	exitApplied = 10
	// exitInterrupted: the DELETE was sent and the person interrupted the
	// follow (Ctrl-C); the report of what was seen was printed.
	exitInterrupted = 11
)

// applyError gives an apply's error its exit code: refusals by reason, and
// a cascade that diverged or did not finish as errors of their own, after
// the report was printed.
func applyError(rep *report.Report, err error) error {
	var ref *report.Refusal
	switch {
	case errors.As(err, &ref):
		return &codedError{code: refusalCode(ref.Reason), err: err}
	case err != nil:
		return err
	case rep.Outcome == report.OutcomeDiverged:
		return &codedError{code: exitDiverged, err: fmt.Errorf("%d object(s) diverged from the plan: see the report, and kgc why-stuck for objects still terminating", rep.Summary.Diverged)}
	case rep.Outcome == report.OutcomeInterrupted:
		return &codedError{code: exitInterrupted, err: fmt.Errorf("interrupted: %d object(s) still in progress; the cascade goes on in the cluster: follow up with kgc why-stuck", rep.Summary.InProgress)}
	case rep.Outcome == report.OutcomeTimedOut:
		return &codedError{code: exitTimedOut, err: fmt.Errorf("%d object(s) still in progress at --timeout: follow up with kgc why-stuck, or apply with a longer --timeout next time", rep.Summary.InProgress)}
	}
	return nil
}

// saidInReport marks an apply's refusal as said, when the text report
// that says it went to the terminal stderr also writes to: one terminal
// shows a refusal once. Redirected, the report is in a file and stderr
// still says why the command failed.
func saidInReport(err error, rep *report.Report, textOnTerminal bool) error {
	var ce *codedError
	if textOnTerminal && rep != nil && rep.Refusal != nil && len(rep.Requests) == 0 && errors.As(err, &ce) {
		ce.said = true
	}
	return err
}

func refusalCode(reason string) int {
	switch reason {
	case report.ReasonStale, report.ReasonNoBasis:
		return exitStale
	case report.ReasonApplied:
		return exitApplied
	case report.ReasonOtherCluster:
		return exitOtherCluster
	case report.ReasonMaxDeletions, report.ReasonBlocked, report.ReasonKept:
		return exitLimit
	case report.ReasonNotConfirmed:
		return exitNotConfirmed
	}
	return exitError
}

// exitError carries an exit code through cobra's error return.
type codedError struct {
	code int
	err  error
	// said: the report on the same terminal already says it (an apply's
	// refusal), so exitCode prints no "error:" line repeating it.
	said bool
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
	var ce *codedError
	if !errors.As(err, &ce) {
		fmt.Fprintf(errOut, "error: %v\n", err)
		return exitError
	}
	if !ce.said {
		fmt.Fprintf(errOut, "error: %v\n", err)
	}
	return ce.code
}
