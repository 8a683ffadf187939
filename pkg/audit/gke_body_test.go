package audit

import (
	"encoding/json"
	"testing"
)

// A LogEntry's body is copied as written, its @type giving the kind and
// apiVersion the body lacks (and replacing an apiVersion without a kind).
func TestGKEBodyKeepsTheBodyAndNamesItsType(t *testing.T) {
	for _, tc := range []struct{ in, kind, apiVersion, policy string }{
		{`{"@type":"meta.k8s.io/__internal.DeleteOptions","propagationPolicy":"Orphan"}`, "DeleteOptions", "__internal", "Orphan"},
		{`{"@type":"apps.k8s.io/v1.Deployment","apiVersion":"stale","metadata":{"name":"web"}}`, "Deployment", "apps/v1", ""},
		{`{"@type":"rbac.authorization.k8s.io/v1.ClusterRole"}`, "ClusterRole", "rbac.authorization.k8s.io/v1", ""},
		{"{\n  \"@type\": \"k8s.io/Patch\",\n  \"metadata\": {\"finalizers\": null}\n}", "", "", ""},
		{`{"kind":"Pod","apiVersion":"v1","@type":"core.k8s.io/v1.Pod"}`, "Pod", "v1", ""},
	} {
		raw, err := gkeBody(json.RawMessage(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s gave %s: %v", tc.in, raw, err)
		}
		if _, ok := m["@type"]; ok || m["kind"] != nilIfEmpty(tc.kind) || m["apiVersion"] != nilIfEmpty(tc.apiVersion) {
			t.Errorf("%s gave %s, want kind %q apiVersion %q and no @type", tc.in, raw, tc.kind, tc.apiVersion)
		}
		if tc.policy != "" && m["propagationPolicy"] != tc.policy {
			t.Errorf("%s gave %s: the body's members must be kept", tc.in, raw)
		}
	}
	if raw, err := gkeBody(json.RawMessage(`null`)); raw != nil || err != nil {
		t.Errorf("null body = %s, %v; want none", raw, err)
	}
	if _, err := gkeBody(json.RawMessage(`["not","an","object"]`)); err == nil {
		t.Errorf("an array body was taken for an object")
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
