package audit

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"
)

func spillTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func ptr[T any](v T) *T { return &v }

// fullStage sets every field of a stage, down to the Items of a List and
// their own extras and owner references: TestSpillFullStageSetsEverything
// keeps it so, and a field the codec drops then fails the round trip.
func fullStage(t testing.TB) stage {
	t.Helper()
	item := Meta{
		APIVersion: "v1", Kind: "Pod", Namespace: "ns", Name: "p-1", UID: "u-p1",
		DeletionTimestamp: ptr(spillTime(t, "2026-11-27T10:00:02.5+05:30")),
		Finalizers:        []string{"example.com/a"},
		OwnerReferences: []OwnerRef{{
			APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u-rs",
			Controller: ptr(true), BlockOwnerDeletion: ptr(false),
		}},
		MetaExtras: &MetaExtras{
			RemovedFinalizers: []string{"x"}, RemovedOwnerUIDs: []string{"y"},
			Items: []Meta{{Name: "nested", Finalizers: []string{}}},
		},
	}
	return stage{
		rank: 2, file: 3, v1beta1: true, v1alpha1: true, skipped: 2,
		ev: Event{
			AuditID: "id-1", Level: LevelRequestResponse, Stage: StageResponseComplete,
			Verb: "deletecollection", RequestURI: "/api/v1/namespaces/ns/pods?x=é",
			User:             User{Username: "alice", UID: "u-alice", Groups: []string{"system:authenticated", ""}},
			ImpersonatedUser: &User{Username: "bob", UID: "u-bob", Groups: []string{"g"}},
			SourceIPs:        []string{"10.0.0.1", "::1"},
			UserAgent:        "kubectl/v1.36",
			Object:           Ref{Resource: "pods", Namespace: "ns", Name: "p", UID: "u", APIGroup: "g", Subresource: "status"},
			Code:             -200,
			Reason:           "Forbidden",
			Received:         spillTime(t, "2026-11-27T10:00:01.123456789Z"),
			Time:             spillTime(t, "2026-11-27T12:00:01.5+02:00"),
			Decision:         "allow",
			AuthzReason:      `RBAC: allowed by ClusterRoleBinding "x"`,
			Delete: &DeleteOptions{
				PropagationPolicy: "Foreground", OrphanDependents: ptr(true),
				GracePeriodSeconds: ptr(int64(-1)), DryRun: []string{"All"},
				PreconditionUID: "u-pre", PreconditionRV: "42",
			},
			Request:  &Meta{Name: "p", Finalizers: []string{}, MetaExtras: &MetaExtras{Items: []Meta{item}}},
			Response: &item,
			Source:   Position{File: "audit.log", Line: 1 << 40},
		},
	}
}

// spillStages is the table: every field set and unset, each slice nil,
// empty and full, each pointer nil and set, times in UTC, at an offset,
// in Local and zero.
func spillStages(t testing.TB) map[string]stage {
	t.Helper()
	full := fullStage(t)
	empties := fullStage(t)
	e := &empties.ev
	e.User.Groups, e.ImpersonatedUser.Groups, e.SourceIPs, e.Delete.DryRun = []string{}, []string{}, []string{}, []string{}
	e.Delete.OrphanDependents, e.Delete.GracePeriodSeconds = ptr(false), ptr(int64(0))
	e.Response = &Meta{
		Finalizers: []string{}, OwnerReferences: []OwnerRef{{}},
		MetaExtras: &MetaExtras{RemovedFinalizers: []string{}, RemovedOwnerUIDs: []string{}, Items: []Meta{}},
	}
	e.Request = &Meta{OwnerReferences: []OwnerRef{}, MetaExtras: &MetaExtras{}}
	return map[string]stage{
		"zero":            {},
		"full":            full,
		"empty slices":    empties,
		"empty pointees":  {ev: Event{ImpersonatedUser: &User{}, Delete: &DeleteOptions{}, Request: &Meta{}, Response: &Meta{DeletionTimestamp: &time.Time{}}}},
		"negative rank":   {rank: -1, file: -7},
		"local time":      {ev: Event{Received: time.Date(2026, 3, 29, 1, 30, 0, 7, time.Local), Time: spillTime(t, "1969-12-31T23:59:59.999999999-00:30")}},
		"fixed zone name": {ev: Event{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("CET", 3600))}},
		"far times":       {ev: Event{Received: time.Date(-3000, 1, 1, 0, 0, 0, 0, time.UTC), Time: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)}},
	}
}

