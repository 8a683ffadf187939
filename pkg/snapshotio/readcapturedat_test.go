package snapshotio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// A dump's capture time is the one it declares (a List's capturedAt, as a
// snapshot file's), else its modification time; with several files, the
// newest. Copying a dump that declares its time (a fresh clone of kgc's
// examples) does not change its ages.
func TestReadCapturedAt(t *testing.T) {
	mtime := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	declared := "2026-11-20T10:00:00Z"
	item := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns","uid":"u1"}}`
	yamlList := "apiVersion: v1\ncapturedAt: \"" + declared + "\"\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    namespace: ns\n    uid: u1\nkind: List\nmetadata:\n  resourceVersion: \"\"\n"
	tests := []struct {
		name    string
		files   map[string]string
		stream  int // yamlStreamAt: read the YAML List item by item
		want    string
		warning string
	}{
		{name: "JSON List", files: map[string]string{"a.json": `{"apiVersion":"v1","kind":"List","capturedAt":"` + declared + `","items":[` + item + `]}`}, want: declared},
		{name: "JSON List, capturedAt after the items", files: map[string]string{"a.json": `{"apiVersion":"v1","kind":"List","items":[` + item + `],"capturedAt":"` + declared + `"}`}, want: declared},
		{name: "YAML List read whole", files: map[string]string{"a.yaml": yamlList}, want: declared},
		{name: "YAML List read item by item", files: map[string]string{"a.yaml": yamlList}, stream: 30, want: declared},
		{name: "typed List", files: map[string]string{"a.json": `{"apiVersion":"v1","kind":"ConfigMapList","capturedAt":"` + declared + `","items":[` + item + `]}`}, want: declared},
		{name: "no declaration: the modification time", files: map[string]string{"a.json": `{"apiVersion":"v1","kind":"List","items":[` + item + `]}`}, want: mtime.Format(time.RFC3339)},
		{name: "a single object cannot declare", files: map[string]string{"a.json": `{"apiVersion":"v1","kind":"ConfigMap","capturedAt":"` + declared + `","metadata":{"name":"c","namespace":"ns","uid":"u1"}}`}, want: mtime.Format(time.RFC3339)},
		{name: "the newest declaration wins", files: map[string]string{
			"a.yaml": yamlList,
			"b.json": `{"apiVersion":"v1","kind":"List","capturedAt":"2026-11-21T00:00:00Z","items":[]}`,
		}, want: "2026-11-21T00:00:00Z"},
		{name: "a file that declares nothing counts with its modification time", files: map[string]string{
			"a.yaml": yamlList,
			"b.json": `{"apiVersion":"v1","kind":"List","items":[]}`,
		}, want: mtime.Format(time.RFC3339)},
		{name: "a declaration that is not a time", files: map[string]string{"a.json": `{"apiVersion":"v1","kind":"List","capturedAt":"yesterday","items":[` + item + `]}`},
			want: mtime.Format(time.RFC3339), warning: `capturedAt "yesterday" is not an RFC 3339 time`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, tt.files)
			for name := range tt.files {
				if err := os.Chtimes(filepath.Join(dir, name), mtime, mtime); err != nil {
					t.Fatal(err)
				}
			}
			s, err := ReadFiles([]string{dir}, nil, ReadOptions{yamlStreamAt: tt.stream})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.CapturedAt.Format(time.RFC3339); got != tt.want {
				t.Errorf("capturedAt = %s, want %s", got, tt.want)
			}
			w := strings.Join(testobj.Warnings(s), "\n")
			if (tt.warning == "") != (w == "") || !strings.Contains(w, tt.warning) {
				t.Errorf("warnings %q, want one saying %q", w, tt.warning)
			}
		})
	}
}

// On standard input, a List's declaration wins over the time of reading.
func TestReadStdinCapturedAt(t *testing.T) {
	s, err := ReadFiles([]string{"-"}, strings.NewReader(`{"apiVersion":"v1","kind":"List","capturedAt":"2026-11-20T10:00:00Z","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns","uid":"u1"}}]}`), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.CapturedAt.Format(time.RFC3339); got != "2026-11-20T10:00:00Z" {
		t.Errorf("capturedAt = %s", got)
	}
}
