package plan

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// randomWorld builds a seeded random owner graph of the shapes the
// real-cluster suite uses: ConfigMaps, Secrets, unscheduled Pods, RCs and
// namespaced and cluster-scoped custom resources, with blockOwnerDeletion
// true/false/unset, custom and GC finalizers, earlier deletions, cycles
// and dangling owners.
func randomWorld(seed int64, n int) *snapshot.Snapshot {
	r := rand.New(rand.NewSource(seed))
	type kind struct{ apiVersion, kind, ns string }
	kinds := []kind{{"v1", "ConfigMap", "ns"}, {"v1", "Secret", "ns"}, {"v1", "Pod", "ns"}, {"v1", "ReplicationController", "ns"},
		{"stable.example.com/v1", "Widget", "ns"}, {"stable.example.com/v1", "Gadget", ""}}
	var objs []snapshot.Object
	for i := 0; i < n; i++ {
		k := kinds[r.Intn(len(kinds))]
		b := testobj.New(k.apiVersion, k.kind, k.ns, fmt.Sprintf("o%d", i)).UID(fmt.Sprintf("u%02d", i))
		if r.Intn(5) == 0 {
			b = b.Finalizers("example.com/hold")
		}
		switch r.Intn(10) {
		case 0:
			b = b.Finalizers(rules.FinalizerOrphan)
		case 1:
			b = b.Finalizers(rules.FinalizerForeground)
		}
		objs = append(objs, b.Build())
	}
	for i := range objs {
		m := &objs[i].Metadata
		for k := r.Intn(3); k > 0; k-- {
			if r.Intn(8) == 0 {
				m.OwnerReferences = append(m.OwnerReferences, refTo("v1", "ConfigMap", "gone", fmt.Sprintf("gone%d", r.Intn(3))))
				continue
			}
			j := r.Intn(len(objs))
			if j == i {
				continue
			}
			o := objs[j]
			if o.Metadata.Namespace != "" && m.Namespace == "" {
				continue // keep cluster-scoped objects valid
			}
			if slices.ContainsFunc(m.OwnerReferences, func(x snapshot.OwnerReference) bool { return x.UID == o.Metadata.UID }) {
				continue
			}
			var opts []testobj.RefOption
			switch r.Intn(3) {
			case 0:
				opts = append(opts, blk)
			case 1:
				opts = append(opts, noBlk)
			}
			m.OwnerReferences = append(m.OwnerReferences, ref(o, opts...))
		}
		if r.Intn(8) == 0 && slices.Contains(m.Finalizers, "example.com/hold") {
			t := testobj.CapturedAt
			m.DeletionTimestamp = &t
			zero := int64(0)
			m.DeletionGracePeriodSeconds = &zero
		}
	}
	return world(objs...).Build()
}

var policies = []Policy{PolicyForeground, PolicyBackground, PolicyOrphan, ""}

func forEachRandomPlan(t *testing.T, f func(t *testing.T, snap *snapshot.Snapshot, target string, policy Policy, base, final map[string]string)) {
	for seed := int64(1); seed <= 60; seed++ {
		snap := randomWorld(seed, 6+int(seed%10))
		target := snap.Objects[int(seed)%len(snap.Objects)].Metadata.UID
		policy := policies[int(seed)%len(policies)]
		base, _ := simulate(t, snap, nil, Options{})
		for k := 0; base[target] == "gone" && k < len(snap.Objects); k++ {
			target = snap.Objects[k].Metadata.UID
		}
		final, p := simulate(t, snap, []Action{del(target, policy)}, Options{})
		t.Run(fmt.Sprintf("seed%d/%s/%s", seed, target, policy), func(t *testing.T) {
			f(t, snap, target, policy, base, final)
			if t.Failed() {
				b, _ := json.MarshalIndent(snap.Objects, "", " ")
				t.Logf("objects: %s", b)
				checkStates(t, nil, nil, p)
			}
		})
	}
}

// An object whose owner is alive, not the target and never deleted keeps
// existing: the GC never collects an object with a solid owner.
func TestPropertySolidOwnerKeepsDependent(t *testing.T) {
	forEachRandomPlan(t, func(t *testing.T, snap *snapshot.Snapshot, target string, policy Policy, base, final map[string]string) {
		byUID := map[string]snapshot.Object{}
		for _, o := range snap.Objects {
			byUID[o.Metadata.UID] = o
		}
		for _, o := range snap.Objects {
			if o.Metadata.UID == target || base[o.Metadata.UID] == "gone" {
				continue
			}
			for _, r := range o.Metadata.OwnerReferences {
				owner, ok := byUID[r.UID]
				if !ok || r.UID == target || owner.Metadata.Namespace != o.Metadata.Namespace && owner.Metadata.Namespace != "" {
					continue
				}
				if final[r.UID] == "exists" || (len(final[r.UID]) > 6 && final[r.UID][:7] == "exists " && !contains(final[r.UID], "terminating")) {
					if final[o.Metadata.UID] == "gone" {
						t.Errorf("%s was deleted although its owner %s is alive (%s)", o.Metadata.UID, r.UID, final[r.UID])
					}
				}
			}
		}
	})
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub)))
}

