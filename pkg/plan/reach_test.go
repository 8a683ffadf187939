package plan

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// reachWorld mixes the shapes the part of a plan has to get right: the
// random owner graph (dangling, cycles, earlier deletions, custom and GC
// finalizers), a namespace of workloads with nodes, claims and a Job, and
// per seed some of: a namespace being deleted, a pod terminating on a
// missing node, a volume Bound to a claim, a CRD being deleted, a Job's
// tracked pod, an owner reference under the wrong name. Every object has a
// resourceVersion and a creation time, some shared, as in a dump.
func reachWorld(seed int64) *snapshot.Snapshot {
	r := rand.New(rand.NewSource(seed))
	objs := randomWorld(seed, 8+int(seed%12)).Objects
	objs = append(objs, newRecreateWorld(liveDeploy, snapshot.JobFacts{Spec: true}).objs...)
	at := testobj.CapturedAt
	running := func(node string) *snapshot.Facts {
		return &snapshot.Facts{Pod: &snapshot.PodFacts{NodeName: node, Phase: "Running"}}
	}
	if r.Intn(2) == 0 {
		ns := testobj.Namespace("gone").Facts(&snapshot.Facts{Namespace: &snapshot.NamespaceFacts{Phase: "Terminating", SpecFinalizers: []string{rules.FinalizerNamespace}}})
		objs = append(objs, ns.Deleting(at).Build(), pod("gone", "p").Facts(running("node-a")).Build(), cm("gone", "c").Build())
	} else {
		objs = append(objs, testobj.Namespace("gone").Facts(&snapshot.Facts{Namespace: &snapshot.NamespaceFacts{Phase: "Active", SpecFinalizers: []string{rules.FinalizerNamespace}}}).Build(),
			pod("gone", "p").Facts(running("node-a")).Build())
	}
	if r.Intn(2) == 0 {
		grace := int64(30)
		p := pod("shop", "stray").Facts(running("node-x")).Deleting(at).Build()
		p.Metadata.DeletionGracePeriodSeconds = &grace
		objs = append(objs, p)
	}
	if r.Intn(2) == 0 {
		claim := testobj.PVC("shop", "data-db-1").Finalizers(rules.FinalizerPVC).Build()
		vol := testobj.PV("pv-1").Finalizers(rules.FinalizerPV).Facts(&snapshot.Facts{PV: &snapshot.PVFacts{Phase: "Bound",
			ClaimRef: &snapshot.ObjectRef{Namespace: "shop", Name: "data-db-1", UID: claim.Metadata.UID}}}).Build()
		objs = append(objs, claim, vol)
	}
	if r.Intn(3) == 0 {
		crd := testobj.New("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "widgets.stable.example.com").Finalizers(rules.FinalizerCRD).
			Facts(&snapshot.Facts{CRD: &snapshot.CRDFacts{Group: "stable.example.com", Kind: "Widget", Established: true}}).Deleting(at).Build()
		objs = append(objs, crd)
	}
	if r.Intn(3) == 0 {
		job := testobj.Job("shop", "batch").Build()
		objs = append(objs, pod("shop", "tracked").Finalizers(rules.FinalizerJob).OwnedBy(job).Facts(running("node-a")).Build())
	}
	if r.Intn(3) == 0 {
		d := testobj.Deployment("shop", "web").Build()
		ref := testobj.Ref(d)
		ref.Name = "not-web"
		objs = append(objs, cm("shop", "misnamed").Owner(ref).Build())
	}
	if seed%2 == 0 {
		objs = settle(objs)
	}
	depth := ownersFirst(objs)
	for i := range objs {
		m := &objs[i].Metadata
		m.ResourceVersion = fmt.Sprint(1 + r.Intn(40))
		t := at.Add(-time.Duration(r.Intn(4)) * time.Hour)
		if seed%3 == 0 {
			// As a cluster grows: owners created first.
			m.ResourceVersion, t = fmt.Sprint(100*depth[i]+r.Intn(100)), at
		}
		m.CreationTimestamp = &t
		if seed%5 == 0 && objs[i].Kind == "Namespace" {
			// An assumed namespace: neither.
			m.ResourceVersion, m.CreationTimestamp = "", nil
		}
	}
	r.Shuffle(len(objs), func(a, b int) { objs[a], objs[b] = objs[b], objs[a] })
	return world(objs...).Build()
}

// ownersFirst gives each object its depth in the owner graph: 0 for
// objects without owners in objs, one more than their deepest owner
// otherwise (cycles stop at 8).
func ownersFirst(objs []snapshot.Object) []int {
	at := map[string]int{}
	for i, o := range objs {
		at[o.Metadata.UID] = i
	}
	depth := make([]int, len(objs))
	for range 8 {
		for i, o := range objs {
			for _, ref := range o.Metadata.OwnerReferences {
				if j, ok := at[ref.UID]; ok && depth[j]+1 > depth[i] && depth[j] < 8 {
					depth[i] = depth[j] + 1
				}
			}
		}
	}
	return depth
}

// settle leaves in objs only what stands still without a delete: it
// drops owner references to objects not there and the deletions the
// collector or a controller would carry on, keeping deletions held by a
// finalizer no simulated controller removes.
func settle(objs []snapshot.Object) []snapshot.Object {
	uids := map[string]bool{}
	for _, o := range objs {
		uids[o.Metadata.UID] = true
	}
	var out []snapshot.Object
	for _, o := range objs {
		o.Metadata.OwnerReferences = slices.DeleteFunc(slices.Clone(o.Metadata.OwnerReferences), func(r snapshot.OwnerReference) bool { return !uids[r.UID] })
		if o.Metadata.DeletionTimestamp != nil {
			held := slices.Contains(o.Metadata.Finalizers, "example.com/hold") && !slices.ContainsFunc(o.Metadata.Finalizers, func(f string) bool {
				return f == rules.FinalizerOrphan || f == rules.FinalizerForeground
			})
			if !held || o.Kind == "Namespace" || o.Kind == "Pod" {
				continue
			}
		}
		out = append(out, o)
	}
	return out
}

// The plan of the part a delete reaches is the plan of the whole cluster,
// byte for byte, and the part is what most plans simulate.
func TestPlanOfPartIsPlanOfAll(t *testing.T) {
	plans, parts := 0, 0
	for seed := int64(1); seed <= 120; seed++ {
		snap := reachWorld(seed)
		r := rand.New(rand.NewSource(seed))
		for range 4 {
			o := snap.Objects[r.Intn(len(snap.Objects))]
			opts := Options{Target: o.Metadata.UID, Policy: policies[r.Intn(len(policies))]}
			if r.Intn(4) == 0 {
				opts.AssumeFinalizers = AssumeRemove
			}
			whole := opts
			whole.whole = true
			want, werr := Simulate(snap, whole)
			got, gerr := Simulate(snap, opts)
			if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Fatalf("seed %d, delete %s: whole cluster: %v; part: %v", seed, o.Ref(), werr, gerr)
			}
			if werr != nil {
				continue
			}
			plans++
			if simulatePart(snap, []Action{Delete{UID: opts.Target, Policy: opts.Policy}}, opts) != nil {
				parts++
			}
			w, _ := json.MarshalIndent(want, "", " ")
			g, _ := json.MarshalIndent(got, "", " ")
			if string(w) != string(g) {
				t.Fatalf("seed %d, delete %s (%s): the part's plan differs from the whole cluster's\npart: %s\nwhole: %s", seed, o.Ref(), opts.Policy, g, w)
			}
		}
	}
	if parts < plans/4 {
		t.Errorf("only %d of %d plans were made on the part the delete reaches", parts, plans)
	}
	t.Logf("%d of %d plans made on the part", parts, plans)
}

