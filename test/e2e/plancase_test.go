package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"sigs.k8s.io/yaml"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// Quiet periods for "the GC has settled". The GC reacts to an event within
// milliseconds; a few seconds without any change means it has nothing left
// to do (its periodic work, discovery resync, changes no object).
const (
	quietBefore = 3 * time.Second
	quietAfter  = 5 * time.Second
	settleLimit = 3 * time.Minute
)

// planCase is one "plan, then really delete, then compare" experiment.
type planCase struct {
	Scope     framework.Scope
	GVR       schema.GroupVersionResource
	TypeArg   string // kgc/kubectl TYPE, e.g. "configmaps" or "widgets.t9.e2e.kgc.dev"
	Namespace string // empty for cluster-scoped targets
	Name      string
	Policy    metav1.DeletionPropagation
	// ExtraArgs are added to both plan invocations.
	ExtraArgs []string
	// Quiet overrides quietBefore and quietAfter (workload scenarios: the
	// controllers and kwok react in seconds, not milliseconds).
	Quiet time.Duration
	// Dump lists these types cluster-wide into a `kubectl get -A -o yaml`
	// style List and plans from it too; the objects must be the live
	// plan's. Empty: no dump plan.
	Dump []schema.GroupVersionResource
}

// quiet is how long the case's objects must not change to count as settled.
func (pc planCase) quiet(dflt time.Duration) time.Duration {
	if pc.Quiet > 0 {
		return pc.Quiet
	}
	return dflt
}

// planResult is what a planCase observed.
type planResult struct {
	Plan        *framework.Plan
	OfflinePlan *framework.Plan
	Before      map[string]framework.ObjState
	After       map[string]framework.ObjState
	// Diffs between the live plan and reality (empty: kgc agreed with the GC).
	Diffs []string
	// Foreign lists plan objects outside the case (a contract violation).
	Foreign []string
	// OfflineDiff is non-empty when the plan from a snapshot file differs
	// from the live plan.
	OfflineDiff string
	// DumpDiff is the same for the plan from a kubectl-style dump.
	DumpDiff string
	// Err is a harness or kgc failure that prevented the comparison.
	Err error
}

func (pc planCase) planArgs() []string {
	cascade := strings.ToLower(string(pc.Policy))
	if pc.Policy == "" {
		cascade = "default" // no policy sent: the resource's own default
	}
	args := []string{"plan", "delete", pc.TypeArg + "/" + pc.Name, "--cascade=" + cascade, "-o", "json"}
	if pc.Namespace != "" {
		args = append(args, "-n", pc.Namespace)
	}
	return append(args, pc.ExtraArgs...)
}

// runPlan executes the experiment without failing t, so the randomized test
// can count agreements; checkPlan wraps it for scenario tests.
func runPlan(t testing.TB, ctx context.Context, env *framework.Env, pc planCase) planResult {
	t.Helper()
	var r planResult
	var err error
	r.Before, err = env.Settle(ctx, pc.Scope, pc.quiet(quietBefore), settleLimit)
	if err != nil {
		r.Err = fmt.Errorf("before the delete: %w", err)
		return r
	}
	var target *framework.ObjState
	for _, s := range r.Before {
		if s.GVR == pc.GVR && s.Name == pc.Name && s.Namespace == pc.Namespace {
			s := s
			target = &s
		}
	}
	if target == nil {
		r.Err = fmt.Errorf("target %s %s/%s does not exist before the delete:\n%s", pc.GVR.Resource, pc.Namespace, pc.Name, framework.Fingerprint(r.Before))
		return r
	}

	// Live plan, then the same plan offline from a snapshot file of the
	// same, settled, state. A kgc failure is recorded, and the delete still
	// happens so that the real outcome is checked in any case.
	r.Plan, r.Err = livePlan(t, env, pc, target.UID)
	if r.Err == nil {
		r.OfflinePlan, r.OfflineDiff = offlinePlan(t, env, pc, r.Plan)
	}
	if r.Err == nil && len(pc.Dump) > 0 {
		r.DumpDiff = dumpPlan(t, ctx, env, pc, r.Plan)
	}

	// The real delete, with a UID precondition so that a mistake in the
	// harness can never delete a look-alike.
	uid := types.UID(target.UID)
	opts := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}
	if pc.Policy != "" {
		opts.PropagationPolicy = &pc.Policy
	}
	err = env.Dynamic.Resource(pc.GVR).Namespace(pc.Namespace).Delete(ctx, pc.Name, opts)
	if err != nil {
		r.Err = errors.Join(r.Err, fmt.Errorf("deleting %s/%s: %w", pc.GVR.Resource, pc.Name, err))
		return r
	}
	r.After, err = env.Settle(ctx, pc.Scope, pc.quiet(quietAfter), settleLimit)
	if err != nil {
		r.Err = errors.Join(r.Err, fmt.Errorf("after the delete: %w", err))
		return r
	}
	if r.Plan != nil {
		r.Diffs, r.Foreign = framework.ComparePlan(r.Plan, r.Before, r.After)
	}
	return r
}

