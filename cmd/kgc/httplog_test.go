package main

import (
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/capture/capturetest"
)

// -v=6 and up log every HTTP request on stderr as kubectl does (method,
// URL, status, time); below, none; and a -v of one run does not carry over
// to the next.
func TestVerbosityLogsHTTPRequests(t *testing.T) {
	srv := httptest.NewServer(&capturetest.FakeAPIServer{})
	defer srv.Close()
	// kubectl's lines: at 6 one per response with its request; from 7 the
	// request with its headers, then the response.
	line := regexp.MustCompile(`(?m)^I\d{4} [0-9:.]+ +\d+ round_trippers\.go:\d+\] "(Response|Request)" verb="GET" url="` + regexp.QuoteMeta(srv.URL) + `/api/v1/namespaces\?[^"]*"`)
	for _, c := range []struct {
		v    string
		logs bool
	}{{"6", true}, {"5", false}, {"0", false}, {"7", true}} {
		_, stderr, code := kgcRun(t, "", "--server", srv.URL, "--context", "", "graph", "-A", "-v="+c.v)
		if code != exitOK {
			t.Fatalf("-v=%s: exit %d: %s", c.v, code, stderr)
		}
		if got := line.MatchString(stderr); got != c.logs {
			t.Errorf("-v=%s: logs requests %v, want %v:\n%s", c.v, got, c.logs, stderr)
		}
		if c.v == "7" && !strings.Contains(stderr, "headers=<\n\tAccept: ") {
			t.Errorf("-v=7: no request headers:\n%s", stderr)
		}
	}
}
