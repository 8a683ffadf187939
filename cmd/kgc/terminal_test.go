package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/internal/iostreams"
	"github.com/kgc-dev/kgc/pkg/apply"
	"github.com/kgc-dev/kgc/pkg/capture"
	"github.com/kgc-dev/kgc/pkg/capture/capturetest"
)

// These tests drive kgc through Run with streams that say they are a
// terminal, or not, and check what a person would see: the typed
// confirmation of kgc apply, the capture's progress line, colour.

// terminal is how a test's streams look: which are terminals, and whether
// NO_COLOR is set.
type terminal struct {
	stdin, stdout, stderr, noColor bool
}

// runOn runs kgc on streams that look like term, stdin holding stdin, with
// the factory edited by setup (nil: the real one).
func runOn(t *testing.T, term terminal, stdin string, setup func(*Factory), args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "no-kubeconfig"))
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	ios.SetStdinTTY(term.stdin)
	ios.SetStdoutTTY(term.stdout)
	ios.SetStderrTTY(term.stderr)
	ios.SetColorEnabled(!term.noColor)
	f := NewFactory(ios)
	if setup != nil {
		setup(f)
	}
	code = Run(f, append([]string{"kgc"}, args...))
	return out.String(), errOut.String(), code
}

// withCluster makes kgc apply talk to the fake cluster.
func withCluster(c apply.Cluster) func(*Factory) {
	return func(f *Factory) {
		f.Cluster = func(capture.Options) (apply.Cluster, error) { return c, nil }
	}
}

const typeTheName = "Type the name of the Deployment (web) to confirm: "

// On a terminal, kgc apply shows what the delete does and asks for the
// target's name: the name typed sends the DELETE; anything else is
// refused, exit 7, and nothing is sent.
func TestApplyAsksForTheTypedNameOnATerminal(t *testing.T) {
	tty := terminal{stdin: true, stdout: true, stderr: true}
	for _, c := range []struct {
		answer string
		code   int
		sent   bool
		report string
	}{
		{"web\n", exitOK, true, "Outcome: the DELETE was accepted; the cascade was not followed"},
		{"api\n", exitNotConfirmed, false, `Outcome: refused (not-confirmed), no request was sent: not confirmed: "api" is not "web"; nothing was sent`},
		{"", exitNotConfirmed, false, "Outcome: refused (not-confirmed), no request was sent: not confirmed: no answer was given"},
	} {
		planPath, f := liveShop(t)
		out, errOut, code := runOn(t, tty, c.answer, withCluster(f), "apply", planPath, "--allow-blocked", "--timeout", "0")
		if code != c.code || f.deleted != c.sent {
			t.Errorf("answer %q: exit %d, DELETE sent %v; want exit %d, sent %v\nstdout:\n%s\nstderr:\n%s", c.answer, code, f.deleted, c.code, c.sent, out, errOut)
		}
		if !strings.Contains(errOut, "kgc will delete Deployment/web -n shop (propagationPolicy Background): 3 deleted, 0 orphaned, 1 updated, 1 blocked.\n") || !strings.Contains(errOut, typeTheName) {
			t.Errorf("answer %q: the question is not on stderr:\n%s", c.answer, errOut)
		}
		if strings.Contains(out, typeTheName) {
			t.Errorf("answer %q: the question went to stdout, which carries the report:\n%s", c.answer, out)
		}
		if !strings.Contains(out, c.report) {
			t.Errorf("answer %q: the report lacks %q:\n%s", c.answer, c.report, out)
		}
	}
}

// Without a terminal to ask on (stdin or stderr redirected), kgc apply
// asks nothing: it refuses, saying how to approve, unless --yes does.
func TestApplyWithoutATerminalRefusesUnlessYes(t *testing.T) {
	for name, term := range map[string]terminal{
		"nothing a terminal":   {},
		"stdin redirected":     {stdout: true, stderr: true},
		"stderr redirected":    {stdin: true, stdout: true},
		"only stdout redirect": {stdin: true, stderr: true},
	} {
		planPath, f := liveShop(t)
		out, errOut, code := runOn(t, term, "web\n", withCluster(f), "apply", planPath, "--allow-blocked", "--timeout", "0")
		asks := term.stdin && term.stderr
		if strings.Contains(errOut, typeTheName) != asks {
			t.Errorf("%s: asked %v, want %v:\n%s", name, !asks, asks, errOut)
		}
		if asks {
			continue
		}
		const why = "not confirmed: there is no terminal to ask on; pass --yes, or --confirm with the plan digest to approve exactly this plan"
		if code != exitNotConfirmed || f.deleted || !strings.Contains(out, why) {
			t.Errorf("%s: exit %d, DELETE sent %v; want exit %d and %q\nstdout:\n%s\nstderr:\n%s", name, code, f.deleted, exitNotConfirmed, why, out, errOut)
		}
		planPath, f = liveShop(t)
		out, errOut, code = runOn(t, term, "", withCluster(f), "apply", planPath, "--allow-blocked", "--timeout", "0", "--yes")
		if code != exitOK || !f.deleted {
			t.Errorf("%s, --yes: exit %d, DELETE sent %v\nstdout:\n%s\nstderr:\n%s", name, code, f.deleted, out, errOut)
		}
	}
}

