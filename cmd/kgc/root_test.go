package main

import (
	"strings"
	"testing"
)

// A mistyped subcommand must fail a script (exit 2, nothing on stdout),
// never print the help and exit 0 as cobra does for `kgc plan delte`.
func TestUnknownSubcommandsAreUsageErrors(t *testing.T) {
	tests := []struct {
		args       []string
		wantStderr string
	}{
		{[]string{"plan", "delte", "deploy/x"},
			"error: unknown command \"delte\" for \"kgc plan\"\n\nDid you mean this?\n\tdelete\n"},
		{[]string{"bogus"},
			"error: unknown command \"bogus\" for \"kgc\": run 'kgc --help' for its commands\n"},
		{[]string{"grahp", "-A"},
			"error: unknown command \"grahp\" for \"kgc\"\n\nDid you mean this?\n\tgraph\n"},
		// -f belongs to plan delete: the mistyped command is the mistake to report.
		{[]string{"plan", "delte", "deploy/x", "-f", "dump.yaml"},
			"error: unknown command \"delte\" for \"kgc plan\"\n\nDid you mean this?\n\tdelete\n"},
		{[]string{"help", "bogus"},
			"error: unknown command \"bogus\" for \"kgc\": run 'kgc --help' for its commands\n"},
		{[]string{"help", "plan", "delte"},
			"error: unknown command \"delte\" for \"kgc plan\"\n\nDid you mean this?\n\tdelete\n"},
		{[]string{"completion", "bsah"},
			"error: unknown command \"bsah\" for \"kgc completion\"\n\nDid you mean this?\n\tbash\n\tzsh\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			stdout, stderr, code := runKGC(t, tt.args...)
			if code != exitUsage || stderr != tt.wantStderr || stdout != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit %d, stderr %q and no stdout", code, stderr, stdout, exitUsage, tt.wantStderr)
			}
		})
	}
}

// As kubectl plugin the command path is what the user typed.
func TestUnknownSubcommandAsKubectlPlugin(t *testing.T) {
	stdout, stderr, code := runAs(t, "kubectl-kgc", "plan", "delte")
	if code != exitUsage || !strings.HasPrefix(stderr, "error: unknown command \"delte\" for \"kubectl kgc plan\"\n") || stdout != "" {
		t.Errorf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
}

// A group command alone still shows its help and succeeds.
func TestGroupCommandsWithoutArgumentsShowHelp(t *testing.T) {
	for _, args := range [][]string{{}, {"plan"}} {
		stdout, stderr, code := runKGC(t, args...)
		if code != exitOK || stderr != "" || !strings.Contains(stdout, "Available Commands:") {
			t.Errorf("kgc %s: exit %d, stderr %q, stdout %q; want the help", strings.Join(args, " "), code, stderr, stdout)
		}
	}
}

// The cluster-connection flags are listed once, by kgc options, not under
// every command's help; -n stays, and the flags keep working everywhere.
func TestConnectionFlagsListedOnce(t *testing.T) {
	help, _, code := runKGC(t, "why-stuck", "--help")
	if code != exitOK || strings.Contains(help, "--kubeconfig") || strings.Contains(help, "--as-group") || !strings.Contains(help, "--namespace") {
		t.Errorf("why-stuck --help (exit %d) lists the connection flags, or lost -n:\n%s", code, help)
	}
	opts, _, code := runKGC(t, "options")
	for _, want := range []string{"--kubeconfig", "--context", "--as ", "--token", "--namespace"} {
		if code != exitOK || !strings.Contains(opts, want) {
			t.Errorf("kgc options (exit %d) lacks %s:\n%s", code, want, opts)
		}
	}
	if _, stderr, code := runKGC(t, "graph", "-A", "--kubeconfig", "/nonexistent/kubeconfig"); code == exitOK || code == exitUsage {
		t.Errorf("--kubeconfig on a command: exit %d (%s), want it accepted as a flag and the missing file reported", code, stderr)
	}
}

// Run as the kubectl plugin, the help's examples say kubectl kgc.
func TestPluginHelpSaysKubectlKgc(t *testing.T) {
	help, _, code := runAs(t, "kubectl-kgc", "why-stuck", "--help")
	if code != exitOK || !strings.Contains(help, "  kubectl kgc why-stuck ns/team-a") || strings.Contains(help, "\n  kgc why-stuck") {
		t.Errorf("exit %d, help:\n%s", code, help)
	}
}

// As the kubectl plugin, the commands an output suggests are the plugin's.
func TestPluginFootersSayKubectlKgc(t *testing.T) {
	dump := copyFixture(t, "testdata/whystuck-cluster.yaml")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"why-stuck", "-A", "-f", dump}, "kubectl kgc why-stuck TYPE/NAME explains one"},
	} {
		out, errOut, code := runAs(t, "kubectl-kgc", c.args...)
		if code != exitOK || !strings.Contains(out, c.want) || strings.Contains(out, "\nkgc ") || strings.Contains(out, "$ kgc ") {
			t.Errorf("kubectl kgc %v: exit %d, want %q and no bare kgc command:\n%s%s", c.args, code, c.want, out, errOut)
		}
	}
}
