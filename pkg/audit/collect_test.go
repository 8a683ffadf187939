package audit

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEventsMovedInPlace: the requests of several blocks of slots, filed
// out of time order with failed writes among them, come out of the
// request table's blocks as the log's, every kept request once, in
// stageTimestamp order, ties by auditID.
func TestEventsMovedInPlace(t *testing.T) {
	c, rnd, want := startRequestTable(Options{}), rand.New(rand.NewPCG(1, 2)), []string{}
	defer c.wait()
	for i := range 3*slotBlock + 123 {
		st := stage{ev: Event{AuditID: fmt.Sprintf("id-%06d", i), Verb: "delete", Code: 200,
			Time: t0.Add(time.Duration(rnd.IntN(5000)) * time.Millisecond)}}
		if i%7 == 3 {
			st.ev.Verb, st.ev.Code = "update", 409
		} else {
			want = append(want, st.ev.AuditID)
		}
		c.add(&st)
	}
	log := &Log{Files: make([]File, 1)}
	c.events(log, false)
	if log.Len() != len(want) || log.Files[0].Kept != len(want) || log.Dropped != 3*slotBlock+123-len(want) {
		t.Fatalf("kept %d (file %d), dropped %d; want %d kept", log.Len(), log.Files[0].Kept, log.Dropped, len(want))
	}
	got := make([]string, 0, log.Len())
	for i := range log.Len() {
		e := log.At(i)
		if i > 0 {
			p := log.At(i - 1)
			if c := p.Time.Compare(e.Time); c > 0 || c == 0 && p.AuditID > e.AuditID {
				t.Fatalf("request %d (%s at %s) before %d (%s at %s)", i-1, p.AuditID, p.Time, i, e.AuditID, e.Time)
			}
		}
		got = append(got, e.AuditID)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the log's requests differ from the kept ones: %d of %d, first %s", len(got), len(want), strings.Join(got[:3], ","))
	}
}

// TestAuditIDsOfOneHash: requests whose auditIDs share a hash, as one
// pair in 2^64 does, are filed as any others: each request once, its
// stages collapsed, and a stage read twice counted once.
func TestAuditIDsOfOneHash(t *testing.T) {
	file := func(c *requestTable) ([]string, dupCount) {
		for i := range 300 {
			id := fmt.Sprintf("id-%03d", i%100) // ids seen at up to three stages
			st := stage{ev: Event{AuditID: id, Verb: "delete", Code: 200, Time: t0.Add(time.Duration(i) * time.Second)}}
			switch i / 100 {
			case 0:
				st.ev.Stage, st.rank = StageRequestReceived, 0
			case 1, 2:
				st.ev.Stage, st.rank = StageResponseComplete, 2
			}
			if i/100 == 1 && i%3 != 0 {
				continue // only some requests are logged at ResponseComplete twice
			}
			c.add(&st)
		}
		dup := c.collapseGroups()
		log := &Log{Files: make([]File, 1)}
		c.events(log, false)
		var got []string
		for e := range log.All() {
			got = append(got, e.AuditID+" "+e.Stage)
		}
		return got, dup
	}
	want, wantDup := file(newRequestTable())
	one := newRequestTable()
	one.hash = func(string) uint64 { return 7 }
	got, gotDup := file(one)
	if !slices.Equal(got, want) || gotDup.n != wantDup.n || gotDup.id != wantDup.id {
		t.Errorf("with one hash for every auditID: %d requests (first %q), %d duplicate stages (%s); want %d (first %q), %d (%s)",
			len(got), got[0], gotDup.n, gotDup.id, len(want), want[0], wantDup.n, wantDup.id)
	}
	if len(want) != 100 || wantDup.n == 0 {
		t.Fatalf("%d requests and %d duplicate stages: want 100 requests, some stage twice", len(want), wantDup.n)
	}
}
