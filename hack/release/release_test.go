// Package release holds no code, only the tests that keep the release
// configuration (.goreleaser.yaml) and the krew manifest template
// (plugins/kgc.yaml) right: the manifest follows krew's rules (krew_test.go),
// every platform built is installable through krew, from an archive of the
// name goreleaser gives it, with the kubectl-kgc binary and the LICENSE it
// contains, and (archive_test.go, run by `make release-check`) the archive a
// snapshot release really produces installs and runs that way.
package release

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"text/template"

	"sigs.k8s.io/yaml"
)

var root = filepath.Join("..", "..")

type goreleaser struct {
	Version     int    `json:"version"`
	ProjectName string `json:"project_name"`
	Builds      []struct {
		ID      string   `json:"id"`
		Main    string   `json:"main"`
		Binary  string   `json:"binary"`
		Goos    []string `json:"goos"`
		Goarch  []string `json:"goarch"`
		Ldflags []string `json:"ldflags"`
	} `json:"builds"`
	Archives []struct {
		ID              string   `json:"id"`
		IDs             []string `json:"ids"`
		NameTemplate    string   `json:"name_template"`
		Formats         []string `json:"formats"`
		FormatOverrides []struct {
			Goos    string   `json:"goos"`
			Formats []string `json:"formats"`
		} `json:"format_overrides"`
		Files []goreleaserFile `json:"files"`
	} `json:"archives"`
	Checksum struct {
		NameTemplate string `json:"name_template"`
	} `json:"checksum"`
	Release struct {
		GitHub struct {
			Owner string `json:"owner"`
			Name  string `json:"name"`
		} `json:"github"`
	} `json:"release"`
}

// krewPlugin is krew's Plugin manifest (sigs.k8s.io/krew pkg/index).
type krewPlugin struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string         `json:"version"`
		Homepage         string         `json:"homepage"`
		ShortDescription string         `json:"shortDescription"`
		Description      string         `json:"description"`
		Caveats          string         `json:"caveats"`
		Platforms        []krewPlatform `json:"platforms"`
	} `json:"spec"`
}

type krewPlatform struct {
	Selector *krewSelector `json:"selector"`
	URI      string        `json:"uri"`
	Sha256   string        `json:"sha256"`
	// Files nil means unspecified (krew copies everything); an empty
	// list is an error.
	Files []krewFile `json:"files"`
	Bin   string     `json:"bin"`
}

type krewSelector struct {
	MatchLabels      map[string]string `json:"matchLabels"`
	MatchExpressions []krewRequirement `json:"matchExpressions"`
}

type krewRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values"`
}

type krewFile struct {
	From string `json:"from"`
	To   string `json:"to"`
}

func loadGoreleaser(t *testing.T) goreleaser {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var g goreleaser
	if err := yaml.Unmarshal(b, &g); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	return g
}

// renderKrew renders the template the way krew-release-bot does for tag:
// addURIAndSha becomes the uri (with the tag substituted) and, standing in
// for the archive's checksum, the SHA-256 of the uri.
func renderKrew(t *testing.T, tag string) krewPlugin {
	t.Helper()
	return renderKrewWith(t, tag, func(uri string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(uri))) })
}

// renderKrewWith renders the template for tag with the checksum sha gives
// each archive's uri.
func renderKrewWith(t *testing.T, tag string, sha func(uri string) string) krewPlugin {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "plugins", "kgc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := template.New("kgc.yaml").Funcs(template.FuncMap{
		"addURIAndSha": func(uri, tag string) string {
			uri = strings.ReplaceAll(uri, "{{ .TagName }}", tag)
			return fmt.Sprintf("uri: %s\n    sha256: %s", uri, sha(uri))
		},
	}).Parse(string(b))
	if err != nil {
		t.Fatalf("plugins/kgc.yaml is not a valid template: %v", err)
	}
	var out bytes.Buffer
	if err := tpl.Execute(&out, map[string]string{"TagName": tag}); err != nil {
		t.Fatalf("rendering plugins/kgc.yaml: %v", err)
	}
	var p krewPlugin
	if err := yaml.Unmarshal(out.Bytes(), &p); err != nil {
		t.Fatalf("rendered plugins/kgc.yaml is not YAML: %v\n%s", err, out.String())
	}
	return p
}

