package e2e

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// The trust example is one window on a real control plane in which each
// thing a post-mortem must not get wrong happens once: a server dry run,
// a foreground delete leaving a dependent held by a finalizer, an orphaned
// object deleted later by another request, the collector deleting on its
// own a dependent whose owner is in another namespace, and a CRD deleted
// with an instance. docs/guide-postmortem.md shows kgc's output on it.

const (
	// trustGroup is the example's API group: its two custom types.
	trustGroup = "shop.example.com"
	// trustHold is the finalizer no one removes: the Widget holding it
	// stays terminating.
	trustHold = "example.com/hold"
)

var (
	trustWidgets = framework.CRD{Group: trustGroup, Kind: "Widget", Plural: "widgets", Namespace: true}
	trustGadgets = framework.CRD{Group: trustGroup, Kind: "Gadget", Plural: "gadgets", Namespace: true}
	// trustNamespaces are the namespaces the example's objects live in.
	trustNamespaces = []string{"shop", "billing", "team-a", "team-b"}
)

// trustExampleDir is where the trust example lives.
func trustExampleDir() string { return filepath.Join(exampleDir(), "trust") }

// trustScenario is the example's objects, and who acts on them.
type trustScenario struct {
	env                              *framework.Env
	as                               map[string]dynamic.Interface
	wFG, wA, wHeld, rates, ratesCopy *unstructured.Unstructured
	batch, g0                        *unstructured.Unstructured
	// report is team-b's ConfigMap whose owner reference carries batch's
	// UID; created in the window, as its collection follows at once.
	report *unstructured.Unstructured
}