// The capture's progress line goes to stderr, and only when stderr is a
// terminal: redirected, stderr holds warnings only; stdout never has it.
func TestProgressOnlyOnATerminalStderr(t *testing.T) {
	srv := httptest.NewServer(&capturetest.FakeAPIServer{})
	defer srv.Close()
	live := []string{"--server", srv.URL, "--context", "", "graph", "-A", "-o", "json"}
	progress := regexp.MustCompile(`\rlisting: \d+/\d+ types, \d+ objects\r\x1b\[K`)
	for _, term := range []terminal{{stderr: true}, {stdout: true}, {stdin: true, stdout: true}, {stdout: true, stderr: true}} {
		out, errOut, code := runOn(t, term, "", nil, live...)
		if code != exitOK {
			t.Fatalf("%+v: exit %d\n%s", term, code, errOut)
		}
		if got := progress.MatchString(errOut); got != term.stderr {
			t.Errorf("%+v: progress on stderr %v, want %v:\n%q", term, got, term.stderr, errOut)
		}
		if strings.Contains(out, "listing:") {
			t.Errorf("%+v: progress on stdout:\n%s", term, out)
		}
	}
}

// Colour only on a terminal stdout with NO_COLOR unset, and colour only
// paints: without its codes, the output is the plain one, byte for byte.
func TestColourOnlyOnATerminalWithoutNoColor(t *testing.T) {
	dump := fixedDump(t, "testdata/plan-shop.yaml")
	sgr := regexp.MustCompile("\x1b\\[[0-9;]*m")
	plain, _, code := runOn(t, terminal{}, "", nil, "graph", "-A", "-f", dump)
	if code != exitOK || sgr.MatchString(plain) {
		t.Fatalf("piped: exit %d, coloured %v:\n%s", code, sgr.MatchString(plain), plain)
	}
	for _, c := range []struct {
		term     terminal
		coloured bool
	}{
		{terminal{stdout: true}, true},
		{terminal{stdout: true, noColor: true}, false},
		{terminal{stderr: true, stdin: true}, false},
	} {
		out, errOut, code := runOn(t, c.term, "", nil, "graph", "-A", "-f", dump)
		if code != exitOK || sgr.MatchString(out) != c.coloured {
			t.Errorf("%+v: exit %d, coloured %v, want %v\n%s", c.term, code, sgr.MatchString(out), c.coloured, errOut)
		}
		if stripped := sgr.ReplaceAllString(out, ""); stripped != plain {
			t.Errorf("%+v: the output, colour codes stripped, is not the plain output:\n%s\nplain:\n%s", c.term, stripped, plain)
		}
	}
}

// kgc apply's progress bar, while it follows the cascade, goes to stderr
// and only when stderr is a terminal; the follow is stopped by an
// interrupt once the fake cluster has shown every object.
func TestApplyProgressBarOnlyOnATerminalStderr(t *testing.T) {
	bar := regexp.MustCompile(`\r\x1b\[Kfollowing \[[#-]{24}\] \d+/\d+ deleted  wave \d+/\d+  \d+ diverged`)
	for _, term := range []terminal{{stderr: true}, {stdin: true, stdout: true}, {}} {
		planPath, f := liveShop(t)
		signals := make(chan os.Signal, 1)
		go func() {
			<-f.watching
			signals <- os.Interrupt
		}()
		setup := func(fac *Factory) {
			withCluster(f)(fac)
			fac.Signals = signals
			fac.Exit = func(code int) { t.Errorf("%+v: exited at once with %d after one interrupt", term, code) }
		}
		out, errOut, code := runOn(t, term, "", setup, "apply", planPath, "--yes", "--allow-blocked", "--timeout", "1h")
		if code != exitInterrupted {
			t.Fatalf("%+v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", term, code, exitInterrupted, out, errOut)
		}
		if got := bar.MatchString(errOut); got != term.stderr {
			t.Errorf("%+v: progress bar on stderr %v, want %v:\n%q", term, got, term.stderr, errOut)
		}
		if strings.Contains(out, "following [") {
			t.Errorf("%+v: progress bar on stdout:\n%s", term, out)
		}
	}
}
