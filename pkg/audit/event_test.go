package audit

import (
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/internal/jsonscan"
)

// TestRequestKeptOnlyWhenItAddsToResponse: a write's request object is
// kept when it says what its response does not (a patch removing a
// finalizer), and dropped when the response names the same object (a
// create's body), as a post-mortem then reads the response alone.
func TestRequestKeptOnlyWhenItAddsToResponse(t *testing.T) {
	const head = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"a-1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/ns/configmaps/cm","user":{"username":"u"},"objectRef":{"resource":"configmaps","namespace":"ns","name":"cm","apiVersion":"v1"},"stageTimestamp":"2026-11-27T10:00:00.000001Z",`
	const response = `"responseObject":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","namespace":"ns","uid":"u-1","finalizers":["a"]}}}`
	for _, tc := range []struct {
		name, verb, request string
		kept                bool
	}{
		{"create", "create", `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","namespace":"ns"}}`, false},
		{"label patch", "patch", `{"metadata":{"labels":{"x":"y"}}}`, false},
		{"finalizer removed", "patch", `{"metadata":{"$deleteFromPrimitiveList/finalizers":["b"]}}`, true},
	} {
		l := head + `"verb":"` + tc.verb + `","requestObject":` + tc.request + `,` + response
		var in interner
		st, err := parseStage([]byte(l), &in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := st.ev.Request != nil; got != tc.kept {
			t.Errorf("%s: request kept %v, want %v", tc.name, got, tc.kept)
		}
		if r := st.ev.Response; r == nil || r.UID != "u-1" {
			t.Errorf("%s: response %+v", tc.name, r)
		}
		if tc.kept && (st.ev.Request.MetaExtras == nil || len(st.ev.Request.RemovedFinalizers) != 1) {
			t.Errorf("%s: request %+v", tc.name, st.ev.Request)
		}
	}
}

// TestRequestReadOnlyWhenItCanCount: a request object is read once the
// rest of its event is, and only when it can count. Left unread, as the
// spec of every body is, its errors go unsaid; read, its error is the
// line's, before any later member's.
func TestRequestReadOnlyWhenItCanCount(t *testing.T) {
	const head = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"a-1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/ns/configmaps/cm","user":{"username":"u"},"objectRef":{"resource":"configmaps","namespace":"ns","name":"cm","apiVersion":"v1"},`
	const named = `"responseObject":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","namespace":"ns","uid":"u-1"}}`
	const unnamed = `"responseObject":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","namespace":"ns"}}`
	const at = `"stageTimestamp":"2026-11-27T10:00:00.000001Z"`
	const broken = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","ownerReferences":"x"}}`
	for _, tc := range []struct {
		name, verb, request, rest string
		// wantErr: the line's error is reading request's; else the
		// request kept, and the DeleteOptions' policy.
		wantErr      bool
		kept         bool
		policy       string
		removedOwner string
	}{
		{"broken, response names the object", "update", broken, named + `,` + at, false, false, "", ""},
		{"broken, response without uid", "update", broken, unnamed + `,` + at, true, false, "", ""},
		{"broken, a later member broken too", "update", broken, named + `,"stageTimestamp":5`, true, false, "", ""},
		{"broken, no response", "update", broken, at, true, false, "", ""},
		{"broken DeleteOptions", "delete", `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":5}`, named + `,` + at, true, false, "", ""},
		{"DeleteOptions", "delete", `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Orphan"}`, named + `,` + at, false, false, "Orphan", ""},
		{"owner reference removed", "patch", `{"metadata":{"ownerReferences":[{"$patch":"delete","uid":"o-1"}]}}`, named + `,` + at, false, true, "", "o-1"},
		{"repeated, the last read", "update", broken + `,"requestObject":null`, unnamed + `,` + at, false, false, "", ""},
	} {
		l := head + `"verb":"` + tc.verb + `","requestObject":` + tc.request + `,` + tc.rest + `}`
		var in interner
		st, err := parseStage([]byte(l), &in)
		if tc.wantErr {
			r := scanner{jsonscan.Cursor{Data: []byte(l), Pos: strings.Index(l, `"requestObject":`) + len(`"requestObject":`)}}
			_, want := readBody(&r, &in)
			if want == nil || err == nil || err.Error() != want.Error() {
				t.Errorf("%s: error %v, want reading the request's: %v", tc.name, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := st.ev.Request != nil; got != tc.kept {
			t.Errorf("%s: request kept %v, want %v", tc.name, got, tc.kept)
		}
		if tc.removedOwner != "" && (!tc.kept || len(st.ev.Request.OwnersRemoved()) != 1 || st.ev.Request.OwnersRemoved()[0] != tc.removedOwner) {
			t.Errorf("%s: request %+v, want it to remove %s", tc.name, st.ev.Request, tc.removedOwner)
		}
		if got := ""; st.ev.Delete != nil || tc.policy != "" {
			if st.ev.Delete != nil {
				got = st.ev.Delete.PropagationPolicy
			}
			if got != tc.policy {
				t.Errorf("%s: propagation policy %q, want %q", tc.name, got, tc.policy)
			}
		}
	}
}
