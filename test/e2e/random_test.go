package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// Randomized differential testing: seeded random owner graphs are built for
// real, kgc plans a delete, the delete happens, and the plan must match what
// the garbage collector did. Replay one case with
//
//	go test ./... -run TestRandom -seed N
var (
	seedFlag  = flag.Int64("seed", 0, "run only this TestRandom seed (0: the fixed seeds 1..-random-cases plus one time-based seed)")
	casesFlag = flag.Int("random-cases", 30, "number of fixed TestRandom seeds (1..N) when -seed is not given")
	seedsFlag = flag.String("seeds", "", "comma-separated TestRandom seeds to run (instead of the default set)")
	crossFlag = flag.Int("random-cross-cases", 10, "number of fixed TestRandomCrossNamespace seeds (1..N) when no seed is given")
	repeat    = flag.Int("repeat", 3, "run each TestRandom seed this many times (each in its own namespace), to tell a racy GC outcome from a deterministic one")
)

var (
	randWidget = framework.CRD{Group: "rand.e2e.kgc.dev", Kind: "Widget", Plural: "widgets", Namespace: true}
	randGadget = framework.CRD{Group: "rand.e2e.kgc.dev", Kind: "Gadget", Plural: "gadgets", Namespace: false}
)

// randRef is a generated ownerReference: to object Owner (an index), or to a
// never-existing object when Owner < 0.
type randRef struct {
	Owner      int
	Block      *bool
	Controller *bool
}

type randObj struct {
	Kind       string // ConfigMap, Secret, Widget, Gadget
	Refs       []randRef
	Finalizers []string
}

type randCase struct {
	Seed    int64
	Objs    []randObj
	Cycles  [][2]int // [dependent, owner]: refs added after creation
	PreDel  []int    // objects deleted (with PreDelPolicy) before the plan
	PrePol  []metav1.DeletionPropagation
	Target  int
	Policy  metav1.DeletionPropagation
	ghosts  map[int]types.UID
	created []*unstructured.Unstructured

	// Cross-namespace variant (TestRandomCrossNamespace): Others ConfigMaps
	// x0.. live in a second namespace, Cross adds references to them, and
	// TargetOther >= 0 deletes x<TargetOther> instead of an o<i>.
	Others      int
	OtherHold   []bool
	Cross       []crossRef
	TargetOther int
	others      []*unstructured.Unstructured
}

// crossRef makes object Dep reference x<Other> in the other namespace;
// SameName also creates an unrelated x<Other> in Dep's namespace, which the
// GC then finds by name (with another UID).
type crossRef struct {
	Dep, Other int
	Block      *bool
	SameName   bool
}

// augmentCross adds the cross-namespace variant from its own random stream,
// so that generate(seed) and TestRandom's seeds stay as they were.
func (c *randCase) augmentCross() {
	r := rand.New(rand.NewPCG(uint64(c.Seed), 0x78736e73))
	c.Others = 1 + r.IntN(2)
	for k := 0; k < c.Others; k++ {
		c.OtherHold = append(c.OtherHold, r.IntN(3) == 0)
	}
	for i, o := range c.Objs {
		if o.Kind == "Gadget" || r.IntN(3) != 0 {
			continue
		}
		c.Cross = append(c.Cross, crossRef{Dep: i, Other: r.IntN(c.Others), Block: pickBool(r), SameName: r.IntN(3) == 0})
	}
	c.TargetOther = -1
	if r.IntN(3) == 0 {
		c.TargetOther = r.IntN(c.Others)
	}
}

func boolPtrString(b *bool) string {
	if b == nil {
		return "-"
	}
	return fmt.Sprint(*b)
}

