package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the repository, seen from this package.
const repoRoot = "../.."

// documentedPages are the pages whose ```console blocks are real output:
// README.md and docs/*.md (the command reference under docs/reference is
// generated and checked by gendocs_test.go).
func documentedPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(repoRoot, "README.md")}, pages...)
}

// TestDocumentedCommandsReproduce runs every `$ kgc …` command of the
// documentation's console blocks, in order, in a folder holding a fresh
// copy of the inputs they name (as a clone would: new modification
// times), and compares what a terminal would show with the page. A line
// "..." in a page stands for any number of lines.
func TestDocumentedCommandsReproduce(t *testing.T) {
	for _, page := range documentedPages(t) {
		rel, _ := filepath.Rel(repoRoot, page)
		t.Run(rel, func(t *testing.T) {
			blocks := consoleBlocks(t, page)
			if len(blocks) == 0 {
				return
			}
			abs, err := filepath.Abs(repoRoot)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			t.Chdir(dir)
			sh := &docShell{t: t, repo: abs, dir: dir}
			for _, b := range blocks {
				for _, c := range b.commands {
					sh.check(rel, c)
				}
			}
		})
	}
	if len(consoleBlocks(t, filepath.Join(repoRoot, "README.md"))) == 0 {
		t.Error("README.md has no console block: the test would check nothing")
	}
}

// dotPipe is a kgc command piped into Graphviz, in a code span or a block.
var dotPipe = regexp.MustCompile("kgc graph[^|`\n]*\\|\\s*dot\\b")

// askForDOT is an explicit DOT output flag.
var askForDOT = regexp.MustCompile(`(^|\s)(-o|--output)[ =]?dot(\s|$)`)

