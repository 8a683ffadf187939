// Package release holds no code, only the test that keeps the release
// configuration (.goreleaser.yaml) and the krew manifest template
// (plugins/kgc.yaml) in agreement: every platform built is installable
// through krew, from an archive of the name goreleaser gives it, with the
// kubectl-kgc binary it contains.
package release

import (
	"bytes"
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
		Files []string `json:"files"`
	} `json:"archives"`
	Checksum struct {
		NameTemplate string `json:"name_template"`
	} `json:"checksum"`
}

type krewPlugin struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string `json:"version"`
		ShortDescription string `json:"shortDescription"`
		Platforms        []struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			URI    string `json:"uri"`
			Sha256 string `json:"sha256"`
			Bin    string `json:"bin"`
		} `json:"platforms"`
	} `json:"spec"`
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
// addURIAndSha becomes the uri (with the tag substituted) and a checksum.
func renderKrew(t *testing.T, tag string) krewPlugin {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "plugins", "kgc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := template.New("kgc.yaml").Funcs(template.FuncMap{
		"addURIAndSha": func(uri, tag string) string {
			return fmt.Sprintf("uri: %s\n    sha256: %s", strings.ReplaceAll(uri, "{{ .TagName }}", tag), strings.Repeat("0", 64))
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
		matches, err := filepath.Glob(filepath.Join(root, f))
		if err != nil || len(matches) == 0 {
			t.Errorf("archive file pattern %q matches nothing: goreleaser would fail", f)
		}
	}
	name := template.Must(template.New("name").Parse(a.NameTemplate))

	const tag = "v1.2.3"
	p := renderKrew(t, tag)
	if p.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || p.Kind != "Plugin" || p.Metadata.Name != "kgc" {
		t.Errorf("krew manifest is %s %s %q, want a v1alpha2 Plugin named kgc", p.APIVersion, p.Kind, p.Metadata.Name)
	}
	if p.Spec.Version != tag || p.Spec.ShortDescription == "" {
		t.Errorf("krew manifest version %q (want %q), shortDescription %q", p.Spec.Version, tag, p.Spec.ShortDescription)
	}
	seen := map[string]bool{}
	for _, pl := range p.Spec.Platforms {
		goos, goarch := pl.Selector.MatchLabels["os"], pl.Selector.MatchLabels["arch"]
		seen[goos+"/"+goarch] = true
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
		want := "https://github.com/kgc-dev/kgc/releases/download/" + tag + "/" + archive.String() + "." + format
		if pl.URI != want {
			t.Errorf("%s/%s: krew downloads %s, goreleaser uploads %s", goos, goarch, pl.URI, want)
		}
		wantBin := "kubectl-kgc"
		if goos == "windows" {
			wantBin += ".exe"
		}
		if pl.Bin != wantBin {
			t.Errorf("%s/%s: krew runs %q, the archive holds %q", goos, goarch, pl.Bin, wantBin)
		}
	}
	for _, goos := range []string{"darwin", "linux", "windows"} {
		for _, goarch := range []string{"amd64", "arm64"} {
			if !seen[goos+"/"+goarch] {
				t.Errorf("no krew platform for %s/%s, which goreleaser builds", goos, goarch)
			}
		}
	}
}

func sorted(xs []string) []string {
	c := append([]string(nil), xs...)
	sort.Strings(c)
	return c
}