// TestSpillRoundTrip appends every stage of the table into one buffer and
// decodes them back in order: each is DeepEqual to what was appended,
// nothing is left, and clearing the buffer afterwards changes nothing
// (strings are copies).
func TestSpillRoundTrip(t *testing.T) {
	stages := spillStages(t)
	var names []string
	var buf []byte
	for name, st := range stages {
		names = append(names, name)
		buf = appendStage(buf, &st)
	}
	got := make([]stage, len(names))
	rest := buf
	for i, name := range names {
		var err error
		if rest, err = decodeStage(rest, &got[i]); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if len(rest) != 0 {
		t.Errorf("%d bytes left after the last stage", len(rest))
	}
	clear(buf)
	for i, name := range names {
		if want := stages[name]; !reflect.DeepEqual(got[i], want) {
			t.Errorf("%s: decoded\n%#v\nwant\n%#v", name, got[i].ev, want.ev)
		}
	}
}

// TestSpillRoundTripKeepsNilAndEmpty checks the distinctions DeepEqual
// could miss if both sides lost them alike: the decoded values themselves.
func TestSpillRoundTripKeepsNilAndEmpty(t *testing.T) {
	in := spillStages(t)["empty slices"]
	var out stage
	if _, err := decodeStage(appendStage(nil, &in), &out); err != nil {
		t.Fatal(err)
	}
	e := out.ev
	if e.SourceIPs == nil || e.Request.Finalizers != nil || e.Request.OwnerReferences == nil || e.Request.MetaExtras == nil ||
		e.Request.Items != nil || e.Response.Items == nil || e.Delete.OrphanDependents == nil || *e.Delete.OrphanDependents {
		t.Errorf("nil and empty confused: %#v", e)
	}
	if r := e.Response.OwnerReferences[0]; r.Controller != nil || r.BlockOwnerDeletion != nil {
		t.Errorf("nil *bool came back set: %#v", r)
	}
	if loc := spillTime(t, "2026-11-27T10:00:01Z"); loc.Location() != time.UTC {
		t.Fatalf("test premise: a Z time is in UTC, got %v", loc.Location())
	}
	full := fullStage(t)
	if _, err := decodeStage(appendStage(nil, &full), &out); err != nil {
		t.Fatal(err)
	}
	if out.ev.Received.Location() != time.UTC || out.ev.Time.Format(time.RFC3339Nano) != "2026-11-27T12:00:01.5+02:00" {
		t.Errorf("times lost their zones: %v, %v", out.ev.Received, out.ev.Time)
	}
}

// TestSpillFullStageSetsEverything: every field of every struct type in a
// stage is set somewhere in fullStage, so that its round trip covers every
// field.
func TestSpillFullStageSetsEverything(t *testing.T) {
	set := map[reflect.Type][]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Struct:
			if v.Type() == reflect.TypeFor[time.Time]() {
				return
			}
			if set[v.Type()] == nil {
				set[v.Type()] = make([]bool, v.NumField())
			}
			for i := range v.NumField() {
				set[v.Type()][i] = set[v.Type()][i] || !v.Field(i).IsZero()
				walk(v.Field(i))
			}
		default:
		}
	}
	walk(reflect.ValueOf(fullStage(t)))
	if len(set) != 9 {
		t.Errorf("fullStage holds %d struct types, want the 9 TestSpillFieldCounts names", len(set))
	}
	for typ, fields := range set {
		for i, ok := range fields {
			if !ok {
				t.Errorf("%s.%s is never set in fullStage: set it, and encode it in spill_codec.go", typ, typ.Field(i).Name)
			}
		}
	}
}

// TestSpillFieldCounts fails when a type the codec writes gains a field.
func TestSpillFieldCounts(t *testing.T) {
	for _, c := range []struct {
		t reflect.Type
		n int
	}{
		{reflect.TypeFor[stage](), 6},
		{reflect.TypeFor[Event](), 20},
		{reflect.TypeFor[User](), 3},
		{reflect.TypeFor[Ref](), 6},
		{reflect.TypeFor[DeleteOptions](), 6},
		{reflect.TypeFor[Meta](), 9},
		{reflect.TypeFor[MetaExtras](), 3},
		{reflect.TypeFor[OwnerRef](), 6},
		{reflect.TypeFor[Position](), 2},
	} {
		if got := c.t.NumField(); got != c.n {
			t.Errorf("%s has %d fields, the spill codec knows %d: a field was added: encode it in spill_codec.go", c.t, got, c.n)
		}
	}
}