func livePlan(t testing.TB, env *framework.Env, pc planCase, targetUID string) (*framework.Plan, error) {
	res := env.RunKGC(t, pc.planArgs()...)
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("live plan failed: %s", res)
	}
	p := &framework.Plan{}
	if err := json.Unmarshal(res.Stdout, p); err != nil {
		return nil, fmt.Errorf("decoding live plan: %w\n%s", err, res.Stdout)
	}
	p.Raw = res.Stdout
	if p.Kind != "Plan" || p.APIVersion != "kgc.dev/v1alpha1" || p.Target.UID != targetUID || p.PropagationPolicy != string(pc.Policy) {
		return p, fmt.Errorf("live plan header: %s %s target %s policy %q; want kgc.dev/v1alpha1 Plan, uid %s, %q", p.APIVersion, p.Kind, p.Target, p.PropagationPolicy, targetUID, pc.Policy)
	}
	return p, nil
}

// sameDocument runs kgc with args (an -o yaml variant) and requires the
// result to be the JSON document asJSON. Both runs must see the same
// cluster: use it where no other test changes objects (see
// TestOutputFormatsAgree), since plans also mention unrelated pending work.
func sameDocument(t testing.TB, env *framework.Env, asJSON []byte, args ...string) error {
	res := env.RunKGC(t, args...)
	if res.ExitCode != 0 {
		return fmt.Errorf("-o yaml failed: %s", res)
	}
	y, err := yaml.YAMLToJSON(res.Stdout)
	if err != nil {
		return fmt.Errorf("-o yaml output is not YAML: %w\n%s", err, res.Stdout)
	}
	var a, b any
	if err := json.Unmarshal(asJSON, &a); err != nil {
		return fmt.Errorf("decoding JSON document: %w", err)
	}
	if err := json.Unmarshal(y, &b); err != nil {
		return fmt.Errorf("decoding YAML document: %w", err)
	}
	if !reflect.DeepEqual(a, b) {
		var diffs []string
		docDiff("", a, b, &diffs)
		return fmt.Errorf("kgc %s is not the same document as its -o json; differences (json vs yaml):\n  %s\njson:\n%s", strings.Join(args, " "), strings.Join(diffs, "\n  "), asJSON)
	}
	return nil
}

// docDiff lists where two decoded JSON documents differ (at most 20 paths).
func docDiff(path string, a, b any, out *[]string) {
	if len(*out) >= 20 || reflect.DeepEqual(a, b) {
		return
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			docDiff(path+"."+k, av[k], bv[k], out)
		}
		return
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			break
		}
		for i := range av {
			docDiff(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i], out)
		}
		return
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	*out = append(*out, fmt.Sprintf("%s: %s vs %s", path, clipString(string(ja), 300), clipString(string(jb), 300)))
}

func clipString(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// offlinePlan snapshots the cluster with kgc and plans from the file; the
// result must list the same objects with the same fates as the live plan.
func offlinePlan(t testing.TB, env *framework.Env, pc planCase, live *framework.Plan) (*framework.Plan, string) {
	dir, err := os.MkdirTemp("", "kgc-e2e-snap-")
	if err != nil {
		return nil, fmt.Sprintf("creating snapshot dir: %v", err)
	}
	defer os.RemoveAll(dir)
	snap := filepath.Join(dir, "snapshot.json")
	if res := env.RunKGC(t, "snapshot", "--output-file", snap); res.ExitCode != 0 {
		return nil, fmt.Sprintf("kgc snapshot failed: %s", res)
	}
	res := env.RunKGC(t, append(pc.planArgs(), "-f", snap)...)
	if res.ExitCode != 0 {
		return nil, fmt.Sprintf("offline plan failed: %s", res)
	}
	p := &framework.Plan{}
	if err := json.Unmarshal(res.Stdout, p); err != nil {
		return nil, fmt.Sprintf("decoding offline plan: %v", err)
	}
	p.Raw = res.Stdout
	if !reflect.DeepEqual(normalizeObjects(p.Objects), normalizeObjects(live.Objects)) {
		a, _ := json.MarshalIndent(live.Objects, "", "  ")
		b, _ := json.MarshalIndent(p.Objects, "", "  ")
		return p, fmt.Sprintf("offline plan objects differ from live plan objects\nlive:\n%s\noffline:\n%s", a, b)
	}
	return p, ""
}

// dumpPlan writes pc.Dump's objects, listed cluster-wide and in full (spec
// and status, as `kubectl get -A -o yaml` prints them), into one List and
// plans from it; the result must list the same objects with the same fates
// as the live plan. Types not dumped are unknown to that plan, as to any
// plan from a partial dump.
func dumpPlan(t testing.TB, ctx context.Context, env *framework.Env, pc planCase, live *framework.Plan) string {
	items := []any{}
	for _, gvr := range pc.Dump {
		list, err := env.Dynamic.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Sprintf("listing %s for the dump: %v", gvr.Resource, err)
		}
		kind := strings.TrimSuffix(list.GetKind(), "List")
		for _, u := range list.Items {
			u.SetAPIVersion(gvr.GroupVersion().String())
			u.SetKind(kind)
			items = append(items, u.Object)
		}
	}
	data, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		return fmt.Sprintf("writing the dump: %v", err)
	}
	file := filepath.Join(t.TempDir(), "dump.yaml")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return fmt.Sprintf("writing the dump: %v", err)
	}
	res := env.RunKGC(t, append(pc.planArgs(), "-f", file)...)
	if res.ExitCode != 0 {
		return fmt.Sprintf("plan from the dump failed: %s", res)
	}
	p := &framework.Plan{}
	if err := json.Unmarshal(res.Stdout, p); err != nil {
		return fmt.Sprintf("decoding the plan from the dump: %v", err)
	}
	if !reflect.DeepEqual(normalizeObjects(p.Objects), normalizeObjects(live.Objects)) {
		a, _ := json.MarshalIndent(live.Objects, "", "  ")
		b, _ := json.MarshalIndent(p.Objects, "", "  ")
		return fmt.Sprintf("objects differ from the live plan's\nlive:\n%s\nfrom the dump:\n%s", a, b)
	}
	return ""
}

