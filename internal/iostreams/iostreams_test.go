package iostreams

import "testing"

// The test streams start as a pipe would: nothing a terminal, so no
// colour, no progress and no prompt; each setter turns on what depends
// on it, and nothing else.
func TestTerminalDecisions(t *testing.T) {
	ios, _, _, _ := Test()
	if ios.StdoutColor() || ios.StderrColor() || ios.CanPrompt() || ios.Progress() != nil {
		t.Fatal("streams in memory were taken for a terminal")
	}
	ios.SetStdoutTTY(true)
	if !ios.StdoutColor() || ios.StderrColor() {
		t.Error("a terminal stdout must be coloured, a redirected stderr not")
	}
	ios.SetColorEnabled(false)
	if ios.StdoutColor() {
		t.Error("colour shown with NO_COLOR set")
	}
	ios.SetStderrTTY(true)
	if ios.CanPrompt() {
		t.Error("asked with stdin not a terminal: nobody would answer")
	}
	if ios.Progress() != ios.ErrOut {
		t.Error("no progress line on a terminal stderr")
	}
	ios.SetStdinTTY(true)
	if !ios.CanPrompt() {
		t.Error("not asked with stdin and stderr a terminal")
	}
}

// NO_COLOR set to anything but empty turns colour off, as kgc always did.
func TestSystemHonoursNoColor(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	if System().ColorEnabled() {
		t.Error("NO_COLOR=1 left colour on")
	}
	t.Setenv("NO_COLOR", "")
	if !System().ColorEnabled() {
		t.Error("an empty NO_COLOR turned colour off")
	}
}
