package audit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kgc-dev/kgc/internal/jsonscan"
	"github.com/kgc-dev/kgc/test/bench/auditgen/gen"
	"sigs.k8s.io/yaml"
)

// A LogEntry's body is read as the object its @type names when it has no
// kind of its own: @type gives the kind and apiVersion (replacing an
// apiVersion without a kind); a patch's @type names none.
func TestGKEBodyIsReadAsItsType(t *testing.T) {
	for _, tc := range []struct{ in, kind, apiVersion, policy, name string }{
		{`{"@type":"meta.k8s.io/__internal.DeleteOptions","propagationPolicy":"Orphan"}`, "DeleteOptions", "", "Orphan", ""},
		{`{"@type":"apps.k8s.io/v1.Deployment","apiVersion":"stale","metadata":{"name":"web"}}`, "Deployment", "apps/v1", "", "web"},
		{`{"@type":"rbac.authorization.k8s.io/v1.ClusterRole","apiVersion":{"not":"a string"}}`, "ClusterRole", "rbac.authorization.k8s.io/v1", "", ""},
		{"{\n  \"@type\": \"k8s.io/Patch\",\n  \"metadata\": {\"name\": \"web\", \"finalizers\": null}\n}", "", "", "", "web"},
		{`{"kind":"Pod","apiVersion":"v1","@type":"core.k8s.io/v1.Pod","metadata":{"name":"p"}}`, "Pod", "v1", "", "p"},
	} {
		s := scanner{jsonscan.Cursor{Data: []byte(tc.in)}}
		b, err := readBodyTyped(&s, &interner{}, &bodyType{})
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if b.kind != tc.kind {
			t.Errorf("%s read as kind %q, want %q", tc.in, b.kind, tc.kind)
		}
		switch {
		case tc.policy != "" && (b.delete == nil || b.delete.PropagationPolicy != tc.policy):
			t.Errorf("%s read as DeleteOptions %+v, want propagationPolicy %s", tc.in, b.delete, tc.policy)
		case tc.name != "" && (!b.hasMeta || b.meta.Name != tc.name || b.meta.APIVersion != tc.apiVersion):
			t.Errorf("%s read as %+v, want name %s apiVersion %q", tc.in, b.meta, tc.name, tc.apiVersion)
		}
	}
	s := scanner{jsonscan.Cursor{Data: []byte(`{"apiVersion":5,"metadata":{"name":"web"}}`)}}
	if _, err := readBodyTyped(&s, &interner{}, &bodyType{}); err == nil {
		t.Errorf("an apiVersion that is no string, and no @type to replace it, was read")
	}
}

// refRead reads an entry as kgc did before gke.go: the verdict, the
// stage when kept, the timestamp when dropped.
func refRead(v []byte, in *interner) (verdict, stage, []byte, error) {
	native, err := refEvent(v)
	switch {
	case err != nil:
		return undecided, stage{}, nil, err
	case native == nil:
		return passOver, stage{}, nil, nil
	}
	var h head
	verd, err := prefilter(native, &h)
	if err != nil || verd != keep {
		return verd, stage{}, h.stageTime, err
	}
	st, err := parseStage(native, in)
	return keep, st, nil, err
}

// gkeReadAny reads v as the converter does when classify says it is a
// LogEntry; what is not one is refused as not an audit event.
func gkeReadAny(v []byte) (verdict, stage, []byte, error) {
	f, _, at, err := classifyKey(v)
	if err == nil && f != formGKE {
		err = notEvent("not a LogEntry")
	}
	if err != nil {
		return undecided, stage{}, nil, err
	}
	return gkeRead(v, at, &interner{})
}

// compareWithReference holds gkeRead to refRead on an entry Cloud
// Logging could have written: valid JSON in UTF-8, the keys of a
// LogEntry spelled once each, as written. It reads it the same; where
// the reference refuses it, gkeRead may read a dropped entry no further
// than its verdict, as the native reader reads a line, but keeps none.
func compareWithReference(t *testing.T, v []byte) {
	t.Helper()
	wv, wst, wt, werr := refRead(v, &interner{})
	gv, gst, gt, gerr := gkeReadAny(v)
	if werr != nil {
		if gerr == nil && gv == keep {
			t.Errorf("%s: kept, where encoding/json refuses it: %v", v, werr)
		}
		return
	}
	switch {
	case gerr != nil:
		t.Errorf("%s: %v; encoding/json reads it (verdict %d)", v, gerr, wv)
	case gv != wv:
		t.Errorf("%s: verdict %d, encoding/json's %d", v, gv, wv)
	case !bytes.Equal(gt, wt):
		t.Errorf("%s: verdict %d at %q, encoding/json's at %q", v, gv, gt, wt)
	case !reflect.DeepEqual(gst, wst):
		t.Errorf("%s:\nread    %+v\nwant    %+v", v, gst, wst)
	}
}