// A part escapes to the whole cluster when the simulation reads what the
// part left out; the plan is then the whole cluster's.
func TestPartEscapes(t *testing.T) {
	ns := testobj.Namespace("team").Facts(&snapshot.Facts{Namespace: &snapshot.NamespaceFacts{Phase: "Active", SpecFinalizers: []string{rules.FinalizerNamespace}}}).ResourceVersion("1").Build()
	keep := cm("team", "keep").ResourceVersion("2").Build()
	snap := world(ns, keep).Build()
	r, why := newReach(snap, ns.Metadata.UID)
	if r == nil {
		t.Fatal(why)
	}
	// Deleting the namespace takes its content: the part holds it.
	if len(r.sub.Objects) != 2 {
		t.Fatalf("the part of deleting namespace team holds %d objects, want 2", len(r.sub.Objects))
	}
	r.in[1] = false
	r.listsNamespace("team")
	if r.escaped == "" {
		t.Error("listing a namespace with content outside the part did not escape")
	}
	r.escaped = ""
	r.missedUID(keep.Metadata.UID)
	if r.escaped == "" {
		t.Error("looking up an object outside the part did not escape")
	}
	created := cm("team", "b").Created(testobj.CapturedAt).Build()
	if _, why := newReach(world(cm("team", "a").ResourceVersion("1").Build(), created).Build(), "configmap-team-a"); why == "" {
		t.Error("a snapshot with an object created at a time but without a resourceVersion was planned on a part: replay order could differ")
	}
}