// TestSpillTruncated: every proper prefix of a stage's encoding is an
// error saying the spill file is corrupt, and no panic.
func TestSpillTruncated(t *testing.T) {
	for name, st := range spillStages(t) {
		b := appendStage(nil, &st)
		for n := range len(b) {
			var got stage
			if _, err := decodeStage(b[:n], &got); !errors.Is(err, errSpillCorrupt) {
				t.Errorf("%s cut to %d of %d bytes: err %v, want the spill file corrupt", name, n, len(b), err)
			}
		}
	}
}

// TestSpillCorrupt: bytes a valid encoding never holds are errors.
func TestSpillCorrupt(t *testing.T) {
	full := fullStage(t)
	valid := appendStage(nil, &full)
	badFlag := slices.Clone(valid)
	badFlag[6] = 7 // after the length, the rank and the file: v1beta1
	longer := append(slices.Clone(valid), 0)
	longer[0]++
	huge := []byte{8, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f} // AuditID 4G long
	for name, b := range map[string][]byte{"flag byte 7": badFlag, "a byte past the event": longer, "a string past the end": huge} {
		var got stage
		if _, err := decodeStage(b, &got); !errors.Is(err, errSpillCorrupt) {
			t.Errorf("%s: err %v, want the spill file corrupt", name, err)
		}
	}
}

// FuzzDecodeStage: whatever the bytes, decodeStage does not panic, and a
// stage it decodes encodes and decodes back to itself.
func FuzzDecodeStage(f *testing.F) {
	for _, st := range spillStages(f) {
		f.Add(appendStage(nil, &st))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var st stage
		if _, err := decodeStage(b, &st); err != nil {
			if !errors.Is(err, errSpillCorrupt) {
				t.Fatalf("error %v does not say the spill file is corrupt", err)
			}
			return
		}
		var again stage
		rest, err := decodeStage(appendStage(nil, &st), &again)
		if err != nil || len(rest) != 0 {
			t.Fatalf("re-encoding a decoded stage: %v, %d bytes left", err, len(rest))
		}
		if !reflect.DeepEqual(st, again) {
			t.Fatalf("decoded\n%#v\nthen\n%#v", st.ev, again.ev)
		}
	})
}

// BenchmarkSpillStage encodes and decodes a typical stage (a pod's
// delete, its response naming one owner) and fullStage, the largest a log
// holds (a deletecollection with its List):
//
//	go test ./pkg/audit -run '^$' -bench SpillStage -benchmem
func BenchmarkSpillStage(b *testing.B) {
	full := fullStage(b)
	typical := stage{rank: 2, ev: Event{
		AuditID: "8a7c3f0e-2b1d-4c55-9d1e-0f6a2b3c4d5e", Level: LevelRequestResponse, Stage: StageResponseComplete,
		Verb: "delete", RequestURI: "/api/v1/namespaces/ns/pods/web-1",
		User:   User{Username: "system:serviceaccount:kube-system:generic-garbage-collector", Groups: []string{"system:serviceaccounts"}},
		Object: Ref{Resource: "pods", Namespace: "ns", Name: "web-1", APIGroup: ""}, Code: 200,
		Received: full.ev.Received, Time: full.ev.Received,
		Response: &Meta{
			APIVersion: "v1", Kind: "Pod", Namespace: "ns", Name: "web-1", UID: "u-web-1",
			DeletionTimestamp: &full.ev.Received, Finalizers: []string{},
			OwnerReferences: full.ev.Response.OwnerReferences,
		},
		Source: Position{File: "audit.log", Line: 123456},
	}}
	for name, st := range map[string]*stage{"typical": &typical, "full": &full} {
		b.Run(name, func(b *testing.B) {
			var buf []byte
			var got stage
			for b.Loop() {
				buf = appendStage(buf[:0], st)
				if _, err := decodeStage(buf, &got); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(len(buf)))
		})
	}
}
