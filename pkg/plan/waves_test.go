package plan

import (
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// A worker's decision comes after what it read: in a foreground delete of
// two ConfigMaps that own each other, the collector deletes b because "its
// owner ConfigMap/a no longer exists", which is a's delete, so b's delete
// is in a later wave than a's. Its item was queued in wave 2; without the
// read moving its wave, --show-steps numbered the waves backwards and the
// cascade printed the consequence before its cause.
func TestWavesFollowWhatTheWorkerRead(t *testing.T) {
	ref := func(name, uid string) snapshot.OwnerReference {
		yes := true
		return snapshot.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: name, UID: uid, BlockOwnerDeletion: &yes}
	}
	snap := testobj.Snapshot(
		testobj.Namespace("loop").UID("ns").Build(),
		testobj.ConfigMap("loop", "a").UID("a").Owner(ref("b", "b")).Build(),
		testobj.ConfigMap("loop", "b").UID("b").Owner(ref("a", "a")).Build()).Build()
	p, err := Simulate(snap, Options{Target: "a", Policy: PolicyForeground})
	if err != nil {
		t.Fatal(err)
	}
	wave := map[string]int{}
	last := 0
	for i, s := range p.Steps {
		if s.Wave < last {
			t.Errorf("step %d (%s %s %s) is in wave %d, after a step of wave %d", i+1, s.Actor, s.Action, s.Object, s.Wave, last)
		}
		last = max(last, s.Wave)
		if s.Action == ActionDelete {
			wave[s.Object.Name] = s.Wave
		}
	}
	if wave["a"] == 0 || wave["b"] <= wave["a"] {
		t.Errorf("a deleted in wave %d, b in wave %d; want b after a, whose absence it acts on\n%+v", wave["a"], wave["b"], p.Steps)
	}
}
