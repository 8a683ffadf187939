package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
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
	if m := kindSpaceName(text); m != "" {
		t.Errorf("%s:%d: %q names a cluster-scoped object as \"Kind name\"; name it Kind/name (snapshot.KubectlName)", file, line, m)
	}
}

// kindsOf is the alternation of the built-in kinds, cluster-scoped only
// or all.
func kindsOf(clusterScopedOnly bool) string {
	var kinds []string
	for _, r := range snapshot.BuiltinResources() {
		if !clusterScopedOnly || !r.Namespaced {
			kinds = append(kinds, regexp.QuoteMeta(r.Kind))
		}
	}
	return strings.Join(kinds, "|")
}

// clusterKindWord is a cluster-scoped kind and the word after it: "Kind
// name" ("planning on an assumed active Namespace team"), the form a
// cluster-scoped object took in prose, or an English word ("Namespace
// itself"), which proseWords tells apart.
var clusterKindWord = regexp.MustCompile(`\b(` + kindsOf(true) + `) ([a-z0-9][-a-z0-9.]*)`)

// isProseWord: the words that follow a kind in kgc's sentences; any other
// word there is taken for an object's name. A new sentence that fails
// here for an English word adds the word.
func isProseWord(w string) bool {
	switch w {
	case "a", "an", "and", "are", "as", "be", "being", "by", "can", "cannot", "deletes", "definitions", "does", "each", "for",
		"from", "has", "have", "ignores", "in", "is", "it", "its", "itself", "may", "never", "not", "object", "objects", "of",
		"on", "or", "served", "that", "the", "then", "to", "was", "which", "whose", "will", "with":
		return true
	}
	return false
}

// kindSpaceName returns the first "Kind name" of a cluster-scoped object
// in text, "" when there is none.
func kindSpaceName(text string) string {
	for _, m := range clusterKindWord.FindAllStringSubmatch(text, -1) {
		if !isProseWord(strings.TrimRight(m[2], ".")) {
			return m[0]
		}
	}
	return ""
}

// TestNoKindSpaceName: the sentences kgc builds name objects one way too.
// The goldens show only the sentences a fixture reaches, so the sources
// are read as well: a built-in kind followed by a verb or a concatenation
// ("Namespace %s", "APIService " + name) writes "Kind name" whatever the
// input; and the scan of goldens and console blocks finds "Kind name" of
// a cluster-scoped object however it was built.
func TestNoKindSpaceName(t *testing.T) {
	for text, want := range map[string]bool{
		"planning on an assumed active Namespace team, whose":            true,
		"fails: APIService v1beta1.metrics.k8s.io is not Available":      true,
		"planning on an assumed active Namespace/team, whose":            false,
		"holds 2 objects of namespace team but not the Namespace itself": false,
	} {
		if got := kindSpaceName(text) != ""; got != want {
			t.Errorf("kindSpaceName(%q) found one: %v, want %v", text, got, want)
		}
	}
	built := regexp.MustCompile(`\b(` + kindsOf(false) + `) (%s|%q|%v|" ?\+)`)
	if !built.MatchString(`fmt.Sprintf("an assumed active Namespace %s", name)`) || !built.MatchString(`"fix or remove APIService " + name`) {
		t.Fatal("the source pattern misses a kind followed by a verb or a concatenation")
	}
	checked := 0
	for _, dir := range []string{"cmd", "pkg", "internal"} {
		err := filepath.WalkDir(filepath.Join(repoRoot, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(data), "\n") {
				if m := built.FindString(line); m != "" {
					t.Errorf("%s:%d: %q writes an object as \"Kind name\"; use snapshot.KubectlName or ObjectRef.String()", path, i+1, m)
				}
			}
			checked++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 100 {
		t.Fatalf("read %d Go files, want the hundred and more of cmd, pkg and internal", checked)
	}
}