// logEntryKeys are the keys of a LogEntry the reader reads, by the key
// of the object holding them ("" the entry).
var logEntryKeys = map[string][]string{
	"":                   {"insertId", "timestamp", "labels", "operation", "protoPayload"},
	"operation":          {"id"},
	"protoPayload":       {"@type", "methodName", "resourceName", "request", "response", "authenticationInfo", "requestMetadata", "status"},
	"authenticationInfo": {"principalEmail"},
	"requestMetadata":    {"callerIp", "callerSuppliedUserAgent"},
	"status":             {"code", "message"},
}

// asWritten says whether v is an entry as Cloud Logging writes one:
// valid JSON in UTF-8, the keys of a LogEntry spelled once each, not
// escaped nor in another case (which encoding/json would match), and
// classify must take it for a LogEntry, as the converter would.
func asWritten(v []byte) bool {
	if f, _, err := classify(v); err != nil || f != formGKE || !json.Valid(v) || !utf8.Valid(v) {
		return false
	}
	var walk func(s *scanner, at string) bool
	walk = func(s *scanner, at string) bool {
		ok := true
		seen := map[string]bool{}
		err := s.Object(func(key []byte) error {
			k := string(key)
			for _, n := range logEntryKeys[at] {
				if strings.EqualFold(k, n) && (k != n || seen[k]) || strings.Contains(k, `\`) {
					ok = false
				}
			}
			seen[k] = true
			if _, nested := logEntryKeys[k]; nested && (at == "" || at == "protoPayload") && s.Peek() == '{' {
				ok = walk(s, k) && ok
				return nil
			}
			return s.Skip()
		})
		return ok && err == nil
	}
	s := scanner{jsonscan.Cursor{Data: v}}
	return s.Peek() == '{' && walk(&s, "")
}

// gkeEntries are LogEntries of a generated log, with its cascades.
func gkeEntries(t testing.TB, n int) [][]byte {
	var native, export bytes.Buffer
	if _, err := gen.Write(&native, gen.Options{Events: n, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	if err := gen.Export(&export, &native, "gke-logentry"); err != nil {
		t.Fatal(err)
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(export.Bytes(), &entries); err != nil {
		t.Fatal(err)
	}
	out := make([][]byte, len(entries))
	for i, e := range entries {
		out[i] = e
	}
	return out
}

// The reader reads every entry of a generated log, and the forms' test
// events, as encoding/json did.
func TestGKEReadLikeEncodingJSON(t *testing.T) {
	entries := gkeEntries(t, 20_000)
	for _, l := range formEvents() {
		entries = append(entries, mustJSON(logEntry(l), ""))
	}
	kept := 0
	for _, v := range entries {
		if !asWritten(v) {
			t.Fatalf("%s is not an entry as Cloud Logging writes it", v)
		}
		if verd, _, _, _ := gkeReadAny(v); verd == keep {
			kept++
		}
		compareWithReference(t, v)
	}
	if kept == 0 || kept == len(entries) {
		t.Errorf("%d of %d entries kept: the comparison must see both verdicts", kept, len(entries))
	}
}

// The real GKE entries among the real-world audit files (YAML read as
// JSON) are read as encoding/json read them.
func TestGKEReadRealEntriesLikeEncodingJSON(t *testing.T) {
	dir := filepath.Join(realWorld(t), "khi-gke-logentry-yaml")
	files, _ := filepath.Glob(filepath.Join(dir, "container_recorder_test_*.yaml"))
	if len(files) == 0 {
		t.Skipf("no real GKE entries in %s", dir)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		v, err := yaml.YAMLToJSON(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if verd, _, _, err := gkeReadAny(v); verd == passOver || err != nil {
			t.Errorf("%s: verdict %d, %v; want it read as an audit event", p, verd, err)
		}
		compareWithReference(t, v)
	}
}

// FuzzGKEEntry: any entry Cloud Logging could write is read as
// encoding/json read it; no entry panics the reader.
func FuzzGKEEntry(f *testing.F) {
	for _, l := range formEvents() {
		f.Add(mustJSON(logEntry(l), ""))
	}
	for _, v := range gkeEntries(f, 300)[:40] {
		f.Add(v)
	}
	f.Add([]byte(`{"protoPayload":{"methodName":"io.k8s.core.v1.events.create","resourceName":"core/v1/namespaces/a/events/e","authenticationInfo":{"principalEmail":"x\"system:serviceaccount:kube-system:generic-garbage-collector"}},"timestamp":"2026-01-01T00:00:00Z","insertId":"i"}`))
	f.Add([]byte(`{"protoPayload":{"methodName":"io.k8s.apps.v1.deployments.delete","request":{"@type":"meta.k8s.io/__internal.DeleteOptions","apiVersion":1},"resourceName":"apps/v1/namespaces/a/deployments/d","status":{"code":5,"message":"not \u003cfound\u003e"}},"labels":{"authorization.k8s.io\/decision":"allow"},"timestamp":"2026-01-01T00:00:00.5+02:00","operation":{"id":"o"}}`))
	f.Fuzz(func(t *testing.T, v []byte) {
		if asWritten(v) {
			compareWithReference(t, v)
			return
		}
		_, _, _, _ = gkeReadAny(v)
	})
}
