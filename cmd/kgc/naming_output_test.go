package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandsNameObjectsOneWay runs the commands on the bundled examples
// (the example cluster, the recorded namespace delete, the trust
// example's three logs, every platform's export) and checks every line
// they print, results and warnings, for the other ways of naming an
// object. The goldens and the docs show what fixtures and documented
// commands reach; this reaches the sentences the examples do, such as a
// post-mortem's warning about a request the log lacks.
func TestCommandsNameObjectsOneWay(t *testing.T) {
	pm := filepath.Join(repoRoot, "examples-postmortem")
	examples := filepath.Join(repoRoot, "examples")
	runs := [][]string{
		{"graph", "-A", "-f", examples},
		{"graph", "-A", "-f", examples, "-o", "table"},
		{"why-stuck", "-A", "-f", examples},
		{"plan", "delete", "deployment/web", "-n", "shop", "-f", examples},
		{"plan", "delete", "namespace/shop", "-f", examples, "--cascade", "foreground"},
		{"postmortem", "-A", "--audit-log", filepath.Join(pm, "audit.log.gz"),
			"--before", filepath.Join(pm, "before.json.gz"), "--after", filepath.Join(pm, "after.json.gz")},
	}
	for _, log := range []string{"audit.log.gz", "audit-metadata.log.gz", "audit-trimmed.log.gz"} {
		trust := filepath.Join(pm, "trust")
		runs = append(runs,
			[]string{"postmortem", "-A", "--audit-log", filepath.Join(trust, log),
				"--before", filepath.Join(trust, "before.json.gz"), "--after", filepath.Join(trust, "after.json.gz")},
			[]string{"postmortem", "-A", "--audit-log", filepath.Join(trust, log), "--after", "none"})
	}
	exports, err := filepath.Glob(filepath.Join(pm, "exports", "*.gz"))
	if err != nil || len(exports) < 5 {
		t.Fatalf("found %d exports in %s (%v), want every platform's", len(exports), pm, err)
	}
	for _, f := range exports {
		runs = append(runs, []string{"postmortem", "-A", "--audit-log", f, "--after", "none"})
	}
	lines := 0
	for _, args := range runs {
		stdout, stderr, code := runKGC(t, args...)
		if code != 0 && code != 3 {
			t.Fatalf("kgc %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		name := "kgc " + strings.Join(args, " ")
		for i, line := range strings.Split(stdout+stderr, "\n") {
			checkOneName(t, name, i+1, line)
			lines++
		}
	}
	t.Logf("%d commands, %d lines checked", len(runs), lines)
}
