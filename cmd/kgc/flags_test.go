package main

import (
	"strings"
	"testing"
)

// complete runs the shell's completion request (`kgc __complete ARGS…`)
// and returns the candidates and the directive line.
func complete(t *testing.T, args ...string) (candidates []string, directive string) {
	t.Helper()
	out, stderr, code := runKGC(t, append([]string{"__complete"}, args...)...)
	if code != exitOK {
		t.Fatalf("__complete %q: exit %d", args, code)
	}
	// cobra's one line of debug output; anything else would be noise.
	if !strings.HasPrefix(stderr, "Completion ended with directive:") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("__complete %q printed on stderr %q", args, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

// Every enum flag completes its choices, a family (deletes-more-than=N)
// as its prefix with no space after it so the user types N next.
func TestEnumFlagsComplete(t *testing.T) {
	const noFiles, noFilesNoSpace = ":4", ":6"
	tests := []struct {
		args          []string
		want          string
		wantDirective string
	}{
		{[]string{"plan", "delete", "--cascade", ""}, "background foreground orphan default", noFiles},
		{[]string{"plan", "delete", "--assume-finalizers", ""}, "hang remove", noFiles},
		{[]string{"plan", "delete", "-o", ""}, "text table json yaml dot html", noFiles},
		{[]string{"plan", "delete", "--fail-if", ""}, "blocked orphans recreated deletes-more-than=", noFiles},
		{[]string{"plan", "delete", "--fail-if", "de"}, "deletes-more-than=", noFilesNoSpace},
		{[]string{"graph", "-o", "t"}, "tree text table", noFiles},
		{[]string{"graph", "--fail-if", "dangling"}, "dangling-owner", noFiles},
		{[]string{"why-stuck", "-o", ""}, "text tree table json yaml html", noFiles},
		{[]string{"why-stuck", "--fail-if", ""}, "stuck", noFiles},
		{[]string{"version", "-o", ""}, "text json yaml", noFiles},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, directive := complete(t, tt.args...)
			if strings.Join(got, " ") != tt.want || directive != tt.wantDirective {
				t.Errorf("completions %q %s, want %q %s", got, directive, tt.want, tt.wantDirective)
			}
		})
	}
}

// --help lists the choices of every enum flag and keeps the defaults.
func TestEnumFlagsShowTheirChoicesInHelp(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"plan", "delete", "--help"}, []string{
			`send no policy, so the resource's own default applies: {background|foreground|orphan|default} (default "background")`,
			`{hang|remove} (default "hang")`,
			`-o, --output string              output format: {text|table|json|yaml|dot|html} (default "text")`,
			`--fail-if stringArray        exit 3 after printing the plan when it holds (repeatable): {blocked|orphans|recreated|deletes-more-than=N}` + "\n",
		}},
		{[]string{"graph", "--help"}, []string{`output format: {tree|text|table|dot|json|yaml|html} (default "tree")`, "{any|cycle|dangling-owner|"}},
		{[]string{"why-stuck", "--help"}, []string{"by default: {text|tree|table|json|yaml|html}\n", "not in progress: {stuck}\n"}},
	}
	for _, tt := range tests {
		out, _, code := runKGC(t, tt.args...)
		if code != exitOK {
			t.Fatalf("%q: exit %d", tt.args, code)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("kgc %s does not show %q:\n%s", strings.Join(tt.args, " "), w, out)
			}
		}
	}
}

// A value checked at parse time fails before any input is read: the
// missing file is never reported.
func TestEnumFlagsFailBeforeReadingInput(t *testing.T) {
	_, stderr, code := runKGC(t, "graph", "-f", "testdata/no-such-file.yaml", "-o", "svg")
	if code != exitUsage || stderr != "error: invalid argument \"svg\" for \"-o, --output\" flag: use one of tree, text, table, dot, json, yaml, html\n" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// An -o value means the same in every command: each command's report for
// a person under text (its default), its document under json and yaml,
// one row per object under table wherever objects are listed.
func TestOutputsMeanTheSame(t *testing.T) {
	ex := "../../examples/cluster.yaml"
	for _, c := range []struct {
		args            []string
		sameAsText      []string // the default output, without -o
		tableFirstWords string
	}{
		{[]string{"graph", "-n", "shop", "-f", ex}, nil, "NAMESPACE   KIND"},
		{[]string{"why-stuck", "-A", "-f", ex}, nil, "ROOT CAUSE"},
		{[]string{"plan", "delete", "deploy/web", "-n", "shop", "-f", ex}, nil, "NAMESPACE   KIND"},
	} {
		def, _, code := runKGC(t, c.args...)
		text, _, tcode := runKGC(t, append(c.args, "-o", "text")...)
		if code != exitOK || tcode != exitOK || def != text {
			t.Errorf("%v: -o text (exit %d) differs from the default (exit %d)", c.args, tcode, code)
		}
		table, errOut, code := runKGC(t, append(c.args, "-o", "table")...)
		if code != exitOK || !strings.HasPrefix(table, c.tableFirstWords) {
			t.Errorf("%v -o table: exit %d, want a table starting %q:\n%s%s", c.args, code, c.tableFirstWords, table, errOut)
		}
		for _, f := range []string{"json", "yaml"} {
			if _, errOut, code := runKGC(t, append(c.args, "-o", f)...); code != exitOK {
				t.Errorf("%v -o %s: exit %d: %s", c.args, f, code, errOut)
			}
		}
		if page, errOut, code := runKGC(t, append(c.args, "-o", "html")...); code != exitOK || !strings.HasPrefix(page, "<!DOCTYPE html>") {
			t.Errorf("%v -o html: exit %d, want a page:\n%.200s%s", c.args, code, page, errOut)
		}
	}
}