// String describes the generated graph, to replay or reason about a failure.
func (c *randCase) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d: delete o%d with %s\n", c.Seed, c.Target, c.Policy)
	for i, o := range c.Objs {
		var refs []string
		for _, r := range o.Refs {
			to := fmt.Sprintf("o%d", r.Owner)
			if r.Owner < 0 {
				to = "ghost"
			}
			refs = append(refs, fmt.Sprintf("%s{b=%s,c=%s}", to, boolPtrString(r.Block), boolPtrString(r.Controller)))
		}
		fmt.Fprintf(&b, "  o%d %s finalizers=%v owners=[%s]", i, o.Kind, o.Finalizers, strings.Join(refs, " "))
		if i < len(c.created) && c.created[i] != nil {
			fmt.Fprintf(&b, " uid=%s", c.created[i].GetUID())
		}
		b.WriteString("\n")
	}
	for _, cy := range c.Cycles {
		fmt.Fprintf(&b, "  cycle: o%d gets owner o%d{b=true}\n", cy[0], cy[1])
	}
	for i, d := range c.PreDel {
		fmt.Fprintf(&b, "  before the plan: delete o%d with %s\n", d, c.PrePol[i])
	}
	for k := 0; k < c.Others; k++ {
		fmt.Fprintf(&b, "  x%d ConfigMap in the other namespace, hold=%v", k, c.OtherHold[k])
		if k < len(c.others) {
			fmt.Fprintf(&b, " uid=%s", c.others[k].GetUID())
		}
		b.WriteString("\n")
	}
	for _, x := range c.Cross {
		fmt.Fprintf(&b, "  cross-namespace: o%d also owned by x%d{b=%s} (same-name decoy in o%d's namespace: %v)\n", x.Dep, x.Other, boolPtrString(x.Block), x.Dep, x.SameName)
	}
	if c.TargetOther >= 0 {
		fmt.Fprintf(&b, "  target: x%d instead of o%d\n", c.TargetOther, c.Target)
	}
	return b.String()
}

var policies = []metav1.DeletionPropagation{fg, bg, or}

func pickBool(r *rand.Rand) *bool {
	switch r.IntN(5) {
	case 0, 1:
		return nil
	case 2, 3:
		return tr()
	default:
		return fa()
	}
}

// generate builds a case from a seed; everything random happens here, so a
// seed always describes the same experiment.
func generate(seed int64) *randCase {
	r := rand.New(rand.NewPCG(uint64(seed), 0x6b6763))
	c := &randCase{Seed: seed, ghosts: map[int]types.UID{}, TargetOther: -1}
	n := 3 + r.IntN(6)
	for i := 0; i < n; i++ {
		o := randObj{}
		switch k := r.IntN(20); {
		case k < 6:
			o.Kind = "ConfigMap"
		case k < 11:
			o.Kind = "Secret"
		case k < 17:
			o.Kind = "Widget"
		default:
			o.Kind = "Gadget"
		}
		nOwners := []int{0, 0, 1, 1, 1, 1, 2, 2, 3}[r.IntN(9)]
		if i == 0 {
			nOwners = 0
		}
		used := map[int]bool{}
		controllerSet := false
		for k := 0; k < nOwners && i > 0; k++ {
			owner := r.IntN(i)
			if used[owner] {
				continue
			}
			// A cluster-scoped dependent of a namespaced owner is a hazard
			// the GC never resolves (§2.9); keep it rare.
			if o.Kind == "Gadget" && c.Objs[owner].Kind != "Gadget" && r.IntN(10) != 0 {
				continue
			}
			used[owner] = true
			ref := randRef{Owner: owner, Block: pickBool(r)}
			if !controllerSet && r.IntN(3) == 0 {
				ref.Controller, controllerSet = tr(), true
			} else if r.IntN(3) == 0 {
				ref.Controller = fa()
			}
			o.Refs = append(o.Refs, ref)
		}
		if r.IntN(12) == 0 {
			o.Refs = append(o.Refs, randRef{Owner: -1, Block: pickBool(r)})
		}
		if r.IntN(4) == 0 {
			o.Finalizers = append(o.Finalizers, holdFinalizer)
		}
		switch r.IntN(12) {
		case 0:
			o.Finalizers = append(o.Finalizers, "orphan")
		case 1:
			o.Finalizers = append(o.Finalizers, "foregroundDeletion")
		}
		c.Objs = append(c.Objs, o)
	}
	if n >= 3 && r.IntN(6) == 0 {
		a := r.IntN(n - 1)
		b := a + 1 + r.IntN(n-1-a)
		if c.Objs[a].Kind != "Gadget" || c.Objs[b].Kind == "Gadget" {
			c.Cycles = append(c.Cycles, [2]int{a, b})
		}
	}
	if r.IntN(10) < 3 {
		d := r.IntN(n)
		c.PreDel = append(c.PreDel, d)
		c.PrePol = append(c.PrePol, policies[r.IntN(3)])
	}
	// Prefer a target that owns something: that is where plans get
	// interesting.
	var owners []int
	for i := range c.Objs {
		for _, o := range c.Objs {
			for _, rf := range o.Refs {
				if rf.Owner == i {
					owners = append(owners, i)
				}
			}
		}
	}
	if len(owners) > 0 && r.IntN(5) != 0 {
		c.Target = owners[r.IntN(len(owners))]
	} else {
		c.Target = r.IntN(n)
	}
	c.Policy = policies[r.IntN(3)]
	return c
}