// TestPostMortemWriteTrustExample regenerates examples-postmortem/trust/
// (run it with KGC_E2E_WRITE_EXAMPLE=1) on the garbage-collector plane,
// which runs the garbage collector and the namespace controller, all the
// scenario needs. In one window: carol dry-runs a delete of Widget w-fg;
// alice deletes it in the foreground (Widget w-a goes, Widget w-held
// stays terminating on example.com/hold); bob deletes ConfigMap rates in
// billing with Orphan (rates-copy is orphaned); dave deletes namespace
// billing (rates-copy goes); frank creates ConfigMap report in team-b
// owned by the UID of ConfigMap batch in team-a (the collector deletes it
// at once); erin deletes the CRD of Gadgets, with Gadget g0 in shop. It
// writes the audit log of the window (the events about the scenario's
// namespaces and cluster objects, without the harness's own reads) and the
// snapshots before and after, all gzipped.
func TestPostMortemWriteTrustExample(t *testing.T) {
	if os.Getenv("KGC_E2E_WRITE_EXAMPLE") == "" {
		t.Skip("set KGC_E2E_WRITE_EXAMPLE=1 to regenerate examples-postmortem/trust/")
	}
	env := framework.Setup(t)
	ctx := context.Background()
	s := &trustScenario{env: env, as: map[string]dynamic.Interface{}}
	s.setUp(t, ctx)
	dir := keptDir(t)
	beforeFile, afterFile := filepath.Join(dir, "before.json"), filepath.Join(dir, "after.json")
	if _, err := env.Settle(ctx, trustScope(), 3*time.Second, 3*time.Minute); err != nil {
		t.Fatalf("before the scenario: %v", err)
	}
	env.KGC(t, "snapshot", "-o", beforeFile)
	from := time.Now().Add(-time.Second)
	s.act(t, ctx)
	if _, err := env.Settle(ctx, trustScope(), 3*time.Second, 3*time.Minute); err != nil {
		t.Fatalf("after the scenario: %v", err)
	}
	env.KGC(t, "snapshot", "-o", afterFile)
	to := time.Now().Add(time.Second)
	all, err := framework.ReadAuditLog(mustFiles(t, env)...)
	if err != nil {
		t.Fatal(err)
	}
	var kept []framework.AuditEvent
	for _, e := range framework.AuditWindow(all, from, to) {
		if trustEvent(e) && !harnessRead(e) {
			kept = append(kept, e)
		}
	}
	s.requireLogged(t, kept)
	out := trustExampleDir()
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	meta, trimmed := pmCopies(t, kept)
	for name, evs := range map[string][]framework.AuditEvent{"audit.log.gz": kept, "audit-metadata.log.gz": meta, "audit-trimmed.log.gz": trimmed} {
		if err := framework.WriteAuditLog(filepath.Join(out, name), evs); err != nil {
			t.Fatal(err)
		}
	}
	for name, src := range map[string]string{"before.json.gz": beforeFile, "after.json.gz": afterFile} {
		if err := gzipFile(src, filepath.Join(out, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("wrote %s: %d audit events", out, len(kept))
}

// trustScope is what the harness watches settle: the scenario's objects.
func trustScope() framework.Scope {
	return framework.Scope{Namespace: trustNamespaces[0], ExtraNamespaces: trustNamespaces[1:],
		Namespaced: []schema.GroupVersionResource{framework.ConfigMaps, trustWidgets.GVR(), trustGadgets.GVR()},
		Cluster:    []schema.GroupVersionResource{framework.Namespaces, framework.CRDResource}}
}

// trustEvent: the event is about the scenario: an object in one of its
// namespaces, one of those namespaces, its CRDs or their group's
// APIService.
func trustEvent(e framework.AuditEvent) bool {
	r := e.ObjectRef
	switch {
	case r == nil:
		return false
	case slices.Contains(trustNamespaces, r.Namespace):
		return true
	case r.Resource == "namespaces":
		return slices.Contains(trustNamespaces, r.Name)
	case r.Resource == "customresourcedefinitions":
		return r.Name == trustWidgets.TypeArg() || r.Name == trustGadgets.TypeArg()
	case r.Resource == "apiservices":
		return r.Name == "v1."+trustGroup
	}
	return false
}

// setUp creates the types, namespaces and objects, and binds the people.
func (s *trustScenario) setUp(t *testing.T, ctx context.Context) {
	t.Helper()
	env := s.env
	for _, ns := range trustNamespaces {
		if _, err := env.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err == nil {
			t.Fatalf("namespace %s exists on the plane: run this test alone", ns)
		}
		env.MustCreate(t, ctx, framework.Namespaces, framework.Obj("v1", "Namespace", "", ns))
	}
	env.CreateCRDs(t, ctx, trustWidgets, trustGadgets)
	s.wFG = mkCR(t, ctx, env, trustWidgets, "shop", "w-fg")
	s.wA = mkCR(t, ctx, env, trustWidgets, "shop", "w-a", owners(ref(s.wFG, tr(), tr())))
	// No blockOwnerDeletion: w-fg goes while w-held is still held.
	s.wHeld = mkCR(t, ctx, env, trustWidgets, "shop", "w-held", owners(ref(s.wFG, nil, nil)), finalizers(trustHold))
	s.g0 = mkCR(t, ctx, env, trustGadgets, "shop", "g0")
	s.rates = mk(t, ctx, env, "ConfigMap", "billing", "rates")
	s.ratesCopy = mk(t, ctx, env, "ConfigMap", "billing", "rates-copy", owners(ref(s.rates, tr(), nil)))
	s.batch = mk(t, ctx, env, "ConfigMap", "team-a", "batch")
	for _, user := range []string{"alice", "bob", "carol", "dave", "erin", "frank"} {
		s.as[user] = actAs(t, ctx, env, user)
	}
}

// act is the scenario, each step waiting for what the plane does.
func (s *trustScenario) act(t *testing.T, ctx context.Context) {
	t.Helper()
	widgets, cms := trustWidgets.GVR(), framework.ConfigMaps
	s.del(t, ctx, "carol", widgets, s.wFG, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
	if st := s.state(t, ctx, widgets, s.wFG); !st.Exists || st.Terminating {
		t.Fatalf("real control plane: carol's dry run changed Widget w-fg: %s", st)
	}
	s.del(t, ctx, "alice", widgets, s.wFG, policy("Foreground"))
	s.waitGone(t, ctx, widgets, s.wFG, s.wA)
	if st := s.state(t, ctx, widgets, s.wHeld); !st.Terminating || !slices.Equal(st.Finalizers, []string{trustHold}) {
		t.Fatalf("real control plane: want Widget w-held terminating on %s, got %s", trustHold, st)
	}
	s.del(t, ctx, "bob", cms, s.rates, policy("Orphan"))
	s.waitGone(t, ctx, cms, s.rates)
	if st := s.state(t, ctx, cms, s.ratesCopy); len(st.OwnerUIDs) != 0 {
		t.Fatalf("real control plane: want ConfigMap rates-copy orphaned, got %s", st)
	}
	s.pause(ctx)
	ns := &unstructured.Unstructured{}
	ns.SetName("billing")
	nsObj, err := s.env.Client.CoreV1().Namespaces().Get(ctx, "billing", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns.SetUID(nsObj.UID)
	s.del(t, ctx, "dave", framework.Namespaces, ns, policy("Background"))
	s.waitGone(t, ctx, framework.Namespaces, ns)
	s.createStray(t, ctx)
	s.waitGone(t, ctx, cms, s.report)
	crd := &unstructured.Unstructured{}
	crd.SetName(trustGadgets.TypeArg())
	crdObj, err := s.env.Dynamic.Resource(framework.CRDResource).Get(ctx, crd.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crd.SetUID(crdObj.GetUID())
	s.del(t, ctx, "erin", framework.CRDResource, crd, policy("Background"))
	s.waitGone(t, ctx, framework.CRDResource, crd)
}

// createStray: frank creates ConfigMap report in team-b with an owner
// reference carrying the UID of ConfigMap batch in team-a.
func (s *trustScenario) createStray(t *testing.T, ctx context.Context) {
	t.Helper()
	s.pause(ctx)
	u := framework.Obj("v1", "ConfigMap", "team-b", "report")
	u.SetOwnerReferences([]metav1.OwnerReference{ref(s.batch, nil, nil)})
	out, err := s.as["frank"].Resource(framework.ConfigMaps).Namespace("team-b").Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("frank creating ConfigMap team-b/report: %v", err)
	}
	s.report = out
}

func policy(p string) metav1.DeleteOptions {
	pp := metav1.DeletionPropagation(p)
	return metav1.DeleteOptions{PropagationPolicy: &pp}
}

// pause spaces the people's requests a little, as people's are.
func (s *trustScenario) pause(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
	}
}

// del deletes obj as user, with the object's UID as precondition.
func (s *trustScenario) del(t *testing.T, ctx context.Context, user string, gvr schema.GroupVersionResource, obj *unstructured.Unstructured, opts metav1.DeleteOptions) {
	t.Helper()
	s.pause(ctx)
	opts.Preconditions = &metav1.Preconditions{UID: ptrTo(types.UID(obj.GetUID()))}
	if err := s.as[user].Resource(gvr).Namespace(obj.GetNamespace()).Delete(ctx, obj.GetName(), opts); err != nil {
		t.Fatalf("%s deleting %s %s/%s: %v", user, gvr.Resource, obj.GetNamespace(), obj.GetName(), err)
	}
}

// state is obj's state now (Exists false once it is gone).
func (s *trustScenario) state(t *testing.T, ctx context.Context, gvr schema.GroupVersionResource, obj *unstructured.Unstructured) framework.ObjState {
	t.Helper()
	got, err := s.env.Dynamic.Resource(gvr).Namespace(obj.GetNamespace()).Get(ctx, obj.GetName(), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return framework.ObjState{GVR: gvr, Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: string(obj.GetUID())}
	case err != nil:
		t.Fatal(err)
	}
	return framework.StateOf(gvr, got)
}

// waitGone waits until every obj is gone.
func (s *trustScenario) waitGone(t *testing.T, ctx context.Context, gvr schema.GroupVersionResource, objs ...*unstructured.Unstructured) {
	t.Helper()
	for _, obj := range objs {
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
			_, err := s.env.Dynamic.Resource(gvr).Namespace(obj.GetNamespace()).Get(ctx, obj.GetName(), metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		if err != nil {
			t.Fatalf("real control plane: %s %s/%s still there 3m on: %v", gvr.Resource, obj.GetNamespace(), obj.GetName(), err)
		}
	}
}

// requireLogged: the log holds what the example is about, each by the
// actor the guide says: carol's dry run, the collector's DELETE of report
// (its own doing: no person deleted it), the namespace controller's
// sweep of billing, and the API server's removal of the Gadget CRD's
// cleanup finalizer.
func (s *trustScenario) requireLogged(t *testing.T, events []framework.AuditEvent) {
	t.Helper()
	has := func(what string, ok func(framework.AuditEvent) bool) {
		if !slices.ContainsFunc(events, ok) {
			t.Errorf("real control plane: the log holds no %s", what)
		}
	}
	has("dry run by carol", func(e framework.AuditEvent) bool {
		return e.Actor() == "carol" && e.Is("delete", "widgets", "shop", "w-fg")
	})
	has("DELETE of team-b/report by the garbage collector", func(e framework.AuditEvent) bool {
		return framework.Actor(e.User.Username) == "garbagecollector" && e.Is("delete", "configmaps", "team-b", "report")
	})
	has("deletecollection of billing's ConfigMaps by the namespace controller", func(e framework.AuditEvent) bool {
		return framework.Actor(e.User.Username) == "namespace-controller" && e.Is("deletecollection", "configmaps", "billing", "")
	})
	has("update of the Gadget CRD's status by the API server", func(e framework.AuditEvent) bool {
		r := e.ObjectRef
		return r != nil && e.Verb == "update" && r.Resource == "customresourcedefinitions" && r.Name == trustGadgets.TypeArg() && r.Subresource == "status"
	})
	for _, e := range events {
		if e.Is("delete", "configmaps", "team-b", "") && framework.Actor(e.Actor()) != "garbagecollector" {
			t.Errorf("real control plane: %s deleted in team-b: the example says only the collector did", e.Actor())
		}
	}
}

// trustDryRuns is the part of the document's dryRuns[] the test reads
// (framework.PostMortem predates it).
type trustDryRuns struct {
	DryRuns []struct {
		ImpersonatedUser string              `json:"impersonatedUser"`
		Verb             string              `json:"verb"`
		AuditID          string              `json:"auditID"`
		Object           framework.ObjectRef `json:"object"`
	} `json:"dryRuns"`
}

// trustTruth is what happened in the shipped trust window, chain by
// chain: who started it (the person, or the collector on its own), and
// every object of it by name (unique in the scenario) with its result.
var trustTruth = map[string]map[string]string{
	"alice deleted w-fg":                     {"w-fg": "deleted", "w-a": "deleted", "w-held": "terminating"},
	"bob deleted rates":                      {"rates": "deleted", "rates-copy": "orphaned"},
	"dave deleted billing":                   {"billing": "deleted", "rates-copy": "deleted"},
	"garbagecollector deleted report":        {"report": "deleted"},
	"erin deleted " + trustGadgets.TypeArg(): {trustGadgets.TypeArg(): "deleted", "g0": "deleted"},
}

// TestPostMortemShippedTrustExample reads examples-postmortem/trust
// offline, as the guide does, and holds kgc's reconstruction against what
// the scenario did: one chain per person's delete (none for carol's dry
// run, listed apart) and one for the collector on its own, each holding
// exactly its objects with their results; the held Widget still going; and
// each prediction about the objects of its own chain.
func TestPostMortemShippedTrustExample(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	dir := trustExampleDir()
	args := []string{"postmortem", "-A", "--audit-log", filepath.Join(dir, "audit.log.gz"),
		"--before", filepath.Join(dir, "before.json.gz"), "--after", filepath.Join(dir, "after.json.gz"), "-o", "json"}
	res := env.RunKGC(t, args...)
	if res.ExitCode != 0 {
		t.Fatalf("%s", res)
	}
	var pm framework.PostMortem
	var dry trustDryRuns
	if err := json.Unmarshal(res.Stdout, &pm); err != nil {
		t.Fatalf("decoding: %v\n%s", err, res)
	}
	if err := json.Unmarshal(res.Stdout, &dry); err != nil {
		t.Fatalf("decoding: %v\n%s", err, res)
	}
	if len(dry.DryRuns) != 1 || dry.DryRuns[0].ImpersonatedUser != "carol" || dry.DryRuns[0].Object.Name != "w-fg" {
		t.Fatalf("dryRuns = %+v, want carol's delete of w-fg alone", dry.DryRuns)
	}
	chains := trustChains(t, pm, dry.DryRuns[0].AuditID)
	for root, want := range trustTruth {
		if got := chains[root]; !maps.Equal(got, want) {
			t.Errorf("chain %q: kgc has %v, the scenario did %v", root, got, want)
		}
	}
	for root := range chains {
		if trustTruth[root] == nil {
			t.Errorf("chain %q: no such deletion happened", root)
		}
	}
	if len(pm.StillGoing) != 1 || pm.StillGoing[0].Object.Name != "w-held" {
		t.Errorf("stillGoing = %+v, want Widget w-held alone", pm.StillGoing)
	}
	if len(pm.Unexplained) != 0 {
		t.Errorf("unexplained = %+v, want none: every object is in a chain", pm.Unexplained)
	}
	t.Run("PredictionOnlyOfItsChain", func(t *testing.T) {
		for _, r := range pm.Roots {
			if r.Prediction == nil {
				continue
			}
			root := trustRootName(r)
			for _, o := range r.Prediction.Objects {
				// gone-before says the object went in another, earlier
				// chain: not a claim about this one.
				if _, in := chains[root][o.Object.Name]; !in && o.Result != "gone-before" && o.Happened != "" && o.Happened != "exists" && o.Happened != "unknown" {
					t.Errorf("%s: the prediction says %s %q happened in this chain (%s); it is in no link of it", root, o.Object.Name, o.Happened, o.Result)
				}
			}
		}
	})
}

// trustRootName names a root as trustTruth does.
func trustRootName(r framework.PMRoot) string {
	who := r.Request.ImpersonatedUser
	if r.Request.Actor != "user" {
		who = r.Request.Actor
	}
	return who + " deleted " + r.Request.Object.Name
}

// trustChains reads each root's objects and results, and requires that no
// root or step is the dry run's request.
func trustChains(t *testing.T, pm framework.PostMortem, dryRunID string) map[string]map[string]string {
	t.Helper()
	chains := map[string]map[string]string{}
	for _, r := range pm.Roots {
		root := trustRootName(r)
		if r.Request.AuditID == dryRunID {
			t.Errorf("the dry run is the root %q", root)
		}
		objs := map[string]string{}
		framework.Walk(r.Cascade, nil, func(l, _ *framework.PMLink) {
			objs[l.Object.Name] = l.Result
			for _, s := range l.Steps {
				if s.AuditID == dryRunID {
					t.Errorf("%s: the dry run is a step of %s", root, l.Object.Name)
				}
			}
		})
		chains[root] = objs
	}
	return chains
}
