package release

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The rules below are krew's, so that plugins/kgc.yaml is known to pass
// krew's validation before anyone runs it. Each names where it comes from:
//
//   - ValidatePlugin, validatePlatform, validateFiles, validateSelector and
//     IsSafePluginName: sigs.k8s.io/krew internal/index/validation/validate.go
//     (what `kubectl krew install` and the krew-index CI check);
//   - semver.Parse: internal/installation/semver/version.go (a leading v);
//   - findMoveTargets: internal/installation/move.go (how `files` install);
//   - validate-krew-manifest: cmd/validate-krew-manifest/main.go (supported
//     platforms, overlapping selectors, the license file every platform must
//     install, description line lengths);
//   - the krew-index review (shortDescription at most 50 characters, no
//     usage examples in description) and the plugin naming guide
//     (site/content/docs/developer-guide/develop/naming-guide.md).

// krewRule is one named rule; check returns what breaks it, nothing when
// the manifest follows it.
type krewRule struct {
	name  string
	check func(m krewManifest) []string
}

// krewManifest is a rendered manifest and the file it is published as:
// krew names the plugin after the file.
type krewManifest struct {
	file   string
	plugin krewPlugin
}

// krewPlatforms are the os/arch pairs krew runs on (validate-krew-manifest's
// allPlatforms): a platform entry must select at least one of them.
var krewPlatforms = [][2]string{
	{"darwin", "386"}, {"darwin", "amd64"}, {"darwin", "arm64"},
	{"linux", "386"}, {"linux", "amd64"}, {"linux", "arm"}, {"linux", "arm64"}, {"linux", "ppc64le"},
	{"windows", "386"}, {"windows", "amd64"}, {"windows", "arm64"},
}

// krewLicenseFiles are the names validate-krew-manifest accepts as the
// license file an installation must contain (compared in lower case).
var krewLicenseFiles = []string{"license", "license.txt", "license.md", "licenses", "licenses.txt", "licenses.md", "copying", "copying.txt"}

// kubectlCommands are kubectl's own top-level commands: kubectl runs its
// own command, never a plugin of the same name.
var kubectlCommands = []string{
	"alpha", "annotate", "api-resources", "api-versions", "apply", "attach", "auth", "autoscale",
	"certificate", "cluster-info", "completion", "config", "cordon", "cp", "create", "debug",
	"delete", "describe", "diff", "drain", "edit", "events", "exec", "explain", "expose", "get",
	"help", "kustomize", "label", "logs", "options", "patch", "plugin", "port-forward", "proxy",
	"replace", "rollout", "run", "scale", "set", "taint", "top", "uncordon", "version", "wait",
}

// windowsReserved are the file names Windows forbids (IsSafePluginName).
var windowsReserved = []string{"CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9"}

