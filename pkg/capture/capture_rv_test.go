package capture

import (
	"context"
	"net/http/httptest"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/kgc-dev/kgc/pkg/capture/capturetest"
)

// A capture reads lists from the watch cache unless asked for quorum
// reads: the first page of each list carries resourceVersion=0, and later
// pages only their continue token (the API server rejects both at once).
func TestCaptureReadConsistency(t *testing.T) {
	for _, tc := range []struct {
		name       string
		consistent bool
		firstPage  string
	}{
		{"watch cache by default", false, "0"},
		{"quorum reads with ConsistentRead", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &capturetest.FakeAPIServer{}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			if _, err := Capture(context.Background(), &rest.Config{Host: srv.URL}, Options{Workers: 2, PageSize: 2, ConsistentRead: tc.consistent}); err != nil {
				t.Fatal(err)
			}
			var first, later int
			for _, l := range fake.Lists {
				switch {
				case l.Continue == "" && l.ResourceVersion != tc.firstPage:
					t.Errorf("first page of %s asked for resourceVersion %q, want %q", l.Path, l.ResourceVersion, tc.firstPage)
				case l.Continue != "" && l.ResourceVersion != "":
					t.Errorf("continued page of %s asked for resourceVersion %q as well as a continue token", l.Path, l.ResourceVersion)
				}
				if l.Continue == "" {
					first++
				} else {
					later++
				}
			}
			if first == 0 || later == 0 {
				t.Fatalf("the fake served %d first pages and %d continued pages; the test needs both", first, later)
			}
		})
	}
}
