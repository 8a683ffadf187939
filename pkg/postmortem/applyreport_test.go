package postmortem

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// A root request whose audit ID is in a kgc apply report says it was sent
// by kgc apply, with the plan's digest and the report's file; another
// root with the same user, object kind and time says nothing; a report's
// request the log does not hold is warned about.
func TestApplyReportJoinsByAuditID(t *testing.T) {
	deploy, rs := deployment()
	other := testobj.Deployment("team-a", "api").Build()
	before := testobj.Snapshot(testobj.Namespace("team-a").Build(), deploy, rs, other).Build()
	after := testobj.Snapshot(testobj.Namespace("team-a").Build()).At(t0.Add(time.Hour)).Build()
	b := &logBuilder{level: audit.LevelMetadata}
	b.add("alice", "delete", ref("apps", "deployments", "team-a", "web"), func(e *audit.Event) { e.AuditID = "5b0c1b4e-kgc" })
	b.add("alice", "delete", ref("apps", "deployments", "team-a", "api"))
	b.add(gcUser, "delete", ref("apps", "replicasets", "team-a", "web-1"), precondition(rs.Metadata.UID))
	report := `{"apiVersion":"kgc.dev/v1alpha1","kind":"ApplyReport","digest":"sha256:0123","requests":[` +
		`{"verb":"DELETE","auditID":"5b0c1b4e-kgc","status":200},{"verb":"DELETE","auditID":"not-in-the-log","status":0}]}`
	rep, err := ReadApplyReport([]byte(report), "apply.json")
	if err != nil {
		t.Fatal(err)
	}
	pm := Analyze(Input{Log: b.log(), Before: before, After: after, ApplyReports: []ApplyReport{rep}})
	web, api := rootOf(t, pm, "Deployment", "web"), rootOf(t, pm, "Deployment", "api")
	if got := web.Request.ApplyReport; got == nil || *got != (ApplyReportRef{Digest: "sha256:0123", File: "apply.json"}) {
		t.Errorf("web's root request: applyReport %+v, want the report's digest and file", got)
	}
	if api.Request.ApplyReport != nil {
		t.Errorf("api's root request was not sent by kgc apply, but says %+v", api.Request.ApplyReport)
	}
	if w := strings.Join(pm.Warnings, "\n"); !strings.Contains(w, "apply.json: request not-in-the-log of kgc apply is not in the log") {
		t.Errorf("warnings %q do not name the report's request missing from the log", pm.Warnings)
	}
}

// A file that is not an ApplyReport is refused, naming the file.
func TestReadApplyReportRefusesOtherDocuments(t *testing.T) {
	for doc, want := range map[string]string{
		`{"kind":"Plan"}`: `plan.json: kind "Plan", want an ApplyReport`,
		`{"kind":`:        "plan.json: not an ApplyReport",
	} {
		if _, err := ReadApplyReport([]byte(doc), "plan.json"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", doc, err, want)
		}
	}
}