var (
	krewSafeName  = regexp.MustCompile(`^[\w-]+$`)
	kebabCase     = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	semverWithV   = regexp.MustCompile(`^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)
	sha256Hex     = regexp.MustCompile(`^[a-f0-9]{64}$`)
	usageExamples = regexp.MustCompile(`(?m)^[ \t]*(\$ |kubectl ).*$`)
)

func krewRules() []krewRule {
	return []krewRule{
		{"apiVersion", func(m krewManifest) []string {
			if m.plugin.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" {
				return []string{fmt.Sprintf("apiVersion is %q; krew supports krew.googlecontainertools.github.com/v1alpha2", m.plugin.APIVersion)}
			}
			return nil
		}},
		{"kind", func(m krewManifest) []string {
			if m.plugin.Kind != "Plugin" {
				return []string{fmt.Sprintf("kind is %q; krew supports Plugin", m.plugin.Kind)}
			}
			return nil
		}},
		{"name", func(m krewManifest) []string { return checkPluginName(m.plugin.Metadata.Name) }},
		{"name matches the file", func(m krewManifest) []string {
			if want := strings.TrimSuffix(path.Base(m.file), ".yaml"); m.plugin.Metadata.Name != want || path.Ext(m.file) != ".yaml" {
				return []string{fmt.Sprintf("metadata.name %q published as %s: krew wants the manifest named <name>.yaml", m.plugin.Metadata.Name, m.file)}
			}
			return nil
		}},
		{"version", func(m krewManifest) []string {
			if !semverWithV.MatchString(m.plugin.Spec.Version) {
				return []string{fmt.Sprintf("spec.version %q is not a semantic version with a leading v (v1.2.3)", m.plugin.Spec.Version)}
			}
			return nil
		}},
		{"homepage", func(m krewManifest) []string {
			u, err := url.Parse(m.plugin.Spec.Homepage)
			if err != nil || u.Scheme != "https" || u.Host == "" {
				return []string{fmt.Sprintf("spec.homepage %q is not an https URL", m.plugin.Spec.Homepage)}
			}
			return nil
		}},
		{"shortDescription", func(m krewManifest) []string {
			s := m.plugin.Spec.ShortDescription
			var problems []string
			if strings.TrimSpace(s) == "" {
				problems = append(problems, "spec.shortDescription is empty")
			}
			if strings.ContainsAny(s, "\r\n") {
				problems = append(problems, "spec.shortDescription has a line break")
			}
			if n := len([]rune(s)); n > 50 {
				problems = append(problems, fmt.Sprintf("spec.shortDescription has %d characters, krew-index takes at most 50: %q", n, s))
			}
			return problems
		}},
		{"description", func(m krewManifest) []string {
			d := m.plugin.Spec.Description
			var problems []string
			if strings.TrimSpace(d) == "" {
				problems = append(problems, "spec.description is empty")
			}
			for _, line := range strings.Split(d, "\n") {
				if len([]rune(line)) > 80 && strings.Contains(strings.TrimSpace(line), " ") {
					problems = append(problems, fmt.Sprintf("spec.description line longer than 80 characters: %q", line))
				}
			}
			if l := usageExamples.FindString(d); l != "" {
				problems = append(problems, fmt.Sprintf("spec.description has a usage example (%q): krew-index wants those in --help", strings.TrimSpace(l)))
			}
			return problems
		}},
		{"platforms", func(m krewManifest) []string {
			if len(m.plugin.Spec.Platforms) == 0 {
				return []string{"spec.platforms is empty"}
			}
			return nil
		}},
		{"selector", forEachPlatform(func(p krewPlatform) []string { return checkSelector(p.Selector) })},
		{"supported platform", forEachPlatform(func(p krewPlatform) []string {
			if checkSelector(p.Selector) == nil && len(p.Selector.selects()) == 0 {
				return []string{"selects no os/arch krew runs on"}
			}
			return nil
		})},
		{"overlapping selectors", func(m krewManifest) []string {
			var problems []string
			for _, pair := range krewPlatforms {
				var matched []int
				for i, p := range m.plugin.Spec.Platforms {
					if p.Selector != nil && p.Selector.matches(pair[0], pair[1]) {
						matched = append(matched, i)
					}
				}
				if len(matched) > 1 {
					problems = append(problems, fmt.Sprintf("%s/%s is selected by spec.platforms %v", pair[0], pair[1], matched))
				}
			}
			return problems
		}},
		{"uri", forEachPlatform(func(p krewPlatform) []string {
			u, err := url.Parse(p.URI)
			if err != nil || u.Scheme != "https" || u.Host == "" {
				return []string{fmt.Sprintf("uri %q is not an https URL", p.URI)}
			}
			if !strings.HasSuffix(u.Path, ".tar.gz") && !strings.HasSuffix(u.Path, ".zip") {
				return []string{fmt.Sprintf("uri %q is not a .tar.gz or .zip archive", p.URI)}
			}
			return nil
		})},
		{"sha256", forEachPlatform(func(p krewPlatform) []string {
			if !sha256Hex.MatchString(p.Sha256) {
				return []string{fmt.Sprintf("sha256 %q is not 64 lowercase hex digits", p.Sha256)}
			}
			return nil
		})},
		{"bin", forEachPlatform(func(p krewPlatform) []string {
			if p.Bin == "" {
				return []string{"bin is not set"}
			}
			if p.Selector == nil {
				return nil
			}
			var problems []string
			for _, pair := range p.Selector.selects() {
				if exe := strings.HasSuffix(p.Bin, ".exe"); exe != (pair[0] == "windows") {
					problems = append(problems, fmt.Sprintf("bin %q on %s/%s: krew runs .exe programs on windows, and only there", p.Bin, pair[0], pair[1]))
				}
			}
			return problems
		})},
		{"files", forEachPlatform(func(p krewPlatform) []string {
			if p.Files == nil {
				return nil // krew copies the whole archive
			}
			if len(p.Files) == 0 {
				return []string{"files is specified but empty"}
			}
			var problems []string
			for i, f := range p.Files {
				if f.From == "" || f.To == "" {
					problems = append(problems, fmt.Sprintf("files[%d] needs both from and to: %+v", i, f))
				} else if f.To != path.Clean(f.To) {
					problems = append(problems, fmt.Sprintf("files[%d].to %q is not a clean path (%q)", i, f.To, path.Clean(f.To)))
				}
			}
			if p.Bin != "" && !installsAny(p.installs(), p.Bin) {
				problems = append(problems, fmt.Sprintf("files install no %s, the bin krew links as the plugin", p.Bin))
			}
			return problems
		})},
		{"license", forEachPlatform(func(p krewPlatform) []string {
			if !installsAny(p.installs(), krewLicenseFiles...) {
				return []string{"files install no license file (LICENSE): krew's validation fails the install"}
			}
			return nil
		})},
	}
}

// checkKrew applies every rule; the answer maps each broken rule to its
// problems.
func checkKrew(m krewManifest) map[string][]string {
	broken := map[string][]string{}
	for _, r := range krewRules() {
		if problems := r.check(m); len(problems) > 0 {
			broken[r.name] = problems
		}
	}
	return broken
}

func forEachPlatform(check func(krewPlatform) []string) func(krewManifest) []string {
	return func(m krewManifest) []string {
		var problems []string
		for i, p := range m.plugin.Spec.Platforms {
			for _, problem := range check(p) {
				problems = append(problems, fmt.Sprintf("spec.platforms[%d] (%s): %s", i, p.Selector, problem))
			}
		}
		return problems
	}
}

func checkPluginName(name string) []string {
	var problems []string
	if !krewSafeName.MatchString(name) {
		problems = append(problems, fmt.Sprintf("metadata.name %q must match %s", name, krewSafeName))
	}
	if !kebabCase.MatchString(name) {
		problems = append(problems, fmt.Sprintf("metadata.name %q is not lowercase words of [a-z0-9] joined by hyphens", name))
	}
	for _, prefix := range []string{"kubectl-", "kube-", "kubernetes-"} {
		if strings.HasPrefix(strings.ToLower(name), prefix) {
			problems = append(problems, fmt.Sprintf("metadata.name %q starts with %q: krew adds kubectl- itself, and the naming guide forbids repeating kube", name, prefix))
		}
	}
	for _, reserved := range windowsReserved {
		if strings.EqualFold(name, reserved) {
			problems = append(problems, fmt.Sprintf("metadata.name %q is a reserved file name on Windows", name))
		}
	}
	for _, c := range kubectlCommands {
		if name == c {
			problems = append(problems, fmt.Sprintf("metadata.name %q is a kubectl command: kubectl would never run the plugin", name))
		}
	}
	return problems
}

func checkSelector(s *krewSelector) []string {
	if s == nil {
		return []string{"no selector"}
	}
	if s.MatchLabels == nil && len(s.MatchExpressions) == 0 {
		return []string{"empty selector"}
	}
	var problems []string
	if s.MatchLabels != nil && len(s.MatchLabels) == 0 {
		problems = append(problems, "matchLabels specified but empty")
	}
	if s.MatchExpressions != nil && len(s.MatchExpressions) == 0 {
		problems = append(problems, "matchExpressions specified but empty")
	}
	var keys []string
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	for _, e := range s.MatchExpressions {
		keys = append(keys, e.Key)
		switch e.Operator {
		case "In", "NotIn", "Exists", "DoesNotExist":
		default:
			problems = append(problems, fmt.Sprintf("matchExpressions operator %q is not In, NotIn, Exists or DoesNotExist", e.Operator))
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != "os" && k != "arch" {
			problems = append(problems, fmt.Sprintf("selector key %q: krew selects on os and arch only", k))
		}
	}
	return problems
}

func (s *krewSelector) matches(goos, goarch string) bool {
	labels := map[string]string{"os": goos, "arch": goarch}
	for k, v := range s.MatchLabels {
		if labels[k] != v {
			return false
		}
	}
	for _, e := range s.MatchExpressions {
		v, has := labels[e.Key]
		in := false
		for _, want := range e.Values {
			in = in || (has && v == want)
		}
		switch e.Operator {
		case "In":
			if !in {
				return false
			}
		case "NotIn":
			if in {
				return false
			}
		case "Exists":
			if !has {
				return false
			}
		case "DoesNotExist":
			if has {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// selects lists the krew platforms the selector matches.
func (s *krewSelector) selects() [][2]string {
	var out [][2]string
	for _, pair := range krewPlatforms {
		if s.matches(pair[0], pair[1]) {
			out = append(out, pair)
		}
	}
	return out
}

func (s *krewSelector) String() string {
	if s == nil {
		return "no selector"
	}
	var parts []string
	for _, pair := range s.selects() {
		parts = append(parts, pair[0]+"/"+pair[1])
	}
	if len(parts) == 0 {
		return "selects nothing"
	}
	return strings.Join(parts, ",")
}

// files returns the file operations krew applies: everything when the
// manifest lists none.
func (p krewPlatform) files() []krewFile {
	if p.Files == nil {
		return []krewFile{{From: "*", To: "."}}
	}
	return p.Files
}

// installs returns, as path patterns, what the platform's file operations
// put in the plugin's folder (findMoveTargets: an exact path goes to `to`,
// or keeps its name when `to` is "."; glob matches keep their names
// inside `to`).
func (p krewPlatform) installs() []string {
	var out []string
	for _, f := range p.files() {
		if f.From == "" || f.To == "" {
			continue
		}
		switch {
		case !strings.ContainsAny(f.From, `*?[\`) && path.Clean(f.To) != ".":
			out = append(out, path.Clean(f.To))
		default:
			out = append(out, path.Join(f.To, path.Base(f.From)))
		}
	}
	return out
}

// installsAny says whether one of the installed patterns is one of names
// (compared case-insensitively).
func installsAny(installed []string, names ...string) bool {
	for _, pattern := range installed {
		for _, name := range names {
			if ok, _ := path.Match(strings.ToLower(pattern), strings.ToLower(name)); ok {
				return true
			}
		}
	}
	return false
}

// krewMoves is findMoveTargets on a list of archive entries (files, with
// slash-separated paths): the installed path of every entry krew copies,
// and an error for an operation that matches nothing, which fails the
// install.
func krewMoves(entries []string, files []krewFile) (map[string]string, error) {
	names := map[string]bool{} // entries and the folders that hold them
	isFile := map[string]bool{}
	for _, e := range entries {
		isFile[e] = true
		for p := e; p != "." && p != "/"; p = path.Dir(p) {
			names[p] = true
		}
	}
	installed := map[string]string{}
	for _, f := range files {
		from := path.Clean(f.From)
		if isFile[from] { // a single file: krew moves it directly
			to := f.To
			if path.Clean(to) == "." {
				to = path.Base(from)
			}
			installed[path.Clean(to)] = from
			continue
		}
		var matches []string
		for n := range names {
			if ok, _ := path.Match(from, n); ok {
				matches = append(matches, n)
			}
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("no files in the plugin archive match %q", f.From)
		}
		for _, m := range matches {
			dest := path.Join(f.To, path.Base(m))
			for _, e := range entries { // a folder brings everything in it
				if e == m {
					installed[dest] = e
				} else if strings.HasPrefix(e, m+"/") {
					installed[path.Join(dest, strings.TrimPrefix(e, m+"/"))] = e
				}
			}
		}
	}
	return installed, nil
}

func cloneManifest(t *testing.T, m krewManifest) krewManifest {
	t.Helper()
	b, err := json.Marshal(m.plugin)
	if err != nil {
		t.Fatal(err)
	}
	c := krewManifest{file: m.file}
	if err := json.Unmarshal(b, &c.plugin); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestKrewManifestFollowsKrewRules: the manifest krew-release-bot renders
// from plugins/kgc.yaml for a release passes every rule krew applies.
func TestKrewManifestFollowsKrewRules(t *testing.T) {
	m := krewManifest{file: "kgc.yaml", plugin: renderKrew(t, "v1.2.3")}
	for name, problems := range checkKrew(m) {
		t.Errorf("plugins/kgc.yaml breaks krew's %q rule:\n  %s", name, strings.Join(problems, "\n  "))
	}
}

// TestKrewRulesCatchBrokenManifests proves that each rule can fail: every
// case breaks the real manifest in one way and names exactly the rules
// that must then report it.
func TestKrewRulesCatchBrokenManifests(t *testing.T) {
	good := krewManifest{file: "kgc.yaml", plugin: renderKrew(t, "v1.2.3")}
	if broken := checkKrew(good); len(broken) > 0 {
		t.Fatalf("the real manifest already breaks %v; TestKrewManifestFollowsKrewRules says how", broken)
	}
	linux := func(m *krewManifest) *krewPlatform { return &m.plugin.Spec.Platforms[0] }
	windows := func(m *krewManifest) *krewPlatform {
		for i, p := range m.plugin.Spec.Platforms {
			if p.Selector.MatchLabels["os"] == "windows" {
				return &m.plugin.Spec.Platforms[i]
			}
		}
		t.Fatal("the manifest has no windows platform")
		return nil
	}
	cases := []struct {
		name   string
		break_ func(m *krewManifest)
		want   []string
	}{
		{"an old apiVersion", func(m *krewManifest) { m.plugin.APIVersion = "krew.googlecontainertools.github.com/v1alpha1" }, []string{"apiVersion"}},
		{"another kind", func(m *krewManifest) { m.plugin.Kind = "PluginList" }, []string{"kind"}},
		{"an upper-case name", func(m *krewManifest) { m.plugin.Metadata.Name, m.file = "Kgc", "Kgc.yaml" }, []string{"name"}},
		{"an underscore in the name", func(m *krewManifest) { m.plugin.Metadata.Name, m.file = "k_gc", "k_gc.yaml" }, []string{"name"}},
		{"the kubectl- prefix", func(m *krewManifest) { m.plugin.Metadata.Name, m.file = "kubectl-kgc", "kubectl-kgc.yaml" }, []string{"name"}},
		{"a kube- prefix", func(m *krewManifest) { m.plugin.Metadata.Name, m.file = "kube-gc", "kube-gc.yaml" }, []string{"name"}},
		{"a Windows device name", func(m *krewManifest) { m.plugin.Metadata.Name, m.file = "com1", "com1.yaml" }, []string{"name"}},
		{"a kubectl command", func(m *krewManifest) { m.plugin.Metadata.Name, m.file = "drain", "drain.yaml" }, []string{"name"}},
		{"a file named after another plugin", func(m *krewManifest) { m.file = "gc.yaml" }, []string{"name matches the file"}},
		{"a version without v", func(m *krewManifest) { m.plugin.Spec.Version = "1.2.3" }, []string{"version"}},
		{"a version that is not semver", func(m *krewManifest) { m.plugin.Spec.Version = "v1.2" }, []string{"version"}},
		{"no homepage", func(m *krewManifest) { m.plugin.Spec.Homepage = "" }, []string{"homepage"}},
		{"a homepage without https", func(m *krewManifest) { m.plugin.Spec.Homepage = "github.com/kgc-dev/kgc" }, []string{"homepage"}},
		{"no shortDescription", func(m *krewManifest) { m.plugin.Spec.ShortDescription = "" }, []string{"shortDescription"}},
		{"a shortDescription of 51 characters", func(m *krewManifest) { m.plugin.Spec.ShortDescription = strings.Repeat("a", 51) }, []string{"shortDescription"}},
		{"a shortDescription on two lines", func(m *krewManifest) { m.plugin.Spec.ShortDescription = "Preview deletes\nexplain stuck ones" }, []string{"shortDescription"}},
		{"no description", func(m *krewManifest) { m.plugin.Spec.Description = "" }, []string{"description"}},
		{"a description line of 81 characters", func(m *krewManifest) {
			m.plugin.Spec.Description += strings.Repeat("word ", 16) + "x\n"
		}, []string{"description"}},
		{"a usage example in the description", func(m *krewManifest) {
			m.plugin.Spec.Description += "\n  kubectl kgc plan delete deploy/web\n"
		}, []string{"description"}},
		{"no platforms", func(m *krewManifest) { m.plugin.Spec.Platforms = nil }, []string{"platforms"}},
		{"a platform without selector", func(m *krewManifest) { linux(m).Selector = nil }, []string{"selector"}},
		{"a selector on another label", func(m *krewManifest) { linux(m).Selector.MatchLabels["distro"] = "debian" }, []string{"selector"}},
		{"a selector operator krew does not know", func(m *krewManifest) {
			sel := linux(m).Selector
			sel.MatchExpressions = append(sel.MatchExpressions, krewRequirement{Key: "os", Operator: "Matches", Values: []string{"linux"}})
		}, []string{"selector"}},
		{"a selector for every os", func(m *krewManifest) {
			delete(linux(m).Selector.MatchLabels, "os")
		}, []string{"overlapping selectors", "bin"}},
		// An empty selector selects everything: windows too, which kubectl-kgc
		// cannot serve, and every platform the others already select.
		{"empty matchLabels", func(m *krewManifest) { linux(m).Selector.MatchLabels = map[string]string{} }, []string{"selector", "overlapping selectors", "bin"}},
		{"an os krew does not run on", func(m *krewManifest) { linux(m).Selector.MatchLabels["os"] = "plan9" }, []string{"supported platform"}},
		{"two platforms for linux/amd64", func(m *krewManifest) {
			m.plugin.Spec.Platforms = append(m.plugin.Spec.Platforms, *linux(m))
		}, []string{"overlapping selectors"}},
		{"no uri", func(m *krewManifest) { linux(m).URI = "" }, []string{"uri"}},
		{"a uri that is not an archive", func(m *krewManifest) { linux(m).URI = "https://github.com/kgc-dev/kgc/releases/download/v1.2.3/kgc" }, []string{"uri"}},
		{"no sha256", func(m *krewManifest) { linux(m).Sha256 = "" }, []string{"sha256"}},
		{"an upper-case sha256", func(m *krewManifest) { linux(m).Sha256 = strings.Repeat("A", 64) }, []string{"sha256"}},
		{"a short sha256", func(m *krewManifest) { linux(m).Sha256 = strings.Repeat("0", 63) }, []string{"sha256"}},
		{"no bin", func(m *krewManifest) { linux(m).Bin = "" }, []string{"bin"}},
		{"no .exe on windows", func(m *krewManifest) { windows(m).Bin = "kubectl-kgc"; windows(m).Files[0].From = "kubectl-kgc" }, []string{"bin"}},
		{"a .exe on linux", func(m *krewManifest) { linux(m).Bin = "kubectl-kgc.exe"; linux(m).Files[0].From = "kubectl-kgc.exe" }, []string{"bin"}},
		{"files listed but empty", func(m *krewManifest) { linux(m).Files = []krewFile{} }, []string{"files", "license"}},
		{"a file without to", func(m *krewManifest) { linux(m).Files[1].To = "" }, []string{"files", "license"}},
		{"a file to an unclean path", func(m *krewManifest) { linux(m).Files[1].To = "./" }, []string{"files"}},
		{"files that do not install the bin", func(m *krewManifest) { linux(m).Files = linux(m).Files[1:] }, []string{"files"}},
		{"files that do not install the license", func(m *krewManifest) { linux(m).Files = linux(m).Files[:1] }, []string{"license"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := cloneManifest(t, good)
			c.break_(&m)
			broken := checkKrew(m)
			var got []string
			for name := range broken {
				got = append(got, name)
			}
			sort.Strings(got)
			want := append([]string(nil), c.want...)
			sort.Strings(want)
			if strings.Join(got, ", ") != strings.Join(want, ", ") {
				t.Errorf("broken rules = [%s], want [%s]; problems: %v", strings.Join(got, ", "), strings.Join(want, ", "), broken)
			}
		})
	}
}

func TestKrewMovesInstallLikeKrew(t *testing.T) {
	archive := []string{"LICENSE", "README.md", "docs/a.md", "docs/reference/b.md", "kubectl-kgc"}
	cases := []struct {
		name  string
		files []krewFile
		want  string // installed path <- archive entry, sorted
		err   bool
	}{
		{"a file keeps its name under .", []krewFile{{From: "LICENSE", To: "."}}, "LICENSE<-LICENSE", false},
		{"a file renamed", []krewFile{{From: "kubectl-kgc", To: "bin/kgc"}}, "bin/kgc<-kubectl-kgc", false},
		{"a glob keeps names inside to", []krewFile{{From: "*.md", To: "doc"}}, "doc/README.md<-README.md", false},
		{"a folder brings its content", []krewFile{{From: "docs", To: "."}},
			"docs/a.md<-docs/a.md, docs/reference/b.md<-docs/reference/b.md", false},
		{"everything", []krewFile{{From: "*", To: "."}},
			"LICENSE<-LICENSE, README.md<-README.md, docs/a.md<-docs/a.md, docs/reference/b.md<-docs/reference/b.md, kubectl-kgc<-kubectl-kgc", false},
		{"a file the archive lacks", []krewFile{{From: "kubectl-kgc.exe", To: "."}}, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			moves, err := krewMoves(archive, c.files)
			if (err != nil) != c.err {
				t.Fatalf("error = %v, want error: %v", err, c.err)
			}
			var got []string
			for to, from := range moves {
				got = append(got, to+"<-"+from)
			}
			sort.Strings(got)
			if strings.Join(got, ", ") != c.want {
				t.Errorf("installs %s, want %s", strings.Join(got, ", "), c.want)
			}
		})
	}
}
