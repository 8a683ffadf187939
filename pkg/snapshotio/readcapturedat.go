package snapshotio

// This file works out when the input was captured, which every age and
// grace period is measured from.

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// CapturedAtField is the top-level field of a List (kubectl get -o
// yaml|json output) that says when the dump was taken, as a kgc snapshot
// file's capturedAt does: an RFC 3339 time. kubectl does not write it; a
// dump kept for later (a bug report, kgc's own examples) adds it so that
// its ages do not depend on when the file was copied.
const CapturedAtField = "capturedAt"

// declareCapturedAt records the capture time a List or a snapshot file
// declares for the file being read; the newest declaration wins. A value
// that is not an RFC 3339 time is a warning, and the file counts as
// declaring nothing.
func (rd *reader) declareCapturedAt(file string, raw []byte) {
	var at time.Time
	if err := json.Unmarshal(raw, &at); err != nil {
		rd.warnings = append(rd.warnings, snapshot.Warning{File: file,
			Message: fmt.Sprintf("%s %s is not an RFC 3339 time (like \"2026-11-20T10:00:00Z\"); ignored, the file's modification time is used", CapturedAtField, raw)})
		return
	}
	if at.After(rd.declared) {
		rd.declared = at
	}
}

// listCapturedAt declares the capturedAt among a List's own fields, given
// as JSON.
func (rd *reader) listCapturedAt(file string, listJSON []byte) {
	var top map[string]json.RawMessage
	if json.Unmarshal(listJSON, &top) != nil {
		return
	}
	if raw, ok := top[CapturedAtField]; ok {
		rd.declareCapturedAt(file, raw)
	}
}

// endFile folds the capture time of the file just read into the input's:
// the time it declares, else fallback (its modification time, or now for
// standard input). The input's capture time is the newest of its files'.
func (rd *reader) endFile(fallback time.Time) {
	at := rd.declared
	if at.IsZero() {
		at = fallback
	} else if int(rd.curFile) < len(rd.fileTimes) {
		// Of two copies of an object, the later capture is kept.
		rd.fileTimes[rd.curFile] = at
	}
	if at.After(rd.newest) {
		rd.newest = at
	}
	rd.declared = time.Time{}
}