// Every page that pipes kgc graph into dot asks for DOT with -o dot: the
// default output is the tree, whatever stdout is (kgc picks formats by
// flag, never by terminal), so a pipe without it would feed Graphviz a
// tree. The console blocks among them are run, through dot, by
// TestDocumentedCommandsReproduce.
func TestDocumentedDOTPipesAskForDOT(t *testing.T) {
	pages := append(documentedPages(t), filepath.Join(repoRoot, "DEVELOPERS.md"), filepath.Join(repoRoot, "examples", "README.md"))
	ref, err := filepath.Glob(filepath.Join(repoRoot, "docs", "reference", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, page := range append(pages, ref...) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range dotPipe.FindAllString(string(data), -1) {
			found++
			if !askForDOT.MatchString(strings.SplitN(m, "|", 2)[0]) {
				t.Errorf("%s: %q pipes kgc graph into dot without -o dot", page, m)
			}
		}
	}
	if found == 0 {
		t.Error("no page pipes kgc graph into dot: the pattern no longer finds them")
	}
}

// docCommand is one "$ …" line of a console block and the output shown
// under it.
type docCommand struct {
	line int
	cmd  string
	want []string
}

type consoleBlock struct{ commands []docCommand }

// consoleBlocks extracts the ```console blocks of a page.
func consoleBlocks(t *testing.T, page string) []consoleBlock {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []consoleBlock
	var cur *consoleBlock
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```console":
			cur = &consoleBlock{}
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil && strings.HasPrefix(line, "$ "):
			cur.commands = append(cur.commands, docCommand{line: n, cmd: strings.TrimPrefix(line, "$ ")})
		case cur != nil && len(cur.commands) > 0:
			c := &cur.commands[len(cur.commands)-1]
			c.want = append(c.want, line)
		case cur != nil:
			t.Errorf("%s:%d: output before any $ command in a console block", page, n)
		}
	}
	if cur != nil {
		t.Errorf("%s: a console block is not closed", page)
	}
	return blocks
}

// docShell runs documented command lines: kgc through Run, echo, pipes
// into installed programs (dot, jq), "> file" and ";". It is as much shell
// as the pages use, and fails on anything else.
type docShell struct {
	t         *testing.T
	repo, dir string
	exit      int
	copied    map[string]bool
}

func (sh *docShell) check(page string, c docCommand) {
	t := sh.t
	t.Helper()
	where := fmt.Sprintf("%s:%d: $ %s", page, c.line, c.cmd)
	got, skip, err := sh.run(c.cmd)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	if skip != "" {
		t.Logf("%s: not compared: %s", where, skip)
		return
	}
	if !matchLines(trimLines(c.want), trimLines(strings.Split(got, "\n"))) {
		t.Errorf("%s: the output differs from the page.\n--- page\n%s\n--- got\n%s", where, strings.Join(c.want, "\n"), got)
	}
}

// run runs a command line and returns what a terminal shows.
func (sh *docShell) run(line string) (shown, skip string, err error) {
	words, err := shellWords(line)
	if err != nil {
		return "", "", err
	}
	var out bytes.Buffer
	for _, seq := range splitWords(words, ";") {
		if skip, err = sh.pipeline(seq, &out); err != nil || skip != "" {
			return "", skip, err
		}
	}
	return out.String(), "", nil
}

// pipeline runs stages joined by "|"; the last one's output goes to the
// terminal, or to the file named after ">".
func (sh *docShell) pipeline(words []string, term *bytes.Buffer) (string, error) {
	stages := splitWords(words, "|")
	var in []byte
	for i, stage := range stages {
		args, file, err := redirect(stage)
		if err != nil {
			return "", err
		}
		var out bytes.Buffer
		w := io.Writer(&out)
		if i == len(stages)-1 && file == "" {
			w = term
		}
		skip, err := sh.stage(args, in, w, term)
		if err != nil || skip != "" {
			return skip, err
		}
		if file != "" {
			if err := os.WriteFile(filepath.Join(sh.dir, file), out.Bytes(), 0o644); err != nil {
				return "", err
			}
		}
		in = out.Bytes()
	}
	return "", nil
}

// stage runs one program: stdout to out, stderr to the terminal.
func (sh *docShell) stage(args []string, in []byte, out, term io.Writer) (string, error) {
	switch args[0] {
	case "kgc":
		sh.copyInputs(args)
		sh.t.Setenv("NO_COLOR", "1")
		sh.t.Setenv("KUBECONFIG", filepath.Join(sh.dir, "no-kubeconfig"))
		sh.exit = Run(testFactory(bytes.NewReader(in), out, term), args)
		return "", nil
	case "echo":
		text := strings.ReplaceAll(strings.Join(args[1:], " "), "$?", strconv.Itoa(sh.exit))
		_, err := fmt.Fprintln(out, text)
		sh.exit = 0
		return "", err
	case "dot", "jq":
		bin, err := exec.LookPath(args[0])
		if err != nil {
			return args[0] + " is not installed", nil
		}
		cmd := exec.Command(bin, args[1:]...)
		cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = sh.dir, bytes.NewReader(in), out, term
		err = cmd.Run()
		sh.exit = cmd.ProcessState.ExitCode()
		if err != nil && sh.exit <= 0 {
			return "", err
		}
		return "", nil
	}
	return "", fmt.Errorf("the page runs %q, which this test cannot: use kgc, echo, dot or jq", args[0])
}

// inputFlags are the flags whose values are files a command reads.
var inputFlags = []string{"-f", "--filename", "--audit-log", "--before", "--after", "--audit-policy"}

// inputOf returns the file an argument (with the next one) names, if any.
func inputOf(args []string, i int) string {
	a := args[i]
	for _, f := range inputFlags {
		switch {
		case a == f && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, f+"=") && strings.HasPrefix(f, "--"):
			return strings.TrimPrefix(a, f+"=")
		}
	}
	if strings.HasPrefix(a, "-f") && len(a) > 2 && !strings.HasPrefix(a, "--") {
		return a[2:]
	}
	return ""
}

// copyInputs copies the repository files a kgc command reads (-f, the
// audit logs and snapshots of postmortem) into the working folder, once
// each, as a fresh clone has them.
func (sh *docShell) copyInputs(args []string) {
	for i := range args {
		p := inputOf(args, i)
		if p == "" {
			continue
		}
		if sh.copied[p] || filepath.IsAbs(p) {
			continue
		}
		st, err := os.Stat(filepath.Join(sh.repo, p))
		if err != nil {
			continue // written by an earlier command
		}
		if sh.copied == nil {
			sh.copied = map[string]bool{}
		}
		sh.copied[p] = true
		if !st.IsDir() {
			sh.copyFile(p)
		} else if err := os.CopyFS(filepath.Join(sh.dir, p), os.DirFS(filepath.Join(sh.repo, p))); err != nil {
			sh.t.Fatalf("copying %s: %v", p, err)
		}
	}
}

func (sh *docShell) copyFile(p string) {
	data, err := os.ReadFile(filepath.Join(sh.repo, p))
	if err == nil {
		err = os.MkdirAll(filepath.Dir(filepath.Join(sh.dir, p)), 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(sh.dir, p), data, 0o644)
	}
	if err != nil {
		sh.t.Fatalf("copying %s: %v", p, err)
	}
}

// shellWords splits a command line as sh would, for the subset the pages
// use: quotes, a trailing comment, and the operators |, ; and > as words.
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unterminated %c quote", c)
			}
			cur.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord:
			flush()
			return words, nil
		case c == '|' || c == ';' || c == '>':
			flush()
			words = append(words, string(c))
		case c == '&' || c == '<' || c == '`' || c == '\\' || (c == '$' && !strings.HasPrefix(line[i:], "$?")):
			return nil, fmt.Errorf("shell syntax %q is not supported by this test", string(c))
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, nil
}

// splitWords splits words at an operator.
func splitWords(words []string, op string) [][]string {
	var out [][]string
	start := 0
	for i, w := range words {
		if w == op {
			out = append(out, words[start:i])
			start = i + 1
		}
	}
	return append(out, words[start:])
}

// redirect separates "> file" from a stage's arguments.
func redirect(stage []string) (args []string, file string, err error) {
	for i, w := range stage {
		if w == ">" {
			if i+2 != len(stage) {
				return nil, "", fmt.Errorf("\"> FILE\" must end the command")
			}
			return stage[:i], stage[i+1], nil
		}
	}
	if len(stage) == 0 {
		return nil, "", fmt.Errorf("empty command")
	}
	return stage, "", nil
}

func trimLines(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, strings.TrimRight(l, " \t"))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// matchLines matches got against want, where a want line that is "..."
// (indented or not) stands for any number of lines.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(want[0]) == "..." {
		for k := 0; k <= len(got); k++ {
			if matchLines(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && got[0] == want[0] && matchLines(want[1:], got[1:])
}

// exampleMarker introduces a document example of the output contract:
// <!-- example: NAME; COMMAND --> before a ```json block. Examples marked
// without a command are illustrative.
var exampleMarker = regexp.MustCompile(`^<!-- example: ([a-z]+)(?:; (kgc .*))? -->$`)

// docExample is one marked example: the command and the JSON shown.
type docExample struct {
	name, cmd string
	line      int
	json      string
}

func contractExamples(t *testing.T, page string) []docExample {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []docExample
	for i := 0; i < len(lines); i++ {
		m := exampleMarker.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		if i+1 >= len(lines) || lines[i+1] != "```json" {
			t.Errorf("%s:%d: an example marker must be followed by a ```json block", page, i+1)
			continue
		}
		end := i + 2
		for end < len(lines) && lines[end] != "```" {
			end++
		}
		out = append(out, docExample{name: m[1], cmd: m[2], line: i + 1, json: strings.Join(lines[i+2:end], "\n")})
		i = end
	}
	return out
}

// TestContractExamplesAreRealOutput runs the command of every real-output
// example of docs/output-contract.md and checks that the JSON shown is the
// document it prints, abridged: every member shown has the value printed,
// and every list shown is a sublist of the one printed (long lists are
// cut, nothing is reworded).
func TestContractExamplesAreRealOutput(t *testing.T) {
	page := filepath.Join(repoRoot, "docs", "output-contract.md")
	examples := contractExamples(t, page)
	abs, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	sh := &docShell{t: t, repo: abs, dir: dir}
	real := 0
	for _, ex := range examples {
		if ex.cmd == "" {
			continue
		}
		real++
		words, err := shellWords(ex.cmd)
		if err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		if _, err := sh.stage(words, nil, &out, &errOut); err != nil || sh.exit != 0 {
			t.Errorf("example %s: $ %s: exit %d, %v: %s", ex.name, ex.cmd, sh.exit, err, errOut.String())
			continue
		}
		var shown, got any
		if err := json.Unmarshal([]byte(ex.json), &shown); err != nil {
			t.Errorf("docs/output-contract.md:%d: example %s is not JSON: %v", ex.line, ex.name, err)
			continue
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("example %s: the command printed no JSON: %v", ex.name, err)
		}
		if path, ok := subDocument(shown, got, "$"); !ok {
			t.Errorf("docs/output-contract.md:%d: example %s (%s) is not the command's output: it differs at %s", ex.line, ex.name, ex.cmd, path)
		}
	}
	if real < 5 {
		t.Errorf("%d real-output examples found in %s, want the 5 or more it has", real, page)
	}
}

// subDocument reports whether shown is got abridged, and where not.
func subDocument(shown, got any, path string) (string, bool) {
	switch s := shown.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, false
		}
		keys := make([]string, 0, len(s))
		for k := range s {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			gv, ok := g[k]
			if !ok {
				return path + "." + k + " (not printed)", false
			}
			if p, ok := subDocument(s[k], gv, path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok {
			return path, false
		}
		j := 0
		for i, sv := range s {
			for j < len(g) {
				if _, ok := subDocument(sv, g[j], ""); ok {
					break
				}
				j++
			}
			if j == len(g) {
				return fmt.Sprintf("%s[%d] (no such element, in order, among the %d printed)", path, i, len(g)), false
			}
			j++
		}
		return "", true
	}
	if !reflect.DeepEqual(shown, got) {
		return fmt.Sprintf("%s: shown %v, printed %v", path, shown, got), false
	}
	return "", true
}

// A newcomer reads the README from the top: it says how to get kgc before
// its first console block uses it, with the module path go install needs
// and the plugin name krew installs.
func TestREADMEInstallsBeforeTheTour(t *testing.T) {
	readme := readText(t, filepath.Join(repoRoot, "README.md"))
	install, firstUse := strings.Index(readme, "\n## Install\n"), strings.Index(readme, "\n$ kgc ")
	if install < 0 || firstUse < 0 || install > firstUse {
		t.Fatalf("README.md: ## Install at %d, the first console use of kgc at %d: say how to install kgc first", install, firstUse)
	}
	section := readme[install:firstUse]
	module := regexp.MustCompile(`(?m)^module (\S+)$`).FindStringSubmatch(readText(t, filepath.Join(repoRoot, "go.mod")))
	plugin := regexp.MustCompile(`(?m)^  name: (\S+)$`).FindStringSubmatch(readText(t, filepath.Join(repoRoot, "plugins", "kgc.yaml")))
	if module == nil || plugin == nil {
		t.Fatal("cannot read the module path from go.mod or the plugin name from plugins/kgc.yaml")
	}
	for _, want := range []string{"go install " + module[1] + "/cmd/kgc@latest", "kubectl krew install " + plugin[1]} {
		if !strings.Contains(section, want) {
			t.Errorf("README.md says %q only after using kgc, or not at all", want)
		}
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
