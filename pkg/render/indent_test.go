package render

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// randomValue is a JSON value of strings that need escaping, numbers,
// literals, and empty and nested objects and arrays.
func randomValue(r *rand.Rand, depth int) any {
	strs := []string{"", "a", `q"uote`, `back\slash`, `\"`, `\\`, "<html>&", "tab\tnew\nline", "ünï", `{"x":[1,2]}`, `:,`}
	switch k := r.IntN(8); {
	case depth > 4 || k == 0:
		return strs[r.IntN(len(strs))]
	case k == 1:
		return r.Float64()*1e6 - 5e5
	case k == 2:
		return []any{nil, true, false}[r.IntN(3)]
	case k < 5:
		m := map[string]any{}
		for range r.IntN(4) {
			m[strs[r.IntN(len(strs))]] = randomValue(r, depth+1)
		}
		return m
	default:
		a := []any{}
		for range r.IntN(4) {
			a = append(a, randomValue(r, depth+1))
		}
		return a
	}
}

// TestIndentCompactIsJSONIndent: on thousands of random values, and as
// the encoder writes them (HTML left unescaped, a trailing newline), the
// fast indentation is json.Indent's, byte for byte.
func TestIndentCompactIsJSONIndent(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		var compact bytes.Buffer
		enc := json.NewEncoder(&compact)
		enc.SetEscapeHTML(i%2 == 0)
		if err := enc.Encode(randomValue(r, 0)); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "    ", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indentCompact(nil, compact.Bytes(), "    ", "  "); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%s\nindented:\n%s\nwant:\n%s", compact.Bytes(), got, want.Bytes())
		}
	}
}

// FuzzIndentCompact: whatever valid JSON encoding/json compacts it to, the
// fast indentation is json.Indent's.
func FuzzIndentCompact(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[{},[],""]}`, `"\\\""`, `[1,-2.5e3,true,null]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var compact bytes.Buffer
		if json.Compact(&compact, []byte(s)) != nil {
			return
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indentCompact(nil, compact.Bytes(), "", "  "); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%s: indented\n%s\nwant\n%s", compact.Bytes(), got, want.Bytes())
		}
	})
}