func TestBuildsStampTheVersionTheCLIPrints(t *testing.T) {
	g := loadGoreleaser(t)
	if g.Version != 2 {
		t.Errorf(".goreleaser.yaml version = %d, want 2", g.Version)
	}
	src, err := os.ReadFile(filepath.Join(root, "cmd", "kgc", "version.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^var version = `).Match(src) {
		t.Fatal("cmd/kgc/version.go no longer declares `var version`: the release ldflags -X main.version would set nothing")
	}
	binaries := map[string]bool{}
	for _, b := range g.Builds {
		binaries[b.Binary] = true
		if b.Main != "./cmd/kgc" {
			t.Errorf("build %s builds %s, want ./cmd/kgc", b.ID, b.Main)
		}
		if !strings.Contains(strings.Join(b.Ldflags, " "), "-X main.version={{.Version}}") {
			t.Errorf("build %s does not stamp main.version: %q", b.ID, b.Ldflags)
		}
		if got := strings.Join(sorted(b.Goos), ","); got != "darwin,linux,windows" {
			t.Errorf("build %s targets %s, want darwin, linux and windows", b.ID, got)
		}
		if got := strings.Join(sorted(b.Goarch), ","); got != "amd64,arm64" {
			t.Errorf("build %s targets %s, want amd64 and arm64", b.ID, got)
		}
	}
	if !binaries["kgc"] || !binaries["kubectl-kgc"] {
		t.Errorf("binaries built = %v, want kgc and kubectl-kgc", binaries)
	}
	if g.Checksum.NameTemplate == "" {
		t.Error("no checksum file configured")
	}
}

// TestKrewManifestMatchesTheArchives: every archive goreleaser builds has
// a krew platform that downloads it from the release (same repository, tag
// and name, a format krew unpacks), and installing it the way krew does
// puts the plugin binary and the LICENSE in place.
func TestKrewManifestMatchesTheArchives(t *testing.T) {
	g := loadGoreleaser(t)
	if len(g.Archives) != 1 {
		t.Fatalf("%d archives configured; this test expects the one archive krew installs from", len(g.Archives))
	}
	a := g.Archives[0]
	if got := strings.Join(sorted(a.IDs), ","); got != "kgc,kubectl-kgc" {
		t.Errorf("the archive holds builds %s, want kgc and kubectl-kgc", got)
	}
	for _, f := range a.Files {
		matches, err := filepath.Glob(filepath.Join(root, f.Src))
		if err != nil || len(matches) == 0 {
			t.Errorf("archive file pattern %q matches nothing: goreleaser would fail", f.Src)
		}
	}
	gh := g.Release.GitHub
	if gh.Owner == "" || gh.Name == "" {
		t.Fatalf("release.github is %+v: goreleaser check fails on a clone without a git remote", gh)
	}
	repo := "https://github.com/" + gh.Owner + "/" + gh.Name
	name := template.Must(template.New("name").Parse(a.NameTemplate))

	const tag = "v1.2.3"
	p := renderKrew(t, tag)
	if p.Spec.Version != tag {
		t.Errorf("krew manifest version %q for release %s", p.Spec.Version, tag)
	}
	if p.Spec.Homepage != repo {
		t.Errorf("krew homepage %s, but goreleaser releases to %s", p.Spec.Homepage, repo)
	}
	built := map[string]bool{}
	for _, b := range g.Builds {
		for _, goos := range b.Goos {
			for _, goarch := range b.Goarch {
				built[goos+"/"+goarch] = true
			}
		}
	}
	seen := map[string]bool{}
	for i, pl := range p.Spec.Platforms {
		if pl.Selector == nil || len(pl.Selector.selects()) != 1 {
			t.Errorf("spec.platforms[%d] selects %s: each platform installs the archive of one os/arch", i, pl.Selector)
			continue
		}
		goos, goarch := pl.Selector.selects()[0][0], pl.Selector.selects()[0][1]
		seen[goos+"/"+goarch] = true
		if !built[goos+"/"+goarch] {
			t.Errorf("krew installs %s/%s, which goreleaser does not build", goos, goarch)
		}
		var archive bytes.Buffer
		if err := name.Execute(&archive, map[string]string{"ProjectName": g.ProjectName, "Tag": tag, "Os": goos, "Arch": goarch}); err != nil {
			t.Fatalf("archive name_template: %v", err)
		}
		format := a.Formats[0]
		for _, o := range a.FormatOverrides {
			if o.Goos == goos {
				format = o.Formats[0]
			}
		}
		if format != "tar.gz" && format != "zip" {
			t.Errorf("%s/%s: goreleaser makes a %s archive, krew unpacks tar.gz and zip", goos, goarch, format)
		}
		want := repo + "/releases/download/" + tag + "/" + archive.String() + "." + format
		if pl.URI != want {
			t.Errorf("%s/%s: krew downloads %s, goreleaser uploads %s", goos, goarch, pl.URI, want)
		}
		wantBin := "kubectl-kgc"
		if goos == "windows" {
			wantBin += ".exe"
		}
		if pl.Bin != wantBin {
			t.Errorf("%s/%s: krew runs %q, want %q: the binary named for the plugin", goos, goarch, pl.Bin, wantBin)
		}

		entries := archiveEntries(t, g, goos)
		installed, err := krewMoves(entries, pl.files())
		if err != nil {
			t.Errorf("%s/%s: krew install of %s fails: %v (the archive holds %s)", goos, goarch, archive.String(), err, strings.Join(entries, ", "))
			continue
		}
		if _, ok := installed[pl.Bin]; !ok {
			t.Errorf("%s/%s: installing %s puts no %s in place, only %s", goos, goarch, archive.String(), pl.Bin, strings.Join(keys(installed), ", "))
		}
		if !installsAny(keys(installed), krewLicenseFiles...) {
			t.Errorf("%s/%s: installing %s puts no license file in place, only %s", goos, goarch, archive.String(), strings.Join(keys(installed), ", "))
		}
	}
	for pair := range built {
		if !seen[pair] {
			t.Errorf("no krew platform for %s, which goreleaser builds", pair)
		}
	}
}

// archiveEntries lists what goreleaser puts in the archive for goos: the
// archive's binaries and its files, by their paths in the repository.
func archiveEntries(t *testing.T, g goreleaser, goos string) []string {
	t.Helper()
	var entries []string
	a := g.Archives[0]
	for _, b := range g.Builds {
		for _, id := range a.IDs {
			if b.ID == id {
				if goos == "windows" {
					entries = append(entries, b.Binary+".exe")
				} else {
					entries = append(entries, b.Binary)
				}
			}
		}
	}
	for _, f := range a.Files {
		matches, _ := filepath.Glob(filepath.Join(root, f.Src))
		for _, m := range matches {
			rel, err := filepath.Rel(root, m)
			if err != nil {
				t.Fatal(err)
			}
			if f.Dst != "" {
				rel = f.Dst
			}
			entries = append(entries, filepath.ToSlash(rel))
		}
	}
	sort.Strings(entries)
	return entries
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sorted(xs []string) []string {
	c := append([]string(nil), xs...)
	sort.Strings(c)
	return c
}

// goreleaserFile is one entry of a goreleaser archive's files: a glob, or
// {src, dst} to place a file under another name.
type goreleaserFile struct {
	Src string `json:"src"`
	Dst string `json:"dst"`
}

func (f *goreleaserFile) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &f.Src)
	}
	type plain goreleaserFile
	return json.Unmarshal(b, (*plain)(f))
}
