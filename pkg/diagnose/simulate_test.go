package diagnose

import (
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

func TestRemediesSayWhatTheyFinish(t *testing.T) {
	deploy := testobj.Deployment("shop", "web").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerForeground).Build()
	rs := testobj.ReplicaSet("shop", "web-1").OwnedBy(deploy).Deleting(ago(time.Hour)).Finalizers(rules.FinalizerForeground).Build()
	pod := gone(testobj.Pod("shop", "web-1-a").OwnedBy(rs).Deleting(ago(time.Hour)).Finalizers("example.com/cleanup").
		Facts(podFactsOf("n1", "Running")).Build())
	team := terminatingNS("team-a", ago(2*time.Hour))
	w1 := gone(testobj.New("example.com/v1", "Widget", "team-a", "w1").Deleting(ago(2 * time.Hour)).Finalizers("example.com/cleanup").Build())
	snap := testobj.Snapshot(deploy, rs, pod, node("n1", "True"), team, w1).CRD("example.com", "Widget", "widgets", true).Build()

	sim := NewSimulator(snap, plan.Options{})
	d := New(snap, nil, Options{Finishes: sim.Finishes})
	tests := []struct {
		target string
		want   map[string][]string // remedy action → UIDs finished
	}{
		{target: deploy.Metadata.UID, want: map[string][]string{
			ActionFixController:         {deploy.Metadata.UID, pod.Metadata.UID, rs.Metadata.UID},
			ActionUnblockOwnerReference: {deploy.Metadata.UID, rs.Metadata.UID},
			ActionRemoveOwnerReference:  {deploy.Metadata.UID, rs.Metadata.UID},
			ActionRemoveFinalizer:       {deploy.Metadata.UID, pod.Metadata.UID, rs.Metadata.UID},
		}},
		{target: team.Metadata.UID, want: map[string][]string{
			ActionRemoveFinalizer: {team.Metadata.UID, w1.Metadata.UID},
		}},
	}
	for _, tc := range tests {
		diag, err := d.Diagnose(tc.target)
		if err != nil {
			t.Fatal(err)
		}
		if len(sim.Errors) > 0 {
			t.Fatalf("simulator errors: %v", sim.Errors)
		}
		rc := diag.RootCauses[0]
		for _, r := range rc.Remedies {
			want, ok := tc.want[r.Action]
			if !ok {
				continue
			}
			if got := uids(r.Finishes); !equalStrings(got, want) {
				t.Errorf("%s: %s finishes %v, want %v", tc.target, r.Action, got, want)
			}
		}
	}
}

func uids(refs []snapshot.ObjectRef) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.UID)
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSimulationCutShortClaimsNothing(t *testing.T) {
	deploy := testobj.Deployment("shop", "web").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerForeground).Build()
	pod := gone(testobj.Pod("shop", "web-a").OwnedBy(deploy).Deleting(ago(time.Hour)).Finalizers("example.com/cleanup").Build())
	snap := testobj.Snapshot(deploy, pod).Build()
	sim := NewSimulator(snap, plan.Options{MaxSteps: 1})
	d, err := New(snap, nil, Options{Finishes: sim.Finishes}).Diagnose(deploy.Metadata.UID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Remedies {
		if len(r.Finishes) > 0 {
			t.Errorf("%s claims to finish %v from a simulation cut short", r.Action, r.Finishes)
		}
	}
	if len(sim.Errors) == 0 {
		t.Errorf("no warning that the simulation was cut short")
	}
}
