package audit

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/kgc-dev/kgc/internal/golden"
)

// examples is the folder of the end-to-end suite's recorded post-mortem.
const examples = "../../examples-postmortem"

// shippedExports are the exports of examples' audit log that the guide
// reads, by file name.
var shippedExports = map[string]func([]string) []byte{
	"eks-filter-log-events.json.gz": filterLogEvents,
	"eks-logs-insights.csv.gz":      insightsCSV,
	"eks-s3-export.gz":              s3Export,
	"gke-logging-read.json.gz":      gcloudJSON,
	"aks-PT1H.json.gz":              aksStorage,
	"aks-log-analytics.json.gz":     logAnalyticsJSON,
	"openshift-node-logs.log.gz":    nodeLogs,
}

func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestShippedExports: the exports shipped beside the recorded log are
// that log in each platform's form (go test -update writes them), and
// each reads as the log does but for what its form loses.
func TestShippedExports(t *testing.T) {
	native := filepath.Join(examples, "audit.log.gz")
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(gunzip(t, native)))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	want := summary(mustRead(t, []string{native}, "", Options{}))
	for name, export := range shippedExports {
		p := filepath.Join(examples, "exports", name)
		data := export(lines)
		if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) { // an S3 export is gzipped already
			r, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if data, err = io.ReadAll(r); err != nil {
				t.Fatal(err)
			}
		}
		if golden.Update() {
			var buf bytes.Buffer
			w := gzip.NewWriter(&buf)
			_, _ = w.Write(data)
			_ = w.Close()
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := gunzip(t, p); !bytes.Equal(got, data) {
			t.Errorf("%s is not the recorded log's export (go test ./pkg/audit -update rewrites it): %s", p, golden.FirstDifference(string(data), string(got)))
		}
		l := mustRead(t, []string{p}, "", Options{})
		if got := summary(l); got != want {
			t.Errorf("%s reads as\n%s\nwant\n%s", name, got, want)
		}
		if f := l.Files[0]; f.Bad != 0 || f.Events != len(lines) {
			t.Errorf("%s: %d events, %d bad; want %d, none bad", name, f.Events, f.Bad, len(lines))
		}
	}
	if !strings.Contains(want, "delete  namespaces/team-a/team-a by kgc-e2e-admin code 200") {
		t.Errorf("the recorded log reads as\n%s", want)
	}
}
