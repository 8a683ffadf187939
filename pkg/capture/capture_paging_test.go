package capture

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/kgc-dev/kgc/pkg/capture/capturetest"
)

// PageSize is kubectl's --chunk-size: the limit of every list request,
// 1000 by default, and no limit at all (one request per type) with
// NoPaging. Either way the snapshot holds the same objects.
func TestCapturePageSize(t *testing.T) {
	var want []string
	for _, tc := range []struct {
		name      string
		pageSize  int64
		limit     string
		continued bool
	}{
		{"default", 0, "1000", true}, // the fake pages by two whatever the limit
		{"chunk size 2", 2, "2", true},
		{"no paging", NoPaging, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &capturetest.FakeAPIServer{}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			s, err := Capture(context.Background(), &rest.Config{Host: srv.URL}, Options{Workers: 2, PageSize: tc.pageSize})
			if err != nil {
				t.Fatal(err)
			}
			continued := false
			for _, l := range fake.Lists {
				if l.Limit != tc.limit {
					t.Errorf("list of %s asked for limit %q, want %q", l.Path, l.Limit, tc.limit)
				}
				continued = continued || l.Continue != ""
			}
			if continued != tc.continued {
				t.Errorf("continued pages asked: %v, want %v", continued, tc.continued)
			}
			var uids []string
			for _, o := range s.Objects {
				uids = append(uids, o.Metadata.UID+" "+o.Metadata.Name)
			}
			slices.Sort(uids)
			if want == nil {
				want = uids
			} else if !slices.Equal(uids, want) {
				t.Errorf("objects %v, want those of the default capture %v", uids, want)
			}
		})
	}
}