// normalizeObjects makes nil and empty slices compare equal.
func normalizeObjects(objs []framework.PlanObject) []framework.PlanObject {
	out := make([]framework.PlanObject, len(objs))
	for i, o := range objs {
		if o.Final.Finalizers == nil {
			o.Final.Finalizers = []string{}
		}
		if o.Final.OwnerReferences == nil {
			o.Final.OwnerReferences = []string{}
		}
		out[i] = o
	}
	return out
}

// report renders everything needed to understand a disagreement.
func (r planResult) report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "state before the delete:\n%s\n", indent(framework.Fingerprint(r.Before)))
	if r.After != nil {
		fmt.Fprintf(&b, "state after the GC settled:\n%s\n", indent(framework.Fingerprint(r.After)))
	}
	if r.Plan != nil {
		fmt.Fprintf(&b, "plan:\n%s\n", indent(string(r.Plan.Raw)))
	}
	return b.String()
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = "    " + lines[i]
	}
	return strings.Join(lines, "\n")
}

// checkPlan runs a planCase and fails t on any disagreement.
func checkPlan(t *testing.T, ctx context.Context, env *framework.Env, pc planCase) planResult {
	t.Helper()
	r := runPlan(t, ctx, env, pc)
	if r.Err != nil {
		t.Errorf("%v\n%s", r.Err, r.report())
	}
	if len(r.Diffs) > 0 {
		t.Errorf("kgc plan %s disagrees with the garbage collector:\n  %s\n%s", strings.Join(pc.planArgs(), " "), strings.Join(r.Diffs, "\n  "), r.report())
	}
	if len(r.Foreign) > 0 {
		t.Errorf("kgc plan lists objects the delete does not touch:\n  %s", strings.Join(r.Foreign, "\n  "))
	}
	if r.OfflineDiff != "" {
		t.Errorf("offline plan: %s", r.OfflineDiff)
	}
	if r.DumpDiff != "" {
		t.Errorf("plan from a kubectl-style dump: %s", r.DumpDiff)
	}
	return r
}

// stateByName finds a state by kind and name in a capture.
func stateByName(states map[string]framework.ObjState, kind, name string) (framework.ObjState, bool) {
	for _, s := range states {
		if s.Kind == kind && s.Name == name {
			return s, true
		}
	}
	return framework.ObjState{}, false
}

// expectReal asserts the real outcome independently of kgc, so a broken
// harness or a misunderstanding of upstream shows up as such and not as a
// kgc bug. want maps "Kind/name" to the expected description: "gone", or
// "exists", optionally with "terminating", "finalizers=a,b", "owners=NAME,..."
// (owner names resolved through before).
func expectReal(t *testing.T, r planResult, want map[string]string) {
	t.Helper()
	if r.After == nil {
		return
	}
	nameOf := map[string]string{}
	for uid, s := range r.Before {
		nameOf[uid] = s.Name
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		kind, name, _ := strings.Cut(key, "/")
		s, ok := stateByName(r.After, kind, name)
		got := "gone"
		if ok {
			owners := []string{}
			for _, u := range s.OwnerUIDs {
				n, ok := nameOf[u]
				if !ok {
					n = "?" // an owner that is not one of the case's objects
				}
				owners = append(owners, n)
			}
			sort.Strings(owners)
			fins := append([]string(nil), s.Finalizers...)
			sort.Strings(fins)
			got = fmt.Sprintf("exists terminating=%v finalizers=%s owners=%s", s.Terminating, strings.Join(fins, ","), strings.Join(owners, ","))
		}
		if got != want[key] {
			t.Errorf("real control plane: %s is %q, upstream behaviour says %q (harness or spec problem, not kgc)", key, got, want[key])
		}
	}
}
