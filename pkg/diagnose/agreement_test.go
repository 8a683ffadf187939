package diagnose

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// TestWhyStuckAgreesWithPlan holds why-stuck and the plan simulator to one
// set of rules (pkg/rules), on random clusters: every root cause why-stuck
// calls in progress is finished when the plan settles the cluster as it is
// (its baseline run), and every terminating object the plan leaves
// terminating has a root cause that is not in progress.
func TestWhyStuckAgreesWithPlan(t *testing.T) {
	for seed := int64(0); seed < 300; seed++ {
		snap := randomCluster(rand.New(rand.NewSource(seed)))
		settled, err := plan.SimulateActions(snap, nil, plan.Options{PrimaryOnly: true})
		if err != nil {
			t.Fatalf("seed %d: plan: %v", seed, err)
		}
		d := New(snap, nil, Options{})
		for _, o := range snap.Objects {
			if !o.Terminating() {
				continue
			}
			diag, err := d.Diagnose(o.Metadata.UID)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			stuck := false
			for _, rc := range diag.RootCauses {
				if rc.Reason != ReasonInProgress {
					stuck = true
					continue
				}
				if conditional(snap, settled, rc) {
					continue
				}
				if !finished(settled, rc) {
					st, _ := settled.State(rc.Object.UID)
					t.Errorf("seed %d: why-stuck %s: %s is in progress (%s%s), but the plan leaves it %s",
						seed, o.Ref(), rc.Object, rc.RemovedBy, finalizerNote(rc.Finalizer), stateOf(st))
				}
			}
			if st, ok := settled.State(o.Metadata.UID); ok && st.Exists && !stuck {
				t.Errorf("seed %d: the plan leaves %s %s, but why-stuck finds only causes in progress", seed, o.Ref(), stateOf(st))
			}
		}
	}
}

// conditional reports whether rc is about an object that is not being
// deleted yet and says what will hold it once deleted (a finalizer, a
// pod's graceful termination): it promises nothing unless the plan's run
// deletes the object.
func conditional(snap *snapshot.Snapshot, settled *plan.Outcome, rc RootCause) bool {
	for i := range snap.Objects {
		o := &snap.Objects[i]
		if o.Metadata.UID != rc.Object.UID || o.Terminating() {
			continue
		}
		if rc.Finalizer == "" && rc.RemovedBy != rules.ActorKubelet && rc.RemovedBy != rules.ActorPodGC {
			return false // a deletion the actor is to make
		}
		st, ok := settled.State(rc.Object.UID)
		return ok && st.Exists && !st.Terminating
	}
	return false
}

// finished reports whether the plan's run did what an in-progress root
// cause says its actor will do: the object is gone, the named finalizer is
// removed, or (with no finalizer named: a pod's graceful termination, an
// object the namespace controller or the collector deletes) the actor acted
// on the object.
func finished(settled *plan.Outcome, rc RootCause) bool {
	st, ok := settled.State(rc.Object.UID)
	if !ok || !st.Exists {
		return true
	}
	switch {
	case rc.Finalizer != "" && len(rc.Related) > 0 && rc.RemovedBy == rules.ActorNamespace:
		// The namespace controller deleting the namespace's content.
		for _, o := range rc.Related {
			if !acted(settled, o.UID, rc.RemovedBy) {
				return false
			}
		}
		return true
	case rc.Finalizer != "":
		return !slices.Contains(st.Finalizers, rc.Finalizer)
	}
	return acted(settled, rc.Object.UID, rc.RemovedBy)
}

// acted reports whether actor changed the object with uid in the plan's
// run, or the object is gone.
func acted(settled *plan.Outcome, uid, actor string) bool {
	if st, ok := settled.State(uid); !ok || !st.Exists {
		return true
	}
	for _, step := range settled.Plan.Steps {
		if step.Object.UID == uid && step.Actor == actor && step.Action != plan.ActionWait {
			return true
		}
	}
	return false
}

func finalizerNote(f string) string {
	if f == "" {
		return ""
	}
	return ", finalizer " + f
}

func stateOf(st plan.ObjectState) string {
	if st.Terminating {
		return "terminating with finalizers " + listOrNone(st.Finalizers)
	}
	return "existing with finalizers " + listOrNone(st.Finalizers)
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return "[" + strings.Join(l, ", ") + "]"
}
