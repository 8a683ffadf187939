package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/test/bench/auditgen/gen"
)

// TestNoSecretSurvives: a log of Secret bodies (data, stringData,
// last-applied annotations, managedFields), TokenRequest responses and
// pods with secrets in their env, read and marshalled, holds none of it.
func TestNoSecretSurvives(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.log")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	st, err := gen.Write(f, gen.Options{Events: 20000, Seed: 7})
	if err != nil || f.Close() != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(p)
	for _, s := range []string{gen.SecretValue, gen.Token} {
		if !strings.Contains(string(raw), s) {
			t.Fatalf("the generated log lacks %q: the test would prove nothing", s)
		}
	}
	l, err := Read([]string{p}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() < st.Deletes/2 {
		t.Fatalf("kept %d events of a log with %d deletes", l.Len(), st.Deletes)
	}
	out, _ := json.Marshal(l)
	for _, s := range []string{gen.SecretValue, gen.Token, "managedFields", "last-applied", "stringData", "vault.hashicorp.com", "DB_PASSWORD", "restartedAt"} {
		if strings.Contains(string(out), s) {
			t.Errorf("the read log holds %q", s)
		}
	}
}
