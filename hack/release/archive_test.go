package release

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestSnapshotArchiveInstallsLikeKrew takes the archives a snapshot release
// really produced (`make release-check` runs it with KGC_RELEASE_DIST=dist)
// and installs each the way krew would from plugins/kgc.yaml rendered for
// the snapshot's tag: the checksum matches, the file operations find their
// files, the plugin binary and the LICENSE land in the plugin's folder, and
// for this machine's platform the binary, run through the kubectl-kgc link
// krew makes, answers as `kubectl kgc` with the snapshot's version.
func TestSnapshotArchiveInstallsLikeKrew(t *testing.T) {
	dist := os.Getenv("KGC_RELEASE_DIST")
	if dist == "" {
		t.Skip("KGC_RELEASE_DIST is not set: `make release-check` builds a snapshot release and runs this test on it")
	}
	var meta struct {
		Tag     string `json:"tag"`
		Version string `json:"version"`
	}
	readJSON(t, filepath.Join(dist, "metadata.json"), &meta)
	g := loadGoreleaser(t)
	sums := readChecksums(t, filepath.Join(dist, g.Checksum.NameTemplate))
	p := renderKrewWith(t, meta.Tag, func(uri string) string { return sums[path.Base(uri)] })
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}

	var installed []string
	ranHere := false
	for _, pl := range p.Spec.Platforms {
		name := path.Base(pl.URI)
		file := filepath.Join(dist, name)
		if _, err := os.Stat(file); err != nil {
			continue // a snapshot of other platforms only
		}
		installed = append(installed, name)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(data)); got != pl.Sha256 {
			t.Errorf("%s: its SHA-256 is %s, %s says %q", name, got, g.Checksum.NameTemplate, pl.Sha256)
		}
		archive, err := readArchive(name, data)
		if err != nil {
			t.Errorf("krew cannot unpack %s: %v", name, err)
			continue
		}
		var entries []string
		for e := range archive {
			entries = append(entries, e)
		}
		moves, err := krewMoves(entries, pl.files())
		if err != nil {
			t.Errorf("krew install of %s fails: %v", name, err)
			continue
		}
		dir := t.TempDir()
		for to, from := range moves {
			dest := filepath.Join(dir, filepath.FromSlash(to))
			if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dest, archive[from].data, archive[from].mode); err != nil {
				t.Fatal(err)
			}
		}
		if got, ok := moves["LICENSE"]; !ok || !bytes.Equal(archive[got].data, license) {
			t.Errorf("installing %s puts no LICENSE (the repository's) in place; it installs %s", name, strings.Join(keys(moves), ", "))
		}
		bin, ok := moves[pl.Bin]
		if !ok {
			t.Errorf("installing %s puts no %s in place; it installs %s", name, pl.Bin, strings.Join(keys(moves), ", "))
			continue
		}
		sel := pl.Selector.selects()
		if len(sel) != 1 || sel[0] != [2]string{runtime.GOOS, runtime.GOARCH} {
			continue
		}
		if archive[bin].mode&0o111 == 0 {
			t.Errorf("%s: %s is not executable (mode %v)", name, bin, archive[bin].mode)
			continue
		}
		// krew links kubectl-<plugin> to the bin; kubectl runs the link.
		link := filepath.Join(t.TempDir(), "kubectl-"+p.Metadata.Name)
		if err := os.Symlink(filepath.Join(dir, filepath.FromSlash(pl.Bin)), link); err != nil {
			t.Fatal(err)
		}
		ranHere = true
		help := run(t, link, "--help")
		if !strings.Contains(help, "kubectl kgc [command]") {
			t.Errorf("`kubectl kgc --help` from %s does not show its usage as kubectl kgc:\n%s", name, help)
		}
		if v := run(t, link, "version"); !strings.Contains(v, meta.Version) {
			t.Errorf("`kubectl kgc version` from %s says %q, want the snapshot's version %s", name, strings.TrimSpace(v), meta.Version)
		}
	}
	if len(installed) == 0 {
		t.Fatalf("%s holds none of the archives plugins/kgc.yaml downloads for %s", dist, meta.Tag)
	}
	if !ranHere {
		t.Errorf("%s holds %s but no archive for this machine (%s/%s) to run", dist, strings.Join(installed, ", "), runtime.GOOS, runtime.GOARCH)
	}
}

type archiveFile struct {
	data []byte
	mode os.FileMode
}

// readArchive reads a .tar.gz or .zip archive's files by their paths.
func readArchive(name string, data []byte) (map[string]archiveFile, error) {
	files := map[string]archiveFile{}
	switch {
	case strings.HasSuffix(name, ".tar.gz"):
		gz, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		tr := tar.NewReader(gz)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				return files, nil
			}
			if err != nil {
				return nil, err
			}
			if h.Typeflag != tar.TypeReg {
				continue
			}
			b, err := io.ReadAll(tr)
			if err != nil {
				return nil, err
			}
			files[path.Clean(h.Name)] = archiveFile{data: b, mode: h.FileInfo().Mode().Perm()}
		}
	case strings.HasSuffix(name, ".zip"):
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return nil, err
		}
		for _, f := range zr.File {
			if f.FileInfo().IsDir() {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				return nil, err
			}
			files[path.Clean(f.Name)] = archiveFile{data: b, mode: f.Mode().Perm()}
		}
		return files, nil
	}
	return nil, fmt.Errorf("%s is neither .tar.gz nor .zip", name)
}

// readChecksums reads goreleaser's checksum file: "<sha256>  <name>" lines.
func readChecksums(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			t.Fatalf("%s: unexpected line %q", file, sc.Text())
		}
		sums[fields[1]] = fields[0]
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sums
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func run(t *testing.T, program string, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(program, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("%s %s: %v\n%s", filepath.Base(program), strings.Join(args, " "), err, out.String())
	}
	return out.String()
}