func (c *randCase) gvr(i int) schema.GroupVersionResource {
	switch c.Objs[i].Kind {
	case "ConfigMap":
		return framework.ConfigMaps
	case "Secret":
		return framework.Secrets
	case "Widget":
		return randWidget.GVR()
	default:
		return randGadget.GVR()
	}
}

func (c *randCase) typeArg(i int) string {
	switch c.Objs[i].Kind {
	case "ConfigMap":
		return "configmaps"
	case "Secret":
		return "secrets"
	case "Widget":
		return randWidget.TypeArg()
	default:
		return randGadget.TypeArg()
	}
}

func (c *randCase) name(ns string, i int) string {
	if c.Objs[i].Kind == "Gadget" {
		return fmt.Sprintf("%s-o%d", ns, i)
	}
	return fmt.Sprintf("o%d", i)
}

func (c *randCase) objNamespace(ns string, i int) string {
	if c.Objs[i].Kind == "Gadget" {
		return ""
	}
	return ns
}

// build creates the case's objects for real and performs its earlier
// deletions.
func (c *randCase) build(t testing.TB, ctx context.Context, env *framework.Env, ns, nsX string) {
	t.Helper()
	for k := 0; k < c.Others; k++ {
		u := framework.Obj("v1", "ConfigMap", nsX, fmt.Sprintf("x%d", k))
		if c.OtherHold[k] {
			u.SetFinalizers([]string{holdFinalizer})
		}
		c.others = append(c.others, env.MustCreate(t, ctx, framework.ConfigMaps, u))
	}
	decoys := map[int]bool{}
	for _, x := range c.Cross {
		if x.SameName && !decoys[x.Other] {
			decoys[x.Other] = true
			env.MustCreate(t, ctx, framework.ConfigMaps, framework.Obj("v1", "ConfigMap", ns, fmt.Sprintf("x%d", x.Other)))
		}
	}
	toRef := func(i int, rr randRef) metav1.OwnerReference {
		if rr.Owner < 0 {
			// A fresh UID per object and run: the GC keys its graph by
			// UID, so a ghost shared between runs would couple them.
			uid, ok := c.ghosts[i]
			if !ok {
				uid = uuid.NewUUID()
				c.ghosts[i] = uid
			}
			return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "ghost", UID: uid, BlockOwnerDeletion: rr.Block, Controller: rr.Controller}
		}
		return ref(c.created[rr.Owner], rr.Block, rr.Controller)
	}
	for i, o := range c.Objs {
		u := &unstructured.Unstructured{}
		switch o.Kind {
		case "ConfigMap":
			u = framework.Obj("v1", o.Kind, ns, c.name(ns, i))
		case "Secret":
			u = framework.Obj("v1", o.Kind, ns, c.name(ns, i))
		case "Widget":
			u = randWidget.New(ns, c.name(ns, i))
		case "Gadget":
			u = randGadget.New("", c.name(ns, i))
			u.SetLabels(map[string]string{"kgc-e2e/case": ns})
		}
		var refs []metav1.OwnerReference
		for _, rr := range o.Refs {
			refs = append(refs, toRef(i, rr))
		}
		for _, x := range c.Cross {
			if x.Dep == i {
				refs = append(refs, ref(c.others[x.Other], x.Block, nil))
			}
		}
		u.SetOwnerReferences(refs)
		u.SetFinalizers(o.Finalizers)
		c.created = append(c.created, env.MustCreate(t, ctx, c.gvr(i), u))
	}
	for _, cy := range c.Cycles {
		dep := c.created[cy[0]]
		cur, err := env.Dynamic.Resource(c.gvr(cy[0])).Namespace(dep.GetNamespace()).Get(ctx, dep.GetName(), metav1.GetOptions{})
		if err != nil {
			// Already collected (e.g. a dangling owner): no cycle then.
			t.Logf("seed %d: cycle source o%d is gone: %v", c.Seed, cy[0], err)
			continue
		}
		cur.SetOwnerReferences(append(cur.GetOwnerReferences(), ref(c.created[cy[1]], tr(), nil)))
		if _, err := env.Dynamic.Resource(c.gvr(cy[0])).Namespace(dep.GetNamespace()).Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			t.Logf("seed %d: closing cycle o%d→o%d: %v", c.Seed, cy[0], cy[1], err)
		}
	}
	for k, d := range c.PreDel {
		// Let the GC see the graph first, as it would have in a real cluster.
		time.Sleep(500 * time.Millisecond)
		pol := c.PrePol[k]
		err := env.Dynamic.Resource(c.gvr(d)).Namespace(c.objNamespace(ns, d)).Delete(ctx, c.name(ns, d), metav1.DeleteOptions{PropagationPolicy: &pol})
		if err != nil {
			t.Logf("seed %d: earlier delete of o%d: %v", c.Seed, d, err)
		}
	}
}

