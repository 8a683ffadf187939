package render

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/postmortem"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// What the text says of each trust rule, as a reader sees it.
func TestPostMortemTextSaysWhatTheEvidenceShows(t *testing.T) {
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	w := func(name string) snapshot.ObjectRef {
		return snapshot.ObjectRef{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "shop", Name: name, UID: "uid-" + name}
	}
	cm := snapshot.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "team-b", Name: "batch", UID: "uid-batch"}
	pm := &postmortem.PostMortem{
		Roots: []postmortem.Root{
			{Request: postmortem.Request{User: "alice", Verb: "delete", Time: at, UserAgent: "kgc-e2e-postmortem", Object: postmortem.RequestObject{ObjectRef: w("w-fg")},
				DeleteOptionsKnown: true, DeleteOptions: &postmortem.DeleteOptions{PropagationPolicy: "Foreground"}, Actor: postmortem.ActorUser},
				Cascade: []postmortem.Link{{Object: w("w-fg"), Result: postmortem.ResultDeleted, Dependents: []postmortem.Link{
					{Object: w("a"), Result: postmortem.ResultDeleted},
					{Object: w("b"), Result: postmortem.ResultTerminating},
					{Object: w("c"), Result: postmortem.ResultOrphaned},
				}}}},
			{Request: postmortem.Request{Verb: "delete", Time: at, Object: postmortem.RequestObject{ObjectRef: cm}, Actor: postmortem.ActorGarbageCollector},
				Cascade: []postmortem.Link{{Object: cm, Result: postmortem.ResultDeleted, Via: postmortem.ViaRoot,
					Detail: "its owner reference names no object in its namespace: UID u is ConfigMap team-a/batch's, and an owner reference cannot cross namespaces",
					Steps:  []postmortem.Step{{Time: at, User: "gc", Actor: postmortem.ActorGarbageCollector, What: postmortem.StepNotFound}}}}},
		},
		DryRuns: []postmortem.DryRun{{Time: at, User: "carol", Verb: "delete", Object: postmortem.RequestObject{ObjectRef: w("w-fg")}, AuditID: "id-9", Code: 200}},
	}
	var b strings.Builder
	if err := PostMortemText(&b, pm, Style{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"alice deleted Widget/w-fg -n shop at 2026-11-27T10:00:00Z (client kgc-e2e-postmortem; propagation: Foreground): 1 object went with it: 1 Widget; 1 still terminating, held by a finalizer: 1 Widget; 1 orphaned: 1 Widget",
		"the garbage collector deleted ConfigMap/batch -n team-b on its own at 2026-11-27T10:00:00Z: nothing went with it",
		"an owner reference cannot cross namespaces",
		"not found (already gone)",
		"Dry runs in the window (dryRun=All: they changed nothing)\n  carol delete Widget/w-fg -n shop at 2026-11-27T10:00:00Z (audit ID id-9, code 200)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the text does not say %q:\n%s", want, out)
		}
	}
}

// An object one chain orphaned and another deleted later is one node of
// the drawing, drawn as the deletion, with an edge from each chain.
func TestPostMortemDOTDrawsAnObjectOnce(t *testing.T) {
	rs := snapshot.ObjectRef{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "shop", Name: "web-1", UID: "uid-rs"}
	deploy := snapshot.ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web", UID: "uid-deploy"}
	ns := snapshot.ObjectRef{APIVersion: "v1", Kind: "Namespace", Name: "shop", UID: "uid-ns"}
	pm := &postmortem.PostMortem{Roots: []postmortem.Root{
		{Cascade: []postmortem.Link{{Object: deploy, Actor: postmortem.ActorUser, User: "alice", Via: postmortem.ViaRoot,
			Dependents: []postmortem.Link{{Object: rs, Result: postmortem.ResultOrphaned, Actor: postmortem.ActorGarbageCollector, Via: postmortem.ViaOwnerReference}}}}},
		{Cascade: []postmortem.Link{{Object: ns, Actor: postmortem.ActorUser, User: "dave", Via: postmortem.ViaRoot,
			Dependents: []postmortem.Link{{Object: rs, Result: postmortem.ResultDeleted, Actor: postmortem.ActorNamespaceController, Via: postmortem.ViaNamespace}}}}},
	}}
	var b strings.Builder
	if err := PostMortemDOT(&b, pm); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "    \"uid-rs\" [label="); n != 1 {
		t.Errorf("the ReplicaSet is declared %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, `"uid-rs" [label="ReplicaSet\nshop/web-1\ndeleted"`) {
		t.Errorf("the ReplicaSet is not drawn as deleted:\n%s", out)
	}
	for _, e := range []string{`"uid-deploy" -> "uid-rs"`, `"uid-ns" -> "uid-rs"`} {
		if !strings.Contains(out, e) {
			t.Errorf("no edge %s:\n%s", e, out)
		}
	}
}

// The post-mortem's "still terminating" says a root cause as why-stuck
// does: finalizer, reason, message, and who removes it with the evidence.
func TestRootCauseLineIsWhyStucksWords(t *testing.T) {
	rc := diagnose.RootCause{Object: snapshot.ObjectRef{Kind: "Widget", Namespace: "shop", Name: "w"}, Finalizer: "example.com/hold",
		Reason: "controller-missing", Message: "no controller removes it", RemovedBy: "acme-controller",
		Attribution: &diagnose.Attribution{Evidence: diagnose.EvidenceNone}}
	want := "Widget/w -n shop finalizer example.com/hold (controller-missing): no controller removes it; removed by acme-controller (no controller found in the input)"
	if got := RootCauseLine(rc); got != want {
		t.Errorf("RootCauseLine = %q, want %q", got, want)
	}
}
