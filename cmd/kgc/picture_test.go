package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/internal/golden"
)

// readmePicture is the drawing the README shows, and the command that
// writes its DOT.
var readmePicture = struct {
	path string
	args []string
}{filepath.Join(repoRoot, "docs", "images", "shop-graph.svg"), []string{"graph", "-n", "shop", "-f", "../../examples/cluster.yaml", "-o", "dot"}}

// pictureStamp is the comment the SVG carries: the command and a digest of
// the DOT it was drawn from. It lets the check run without Graphviz and
// whatever Graphviz version drew it: the picture is current when the DOT
// kgc writes today has the digest it was drawn from.
func pictureStamp(dot string) string {
	sum := sha256.Sum256([]byte(dot))
	return fmt.Sprintf("<!-- kgc graph -n shop -f examples -o dot | dot -Tsvg; dot sha256 %s -->", hex.EncodeToString(sum[:]))
}

// The README's picture of the example's graph is drawn from what kgc graph
// writes today, and fits a screen. go test ./cmd/kgc -run TestREADMEPicture
// -update redraws it (with Graphviz's dot on PATH).
func TestREADMEPicture(t *testing.T) {
	dot, stderr, code := runKGC(t, readmePicture.args...)
	if code != 0 {
		t.Fatalf("kgc %s: exit %d: %s", strings.Join(readmePicture.args, " "), code, stderr)
	}
	stamp := pictureStamp(dot)
	if golden.Update() {
		bin, err := exec.LookPath("dot")
		if err != nil {
			t.Skip("Graphviz's dot is not on PATH: install graphviz (apt-get install graphviz) to redraw " + readmePicture.path)
		}
		cmd := exec.Command(bin, "-Tsvg")
		cmd.Stdin = strings.NewReader(dot)
		var svg, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &svg, &errOut
		if err := cmd.Run(); err != nil || errOut.Len() > 0 {
			t.Fatalf("dot -Tsvg: %v: %s", err, errOut.String())
		}
		// The stamp goes after the XML declaration, which must come first.
		decl, rest, _ := strings.Cut(svg.String(), "\n")
		if err := os.MkdirAll(filepath.Dir(readmePicture.path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(readmePicture.path, []byte(decl+"\n"+stamp+"\n"+rest), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(readmePicture.path)
	if err != nil {
		t.Fatalf("%v: draw it with go test ./cmd/kgc -run TestREADMEPicture -update", err)
	}
	if !bytes.Contains(data, []byte(stamp)) {
		t.Errorf("%s was not drawn from what kgc graph writes today: redraw it with go test ./cmd/kgc -run TestREADMEPicture -update", readmePicture.path)
	}
	m := regexp.MustCompile(`<svg width="(\d+)pt" height="(\d+)pt"`).FindSubmatch(data)
	if m == nil {
		t.Fatalf("%s has no <svg width height>", readmePicture.path)
	}
	w, _ := strconv.Atoi(string(m[1]))
	h, _ := strconv.Atoi(string(m[2]))
	if w > 1600 || h > 1200 {
		t.Errorf("%s is %d×%d pt: too large for a screen", readmePicture.path, w, h)
	}
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("](docs/images/shop-graph.svg)")) {
		t.Error("README.md does not show docs/images/shop-graph.svg")
	}
}
