package e2e

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

var tmpClusterRoles = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}

func TestTmpGraphRandom(t *testing.T) {
	env := framework.Setup(t)
	ctx := context.Background()
	seed, _ := strconv.ParseInt(os.Getenv("SEED"), 10, 64)
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	for round := int64(0); round < 4; round++ {
		tmpRound(t, env, ctx, seed+round)
	}
}

func tmpRound(t *testing.T, env *framework.Env, ctx context.Context, seed int64) {
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	run := fmt.Sprintf("r%d", rng.Intn(100000))
	var nss []string
	for i := 0; i < 3; i++ {
		nss = append(nss, env.Namespace(t, ctx, "rnd"))
	}
	type made struct {
		u   *unstructured.Unstructured
		gvr schema.GroupVersionResource
	}
	var objs []made
	ghosts := []metav1.OwnerReference{}
	for i := 0; i < 4; i++ {
		ghosts = append(ghosts, metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: fmt.Sprintf("ghost-%d", i), UID: types.UID(fmt.Sprintf("ghost-%s-%d", run, i))})
		ghosts = append(ghosts, metav1.OwnerReference{APIVersion: "unknown.example/v1", Kind: "Thing", Name: fmt.Sprintf("thing-%d", i), UID: types.UID(fmt.Sprintf("thing-%s-%d", run, i))})
		ghosts = append(ghosts, metav1.OwnerReference{APIVersion: "v1", Kind: "Node", Name: fmt.Sprintf("node-%d", i), UID: types.UID(fmt.Sprintf("node-%s-%d", run, i))})
	}
	for i := 0; i < 40; i++ {
		var u *unstructured.Unstructured
		var gvr schema.GroupVersionResource
		switch rng.Intn(5) {
		case 0:
			u, gvr = framework.Obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", fmt.Sprintf("%s-cr-%d", run, i)), tmpClusterRoles
			u.SetLabels(map[string]string{"kgc-rand": run})
		case 1, 2:
			u, gvr = framework.Obj("v1", "ConfigMap", nss[rng.Intn(3)], fmt.Sprintf("cm-%d", i)), framework.ConfigMaps
		default:
			u, gvr = framework.Obj("v1", "Secret", nss[rng.Intn(3)], fmt.Sprintf("s-%d", i)), framework.Secrets
		}
		var refs []metav1.OwnerReference
		for k := rng.Intn(3); k > 0; k-- {
			if len(objs) > 0 && rng.Intn(3) > 0 {
				o := objs[rng.Intn(len(objs))]
				refs = append(refs, framework.Ref(o.u, []*bool{nil, tr(), fa()}[rng.Intn(3)], nil))
			} else {
				refs = append(refs, ghosts[rng.Intn(len(ghosts))])
			}
		}
		// dedupe by uid
		seen := map[types.UID]bool{}
		var dd []metav1.OwnerReference
		for _, r := range refs {
			if !seen[r.UID] {
				seen[r.UID] = true
				dd = append(dd, r)
			}
		}
		u.SetOwnerReferences(dd)
		if rng.Intn(3) == 0 {
			u.SetFinalizers([]string{holdFinalizer})
		}
		created := env.MustCreate(t, ctx, gvr, u)
		objs = append(objs, made{created, gvr})
	}
	time.Sleep(2 * time.Second)
	for _, o := range objs {
		if rng.Intn(5) == 0 {
			pol := []metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan}[rng.Intn(3)]
			_ = env.Dynamic.Resource(o.gvr).Namespace(o.u.GetNamespace()).Delete(ctx, o.u.GetName(), metav1.DeleteOptions{PropagationPolicy: &pol})
		}
	}
	for _, ns := range nss {
		if _, err := env.Settle(ctx, nsScope(ns, framework.ConfigMaps, framework.Secrets), quietBefore, settleLimit); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := env.Settle(ctx, framework.Scope{Cluster: []schema.GroupVersionResource{tmpClusterRoles}, ClusterSelector: "kgc-rand=" + run}, quietBefore, settleLimit); err != nil {
		t.Fatal(err)
	}
	gc, err := env.FetchGCGraph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var kg framework.Graph
	env.KGCJSON(t, &kg, "graph", "-A", "-o", "json")
	kn := map[string]framework.GraphNode{}
	for _, n := range kg.Nodes {
		kn[n.UID] = n
	}
	var diffs []string
	for uid, g := range gc.Nodes {
		k, ok := kn[uid]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("GC only: %s %s/%s missing=%v virtual=%v", uid, g.Namespace, g.Name, g.Missing, g.Virtual))
			continue
		}
		if g.Missing {
			if !k.Virtual {
				diffs = append(diffs, fmt.Sprintf("missing in GC but kgc observed: %s", uid))
			}
			continue
		}
		got := fmt.Sprintf("%s %s %s/%s virtual=%v beingDeleted=%v deletingDependents=%v", k.APIVersion, k.Kind, k.Namespace, k.Name, k.Virtual, k.BeingDeleted, k.DeletingDependents)
		want := fmt.Sprintf("%s %s %s/%s virtual=%v beingDeleted=%v deletingDependents=%v", gvString(g.Group, g.Version), g.Kind, g.Namespace, g.Name, g.Virtual, g.BeingDeleted, g.DeletingDependents)
		if got != want {
			diffs = append(diffs, fmt.Sprintf("node %s: kgc %q GC %q", uid, got, want))
		}
	}
	for uid, k := range kn {
		if _, ok := gc.Nodes[uid]; !ok {
			diffs = append(diffs, fmt.Sprintf("kgc only: %s %s %s/%s virtual=%v", uid, k.Kind, k.Namespace, k.Name, k.Virtual))
		}
	}
	sort.Strings(diffs)
	for _, d := range diffs {
		t.Log(d)
	}
	t.Logf("%d GC nodes, %d kgc nodes, %d diffs", len(gc.Nodes), len(kg.Nodes), len(diffs))
	if len(diffs) > 0 {
		os.WriteFile("/tmp/gc-graph.dot", []byte(gc.Raw), 0o644)
		out := env.KGC(t, "graph", "-A", "-o", "json")
		os.WriteFile("/tmp/kgc-graph.json", out, 0o644)
		t.Fail()
	}
}

func gvString(g, v string) string {
	if g == "" {
		return v
	}
	return g + "/" + v
}
