package main

import (
	"strings"
	"testing"
)

// TestPostmortemAuditFormat: --audit-format forces a platform's export,
// names a file of another in its error, and takes only the forms kgc
// reads; warnings name their place once.
func TestPostmortemAuditFormat(t *testing.T) {
	gke := postmortemExample + "exports/gke-logging-read.json.gz"
	out, errOut, code := runKGC(t, "postmortem", "-A", "--audit-log", gke, "--after", "none", "--audit-format", "gke", "-o", "json")
	if code != 0 || !strings.Contains(out, `"format": "gke-logentry"`) || !strings.HasPrefix(errOut, "warning: "+gke+" holds GKE Cloud Audit Logs entries") {
		t.Errorf("forced gke: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = runKGC(t, "postmortem", "-A", "--audit-log", gke, "--after", "none", "--audit-format", "aks")
	if code != 1 || !strings.Contains(errOut, gke+" is not an audit log (line 2: not an audit event: it reads as gke-logentry, not aks as --audit-format says)") {
		t.Errorf("gke read as aks: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = runKGC(t, "postmortem", "-A", "--audit-log", gke, "--audit-format", "splunk")
	if code != 2 || !strings.Contains(errOut, "auto, native, eks, gke, aks, openshift") {
		t.Errorf("an unknown format: exit %d, stderr %q", code, errOut)
	}
}
