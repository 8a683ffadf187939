package diagnose

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// randomCluster builds a small, messy cluster: random owner references
// (cycles, cross-namespace, unserved kinds, absent owners), random
// finalizers and deletions, pods on good and bad nodes, claims.
func randomCluster(rng *rand.Rand) *snapshot.Snapshot {
	namespaces := []string{"a", "b"}
	var objs []snapshot.Object
	for _, ns := range namespaces {
		b := testobj.Namespace(ns)
		if rng.Intn(2) == 0 {
			b = b.Deleting(ago(time.Duration(rng.Intn(120)) * time.Minute)).Facts(&snapshot.Facts{Namespace: &snapshot.NamespaceFacts{
				Phase: "Terminating", SpecFinalizers: []string{rules.FinalizerNamespace}}})
		}
		objs = append(objs, b.Build())
	}
	objs = append(objs, node("n1", "True"), node("n2", "Unknown"))
	finalizers := []string{rules.FinalizerForeground, rules.FinalizerOrphan, "example.com/x", rules.FinalizerPVC, "batch.kubernetes.io/job-tracking"}
	kinds := []func(ns, name string) *testobj.Builder{testobj.ConfigMap, testobj.Pod, testobj.ReplicaSet, testobj.PVC, testobj.Secret}
	n := 4 + rng.Intn(12)
	for i := 0; i < n; i++ {
		ns := namespaces[rng.Intn(len(namespaces))]
		b := kinds[rng.Intn(len(kinds))](ns, fmt.Sprintf("o%d", i))
		if rng.Intn(2) == 0 {
			b = b.Deleting(ago(time.Duration(rng.Intn(60)) * time.Minute))
		}
		for _, f := range finalizers {
			if rng.Intn(4) == 0 {
				b = b.Finalizers(f)
			}
		}
		o := b.Build()
		if o.Kind == "Pod" {
			o.Facts = podFactsOf([]string{"", "n1", "n2", "gone"}[rng.Intn(4)], "Running", fmt.Sprintf("o%d", rng.Intn(n)))
			if o.Terminating() {
				g := int64(rng.Intn(2) * 30)
				o.Metadata.DeletionGracePeriodSeconds = &g
			}
		}
		objs = append(objs, o)
	}
	// Owner references among them, including to themselves and to owners
	// that do not exist or whose kind is not served.
	for i := range objs {
		if objs[i].Kind == "Namespace" || objs[i].Kind == "Node" {
			continue
		}
		for k := rng.Intn(3); k > 0; k-- {
			var ref snapshot.OwnerReference
			switch rng.Intn(4) {
			case 0:
				ref = testobj.RefTo("gone.example.com/v1", "Ghost", "g", fmt.Sprintf("ghost-%d", rng.Intn(3)))
			case 1:
				ref = testobj.RefTo("apps/v1", "ReplicaSet", "absent", fmt.Sprintf("absent-%d", rng.Intn(3)))
			default:
				ref = testobj.Ref(objs[rng.Intn(len(objs))])
			}
			if rng.Intn(2) == 0 {
				testobj.Block(&ref)
			}
			objs[i].Metadata.OwnerReferences = append(objs[i].Metadata.OwnerReferences, ref)
		}
	}
	return live(testobj.Snapshot(objs...).Build())
}

// TestDiagnosisInvariants checks, on many random clusters, what must hold
// of every diagnosis whatever the input: no panic, every terminating
// object has a root cause, every root cause is a leaf of the tree, every
// leaf points at a root cause, and remedies never get more gentle.
func TestDiagnosisInvariants(t *testing.T) {
	for seed := int64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewSource(seed))
		snap := randomCluster(rng)
		d := New(snap, nil, Options{})
		for _, o := range snap.Objects {
			diag, err := d.Diagnose(o.Metadata.UID)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if o.Terminating() != (len(diag.RootCauses) > 0) {
				t.Errorf("seed %d: %s terminating=%v with %d root causes", seed, o.Ref(), o.Terminating(), len(diag.RootCauses))
			}
			used := map[int]bool{}
			var walk func([]Blocker)
			walk = func(bs []Blocker) {
				for _, b := range bs {
					if b.RootCause < 0 || b.RootCause > len(diag.RootCauses) {
						t.Errorf("seed %d: %s: blocker points at root cause %d of %d", seed, o.Ref(), b.RootCause, len(diag.RootCauses))
					}
					used[b.RootCause] = true
					walk(b.Blockers)
				}
			}
			walk(diag.Blockers)
			for i, rc := range diag.RootCauses {
				if !used[i+1] {
					t.Errorf("seed %d: %s: root cause %d (%s) is not a leaf of the tree", seed, o.Ref(), i+1, rootCauseTitle(rc))
				}
				for j := 1; j < len(rc.Remedies); j++ {
					if actionRank[rc.Remedies[j].Action] < actionRank[rc.Remedies[j-1].Action] {
						t.Errorf("seed %d: %s: remedies out of order: %s after %s", seed, o.Ref(), rc.Remedies[j].Action, rc.Remedies[j-1].Action)
					}
				}
			}
		}
		if l := d.All(""); len(l.Items) == 0 && len(l.Groups) != 0 {
			t.Errorf("seed %d: groups without items", seed)
		}
	}
}

// TestDiagnosisOfPartOfTheGraph checks, on many random clusters, that
// diagnosis with only the part of the graph it reaches replayed (New with
// no graph) says exactly what it says with the whole cluster's graph: for
// one object asked first, for every object in turn, and for why-stuck -A
// and one namespace.
func TestDiagnosisOfPartOfTheGraph(t *testing.T) {
	for seed := int64(0); seed < 300; seed++ {
		snap := randomCluster(rand.New(rand.NewSource(seed)))
		whole := New(snap, graph.Replay(snap), Options{})
		lazy := New(snap, nil, Options{})
		for _, o := range snap.Objects {
			want, _ := whole.Diagnose(o.Metadata.UID)
			got, _ := lazy.Diagnose(o.Metadata.UID)
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("seed %d: %s diagnosed with the whole graph:\n%+v\nwith the graph it reached:\n%+v", seed, o.Ref(), want, got)
			}
			first, _ := New(snap, nil, Options{}).Diagnose(o.Metadata.UID)
			if !reflect.DeepEqual(want, first) {
				t.Fatalf("seed %d: %s diagnosed first with the graph it reached:\n%+v\nwant\n%+v", seed, o.Ref(), first, want)
			}
		}
		for _, ns := range []string{"", "a"} {
			want := New(snap, graph.Replay(snap), Options{}).All(ns)
			if got := New(snap, nil, Options{}).All(ns); !reflect.DeepEqual(want, got) {
				t.Fatalf("seed %d: why-stuck of %q with the whole graph:\n%+v\nwith the graph it reached:\n%+v", seed, ns, want, got)
			}
		}
	}
}
