package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// TestGraphMatchesGCDebugGraph builds an owner graph with the interesting
// node kinds (solid owners, a blockOwnerDeletion controller ref, a virtual
// owner of an unknown kind that the GC keeps forever, a dangling owner whose
// held dependent outlives it, an owner waiting for its dependents) and
// compares `kgc graph -o json` with the garbage collector's own debug graph.
func TestGraphMatchesGCDebugGraph(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "graph")

	owner := mk(t, ctx, env, "ConfigMap", ns, "owner")
	mk(t, ctx, env, "Secret", ns, "dep-block", owners(ref(owner, tr(), tr())))
	mk(t, ctx, env, "Secret", ns, "dep-plain", owners(ref(owner, nil, nil)))
	mk(t, ctx, env, "Pod", ns, "pod", owners(ref(owner, fa(), nil)))
	// Unknown kind: the GC cannot map it, keeps the virtual owner and
	// never collects the dependent (§2.9).
	mk(t, ctx, env, "ConfigMap", ns, "unknown-kind-dep", owners(metav1.OwnerReference{
		APIVersion: "unknown.group/v1", Kind: "UnknownType", Name: "nope", UID: uuid.NewUUID(),
	}))
	// Dangling owner: the GC deletes the dependent, which stays Terminating
	// under a finalizer nobody removes, still pointing at the absent owner.
	held := mk(t, ctx, env, "Secret", ns, "dangling-held", finalizers(holdFinalizer), owners(metav1.OwnerReference{
		APIVersion: "v1", Kind: "ConfigMap", Name: "ghost", UID: uuid.NewUUID(),
	}))
	// Its own dependent: a terminating owner without foregroundDeletion is
	// solid, so this one stays. In the GC's DOT its edge may be drawn to the
	// ghost (dump.go's missing-vertex quirk).
	mk(t, ctx, env, "Secret", ns, "grand-held", owners(ref(held, nil, nil)))
	// An owner waiting for a blocking dependent held by a finalizer.
	fgOwner := mk(t, ctx, env, "ConfigMap", ns, "fg-owner")
	mk(t, ctx, env, "Secret", ns, "fg-dep", finalizers(holdFinalizer), owners(ref(fgOwner, tr(), nil)))
	time.Sleep(time.Second) // let the GC observe the dependents before the owner goes
	deleteNow(t, ctx, env, framework.ConfigMaps, ns, "fg-owner", fg)

	scope := nsScope(ns, framework.ConfigMaps, framework.Secrets, framework.Pods)
	states, err := env.Settle(ctx, scope, quietBefore, settleLimit)
	if err != nil {
		t.Fatal(err)
	}
	// Sanity of the setup itself.
	if s, ok := stateByName(states, "Secret", "dangling-held"); !ok || !s.Terminating {
		t.Fatalf("setup: dangling-held should be terminating: %+v", s)
	}
	if s, ok := stateByName(states, "ConfigMap", "fg-owner"); !ok || !s.Terminating {
		t.Fatalf("setup: fg-owner should be waiting for its dependents: %+v", s)
	}

	gc, err := env.FetchGCGraph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var seeds []string
	for uid, n := range gc.Nodes {
		if n.Namespace == ns && !n.Missing {
			seeds = append(seeds, uid)
		}
	}
	component := gc.Component(seeds...)

	var kg framework.Graph
	env.KGCJSON(t, &kg, "graph", "-n", ns, "-o", "json")
	if kg.APIVersion != "kgc.dev/v1alpha1" || kg.Kind != "Graph" {
		t.Errorf("graph header: %s %s", kg.APIVersion, kg.Kind)
	}
	missing, virtual := 0, 0
	for uid := range component {
		if gc.Nodes[uid].Missing {
			missing++
		} else if gc.Nodes[uid].Virtual {
			virtual++
		}
	}
	t.Logf("GC debug graph of the namespace: %d nodes (%d virtual, %d missing-vertex), kgc: %d nodes, %d edges, %d findings",
		len(component), virtual, missing, len(kg.Nodes), len(kg.Edges), len(kg.Findings))
	for _, d := range graphDiffs(gc, component, &kg, states) {
		t.Error(d)
	}

	// -o dot promises the GC's DOT shape and attribute names: parsed with
	// the same parser, it must describe the same graph.
	dot, err := framework.ParseGCDOT(env.KGC(t, "graph", "-n", ns, "-o", "dot"))
	if err != nil {
		t.Errorf("kgc graph -o dot does not parse as the GC's DOT: %v", err)
	} else {
		for _, d := range graphDiffs(gc, component, dot.AsGraph(), states) {
			t.Errorf("-o dot: %s", d)
		}
	}

	// Findings a user would look for on this namespace.
	want := map[string]string{
		"dangling-owner":          "dangling-held",
		"unresolvable-owner-kind": "unknown-kind-dep",
	}
	for typ, name := range want {
		found := false
		for _, f := range kg.Findings {
			if f.Type != typ {
				continue
			}
			for _, o := range f.Objects {
				if o.Name == name {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("kgc graph: no %q finding naming %s; findings: %+v", typ, name, kg.Findings)
		}
	}

	// --uid limits to a connected component, as the GC's ?uid= does.
	gcPart, err := env.FetchGCGraph(ctx, string(owner.GetUID()))
	if err != nil {
		t.Fatal(err)
	}
	var kgPart framework.Graph
	env.KGCJSON(t, &kgPart, "graph", "-n", ns, "--uid", string(owner.GetUID()), "-o", "json")
	all := map[string]bool{}
	for uid := range gcPart.Nodes {
		all[uid] = true
	}
	for _, d := range graphDiffs(gcPart, all, &kgPart, states) {
		t.Errorf("--uid: %s", d)
	}
}

// graphDiffs checks kgc's graph against the GC's nodes in component and
// returns one line per difference.
func graphDiffs(gc *framework.GCGraph, component map[string]bool, kg *framework.Graph, states map[string]framework.ObjState) []string {
	var diffs []string
	errorf := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	kgNodes := map[string]framework.GraphNode{}
	for _, n := range kg.Nodes {
		kgNodes[n.UID] = n
	}
	var gcUIDs, kgUIDs []string
	for uid := range component {
		gcUIDs = append(gcUIDs, uid)
	}
	for uid := range kgNodes {
		kgUIDs = append(kgUIDs, uid)
	}
	sort.Strings(gcUIDs)
	sort.Strings(kgUIDs)
	if strings.Join(gcUIDs, " ") != strings.Join(kgUIDs, " ") {
		errorf("node sets differ\nGC:  %v\nkgc: %v", describeUIDs(gc, gcUIDs), kgUIDs)
	}
	for uid := range component {
		g := gc.Nodes[uid]
		k, ok := kgNodes[uid]
		if !ok {
			continue
		}
		if g.Missing {
			// dump.go's invented vertex for an owner absent from the graph:
			// only the UID is reliable; for kgc it is a virtual node.
			if !k.Virtual {
				errorf("node %s (%s %s): the GC has no object for it, kgc says virtual=false", uid, k.Kind, k.Name)
			}
			continue
		}
		if g.DeletingDependents && !k.DeletingDependents {
			if st, ok := states[uid]; ok && st.Terminating && !contains(st.Finalizers, "foregroundDeletion") {
				// The GC never clears deletingDependents after removing
				// foregroundDeletion; a snapshot cannot know that history
				// (output-contract.md), so this flag is not comparable.
				g.DeletingDependents = false
			}
		}
		got := fmt.Sprintf("%s %s/%s virtual=%v beingDeleted=%v deletingDependents=%v", k.Kind, k.Namespace, k.Name, k.Virtual, k.BeingDeleted, k.DeletingDependents)
		want := fmt.Sprintf("%s %s/%s virtual=%v beingDeleted=%v deletingDependents=%v", g.Kind, g.Namespace, g.Name, g.Virtual, g.BeingDeleted, g.DeletingDependents)
		if got != want {
			errorf("node %s: kgc %q, GC %q", uid, got, want)
		}
	}
	// Edges: the GC's real edges are its nodes' ownerReferences.
	wantEdges := map[string]bool{}
	for _, s := range states {
		if !component[s.UID] {
			continue
		}
		for _, o := range s.OwnerUIDs {
			wantEdges[s.UID+"->"+o] = true
		}
	}
	gotEdges := map[string]bool{}
	for _, e := range kg.Edges {
		gotEdges[e.From+"->"+e.To] = true
	}
	for e := range wantEdges {
		if !gotEdges[e] {
			errorf("kgc graph lacks edge %s (an ownerReference the GC holds)", e)
		}
	}
	for e := range gotEdges {
		if !wantEdges[e] {
			errorf("kgc graph has edge %s, which is no ownerReference of these objects", e)
		}
	}
	// Every DOT edge to an observed or virtual owner is a real edge; edges
	// to dump.go's missing vertices may be misattributed (the quirk).
	for _, e := range gc.Edges {
		if !component[e.From] {
			continue
		}
		if n, ok := gc.Nodes[e.To]; ok && n.Missing {
			continue
		}
		if !gotEdges[e.From+"->"+e.To] {
			errorf("GC DOT edge %s -> %s is missing from kgc's graph", e.From, e.To)
		}
	}
	return diffs
}

func describeUIDs(g *framework.GCGraph, uids []string) []string {
	var out []string
	for _, u := range uids {
		n := g.Nodes[u]
		out = append(out, fmt.Sprintf("%s(%s/%s)", u, n.Kind, n.Name))
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
