// Package iostreams is what a kgc command knows of the process it runs in:
// its standard streams, which of them are terminals, and whether colour
// is wanted. Progress lines, colour and the typed confirmation of
// kgc apply all depend on a terminal; deciding that here, once, from
// values a test can set, lets tests drive them through the command's
// entry point instead of needing a real terminal.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// IOStreams are a command's standard streams and what is known of them.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY, stdoutTTY, stderrTTY bool
	// colorEnabled is false when the user asked for no colour (NO_COLOR);
	// colour also needs the stream to be a terminal.
	colorEnabled bool
}

// System is the process's own streams: a stream is a terminal when its
// file is one, and colour is enabled unless NO_COLOR is set
// (https://no-color.org: to anything, even empty, though kgc has always
// taken an empty NO_COLOR as unset, and keeps doing so).
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		stdinTTY:     isTerminal(os.Stdin),
		stdoutTTY:    isTerminal(os.Stdout),
		stderrTTY:    isTerminal(os.Stderr),
		colorEnabled: os.Getenv("NO_COLOR") == "",
	}
}

// Test is streams in memory: nothing is a terminal and colour is enabled
// (it shows only where a test makes a stream a terminal too). The buffers
// are stdin, stdout and stderr.
func Test() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, colorEnabled: true}, in, out, errOut
}

// isTerminal reports whether f is an interactive terminal.
func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// IsStdinTTY reports whether stdin is a terminal, someone there to answer.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// IsStdoutTTY reports whether stdout is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether stderr is a terminal: progress lines go
// there, and only there.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// SetStdinTTY says whether stdin is a terminal.
func (s *IOStreams) SetStdinTTY(tty bool) { s.stdinTTY = tty }

// SetStdoutTTY says whether stdout is a terminal.
func (s *IOStreams) SetStdoutTTY(tty bool) { s.stdoutTTY = tty }

// SetStderrTTY says whether stderr is a terminal.
func (s *IOStreams) SetStderrTTY(tty bool) { s.stderrTTY = tty }

// SetColorEnabled says whether colour is wanted where a terminal shows it
// (false: as if NO_COLOR were set).
func (s *IOStreams) SetColorEnabled(on bool) { s.colorEnabled = on }

// ColorEnabled reports whether colour is wanted at all (NO_COLOR unset).
func (s *IOStreams) ColorEnabled() bool { return s.colorEnabled }

// StdoutColor reports whether what goes to stdout may be coloured: a
// terminal, and colour wanted.
func (s *IOStreams) StdoutColor() bool { return s.stdoutTTY && s.colorEnabled }

// StderrColor reports whether what goes to stderr may be coloured.
func (s *IOStreams) StderrColor() bool { return s.stderrTTY && s.colorEnabled }

// CanPrompt reports whether kgc can ask a question and read the answer:
// the question goes to stderr (stdout carries results) and the answer
// comes from stdin, so both must be a terminal.
func (s *IOStreams) CanPrompt() bool { return s.stdinTTY && s.stderrTTY }

// Progress is where a progress line goes: stderr when it is a terminal,
// else nowhere (nil), so that a redirected stderr holds warnings only.
func (s *IOStreams) Progress() io.Writer {
	if s.stderrTTY {
		return s.ErrOut
	}
	return nil
}