type randTally struct {
	sync.Mutex
	errors, offlineMismatch, foreign int
	graphCases, graphAgree           int
	runs                             map[int64][]randOutcome
}

// randOutcome is one run of a seed: what really happened, in terms of the
// generated objects' indices (UIDs differ between runs), and whether the
// plan predicted it.
type randOutcome struct {
	reality string
	agreed  bool
	report  string
}

func TestRandom(t *testing.T) {
	runRandomSuite(t, false, *casesFlag)
}

// TestRandomCrossNamespace is TestRandom with owners in a second namespace
// (never valid owners for the GC, which looks them up by name in the
// dependent's namespace) and same-name decoys there.
func TestRandomCrossNamespace(t *testing.T) {
	runRandomSuite(t, true, *crossFlag)
}

func runRandomSuite(t *testing.T, cross bool, defaultCases int) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	env.CreateCRDs(t, ctx, randWidget, randGadget)

	var seeds []int64
	switch {
	case *seedFlag != 0:
		seeds = []int64{*seedFlag}
	case *seedsFlag != "":
		for _, f := range strings.Split(*seedsFlag, ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
			if err != nil {
				t.Fatalf("-seeds: %v", err)
			}
			seeds = append(seeds, n)
		}
	default:
		for s := int64(1); s <= int64(defaultCases); s++ {
			seeds = append(seeds, s)
		}
		fresh := time.Now().UnixNano()%1_000_000_000 + 1_000_000
		t.Logf("random: fresh seed this run: %d", fresh)
		seeds = append(seeds, fresh)
	}
	tally := &randTally{runs: map[int64][]randOutcome{}}
	t.Run("cases", func(t *testing.T) {
		for _, seed := range seeds {
			for rep := 1; rep <= *repeat; rep++ {
				name := fmt.Sprintf("seed=%d", seed)
				if *repeat > 1 {
					name += fmt.Sprintf("/run=%d", rep)
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					runRandomCase(t, ctx, env, seed, tally, cross)
				})
			}
		}
	})
	// A seed fails when kgc's plan disagrees with an outcome the GC
	// reproduced in every run. When the GC's own outcome varied between runs
	// (its 20 workers race: which of two concurrently queued items acts
	// first), the seed is "racy": it fails only if the plan matched none of
	// the observed outcomes.
	var agree, disagree, racy, racyAgree, runs, seedsRun int
	var failed []int64
	for _, seed := range seeds {
		outs := tally.runs[seed]
		if len(outs) == 0 {
			continue
		}
		seedsRun++
		runs += len(outs)
		realities := map[string]bool{}
		agreed := 0
		var firstReport string
		for _, o := range outs {
			realities[o.reality] = true
			if o.agreed {
				agreed++
			} else if firstReport == "" {
				firstReport = o.report
			}
		}
		switch {
		case agreed == len(outs):
			agree++
		case len(realities) > 1:
			racy++
			if agreed > 0 {
				racyAgree++
				t.Logf("seed %d is racy: the GC's outcome varied between %d runs; the plan matches %d of them. A run it does not match:\n%s", seed, len(outs), agreed, firstReport)
			} else {
				failed = append(failed, seed)
				t.Errorf("seed %d: the GC's outcome varied between %d runs and the plan matches none of them:\n%s", seed, len(outs), firstReport)
			}
		default:
			disagree++
			failed = append(failed, seed)
			t.Errorf("seed %d: kgc plan disagrees with the garbage collector, which did the same in all %d runs:\n%s", seed, len(outs), firstReport)
		}
	}
	t.Logf("random: %d cases, %d agree, %d disagree, %d racy (%d of them matched by the plan), %d errors, %d offline mismatches, %d with foreign objects; %d runs; failing seeds %v",
		seedsRun, agree, disagree, racy, racyAgree, tally.errors, tally.offlineMismatch, tally.foreign, runs, failed)
	t.Logf("random graph: %d cases, %d agree", tally.graphCases, tally.graphAgree)
}

