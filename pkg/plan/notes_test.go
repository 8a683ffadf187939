package plan

import (
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
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

// A ClusterRole owned by a namespaced ConfigMap of its name (a
// cluster-scoped object given an ownerReference to a namespaced owner,
// which the collector refuses since kubernetes/kubernetes#92743; Trident
// did it with its ClusterRole, NetApp/trident#474): the note
// names the ClusterRole, the cluster-scoped object, not the ConfigMap,
// with the owner in the input or not (then the collector fails on the
// owner's virtual node, and the note named that node as if it were the
// cluster-scoped object).
func TestClusterScopedDependentNoteNamesItsKind(t *testing.T) {
	owner := testobj.ConfigMap("shop", "app").UID("cm").Build()
	role := testobj.ClusterRole("app").UID("cr").OwnedBy(owner).Build()
	for _, tc := range []struct {
		pol    Policy
		target string
		objs   []snapshot.Object
	}{{PolicyForeground, "cm", []snapshot.Object{owner, role}}, {PolicyBackground, "cm", []snapshot.Object{owner, role}},
		{PolicyBackground, "cr", []snapshot.Object{role}}, {PolicyOrphan, "cr", []snapshot.Object{role}}} {
		pol := tc.pol
		p, err := Simulate(world(tc.objs...).Build(), Options{Target: tc.target, Policy: pol})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, n := range p.Notes {
			if strings.Contains(n, "cluster-scoped but refers to a namespaced owner") {
				found = true
				if !strings.HasPrefix(n, "ClusterRole/app is cluster-scoped") {
					t.Errorf("%s: note %q, want it to name ClusterRole/app", pol, n)
				}
			}
		}
		if !found {
			t.Errorf("%s: no note on the cluster-scoped dependent: %q", pol, p.Notes)
		}
	}
}
