package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writePlan plans a delete from the shop dump and writes the document.
func writePlan(t *testing.T, edit func(map[string]any)) string {
	t.Helper()
	out, errOut, code := runPlanCmd(t, "plan", "delete", "deploy/web", "-n", "shop", "-f", fixedDump(t, "testdata/plan-shop.yaml"), "-o", "json")
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s", code, errOut)
	}
	// A plan from files cannot be applied: no digest is offered for it
	// (the e2e suite checks that a live plan prints one).
	if strings.Contains(errOut, "plan digest:") {
		t.Errorf("kgc plan offered a digest for a plan made from files:\n%s", errOut)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(doc)
	}
	b, _ := json.Marshal(doc)
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func runApplyCmd(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Setenv("NO_COLOR", "1")
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "no-kubeconfig"))
	var out, errOut strings.Builder
	code = Run(testFactory(strings.NewReader(stdin), &out, &errOut), append([]string{"kgc"}, args...))
	return out.String(), errOut.String(), code
}

func TestApplyCommandOffline(t *testing.T) {
	fromFiles := writePlan(t, nil)
	old := writePlan(t, func(d map[string]any) { delete(d, "basis"); delete(d, "digest"); delete(d, "request") })
	yamlPlan, _, _ := runPlanCmd(t, "plan", "delete", "deploy/web", "-n", "shop", "-f", fixedDump(t, "testdata/plan-shop.yaml"), "-o", "yaml")
	tests := []struct {
		name     string
		stdin    string
		args     []string
		wantCode int
		wantOut  []string
		wantErr  string
	}{
		{name: "-f is refused", args: []string{"apply", "delete", "deploy/web", "-n", "shop", "-f", "dump.yaml"}, wantCode: exitUsage, wantErr: "live cluster only"},
		{name: "client dry run", args: []string{"apply", fromFiles, "--dry-run=client"}, wantCode: exitUsage, wantErr: "use --dry-run=server"},
		{name: "no plan", args: []string{"apply"}, wantCode: exitUsage, wantErr: "which plan?"},
		{name: "a plan from files", args: []string{"apply", fromFiles, "--yes"}, wantCode: exitOtherCluster,
			wantOut: []string{"Outcome: refused (other-cluster), no request was sent: the plan was made from files"}, wantErr: "made from files"},
		{name: "a YAML plan from files on stdin", stdin: yamlPlan, args: []string{"apply", "-", "--yes"}, wantCode: exitOtherCluster, wantErr: "made from files"},
		{name: "a plan without basis", args: []string{"apply", old, "--yes"}, wantCode: exitStale, wantErr: "re-plan"},
		{name: "a plan without basis, json", args: []string{"apply", old, "-o", "json"}, wantCode: exitStale,
			wantOut: []string{`"kind": "ApplyReport"`, `"outcome": "refused"`, `"reason": "no-basis"`, `"requests": []`}},
		{name: "not a plan", args: []string{"apply", "testdata/plan-shop.yaml"}, wantCode: exitError, wantErr: "not a kgc.dev/v1alpha1 Plan"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runApplyCmd(t, tc.stdin, tc.args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, out, errOut)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantErr, errOut)
			}
		})
	}
}

// A why-stuck document made from files offers remedy ids, but apply
// refuses them before connecting: nothing in a dump pins a live object.
func TestApplyRemedyOffline(t *testing.T) {
	why, errOut, code := runPlanCmd(t, "why-stuck", "-A", "-f", "../../examples", "-o", "json")
	if code != 0 {
		t.Fatalf("why-stuck: exit %d\n%s", code, errOut)
	}
	path := filepath.Join(t.TempDir(), "why.json")
	if err := os.WriteFile(path, []byte(why), 0o600); err != nil {
		t.Fatal(err)
	}
	const id = "remove-finalizer:widget:shop/gizmo:widgets.example.com/cleanup"
	out, errOut, code := runApplyCmd(t, "", "apply", path, "--remedy", id, "--yes")
	if code != exitOtherCluster || !strings.Contains(errOut, "the diagnosis was made from files") ||
		!strings.Contains(out, "Apply of remedy "+id) || !strings.Contains(out, "Outcome: refused (other-cluster), no request was sent:") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	_, errOut, code = runApplyCmd(t, "", "apply", path, "--remedy", "remove-finalizer:widget:shop/gizmo:nope", "--yes")
	if code != exitError || !strings.Contains(errOut, "offers no remedy") {
		t.Errorf("unknown id: exit %d\n%s", code, errOut)
	}
	_, errOut, code = runApplyCmd(t, "", "apply", writePlan(t, nil), "--remedy", id, "--yes")
	if code != exitError || !strings.Contains(errOut, `is a "Plan" document, not a why-stuck one`) {
		t.Errorf("a plan given to --remedy: exit %d\n%s", code, errOut)
	}
}