func runRandomCase(t *testing.T, ctx context.Context, env *framework.Env, seed int64, tally *randTally, cross bool) {
	c := generate(seed)
	prefix := "rand"
	var nsX string
	if cross {
		c.augmentCross()
		prefix = "randx"
	}
	ns := env.Namespace(t, ctx, fmt.Sprintf("%s-%d", prefix, seed))
	var extra []string
	if cross {
		nsX = env.Namespace(t, ctx, fmt.Sprintf("%s-%d-other", prefix, seed))
		extra = []string{nsX}
	}
	c.build(t, ctx, env, ns, nsX)
	scope := framework.Scope{
		Namespace:       ns,
		ExtraNamespaces: extra,
		Namespaced:      []schema.GroupVersionResource{framework.ConfigMaps, framework.Secrets, randWidget.GVR()},
		Cluster:         []schema.GroupVersionResource{randGadget.GVR()},
		ClusterSelector: "kgc-e2e/case=" + ns,
	}
	// The target must still exist after the earlier deletions and what the
	// GC did about dangling owners; walk from the generated choice to the
	// next surviving object, which depends only on the seed's reality.
	before, err := env.Settle(ctx, scope, quietBefore, settleLimit)
	if err != nil {
		t.Fatalf("seed %d: settling before the plan: %v\n%s", seed, err, c)
	}
	target := -1
	for k := 0; k < len(c.Objs); k++ {
		i := (c.Target + k) % len(c.Objs)
		if s, ok := before[string(c.created[i].GetUID())]; ok && s.Exists {
			target = i
			break
		}
	}
	if target < 0 {
		t.Logf("seed %d: nothing left to delete after the earlier deletions; case skipped\n%s", seed, c)
		return
	}
	c.Target = target
	graphDiff := compareRandomGraph(t, ctx, env, ns, before)
	tally.Lock()
	tally.graphCases++
	if len(graphDiff) == 0 {
		tally.graphAgree++
	}
	tally.Unlock()
	if len(graphDiff) > 0 {
		t.Errorf("seed %d: kgc graph disagrees with the GC's debug graph:\n  %s\n%s", seed, strings.Join(graphDiff, "\n  "), c)
	}
	pc := planCase{
		Scope: scope, GVR: c.gvr(target), TypeArg: c.typeArg(target),
		Namespace: c.objNamespace(ns, target), Name: c.name(ns, target), Policy: c.Policy,
	}
	what := fmt.Sprintf("o%d (%s)", target, c.Objs[target].Kind)
	if c.TargetOther >= 0 {
		if s, ok := before[string(c.others[c.TargetOther].GetUID())]; ok && s.Exists {
			pc.GVR, pc.TypeArg, pc.Namespace, pc.Name = framework.ConfigMaps, "configmaps", nsX, c.others[c.TargetOther].GetName()
			what = fmt.Sprintf("x%d (ConfigMap in the other namespace)", c.TargetOther)
		}
	}
	t.Logf("seed %d: %d objects, delete %s with %s\n%s", seed, len(c.Objs), what, c.Policy, c)
	r := runPlan(t, ctx, env, pc)
	tally.Lock()
	defer tally.Unlock()
	if r.Err != nil {
		tally.errors++
		t.Errorf("seed %d: %v\n%s\n%s", seed, r.Err, c, r.report())
		return
	}
	out := randOutcome{reality: c.canonical(r.Before) + "=>\n" + c.canonical(r.After), agreed: len(r.Diffs) == 0}
	if !out.agreed {
		out.report = fmt.Sprintf("  %s\n%s\n%s", strings.Join(r.Diffs, "\n  "), c, r.report())
	}
	tally.runs[seed] = append(tally.runs[seed], out)
	if len(r.Foreign) > 0 {
		tally.foreign++
		t.Errorf("seed %d: kgc plan lists objects the delete does not touch:\n  %s", seed, strings.Join(r.Foreign, "\n  "))
	}
	if r.OfflineDiff != "" {
		tally.offlineMismatch++
		t.Errorf("seed %d: %s", seed, r.OfflineDiff)
	}
}

