package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// codePages are the pages that map the code: every code name they quote
// must exist, as every console block must reproduce (docs_test.go).
var codePages = []string{"docs/architecture.md", "DEVELOPERS.md"}

// TestCodeNamesInTheDocsExist checks every `quoted` code name of the pages
// that map the code against the repository: a path (`pkg/plan/reach.go`,
// `internal/words/`) or a file name (`graph_builder.go`) must exist, a
// qualified name (`graph.Build`, `rules.ServedTypes`, `Graph.Covers`,
// `audit.Read(paths, stdin, Options)`) must be declared in that package
// (or, after a type, anywhere), and a Go-looking name (`processGraphChanges`,
// `ReplayOrder`) must be declared somewhere. A page that names a function
// since renamed, or draws a call that no longer exists, fails here.
func TestCodeNamesInTheDocsExist(t *testing.T) {
	decl := declaredNames(t)
	files := repoFiles(t)
	for _, page := range codePages {
		body, err := os.ReadFile(filepath.Join(repoRoot, page))
		if err != nil {
			t.Fatal(err)
		}
		inBlock := false
		for i, line := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(line, "```") {
				inBlock = !inBlock
				continue
			}
			if inBlock {
				// A drawing names functions without quotes: pkg.Name, or
				// pkg.Name* for every function with that prefix.
				for _, m := range drawn.FindAllStringSubmatch(line, -1) {
					if why := checkDrawnName(m[1], m[2], m[3] == "*", decl); why != "" {
						t.Errorf("%s:%d: %s.%s%s: %s", page, i+1, m[1], m[2], m[3], why)
					}
				}
				continue
			}
			for _, m := range backticked.FindAllStringSubmatch(line, -1) {
				if why := checkCodeName(m[1], decl, files); why != "" {
					t.Errorf("%s:%d: `%s`: %s", page, i+1, m[1], why)
				}
			}
		}
	}
}

// notKGCs are the names the pages quote from outside kgc's code, with
// where they come from: a name in this list is not checked, so it holds
// only what kgc cannot declare.
var notKGCs = map[string]string{
	"ConfigFlags":                            "k8s.io/cli-runtime genericclioptions",
	"RunE":                                   "github.com/spf13/cobra",
	"ReplicaSetList":                         "Kubernetes API",
	"PartialObjectMetadataList":              "Kubernetes API",
	"BeforeDelete":                           "upstream k8s.io/apiserver registry/rest",
	"deletionFinalizersForGarbageCollection": "upstream k8s.io/apiserver registry/generic/registry",
	"pkg/controller/garbagecollector":        "upstream k8s.io/kubernetes",
	"patch.go":                               "upstream pkg/controller/garbagecollector",
	"objectRef":                              "an audit event's field (audit.k8s.io/v1)",
}