func TestApplyExitCodes(t *testing.T) {
	refusal := func(reason string) error { return &report.Refusal{Reason: reason, Message: "m"} }
	for name, tc := range map[string]struct {
		rep  report.Report
		err  error
		want int
	}{
		"as planned":         {report.Report{Outcome: report.OutcomeAsPlanned}, nil, exitOK},
		"dry run accepted":   {report.Report{Outcome: report.OutcomeDryRunAccepted}, nil, exitOK},
		"sent, not followed": {report.Report{Outcome: report.OutcomeSent}, nil, exitOK},
		"stale":              {report.Report{}, refusal(report.ReasonStale), exitStale},
		"no basis":           {report.Report{}, refusal(report.ReasonNoBasis), exitStale},
		"other cluster":      {report.Report{}, refusal(report.ReasonOtherCluster), exitOtherCluster},
		"cap":                {report.Report{}, refusal(report.ReasonMaxDeletions), exitLimit},
		"predicted to hang":  {report.Report{}, refusal(report.ReasonBlocked), exitLimit},
		"not confirmed":      {report.Report{}, refusal(report.ReasonNotConfirmed), exitNotConfirmed},
		"diverged":           {report.Report{Outcome: report.OutcomeDiverged}, nil, exitDiverged},
		"timed out":          {report.Report{Outcome: report.OutcomeTimedOut}, nil, exitTimedOut},
		"server refused":     {report.Report{Outcome: report.OutcomeRejected}, errors.New("forbidden"), exitError},
	} {
		t.Run(name, func(t *testing.T) {
			rep := tc.rep
			var sink strings.Builder
			if got := exitCode(applyError(&rep, tc.err), &sink); got != tc.want {
				t.Errorf("exit %d, want %d", got, tc.want)
			}
		})
	}
}

// TestRefusalSaidOnce: an apply's text report already says why it was
// refused; on a terminal that shows both streams, stderr adds no "error:"
// line repeating it, and the exit code is the refusal's. Redirected, or as
// a document, stderr still says it.
func TestRefusalSaidOnce(t *testing.T) {
	refused := &report.Report{Outcome: report.OutcomeRefused, Refusal: &report.Refusal{Reason: report.ReasonStale, Message: "the cluster changed"}}
	for _, tt := range []struct {
		name     string
		rep      *report.Report
		terminal bool
		wantErr  string
	}{
		{"text on a terminal", refused, true, ""},
		{"redirected", refused, false, "error: the cluster changed\n"},
		{"not a refusal", &report.Report{Outcome: report.OutcomeTimedOut}, true, "error: the cluster changed\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var errOut bytes.Buffer
			err := applyError(tt.rep, refused.Refusal)
			if tt.rep.Refusal == nil {
				err = &codedError{code: exitTimedOut, err: refused.Refusal}
			}
			code := exitCode(saidInReport(err, tt.rep, tt.terminal), &errOut)
			want := exitStale
			if tt.rep.Refusal == nil {
				want = exitTimedOut
			}
			if code != want || errOut.String() != tt.wantErr {
				t.Errorf("exit %d, stderr %q; want exit %d, stderr %q", code, errOut.String(), want, tt.wantErr)
			}
		})
	}
}

// TestPlanDigestSaidOnce: kgc apply delete ends the plan it shows on
// stderr with the digest only when the report, which says it too, is not
// on the same terminal.
func TestPlanDigestSaidOnce(t *testing.T) {
	for _, tt := range []struct {
		name     string
		terminal bool
		want     string
	}{
		{"text report on the terminal", true, "\n"},
		{"stdout redirected", false, "plan digest: sha256:abc\n\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var errOut bytes.Buffer
			planDigestLine(&errOut, "sha256:abc", tt.terminal)
			if errOut.String() != tt.want {
				t.Errorf("stderr %q, want %q", errOut.String(), tt.want)
			}
		})
	}
}

// Every refusal that holds is said in one run, the first deciding the
// exit code: a plan over --max-deletions that leaves objects terminating,
// applied with no terminal and no --yes, is refused for all three.
func TestApplySaysEveryRefusal(t *testing.T) {
	planPath, f := liveShop(t)
	out, errOut, code := runApplyWith(t, f, nil, nil, "apply", planPath, "--max-deletions", "1")
	if code != exitLimit || f.deleted {
		t.Fatalf("exit %d, DELETE sent %v; want exit %d, nothing sent\nstdout:\n%s\nstderr:\n%s", code, f.deleted, exitLimit, out, errOut)
	}
	for _, want := range []string{
		"Outcome: refused (max-deletions), no request was sent: the delete would delete 3 object(s), more than --max-deletions=1",
		"\nAlso refused (blocked): the delete is predicted to leave 1 object(s) terminating (Pod/web-7d9f-b -n shop)",
		"\nAlso refused (not-confirmed): not confirmed: there is no terminal to ask on",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	doc, _, code := runApplyWith(t, f, nil, nil, "apply", planPath, "--max-deletions", "1", "-o", "json")
	var rep report.Report
	if err := json.Unmarshal([]byte(doc), &rep); err != nil || code != exitLimit || rep.Refusal == nil {
		t.Fatalf("-o json: exit %d, %v\n%s", code, err, doc)
	}
	var reasons []string
	for _, a := range rep.Refusal.Also {
		reasons = append(reasons, a.Reason)
	}
	if rep.Refusal.Reason != report.ReasonMaxDeletions || strings.Join(reasons, ",") != "blocked,not-confirmed" {
		t.Errorf("-o json: refusal %s, also %v; want max-deletions, also blocked,not-confirmed", rep.Refusal.Reason, reasons)
	}

	// Offline, a plan edited out of its basis and made from files is
	// refused for both, before connecting.
	old := writePlan(t, func(d map[string]any) { delete(d, "basis"); delete(d, "digest"); delete(d, "request") })
	out, errOut, code = runApplyCmd(t, "", "apply", old, "--yes")
	if code != exitStale || !strings.Contains(out, "Outcome: refused (no-basis)") ||
		!strings.Contains(out, "\nAlso refused (other-cluster): the plan was made from files") ||
		!strings.Contains(errOut, "\nalso refused (other-cluster): the plan was made from files") {
		t.Errorf("a plan without basis, from files: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