// compareRandomGraph compares `kgc graph -n NS` with the GC's debug graph
// for the case's namespace, in the settled state before the plan.
func compareRandomGraph(t *testing.T, ctx context.Context, env *framework.Env, ns string, states map[string]framework.ObjState) []string {
	gc, err := env.FetchGCGraph(ctx)
	if err != nil {
		return []string{err.Error()}
	}
	var seeds []string
	for uid, n := range gc.Nodes {
		if n.Namespace == ns && !n.Missing {
			seeds = append(seeds, uid)
		}
	}
	component := gc.Component(seeds...)
	res := env.RunKGC(t, "graph", "-n", ns, "-o", "json")
	if res.ExitCode != 0 {
		return []string{res.String()}
	}
	var kg framework.Graph
	if err := json.Unmarshal(res.Stdout, &kg); err != nil {
		return []string{fmt.Sprintf("decoding kgc graph: %v", err)}
	}
	return graphDiffs(gc, component, &kg, states)
}

// canonical renders states by object index, so runs with different UIDs
// compare.
func (c *randCase) canonical(states map[string]framework.ObjState) string {
	name := map[string]string{}
	for i, u := range c.created {
		name[string(u.GetUID())] = fmt.Sprintf("o%d", i)
	}
	for _, g := range c.ghosts {
		name[string(g)] = "ghost"
	}
	for k, u := range c.others {
		name[string(u.GetUID())] = fmt.Sprintf("x%d", k)
	}
	var b strings.Builder
	for k, u := range c.others {
		st, ok := states[string(u.GetUID())]
		if !ok || !st.Exists {
			fmt.Fprintf(&b, "x%d gone\n", k)
			continue
		}
		fmt.Fprintf(&b, "x%d terminating=%v finalizers=%v\n", k, st.Terminating, st.Finalizers)
	}
	for i, u := range c.created {
		st, ok := states[string(u.GetUID())]
		if !ok || !st.Exists {
			fmt.Fprintf(&b, "o%d gone\n", i)
			continue
		}
		var owners []string
		for _, o := range st.OwnerUIDs {
			owners = append(owners, name[o])
		}
		fins := append([]string(nil), st.Finalizers...)
		sort.Strings(fins)
		fmt.Fprintf(&b, "o%d terminating=%v finalizers=%v owners=%v\n", i, st.Terminating, fins, owners)
	}
	return b.String()
}
