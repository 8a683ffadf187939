package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRead: whatever a line holds, Read does not panic, and the good
// lines around it are read.
func FuzzRead(f *testing.F) {
	f.Add(`{"kind":"Event",,}`)
	f.Add(`{"kind":"Event","verb":"delete","objectRef":{"resource":"pods"}`)
	f.Add(`{"verb":"get","stageTimestamp":"x"}`)
	f.Add(`[1,{"a":"\u0000"}]`)
	f.Add(ev{id: "z", verb: "patch", req: `{"metadata":{"ownerReferences":[{"$patch":"delete"}]}}`}.line())
	before := ev{id: "before", at: "2026-11-27T10:00:01.000000Z"}.line()
	after := ev{id: "after", at: "2026-11-27T10:00:03.000000Z"}.line()
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, bad string) {
		bad = strings.ReplaceAll(bad, "\n", " ")
		n++
		p := filepath.Join(dir, fmt.Sprintf("audit-%d.log", n))
		if err := os.WriteFile(p, []byte(before+"\n"+bad+"\n"+after+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(p)
		l, err := Read([]string{p}, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for e := range l.All() {
			got[e.AuditID] = true
		}
		if !got["before"] || !got["after"] {
			t.Errorf("line %q lost its neighbours: kept %s", bad, ids(l))
		}
	})
}
