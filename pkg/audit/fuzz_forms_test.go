package audit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// formSeeds are a small log in every form kgc reads.
func formSeeds() map[string][]byte {
	lines := formEvents()[:2]
	out := map[string][]byte{
		"gcloud-yaml": gcloudYAML(lines), "event-hubs": eventHubs(lines), "la-csv": logAnalyticsCSV(lines),
		"native": []byte(strings.Join(lines, "\n")),
	}
	for name, f := range exportForms {
		out[name] = f(lines)
	}
	return out
}

// FuzzReadAnyForm: whatever a file holds, Read does not panic, and an
// error names the file.
func FuzzReadAnyForm(f *testing.F) {
	for _, seed := range formSeeds() {
		f.Add(seed)
	}
	f.Add([]byte("\xef\xbb\xbf{\"records\":[{\"category\":\"kube-audit\",\"properties\":{\"log\":\"{}\"}}]}"))
	f.Add([]byte("master-0 {\"kind\":\"Event\"}\n"))
	f.Add([]byte("H4sIAAAAAAAA\n"))
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, data []byte) {
		n++
		p := filepath.Join(dir, fmt.Sprintf("audit-%d.log", n))
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(p)
		l, err := Read([]string{p}, nil, Options{})
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		for e := range l.All() {
			if e.AuditID == "" || e.Verb == "" || e.Time.IsZero() {
				t.Errorf("an event without its identity: %+v", e)
			}
		}
	})
}

// fuzzConvert reads one value through a converter, as a record of a
// file of any form would be.
func fuzzConvert(t *testing.T, read func(cv *converter)) {
	c := startRequestTable(Options{})
	acc := newAccumulator(0, "fuzz.log", Options{}, c)
	cv := &converter{acc: acc}
	acc.cv = cv
	read(cv)
	acc.flush()
	c.wait()
	// What was filed is an audit event, with its identity.
	for i := range int32(c.n) {
		if e, _ := c.at(i); e.AuditID == "" || e.Verb == "" || e.Time.IsZero() {
			t.Errorf("an event without its identity: %+v", e)
		}
	}
}

// FuzzRecord: a record of any platform's form (GKE entry, AKS record, Log
// Analytics row, CloudWatch event, wrapper) is read or named bad, never
// a panic.
func FuzzRecord(f *testing.F) {
	lines := formEvents()
	for _, seed := range [][]byte{
		mustJSON(logEntry(lines[0]), ""), mustJSON(aksRecordOf(lines[0], "kube-audit-admin"), ""),
		mustJSON(logAnalyticsRows(lines[:1])[0], ""), filterLogEvents(lines[:1]), insightsJSON(lines[:1]),
		[]byte(`{"awslogs":{"data":"` + payload("DATA_MESSAGE", lines[:1]) + `"}}`),
		[]byte(`{"kubernetes":{"audit":` + lines[0] + `}}`),
		[]byte(`{"protoPayload":{"methodName":"io.k8s.core.v1.namespaces.delete","resourceName":"core/v1/namespaces/x"}}`),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		fuzzConvert(t, func(cv *converter) { cv.value(v, 1) })
	})
}

// FuzzYAMLAndCSV: a YAML or CSV export of any content is read or named
// bad, never a panic.
func FuzzYAMLAndCSV(f *testing.F) {
	lines := formEvents()
	f.Add(gcloudYAML(lines[:2]), false)
	f.Add([]byte("# header\n---\nkind: Event\nverb: delete\n---\n- a\n"), false)
	f.Add(insightsCSV(lines[:2]), true)
	f.Add(logAnalyticsCSV(lines[:2]), true)
	f.Add([]byte("@timestamp,@message\n\"x,\"\"y\"\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, isCSV bool) {
		fuzzConvert(t, func(cv *converter) {
			var err error
			if isCSV {
				err = readCSV(bytes.NewReader(data), cv, formEKSInsightsCSV, 1)
			} else {
				err = readYAML(bytes.NewReader(data), cv, 1)
			}
			_ = err // an error is the file's, named by Read
		})
	})
}
