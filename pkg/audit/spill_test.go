package audit

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// nsRouter puts each request with its namespace, and ties the namespaces
// its ties map names.
type nsRouter struct{ ties map[string]string }

func (r nsRouter) Route(e *Event, tie func(string)) (string, bool) {
	if t, ok := r.ties[e.Object.Namespace]; ok {
		tie(t)
	}
	return e.Object.Namespace, e.Object.Namespace != ""
}

// spillLog is a log of several namespaces in two files, with requests
// logged at two stages (one of which names no namespace at first), one
// read twice, and a failed write.
func spillLog(t *testing.T) []string {
	dir := t.TempDir()
	var a, b []ev
	for i := range 40 {
		e := ev{id: fmt.Sprintf("id-%02d", i), ns: fmt.Sprintf("ns-%d", i%7), name: fmt.Sprintf("p-%d", i),
			at: fmt.Sprintf("2026-11-27T10:00:%02d.000000Z", 59-i)}
		if i%2 == 0 {
			a = append(a, e)
		} else {
			b = append(b, e)
		}
	}
	received := ev{id: "id-07", stage: StageRequestReceived, ns: "ns-0", name: "p-7", at: "2026-11-27T10:00:00.000000Z"}
	failed := ev{id: "failed", verb: "update", code: 409, ns: "ns-1", name: "p-1"}
	// A stage that says no part goes with the other stages of its request.
	unnamed := ev{id: "create", verb: "create", stage: StageRequestReceived, at: "2026-11-27T10:00:30.000000Z"}
	named := ev{id: "create", verb: "create", ns: "ns-3", name: "made", at: "2026-11-27T10:00:31.000000Z"}
	return []string{
		write(t, dir, "audit-1.log", lines(append(a, received, failed, unnamed, named)...)),
		write(t, dir, "audit.log", lines(append(b, b[3])...)),
	}
}

// TestSpilledPartsAreTheLog: the parts of a spilled log hold, between
// them, every request the log read whole holds, each part in time order,
// and the log counts and warns as the whole one does once they are read.
func TestSpilledPartsAreTheLog(t *testing.T) {
	paths := spillLog(t)
	whole, err := Read(paths, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	spilled, err := Read(paths, nil, Options{Spill: 1, Router: nsRouter{}})
	if err != nil {
		t.Fatal(err)
	}
	if !spilled.Spilled() || whole.Spilled() {
		t.Fatalf("spilled %v and %v, want the log with Spill spilled only", spilled.Spilled(), whole.Spilled())
	}
	var got []Event
	parts := 0
	for p, err := range spilled.Parts() {
		if err != nil {
			t.Fatal(err)
		}
		parts++
		var evs []Event
		for e := range p.Log.All() {
			evs = append(evs, *e)
		}
		if !slices.IsSortedFunc(evs, func(a, b Event) int { return a.Time.Compare(b.Time) }) {
			t.Errorf("part %d is not in time order", parts)
		}
		got = append(got, evs...)
	}
	if parts != 7 {
		t.Errorf("%d parts, want one per namespace, 7", parts)
	}
	var want []Event
	for e := range whole.All() {
		want = append(want, *e)
	}
	byID := func(a, b Event) int { return strings.Compare(a.AuditID, b.AuditID) }
	slices.SortFunc(got, byID)
	slices.SortFunc(want, byID)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the parts hold %d requests, the whole log %d, or they differ", len(got), len(want))
	}
	if !reflect.DeepEqual(spilled.Files, whole.Files) || spilled.Dropped != whole.Dropped || !reflect.DeepEqual(spilled.Warnings, whole.Warnings) {
		t.Errorf("spilled: files %+v, dropped %d, warnings %+v\nwhole: files %+v, dropped %d, warnings %+v",
			spilled.Files, spilled.Dropped, spilled.Warnings, whole.Files, whole.Dropped, whole.Warnings)
	}
}

// TestSpilledPartsFollowTies: namespaces tied by the router are read as
// one part, and a tie to every part makes one part of the log.
func TestSpilledPartsFollowTies(t *testing.T) {
	paths := spillLog(t)
	for name, tc := range map[string]struct {
		ties  map[string]string
		parts int
	}{
		"ns-1 reaches ns-5": {map[string]string{"ns-1": "ns-5"}, 6},
		"ns-2 reaches all":  {map[string]string{"ns-2": AllParts}, 1},
	} {
		log, err := Read(paths, nil, Options{Spill: 1, Router: nsRouter{tc.ties}})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for p, err := range log.Parts() {
			if err != nil {
				t.Fatal(err)
			}
			n++
			if p.Owns("ns-1") != p.Owns("ns-5") {
				t.Errorf("%s: ns-1 and ns-5 are in different parts", name)
			}
		}
		if n != tc.parts {
			t.Errorf("%s: %d parts, want %d", name, n, tc.parts)
		}
	}
}

// TestSpilledLogCutShort: a temporary file changed behind kgc's back is
// an error naming it, not a panic or a silent loss.
func TestSpilledLogCutShort(t *testing.T) {
	log, err := Read(spillLog(t), nil, Options{Spill: 1, Router: nsRouter{}})
	if err != nil {
		t.Fatal(err)
	}
	f := log.spill.files[bucketOf("ns-3")]
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(st.Size() - 3); err != nil {
		t.Fatal(err)
	}
	var got error
	for _, err := range log.Parts() {
		if err != nil {
			got = err
		}
	}
	if got == nil || !strings.Contains(got.Error(), "temporary file") || !errors.Is(got, errSpillCorrupt) && !strings.Contains(got.Error(), "EOF") {
		t.Errorf("error = %v, want one saying the temporary file is cut short", got)
	}
}
