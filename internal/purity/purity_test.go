package purity

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/kgc-dev/kgc"

// clusterPackages may talk to a cluster; everything else under pkg/ is
// pure. Their subpackages (capturetest) are exempt too.
func clusterPackages() []string { return []string{module + "/pkg/capture", module + "/pkg/apply"} }

// clientPrefixes are the cluster clients a pure package must not reach.
func clientPrefixes() []string { return []string{"k8s.io/client-go", "k8s.io/cli-runtime"} }

func TestPurePackagesDoNotReachAClusterClient(t *testing.T) {
	trackSources(t, goList(t, "-m", "-f", "{{.Dir}}")[0])
	var pure []string
	for _, p := range goList(t, "-f", "{{.ImportPath}}", module+"/pkg/...") {
		if !underAny(p, clusterPackages()) {
			pure = append(pure, p)
		}
	}
	if len(pure) == 0 {
		t.Fatal("go list found no pure package under pkg/")
	}
	imports := map[string][]string{}
	args := append([]string{"-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}, pure...)
	for _, line := range goList(t, args...) {
		fields := strings.Fields(line)
		imports[fields[0]] = fields[1:]
	}
	for _, p := range pure {
		if chain := chainTo(p, imports, clientPrefixes()); chain != nil {
			t.Errorf("%s depends on the cluster client %s through %s; only %s may, so move the code that needs it there",
				p, chain[len(chain)-1], strings.Join(chain, " -> "), strings.Join(clusterPackages(), " and "))
		}
	}
}

// internal/ is the floor of the module: helpers that know nothing of
// kgc's model, so that any package may use them without a cycle. A
// package under internal/ that imports one under pkg/, in its code or its
// tests, fails here.
func TestInternalImportsNothingUnderPkg(t *testing.T) {
	trackSources(t, goList(t, "-m", "-f", "{{.Dir}}")[0])
	lines := goList(t, "-f", "{{.ImportPath}} {{join .Imports \" \"}} {{join .TestImports \" \"}} {{join .XTestImports \" \"}}", module+"/internal/...")
	if len(lines) == 0 {
		t.Fatal("go list found no package under internal/")
	}
	for _, bad := range importsUnder(lines, module+"/internal", module+"/pkg") {
		t.Errorf("%s; move what it needs of the model down to internal/, or the package up to pkg/", bad)
	}
}

// importsUnder reads go list lines ("package import...") and returns
// "P imports Q" for each package P under from that imports a Q under to.
func importsUnder(lines []string, from, to string) []string {
	var out []string
	for _, line := range lines {
		fields := strings.Fields(line)
		if len(fields) == 0 || !underAny(fields[0], []string{from}) {
			continue
		}
		seen := map[string]bool{}
		for _, q := range fields[1:] {
			if underAny(q, []string{to}) && !seen[q] {
				seen[q] = true
				out = append(out, fields[0]+" imports "+q)
			}
		}
	}
	return out
}

// An import of pkg/ is found in the code and in the tests of a package
// (go list gives both on its line), once per imported package.
func TestImportsUnderFindsPkgImports(t *testing.T) {
	lines := []string{
		"kgc/internal/uidtable hash/maphash kgc/internal/halves kgc/pkg/snapshot testing kgc/pkg/snapshot",
		"kgc/internal/words fmt time",
		"kgc/pkg/graph kgc/pkg/snapshot kgc/internal/uidtable",
	}
	got := strings.Join(importsUnder(lines, "kgc/internal", "kgc/pkg"), "; ")
	if want := "kgc/internal/uidtable imports kgc/pkg/snapshot"; got != want {
		t.Errorf("importsUnder = %q, want %q", got, want)
	}
}

// The chain names every package from the offender to the client, so
// whoever broke purity sees which import to remove.
func TestChainToNamesTheImportPath(t *testing.T) {
	imports := map[string][]string{
		"kgc/pkg/render": {"fmt", "kgc/pkg/graph"},
		"kgc/pkg/graph":  {"kgc/pkg/snapshot", "sort"},
		"kgc/pkg/snapshot": {
			"k8s.io/apimachinery/pkg/version", "k8s.io/client-go/rest",
		},
		"k8s.io/client-go/rest": {"net/http"},
		"kgc/pkg/plan":          {"kgc/pkg/graph2"},
		"kgc/pkg/graph2":        {"kgc/pkg/plan"}, // a cycle must not hang the search
	}
	got := strings.Join(chainTo("kgc/pkg/render", imports, clientPrefixes()), " -> ")
	if want := "kgc/pkg/render -> kgc/pkg/graph -> kgc/pkg/snapshot -> k8s.io/client-go/rest"; got != want {
		t.Errorf("chain = %s\nwant    %s", got, want)
	}
	if chain := chainTo("kgc/pkg/plan", imports, clientPrefixes()); chain != nil {
		t.Errorf("a pure package was reported: %v", chain)
	}
}

// trackSources stats the module's go.mod, go.sum and Go files. go test
// caches a passing result keyed by the files the test itself opens; what
// go list reads is invisible to it, so without this a new import of
// client-go would be met by a cached "ok".
func trackSources(t *testing.T, root string) {
	t.Helper()
	for _, f := range []string{"go.mod", "go.sum"} {
		_, _ = os.Stat(filepath.Join(root, f)) // opened for go test's cache key, not read
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			_, err = os.Stat(path)
		}
		return err
	})
	if err != nil {
		t.Fatalf("cannot read the module's sources: %v", err)
	}
}

// chainTo returns the shortest import chain from pkg to a package under
// one of prefixes, or nil if pkg reaches none.
func chainTo(pkg string, imports map[string][]string, prefixes []string) []string {
	parent := map[string]string{pkg: ""}
	queue := []string{pkg}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if underAny(p, prefixes) {
			var chain []string
			for ; p != ""; p = parent[p] {
				chain = append([]string{p}, chain...)
			}
			return chain
		}
		for _, q := range imports[p] {
			if _, seen := parent[q]; !seen {
				parent[q] = p
				queue = append(queue, q)
			}
		}
	}
	return nil
}

// underAny reports whether pkg is one of roots or below one of them.
func underAny(pkg string, roots []string) bool {
	for _, r := range roots {
		if pkg == r || strings.HasPrefix(pkg, r+"/") {
			return true
		}
	}
	return false
}

// goList runs go list and returns its output lines. go test puts its own
// go first in PATH.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}
