package audit

import "testing"

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
