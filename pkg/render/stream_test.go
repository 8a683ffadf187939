package render

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

type streamItem struct {
	Name  string            `json:"name"`
	Tags  []string          `json:"tags,omitempty"`
	Attrs map[string]string `json:"attrs,omitempty"`
}

type streamDoc struct {
	APIVersion string       `json:"apiVersion"`
	Note       string       `json:"note,omitempty"`
	Count      int          `json:"count,omitempty"`
	When       *time.Time   `json:"when,omitempty"`
	Items      []streamItem `json:"items"`
	Empty      []streamItem `json:"empty"`
	Nil        []streamItem `json:"nil"`
	Skipped    []string     `json:"skipped,omitempty"`
	Raw        []byte       `json:"raw,omitempty"`
	Inner      streamItem   `json:"inner"`
	Hidden     string       `json:"-"`
	private    string
	Untagged   bool
}

type embedded struct {
	streamItem
	Extra string `json:"extra"`
}

// TestStreamJSONMatchesTheEncoder: whatever the document, the streamed
// JSON is byte for byte what encoding/json writes with the same settings.
func TestStreamJSONMatchesTheEncoder(t *testing.T) {
	at := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	docs := map[string]any{
		"struct": streamDoc{APIVersion: "kgc.dev/v1alpha1", Count: 2, When: &at, Raw: []byte("x"), private: "p", Hidden: "h",
			Items: []streamItem{{Name: "<a & b>", Tags: []string{"x", "y"}}, {Name: "c", Attrs: map[string]string{"k": "v"}}},
			Empty: []streamItem{}, Inner: streamItem{Name: "in"}},
		"pointer":       &streamDoc{APIVersion: "v", Note: "n"},
		"zero":          streamDoc{},
		"top-level map": map[string]int{"b": 1, "a": 2},
		"top slice":     []streamItem{{Name: "a"}},
		"embedded":      embedded{streamItem: streamItem{Name: "e"}, Extra: "x"},
		"marshaler":     at,
		"nil pointer":   (*streamDoc)(nil),
		"big slice":     streamDoc{Items: bigItems(3*parallelMin + 7)},
	}
	for name, v := range docs {
		want, err := encodeJSON(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got bytes.Buffer
		if err := streamJSON(&got, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: streamed\n%s\nencoding/json\n%s", name, got.Bytes(), want)
		}
	}
}

// bigItems is a slice long enough to be encoded on several cores.
func bigItems(n int) []streamItem {
	out := make([]streamItem, n)
	for i := range out {
		out[i] = streamItem{Name: fmt.Sprintf("item-%d", i), Tags: []string{fmt.Sprint(i % 7)}}
	}
	return out
}

// FuzzStreamJSONStrings: whatever a name holds (invalid UTF-8, control
// characters, U+2028, HTML), the streamed JSON is encoding/json's.
func FuzzStreamJSONStrings(f *testing.F) {
	for _, s := range []string{"<a & b>", "\u2028\u2029", "\x00\x1f\x7f", "\xff\xfe", "é\"\\/", "\ufffd"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, name, tag string) {
		doc := streamDoc{APIVersion: name, Items: append(bigItems(parallelMin), streamItem{Name: name, Tags: []string{tag}, Attrs: map[string]string{tag: name, name: tag}})}
		want, err := encodeJSON(doc)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := streamJSON(&got, doc); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%q %q: streamed\n%s\nencoding/json\n%s", name, tag, got.Bytes()[len(got.Bytes())-300:], want[len(want)-300:])
		}
	})
}
