package jsonw

import (
	"testing"

	_ "github.com/kgc-dev/kgc/internal/golden"
)

// AppendString quotes as encoding/json does with HTML unescaped.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"plain", `q"uote`, `back\slash`, "tab\there", "nl\n", "bell\a", "\x7f", "<a>&b", "bad\xffutf8", "ls\u2028ps\u2029", "grüße", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got[1:], want)
		}
	})
}
