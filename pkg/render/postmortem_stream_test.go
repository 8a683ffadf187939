package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/postmortem"
)

// deletionsLog is a log of n pods deleted by a user across namespaces,
// and a pod the garbage collector deleted for a ReplicaSet whose own
// deletion is not in it (a root the log misses, and a warning).
func deletionsLog(n int) *audit.Log {
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	log := &audit.Log{Files: []audit.File{{Path: "audit.log", Events: n + 1, Kept: n + 1, First: at, Last: at.Add(time.Duration(n) * time.Second)}}}
	events := make([]audit.Event, 0, n+1)
	for i := range n {
		t := at.Add(time.Duration(i) * time.Second)
		events = append(events, audit.Event{AuditID: fmt.Sprintf("id-%06d", i), Level: audit.LevelMetadata, Stage: audit.StageResponseComplete,
			Verb: "delete", User: audit.User{Username: "alice"}, UserAgent: "kubectl/v1.36.3", Code: 200, Received: t, Time: t,
			Object: audit.Ref{Resource: "pods", Namespace: fmt.Sprintf("ns-%d", i%5), Name: fmt.Sprintf("pod-%d", i), UID: fmt.Sprintf("uid-%d", i)}})
	}
	t := at.Add(time.Duration(n) * time.Second)
	events = append(events, audit.Event{AuditID: "id-gc", Level: audit.LevelRequestResponse, Stage: audit.StageResponseComplete,
		Verb: "delete", User: audit.User{Username: audit.GarbageCollectorUser}, Code: 200, Received: t, Time: t,
		Object: audit.Ref{Resource: "pods", Namespace: "ns-0", Name: "web-1", UID: "uid-web-1"},
		Response: &audit.Meta{APIVersion: "v1", Kind: "Pod", Namespace: "ns-0", Name: "web-1", UID: "uid-web-1",
			OwnerReferences: []audit.OwnerRef{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "uid-web"}}}})
	log.SetEvents(events)
	return log
}

// TestPostMortemJSONIsTheDocument: a post-mortem written as its roots are
// built, several batches of them, is byte for byte the document of the
// whole analysis, in and out of scope, with or without roots.
func TestPostMortemJSONIsTheDocument(t *testing.T) {
	log := deletionsLog(2*postmortem.RootBatch + 5)
	cases := map[string]postmortem.Input{
		"every namespace": {Log: log},
		"one namespace":   {Log: log, Scope: postmortem.Scope{Namespace: "ns-3"}},
		"no root":         {Log: log, Scope: postmortem.Scope{Namespace: "elsewhere"}},
	}
	for name, in := range cases {
		var want, got bytes.Buffer
		if err := Document(&want, "json", postmortem.Analyze(in)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		a, err := postmortem.Prepare(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := PostMortemJSON(&got, a); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: written as built (%d bytes) is not the document (%d bytes)", name, got.Len(), want.Len())
		}
	}
	var all bytes.Buffer
	a, err := postmortem.Prepare(cases["every namespace"])
	if err != nil {
		t.Fatal(err)
	}
	if err := PostMortemJSON(&all, a); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"auditID": "id-004100"`, `"warnings": [`, "ReplicaSet/web -n ns-0 is not in the log"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("the document lacks %s", want)
		}
	}
}

// TestPostMortemTextIsTheDocument: the text written as the roots are
// built is the text of the whole analysis, with and without roots.
func TestPostMortemTextIsTheDocument(t *testing.T) {
	log := deletionsLog(2*postmortem.RootBatch + 5)
	for name, in := range map[string]postmortem.Input{
		"every namespace": {Log: log},
		"no root":         {Log: log, Scope: postmortem.Scope{Namespace: "elsewhere"}},
	} {
		var want, got bytes.Buffer
		if err := PostMortemText(&want, postmortem.Analyze(in), Style{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		a, err := postmortem.Prepare(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := PostMortemTextStream(&got, a, Style{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: written as built (%d bytes) is not the text of the whole analysis (%d bytes)", name, got.Len(), want.Len())
		}
	}
}
