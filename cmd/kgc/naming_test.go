package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// otherNames are the ways of naming an object that kgc used before it
// settled on one (snapshot.KubectlName: "Kind/name -n namespace", which
// pastes into kubectl get). A person who saw "ConfigMap ns/root" in a plan,
// "ConfigMap/ns/root" in why-stuck and "ConfigMap/root (namespace ns)" in a
// graph had to translate each before typing it.
var otherNames = []struct {
	name string
	re   *regexp.Regexp
	bad  string // an example the pattern must find
	good string // the one form, which it must not
}{
	{"Kind ns/name", regexp.MustCompile(`\b[A-Z][a-z]+[A-Za-z]* [a-z0-9][-a-z0-9.]*/[a-z0-9][-a-z0-9.]*`),
		"Plan: delete ConfigMap shop/root with", "Plan: delete ConfigMap/root -n shop with"},
	{"Kind/ns/name", regexp.MustCompile(`(^|[^-\w./])[A-Z][a-z]+[A-Za-z]*/[a-z0-9][-a-z0-9.]*/[a-z0-9][-a-z0-9.]*`),
		"why-stuck: ConfigMap/shop/stuck has been", "why-stuck: ConfigMap/stuck -n shop has been"},
	{"(namespace X)", regexp.MustCompile(`\(namespace [a-z0-9]`),
		"ConfigMap/owner-config (namespace ops)", "ConfigMap/owner-config -n ops"},
}

// flagValues are kgc flags whose values have a syntax of their own, not an
// object's name in a sentence: --allow-kept KIND/NAMESPACE/NAME (a
// repeatable, comma-separated flag value cannot hold " -n ").
var flagValues = regexp.MustCompile(`--allow-kept[ =]\S+`)

// TestOneWayToNameAnObject scans every text golden (not the JSON, YAML and
// DOT documents, whose fields are the contract) and every console block of
// README.md and docs/*.md for the other ways of naming an object, and fails
// on any: every command's text and tables name objects one way.
func TestOneWayToNameAnObject(t *testing.T) {
	for _, p := range otherNames {
		if !p.re.MatchString(p.bad) || p.re.MatchString(p.good) {
			t.Fatalf("pattern %s: finds %q: %v, finds %q: %v; want true, false", p.name, p.bad, p.re.MatchString(p.bad), p.good, p.re.MatchString(p.good))
		}
	}
	var texts []string
	for _, glob := range []string{"cmd/kgc/testdata/*.golden", "pkg/*/testdata/*.golden"} {
		files, err := filepath.Glob(filepath.Join(repoRoot, glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if b := filepath.Base(f); strings.Contains(b, ".json") || strings.Contains(b, ".yaml") || strings.Contains(b, ".dot") {
				continue
			}
			texts = append(texts, f)
		}
	}
	if len(texts) < 40 {
		t.Fatalf("found %d text goldens, want the forty and more of cmd/kgc and pkg/*: the globs no longer find them", len(texts))
	}
	checked := 0
	for _, f := range texts {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			checkOneName(t, f, i+1, line)
		}
		checked++
	}
	for _, page := range documentedPages(t) {
		for _, b := range consoleBlocks(t, page) {
			for _, c := range b.commands {
				for i, line := range c.want {
					checkOneName(t, page, c.line+1+i, line)
				}
				checked++
			}
		}
	}
	t.Logf("%d goldens and console commands checked", checked)
}

func checkOneName(t *testing.T, file string, line int, text string) {
	t.Helper()
	text = flagValues.ReplaceAllString(text, "")
	for _, p := range otherNames {
		if m := p.re.FindString(text); m != "" {
			t.Errorf("%s:%d: %q names an object as %q; name it Kind/name -n namespace (snapshot.KubectlName)", file, line, strings.TrimSpace(m), p.name)
		}
	}
}
