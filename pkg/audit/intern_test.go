package audit

import (
	"slices"
	"testing"
)

// TestInternedListsStayApart: lists are shared between events, but two
// different lists never read as one, whatever bytes their strings hold;
// an empty list stays empty and not absent.
func TestInternedListsStayApart(t *testing.T) {
	body := func(finalizers string) string {
		return `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","uid":"u-1","finalizers":` + finalizers + `}}`
	}
	p := write(t, t.TempDir(), "audit.log", lines(
		ev{id: "a", resp: body(`["a","b"]`)},
		ev{id: "b", resp: body(`["a\u0000b"]`)},
		ev{id: "c", resp: body(`["a","b"]`)},
		ev{id: "d", resp: body(`[]`)},
	))
	l := mustRead(t, []string{p}, "", Options{})
	got := map[string][]string{}
	for e := range l.All() {
		got[e.AuditID] = e.Response.Finalizers
	}
	for id, want := range map[string][]string{"a": {"a", "b"}, "b": {"a\x00b"}, "c": {"a", "b"}, "d": {}} {
		if !slices.Equal(got[id], want) || got[id] == nil {
			t.Errorf("%s: finalizers %q, want %q", id, got[id], want)
		}
	}
}
