package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/capture/capturetest"
)

// --chunk-size is the limit of every list request a command sends to the
// live cluster, 1000 when not given, none with 0, as kubectl's flag.
func TestChunkSizeLive(t *testing.T) {
	planFile := filepath.Join(t.TempDir(), "plan.json")
	for _, tc := range []struct {
		args  []string
		limit string
	}{
		{[]string{"snapshot", "-o", "json"}, "1000"},
		{[]string{"snapshot", "-o", "json", "--chunk-size", "0"}, ""},
		{[]string{"snapshot", "-o", "json", "--chunk-size", "7"}, "7"},
		{[]string{"graph", "-n", "shop", "--chunk-size", "7"}, "7"},
		{[]string{"why-stuck", "-A", "--chunk-size", "0"}, ""},
		{[]string{"plan", "delete", "cm/a", "-n", "shop", "-o", "json", "--chunk-size", "7"}, "7"},
		// The apply re-reads the cluster before anything is sent, then
		// stops at the confirmation.
		{[]string{"apply", planFile, "--chunk-size", "3"}, "3"},
		{[]string{"apply", "delete", "cm/a", "-n", "shop", "--chunk-size", "0"}, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			fake := &capturetest.FakeAPIServer{}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			stdout, stderr, code := kgcRun(t, "", append([]string{"--server", srv.URL, "--context", ""}, tc.args...)...)
			if code != 0 && code != exitNotConfirmed {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if tc.args[0] == "plan" {
				if err := os.WriteFile(planFile, []byte(stdout), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if len(fake.Lists) == 0 {
				t.Fatal("no list request reached the API server")
			}
			for _, l := range fake.Lists {
				if l.Limit != tc.limit {
					t.Errorf("list of %s asked for limit %q, want %q", l.Path, l.Limit, tc.limit)
				}
			}
		})
	}
}

func TestChunkSizeInvalid(t *testing.T) {
	for _, args := range [][]string{
		{"snapshot", "-o", "json", "--chunk-size", "-1"},
		{"plan", "delete", "cm/a", "--chunk-size", "ten"},
		{"apply", "delete", "cm/a", "--chunk-size", "-5"},
	} {
		_, stderr, code := kgcRun(t, "", args...)
		want := "for \"--chunk-size\" flag: give a number of objects per list page, or 0 to list each type in one request\n"
		if code != exitUsage || !strings.HasSuffix(stderr, want) {
			t.Errorf("kgc %s: exit %d, stderr %q; want exit %d and …%q", strings.Join(args, " "), code, stderr, exitUsage, want)
		}
	}
}