var (
	backticked = regexp.MustCompile("`([^`\n]+)`")
	drawn      = regexp.MustCompile(`\b([a-z]+)\.([A-Z][A-Za-z0-9_]*)(\*?)`)
	// goChain is a Go name or selector chain, optionally called.
	goChain  = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(\(.*\)(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\(.*\))?)*)?$`)
	pathLike = regexp.MustCompile(`^(cmd|pkg|internal|test|hack|docs|plugins|examples|examples-postmortem)(/[A-Za-z0-9_.-]*)*/?$`)
	fileLike = regexp.MustCompile(`^[a-z0-9_]+\.(go|md|yaml|yml|sh)$`)
)

// declared holds every name the repository's Go code declares: per
// package name, and all together (fields and methods included).
type declared struct {
	byPackage map[string]map[string]bool
	all       map[string]bool
	// foreign are the names under which the code imports packages that
	// are not kgc's (errors, rest, cobra): their names are not checked.
	foreign map[string]bool
}

// checkCodeName says why a quoted name does not exist, or "" when it does
// or is not a code name kgc declares (a flag, a command, an upstream or
// standard library name).
func checkCodeName(s string, decl declared, files map[string]bool) string {
	if _, ok := notKGCs[s]; ok {
		return ""
	}
	switch {
	case pathLike.MatchString(s):
		if _, err := os.Stat(filepath.Join(repoRoot, s)); err != nil {
			return "no such file or folder in the repository"
		}
		return ""
	case fileLike.MatchString(s):
		if !files[s] {
			return "no file of that name in the repository"
		}
		return ""
	}
	m := goChain.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	parts := strings.Split(m[1], ".")
	if len(parts) == 1 {
		if looksLikeGo(parts[0]) && !decl.all[parts[0]] {
			return "declared nowhere in the repository's Go code"
		}
		return ""
	}
	if pkg, ok := decl.byPackage[parts[0]]; ok {
		if !pkg[parts[1]] {
			return "package " + parts[0] + " declares no " + parts[1]
		}
	} else if decl.foreign[parts[0]] || !decl.all[parts[0]] {
		return "" // a package kgc does not have: the standard library's, upstream's
	}
	for _, p := range parts[1:] {
		if !decl.all[p] {
			return p + " is declared nowhere in the repository's Go code"
		}
	}
	return ""
}

// checkDrawnName says why a drawing's pkg.Name (or pkg.Name*, a prefix)
// names nothing kgc declares; a qualifier that is not one of kgc's
// packages is not checked (a drawing may also hold file names).
func checkDrawnName(pkg, name string, prefix bool, decl declared) string {
	names, ok := decl.byPackage[pkg]
	if !ok {
		return ""
	}
	if !prefix {
		if !names[name] {
			return "package " + pkg + " declares no " + name
		}
		return ""
	}
	for n := range names {
		if strings.HasPrefix(n, name) {
			return ""
		}
	}
	return "package " + pkg + " declares nothing named " + name + "…"
}

// looksLikeGo: a name with an upper-case letter after its first, or an
// exported name with a lower-case letter, rather than an English word or
// an environment variable.
func looksLikeGo(s string) bool {
	if strings.ToUpper(s) == s || strings.ToLower(s) == s {
		return false
	}
	return true
}

// declaredNames parses every Go file of the repository.
func declaredNames(t *testing.T) declared {
	t.Helper()
	d := declared{byPackage: map[string]map[string]bool{}, all: map[string]bool{}, foreign: map[string]bool{}}
	fset := token.NewFileSet()
	walkRepo(t, func(path string) {
		if !strings.HasSuffix(path, ".go") {
			return
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range f.Imports {
			if path, err := strconv.Unquote(imp.Path.Value); err == nil && !strings.HasPrefix(path, "github.com/kgc-dev/kgc/") {
				d.foreign[importName(imp, path)] = true
			}
		}
		pkg := strings.TrimSuffix(f.Name.Name, "_test")
		if d.byPackage[pkg] == nil {
			d.byPackage[pkg] = map[string]bool{}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			for _, name := range namesDeclaredBy(n) {
				d.byPackage[pkg][name] = true
				d.all[name] = true
			}
			return true
		})
	})
	return d
}

// importName is the name a file refers to an import by.
func importName(imp *ast.ImportSpec, path string) string {
	if imp.Name != nil {
		return imp.Name.Name
	}
	return path[strings.LastIndex(path, "/")+1:]
}

// namesDeclaredBy is what one syntax node declares: Go names, the JSON
// names of struct fields (a document's field) and the values of string
// constants (a finalizer, a reason).
func namesDeclaredBy(n ast.Node) []string {
	var names []string
	add := func(ids []*ast.Ident) {
		for _, id := range ids {
			names = append(names, id.Name)
		}
	}
	switch n := n.(type) {
	case *ast.FuncDecl:
		names = append(names, n.Name.Name)
	case *ast.TypeSpec:
		names = append(names, n.Name.Name)
	case *ast.ValueSpec:
		add(n.Names)
		for _, v := range n.Values {
			if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					names = append(names, s)
				}
			}
		}
	case *ast.Field:
		add(n.Names)
		if n.Tag != nil {
			if tag, err := strconv.Unquote(n.Tag.Value); err == nil {
				json, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
				names = append(names, json)
			}
		}
	case *ast.AssignStmt:
		if n.Tok == token.DEFINE {
			for _, e := range n.Lhs {
				if id, ok := e.(*ast.Ident); ok {
					names = append(names, id.Name)
				}
			}
		}
	}
	return names
}

// repoFiles are the base names of the repository's files.
func repoFiles(t *testing.T) map[string]bool {
	t.Helper()
	files := map[string]bool{}
	walkRepo(t, func(path string) { files[filepath.Base(path)] = true })
	return files
}

// walkRepo calls fn on every file of the repository but its history,
// build output and test inputs.
func walkRepo(t *testing.T, fn func(path string)) {
	t.Helper()
	err := filepath.WalkDir(repoRoot, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			switch e.Name() {
			case ".git", "dist", "bin", "testdata", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		fn(path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