// Orphan never deletes a dependent of the target.
func TestPropertyOrphanNeverDeletesDependents(t *testing.T) {
	forEachRandomPlan(t, func(t *testing.T, snap *snapshot.Snapshot, target string, policy Policy, base, final map[string]string) {
		if policy != PolicyOrphan {
			return
		}
		for _, o := range snap.Objects {
			if o.Metadata.UID == target || base[o.Metadata.UID] == "gone" {
				continue
			}
			for _, r := range o.Metadata.OwnerReferences {
				if r.UID == target && final[o.Metadata.UID] == "gone" && !slices.Contains(o.Metadata.Finalizers, rules.FinalizerOrphan) {
					t.Errorf("dependent %s of the orphaned target was deleted", o.Metadata.UID)
				}
			}
		}
	})
}

// Background leaves the target only when it has a finalizer besides the
// two the background delete strips.
func TestPropertyBackgroundRemovesTarget(t *testing.T) {
	forEachRandomPlan(t, func(t *testing.T, snap *snapshot.Snapshot, target string, policy Policy, base, final map[string]string) {
		if policy != PolicyBackground || base[target] == "gone" {
			return
		}
		for _, o := range snap.Objects {
			if o.Metadata.UID == target && final[target] != "gone" && !slices.Contains(o.Metadata.Finalizers, "example.com/hold") {
				t.Errorf("target without custom finalizers survives a background delete: %s", final[target])
			}
		}
	})
}

// A plan is the same every time.
func TestPropertyDeterministic(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		snap := randomWorld(seed, 12)
		target := snap.Objects[int(seed)%len(snap.Objects)].Metadata.UID
		var first []byte
		for run := 0; run < 3; run++ {
			p, err := Simulate(snap, Options{Target: target, Policy: policies[int(seed)%len(policies)]})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(p)
			if run == 0 {
				first = b
			} else if string(b) != string(first) {
				t.Fatalf("seed %d: run %d differs:\n%s\n%s", seed, run, first, b)
			}
		}
	}
}

// withReplicationControllers makes the random world's pods owned by an RC
// controlled by it (their first RC reference says controller: true) and
// gives every RC a random replica count, or no spec: what the recreation
// pass acts on.
func withReplicationControllers(snap *snapshot.Snapshot, seed int64) *snapshot.Snapshot {
	r := rand.New(rand.NewSource(seed))
	out := *snap
	out.Objects = slices.Clone(snap.Objects)
	for i := range out.Objects {
		o := &out.Objects[i]
		switch o.Kind {
		case "ReplicationController":
			if k := r.Intn(4); k < 3 {
				n := int32(k)
				o.Facts = &snapshot.Facts{Workload: &snapshot.WorkloadFacts{Replicas: &n, SelectorMatchesTemplate: true}}
			}
		case "Pod":
			o.Metadata.OwnerReferences = slices.Clone(o.Metadata.OwnerReferences)
			for k := range o.Metadata.OwnerReferences {
				if o.Metadata.OwnerReferences[k].Kind == "ReplicationController" {
					ctl(&o.Metadata.OwnerReferences[k])
					break
				}
			}
		}
	}
	return &out
}

// A recreated object is gone and certainly made again by the owner named,
// which survives the delete; a may-be-recreated one stays deleted; the
// summary counts them apart; and every policy gives the same plan twice.
func TestPropertyRecreated(t *testing.T) {
	seen := 0
	for seed := int64(1); seed <= 80; seed++ {
		snap := withReplicationControllers(randomWorld(seed, 6+int(seed%10)), seed)
		for _, policy := range policies {
			target := snap.Objects[int(seed)%len(snap.Objects)].Metadata.UID
			p, err := Simulate(snap, Options{Target: target, Policy: policy})
			if err != nil {
				continue // a target already gone before the delete
			}
			fates := map[string]ObjectFate{}
			var sum Summary
			for _, of := range p.Objects {
				fates[of.Object.UID] = of
				sum.add(of.Fate)
			}
			if sum != p.Summary {
				t.Errorf("seed %d %s: summary %+v, counted %+v", seed, policy, p.Summary, sum)
			}
			for _, of := range p.Objects {
				r := of.RecreatedBy
				switch {
				case of.Fate == FateRecreated && (of.Final.Exists || r == nil || !r.Certain):
					t.Errorf("seed %d %s: %s recreated but %+v, recreatedBy %+v", seed, policy, of.Object, of.Final, r)
				case r != nil && !r.Certain && of.Fate != FateDeleted:
					t.Errorf("seed %d %s: %s may be recreated but its fate is %s", seed, policy, of.Object, of.Fate)
				case r != nil:
					if owner, ok := fates[r.Owner.UID]; ok && owner.Fate != FateUpdated && owner.Fate != FateOrphaned && owner.Fate != FateUnchanged {
						t.Errorf("seed %d %s: %s recreated by %s, whose fate is %s", seed, policy, of.Object, r.Owner, owner.Fate)
					}
				}
				if of.Fate == FateRecreated {
					seen++
				}
			}
			again, _ := Simulate(snap, Options{Target: target, Policy: policy})
			a, _ := json.Marshal(p)
			b, _ := json.Marshal(again)
			if string(a) != string(b) {
				t.Fatalf("seed %d %s: two runs differ", seed, policy)
			}
		}
	}
	if seen == 0 {
		t.Error("no random plan recreated anything: the property is not exercised")
	}
	t.Logf("%d objects recreated across the random plans", seen)
}
