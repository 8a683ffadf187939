package framework

import (
	"strings"
	"testing"
)

func TestComparePlan(t *testing.T) {
	before := map[string]ObjState{
		"o":  {Kind: "ConfigMap", Namespace: "ns", Name: "owner", UID: "o", Exists: true, OwnerUIDs: []string{}},
		"d":  {Kind: "Secret", Namespace: "ns", Name: "dep", UID: "d", Exists: true, OwnerUIDs: []string{"o"}},
		"d2": {Kind: "Secret", Namespace: "ns", Name: "held", UID: "d2", Exists: true, Finalizers: []string{"x/y"}, OwnerUIDs: []string{"o"}},
		"u":  {Kind: "Secret", Namespace: "ns", Name: "other", UID: "u", Exists: true, OwnerUIDs: []string{}},
	}
	after := map[string]ObjState{
		"d2": {Kind: "Secret", Namespace: "ns", Name: "held", UID: "d2", Exists: true, Terminating: true, Finalizers: []string{"x/y"}, OwnerUIDs: []string{"o"}},
		"u":  before["u"],
	}
	plan := &Plan{Objects: []PlanObject{
		{Object: ObjectRef{UID: "o"}, Fate: "deleted", Final: FinalState{Exists: false}},
		{Object: ObjectRef{UID: "d"}, Fate: "deleted", Final: FinalState{Exists: false}},
		{Object: ObjectRef{UID: "d2"}, Fate: "blocked", Final: FinalState{Exists: true, Terminating: true, Finalizers: []string{"x/y"}, OwnerReferences: []string{"o"}}},
	}}
	if diffs, foreign := ComparePlan(plan, before, after); len(diffs)+len(foreign) != 0 {
		t.Errorf("exact plan: diffs %v foreign %v", diffs, foreign)
	}

	// A wrong prediction, an unlisted object that changed, and an object
	// that is not the case's.
	plan.Objects[2].Final.Terminating = false
	plan.Objects = append(plan.Objects[1:], PlanObject{Object: ObjectRef{UID: "elsewhere", Kind: "Bucket", Name: "b"}, Fate: "blocked"})
	diffs, foreign := ComparePlan(plan, before, after)
	if len(diffs) != 2 || len(foreign) != 1 {
		t.Fatalf("diffs %v foreign %v", diffs, foreign)
	}
	joined := strings.Join(diffs, "\n")
	if !strings.Contains(joined, "ns/held") || !strings.Contains(joined, "ns/owner not in the plan") {
		t.Errorf("diffs do not name the objects:\n%s", joined)
	}
}

// Where the plan gives an alternative, reality may match either outcome,
// and nothing else.
func TestComparePlanAlternative(t *testing.T) {
	before := map[string]ObjState{
		"o": {Kind: "ConfigMap", Namespace: "ns", Name: "owner", UID: "o", Exists: true, Finalizers: []string{"x/y"}, OwnerUIDs: []string{}},
		"d": {Kind: "Secret", Namespace: "ns", Name: "dep", UID: "d", Exists: true, OwnerUIDs: []string{"k", "o"}},
	}
	kept := ObjState{Kind: "Secret", Namespace: "ns", Name: "dep", UID: "d", Exists: true, OwnerUIDs: []string{"k", "o"}}
	updated := ObjState{Kind: "Secret", Namespace: "ns", Name: "dep", UID: "d", Exists: true, OwnerUIDs: []string{"k"}}
	gone := ObjState{Kind: "Secret", Namespace: "ns", Name: "dep", UID: "d"}
	owner := ObjState{Kind: "ConfigMap", Namespace: "ns", Name: "owner", UID: "o", Exists: true, Terminating: true, Finalizers: []string{"x/y"}, OwnerUIDs: []string{}}
	plan := &Plan{Objects: []PlanObject{
		{Object: ObjectRef{UID: "o"}, Fate: "blocked", Final: FinalState{Exists: true, Terminating: true, Finalizers: []string{"x/y"}}},
		{Object: ObjectRef{UID: "d"}, Fate: "updated", Final: FinalState{Exists: true, OwnerReferences: []string{"k"}},
			Alternatives: []PlanAlternative{{Fate: "unchanged", Final: FinalState{Exists: true, OwnerReferences: []string{"k", "o"}}}}},
	}}
	for _, c := range []struct {
		name  string
		dep   ObjState
		diffs int
	}{{"primary", updated, 0}, {"alternative", kept, 0}, {"neither", gone, 1}} {
		diffs, _ := ComparePlan(plan, before, map[string]ObjState{"o": owner, "d": c.dep})
		if len(diffs) != c.diffs {
			t.Errorf("%s: diffs %v, want %d", c.name, diffs, c.diffs)
		}
		if c.diffs > 0 && !strings.Contains(strings.Join(diffs, ""), `or (fate "unchanged")`) {
			t.Errorf("%s: the diff does not show the alternative: %v", c.name, diffs)
		}
	}
}

// An orphaned pod that the plan says the replacement of its ReplicaSet
// adopts must end owned by a new ReplicaSet of that name, and by nothing
// else the plan did not predict.
func TestComparePlanAdoption(t *testing.T) {
	before := map[string]ObjState{
		"p": {Kind: "Pod", Namespace: "ns", Name: "web-1", UID: "p", Exists: true, OwnerUIDs: []string{"rs-old"}, OwnerNames: []string{"ReplicaSet/web"}},
	}
	plan := &Plan{Objects: []PlanObject{{Object: ObjectRef{UID: "p"}, Fate: "orphaned", Final: FinalState{Exists: true},
		AdoptedBy: &Adoption{Controller: "replicaset-controller", Owner: ObjectRef{Kind: "ReplicaSet", Namespace: "ns", Name: "web"}}}}}
	pod := func(uids, names []string) ObjState {
		return ObjState{Kind: "Pod", Namespace: "ns", Name: "web-1", UID: "p", Exists: true, OwnerUIDs: uids, OwnerNames: names}
	}
	for _, c := range []struct {
		name  string
		after ObjState
		diffs int
	}{
		{"adopted by the new ReplicaSet", pod([]string{"rs-new"}, []string{"ReplicaSet/web"}), 0},
		{"not adopted yet", pod([]string{}, []string{}), 1},
		{"still owned by the old one", pod([]string{"rs-old"}, []string{"ReplicaSet/web"}), 1},
		{"adopted by another ReplicaSet", pod([]string{"rs-x"}, []string{"ReplicaSet/other"}), 1},
	} {
		diffs, _ := ComparePlan(plan, before, map[string]ObjState{"p": c.after})
		if len(diffs) != c.diffs {
			t.Errorf("%s: diffs %v, want %d", c.name, diffs, c.diffs)
		}
	}
}
