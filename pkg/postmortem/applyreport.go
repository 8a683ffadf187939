package postmortem

import (
	"encoding/json"
	"fmt"

	"github.com/kgc-dev/kgc/pkg/audit"
)

// ApplyReportRef names the kgc apply report that sent a root request:
// the digest of the plan it applied, and the report's file.
type ApplyReportRef struct {
	Digest string `json:"digest"`
	File   string `json:"file"`
}

// ApplyReport is what a post-mortem takes from a kgc apply report (the
// ApplyReport document): the plan's digest and the audit ID of every
// request apply sent.
type ApplyReport struct {
	File     string
	Digest   string
	AuditIDs []string
}

// ReadApplyReport reads an ApplyReport document (kgc apply -o json);
// file names it in errors and in the post-mortem.
func ReadApplyReport(data []byte, file string) (ApplyReport, error) {
	var doc struct {
		Kind     string `json:"kind"`
		Digest   string `json:"digest"`
		Requests []struct {
			AuditID string `json:"auditID"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return ApplyReport{}, fmt.Errorf("%s: not an ApplyReport (kgc apply -o json): %w", file, err)
	}
	if doc.Kind != "ApplyReport" {
		return ApplyReport{}, fmt.Errorf("%s: kind %q, want an ApplyReport (kgc apply -o json)", file, doc.Kind)
	}
	rep := ApplyReport{File: file, Digest: doc.Digest}
	for _, r := range doc.Requests {
		if r.AuditID != "" {
			rep.AuditIDs = append(rep.AuditIDs, r.AuditID)
		}
	}
	return rep, nil
}

// unappliedReports returns a warning for every request of reports that
// no root was joined to (part.note joins a root request by its audit ID,
// which kgc apply chose and the API server logged: an exact join, never a
// guess by time or object) and that no part's log holds.
func unappliedReports(reports []ApplyReport, applied, logged map[string]bool) []string {
	var warnings []string
	for _, rep := range reports {
		for _, id := range rep.AuditIDs {
			if !applied[id] && !logged[id] {
				warnings = append(warnings, fmt.Sprintf("%s: request %s of kgc apply is not in the log: it came outside the window, or through an API server whose log was not given", rep.File, id))
			}
		}
	}
	return warnings
}

// noteLogged adds to logged the requests of reports, joined to no root
// so far, that a part's log holds.
func noteLogged(reports []ApplyReport, log *audit.Log, applied, logged map[string]bool) {
	want := map[string]bool{}
	for _, rep := range reports {
		for _, id := range rep.AuditIDs {
			if !applied[id] && !logged[id] {
				want[id] = true
			}
		}
	}
	if len(want) == 0 {
		return
	}
	for e := range log.All() {
		if want[e.AuditID] {
			logged[e.AuditID] = true
		}
	}
}
