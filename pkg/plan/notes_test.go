package plan

import (
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// timingNotes are a plan's notes on races between collector workers.
func timingNotes(p *Plan) []string {
	var out []string
	for _, n := range p.Notes {
		if strings.HasSuffix(n, timingNoteEnd) {
			out = append(out, n)
		}
	}
	return out
}

func hasAlternatives(p *Plan) bool {
	for _, of := range p.Objects {
		if len(of.Alternatives) > 0 {
			return true
		}
	}
	return false
}

// Two ConfigMaps owning each other, one deleted in the foreground: the
// collector's workers race on them, but every order ends the same, so the
// plan promises no "outcomes either way" it does not give.
func TestRaceWithOneOutcomeIsNotNoted(t *testing.T) {
	a := testobj.ConfigMap("x", "chicken").UID("cm-a").Build()
	b := testobj.ConfigMap("x", "egg").UID("cm-b").OwnedBy(a).Build()
	a = testobj.ConfigMap("x", "chicken").UID("cm-a").OwnedBy(b).Build()
	p, err := Simulate(world(a, b).Build(), Options{Target: "cm-a", Policy: PolicyForeground})
	if err != nil {
		t.Fatal(err)
	}
	if hasAlternatives(p) {
		t.Fatalf("the cycle's plan has alternatives; pick a fixture whose race changes nothing")
	}
	if n := timingNotes(p); len(n) > 0 {
		t.Errorf("notes on a race that changes no outcome: %q", n)
	}
}

// Across random worlds, a note on a race always comes with the
// alternatives it announces, and such notes do occur.
func TestPropertyTimingNoteHasAlternatives(t *testing.T) {
	noted := 0
	for seed := int64(1); seed <= 60; seed++ {
		snap := randomWorld(seed, 6+int(seed%10))
		for _, o := range snap.Objects {
			p, err := Simulate(snap, Options{Target: o.Metadata.UID, Policy: policies[int(seed)%len(policies)]})
			if err != nil {
				t.Fatal(err)
			}
			if n := timingNotes(p); len(n) > 0 {
				noted++
				if !hasAlternatives(p) {
					t.Errorf("seed %d, target %s: %q but no object lists an alternative", seed, o.Metadata.UID, n)
				}
			}
		}
	}
	if noted == 0 {
		t.Errorf("no random plan noted a race: the property was never exercised")
	}
}
