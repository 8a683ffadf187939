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
