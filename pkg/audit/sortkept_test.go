package audit

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The radix sort of kept requests orders them exactly as comparing
// their times, then their audit IDs, does: ties included, and times
// UnixNano cannot count.
func TestSortKeptOrdersByTimeThenAuditID(t *testing.T) {
	base := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		times func(r *rand.Rand) time.Time
	}{
		{"microseconds apart", func(r *rand.Rand) time.Time { return base.Add(time.Duration(r.IntN(1000)) * time.Microsecond) }},
		{"hours apart, many ties", func(r *rand.Rand) time.Time { return base.Add(time.Duration(r.IntN(5)) * time.Hour) }},
		{"one out of UnixNano's range", func(r *rand.Rand) time.Time {
			if r.IntN(50) == 0 {
				return time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
			}
			return base.Add(time.Duration(r.IntN(1000)) * time.Second)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			evs := make([]Event, 2000)
			var order []keptSlot
			for i := range evs {
				evs[i] = Event{AuditID: fmt.Sprintf("id-%04d", r.IntN(10000)), Time: c.times(r)}
				order = append(order, keptSlot{&evs[i], nanos(evs[i].Time), int32(i)})
			}
			want := slices.Clone(order)
			slices.SortStableFunc(want, compareKept)
			got := sortKept(order)
			for i := range want {
				if compareKept(got[i], want[i]) != 0 {
					t.Fatalf("request %d: got %s at %s, want %s at %s", i, got[i].ev.AuditID, got[i].ev.Time, want[i].ev.AuditID, want[i].ev.Time)
				}
			}
		})
	}
}
