package main

import (
	"encoding/json"
	"testing"

	"github.com/kgc-dev/kgc/pkg/plan"
)

// TestPlanWavesFollowCausality: deleting the examples' shop namespace, the
// namespace controller deletes the claims only once the pods are gone, and
// pvc-protection lets a claim go only once no pod mounts it: each of those
// steps is in a later wave than the pod deletes it follows, and no step's
// wave is lower than a step before it. Before, the controllers' retries
// kept the wave they were first queued in, and --show-steps put "no pod
// uses the claim any more" in wave 3, before wave 4's pod deletes.
func TestPlanWavesFollowCausality(t *testing.T) {
	out, stderr, code := runKGC(t, "plan", "delete", "ns/shop", "-f", "../../examples", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var p plan.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	podGone, claimFreed, last := 0, 0, 0
	for i, s := range p.Steps {
		if s.Baseline {
			continue
		}
		if s.Wave < last {
			t.Errorf("step %d (%s %s %s) in wave %d after a step of wave %d", i+1, s.Actor, s.Action, s.Object, s.Wave, last)
		}
		last = max(last, s.Wave)
		switch {
		case s.Object.Kind == "Pod" && s.Object.Name == "db-0" && s.Action == plan.ActionDelete:
			podGone = s.Wave
		case s.Object.Name == "data-db-0" && s.Action == plan.ActionRemoveFin:
			claimFreed = s.Wave
		}
	}
	if podGone == 0 || claimFreed <= podGone {
		t.Errorf("pod db-0 deleted in wave %d, its claim's pvc-protection removed in wave %d: want the claim after the pod", podGone, claimFreed)
	}
}
