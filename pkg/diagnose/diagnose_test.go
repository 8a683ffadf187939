package diagnose

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

var at = testobj.CapturedAt

func ago(d time.Duration) time.Time { return at.Add(-d) }

// gone sets deletionGracePeriodSeconds=0, as the API server does for every
// object but a pod in graceful termination.
func gone(o snapshot.Object) snapshot.Object {
	z := int64(0)
	o.Metadata.DeletionGracePeriodSeconds = &z
	return o
}

func grace(o snapshot.Object, s int64) snapshot.Object {
	o.Metadata.DeletionGracePeriodSeconds = &s
	return o
}

func podFactsOf(node, phase string, claims ...string) *snapshot.Facts {
	return &snapshot.Facts{Pod: &snapshot.PodFacts{NodeName: node, Phase: phase, Claims: claims}}
}

func node(name, ready string, taints ...string) snapshot.Object {
	return testobj.Node(name).Facts(&snapshot.Facts{Node: &snapshot.NodeFacts{Ready: ready, Taints: taints}}).Build()
}

func terminatingNS(name string, since time.Time, conds ...snapshot.Condition) snapshot.Object {
	return testobj.Namespace(name).Deleting(since).Facts(&snapshot.Facts{Namespace: &snapshot.NamespaceFacts{
		Phase: "Terminating", SpecFinalizers: []string{rules.FinalizerNamespace}, Conditions: conds}}).Build()
}

// wantRC is what a user checks of a root cause.
type wantRC struct {
	uid, finalizer, reason, removedBy string
	actions                           []string // remedy actions in order; nil = not checked
}

func TestDiagnoseRootCauses(t *testing.T) {
	widgets := func(b *testobj.SnapshotBuilder) *testobj.SnapshotBuilder {
		return b.CRD("example.com", "Widget", "widgets", true)
	}
	widget := func(ns, name string) *testobj.Builder { return testobj.New("example.com/v1", "Widget", ns, name) }

	deploy := testobj.Deployment("shop", "web").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerForeground).Build()
	rs := testobj.ReplicaSet("shop", "web-1").OwnedBy(deploy).Deleting(ago(time.Hour)).Finalizers(rules.FinalizerForeground).Build()
	stuckPod := gone(testobj.Pod("shop", "web-1-a").OwnedBy(rs).Deleting(ago(time.Hour)).Finalizers("example.com/cleanup").
		Facts(podFactsOf("n1", "Running")).Build())
	readyNode := node("n1", "True")

	cycA := testobj.ConfigMap("x", "a").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerForeground).Build()
	cycB := testobj.ConfigMap("x", "b").OwnedBy(cycA).Deleting(ago(time.Hour)).Finalizers(rules.FinalizerForeground).Build()
	cycA = testobj.ConfigMap("x", "a").OwnedBy(cycB).Deleting(ago(time.Hour)).Finalizers(rules.FinalizerForeground).Build()

	orphanOwner := testobj.Deployment("shop", "api").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerOrphan).Build()
	orphanDep := testobj.ReplicaSet("shop", "api-1").OwnedBy(orphanOwner).Build()

	gadgetOwner := testobj.New("example.com/v1", "Gadget", "shop", "g").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerOrphan).Build()

	fgOwner := testobj.Deployment("shop", "db").Deleting(ago(10 * time.Minute)).Finalizers(rules.FinalizerForeground).Build()
	badDep := testobj.ConfigMap("shop", "db-conf").OwnedBy(fgOwner).Owner(testobj.RefTo("gone.example.com/v1", "Ghost", "g", "ghost-uid")).Build()
	okDep := testobj.ConfigMap("shop", "db-conf2").OwnedBy(fgOwner).Build()

	team := terminatingNS("team-a", ago(2*time.Hour))
	w1 := gone(widget("team-a", "w1").Deleting(ago(2 * time.Hour)).Finalizers("example.com/cleanup").Build())

	crd := gone(testobj.New("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "widgets.example.com").
		Deleting(ago(time.Hour)).Finalizers(rules.FinalizerCRD).
		Facts(&snapshot.Facts{CRD: &snapshot.CRDFacts{Group: "example.com", Kind: "Widget", Plural: "widgets", Scope: "Namespaced"}}).Build())
	w2 := gone(widget("shop", "w2").Deleting(ago(time.Hour)).Finalizers("example.com/cleanup").Build())

	claim := testobj.PVC("shop", "data").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerPVC).Build()
	sts := testobj.StatefulSet("shop", "db").Build()
	claimUser := testobj.Pod("shop", "db-0").OwnedBy(sts).Facts(podFactsOf("n1", "Running", "data")).Build()
	unscheduledUser := testobj.Pod("shop", "db-1").Facts(podFactsOf("", "Pending", "data")).Build()

	notReadyPod := grace(testobj.Pod("shop", "p").Deleting(ago(time.Hour)).Facts(podFactsOf("n2", "Running")).Build(), 30)
	missingNodePod := grace(testobj.Pod("shop", "q").Deleting(ago(time.Hour)).Facts(podFactsOf("n9", "Running")).Build(), 30)
	inGracePod := grace(testobj.Pod("shop", "r").Deleting(at.Add(20*time.Second)).Facts(podFactsOf("n1", "Running")).Build(), 30)
	hungPod := grace(testobj.Pod("shop", "s").Deleting(ago(time.Hour)).Facts(podFactsOf("n1", "Running")).Build(), 30)

	discoNS := terminatingNS("team-b", ago(time.Hour), snapshot.Condition{Type: condDiscoveryFailure, Status: "True", Reason: "DiscoveryFailed",
		Message: "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: stale GroupVersion discovery: metrics.k8s.io/v1beta1"})

	hiddenNS := terminatingNS("team-c", ago(time.Hour),
		snapshot.Condition{Type: condContentRemaining, Status: "True", Reason: "SomeResourcesRemain", Message: "Some resources are remaining: gizmos.example.com has 2 resource instances"},
		snapshot.Condition{Type: condFinalizersRemains, Status: "True", Reason: "SomeFinalizersRemain", Message: "Some content in the namespace has finalizers remaining: example.com/gizmo in 2 resource instances"})

	operatorNS := terminatingNS("ops", ago(time.Hour))
	operator := testobj.Deployment("ops", "example-operator").Label("app.kubernetes.io/part-of", "example.com").Deleting(ago(time.Hour)).Build()
	w3 := gone(widget("ops", "w3").Deleting(ago(time.Hour)).Finalizers("example.com/cleanup").Build())
	presentCtrl := testobj.Deployment("example-system", "controller").Label("app.kubernetes.io/part-of", "example.com").Build()

	ephClaim := testobj.PVC("eph", "runner-scratch").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerPVC).Build()
	ephUser := testobj.Pod("eph", "runner").Facts(&snapshot.Facts{Pod: &snapshot.PodFacts{NodeName: "n1", Phase: "Running", EphemeralClaims: []string{"runner-scratch"}}}).Build()
	ephShutDown := gone(testobj.Pod("eph", "runner").Deleting(ago(time.Hour)).Finalizers("example.com/keep").
		Facts(&snapshot.Facts{Pod: &snapshot.PodFacts{NodeName: "n1", Phase: "Failed", EphemeralClaims: []string{"runner-scratch"}}}).Build())

	vol := testobj.PV("pv-1").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerPV).
		Facts(&snapshot.Facts{PV: &snapshot.PVFacts{Phase: "Bound", ClaimRef: &snapshot.ObjectRef{Namespace: "shop", Name: "data", UID: claim.Metadata.UID}}}).Build()
	liveClaim := testobj.PVC("shop", "data").Finalizers(rules.FinalizerPVC).Build()

	podsFirstNS := terminatingNS("team-p", ago(time.Hour))
	podsFirstPod := grace(testobj.Pod("team-p", "p").Deleting(ago(time.Hour)).Facts(podFactsOf("n2", "Running")).Build(), 30)
	podsFirstCM := testobj.ConfigMap("team-p", "c").Finalizers("example.com/keep").Build()

	// A diamond: two ReplicaSets of one Deployment blocked by the same pod.
	dia := testobj.Deployment("d", "app").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerForeground).Build()
	diaRS1 := testobj.ReplicaSet("d", "app-1").OwnedBy(dia).Deleting(ago(time.Hour)).Finalizers(rules.FinalizerForeground).Build()
	diaRS2 := testobj.ReplicaSet("d", "app-2").OwnedBy(dia).Deleting(ago(time.Hour)).Finalizers(rules.FinalizerForeground).Build()
	diaPod := gone(testobj.Pod("d", "app-x").OwnedBy(diaRS1).OwnedBy(diaRS2).Deleting(ago(time.Hour)).Finalizers("example.com/x").Build())

	event := gone(testobj.Event("shop", "e1").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerOrphan).Build())
	specNS := testobj.Namespace("legacy").Deleting(ago(time.Hour)).Facts(&snapshot.Facts{Namespace: &snapshot.NamespaceFacts{
		Phase: "Terminating", SpecFinalizers: []string{"openshift.io/origin"}}}).Build()

	lbSvc := gone(testobj.Service("shop", "front").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerLB).
		Facts(&snapshot.Facts{Service: &snapshot.ServiceFacts{Type: "LoadBalancer"}}).Build())
	ccm := testobj.DaemonSet("kube-system", "cloud-controller-manager").Build()

	tests := []struct {
		name   string
		snap   *snapshot.Snapshot
		target string
		want   []wantRC
	}{
		{
			name:   "load balancer finalizer without a cloud-controller-manager",
			snap:   testobj.Snapshot(lbSvc).Build(),
			target: lbSvc.Metadata.UID,
			want: []wantRC{{uid: lbSvc.Metadata.UID, finalizer: rules.FinalizerLB, reason: ReasonControllerUnknown, removedBy: rules.LookupFinalizer(rules.FinalizerLB).RemovedBy,
				actions: []string{ActionFixController, ActionRemoveFinalizer}}},
		},
		{
			name:   "load balancer finalizer with a cloud-controller-manager",
			snap:   testobj.Snapshot(lbSvc, ccm).Build(),
			target: lbSvc.Metadata.UID,
			want: []wantRC{{uid: lbSvc.Metadata.UID, finalizer: rules.FinalizerLB, reason: ReasonControllerPending, removedBy: rules.LookupFinalizer(rules.FinalizerLB).RemovedBy,
				actions: []string{ActionFixController, ActionRemoveFinalizer}}},
		},
		{
			name:   "orphan on an event, a type the garbage collector ignores",
			snap:   testobj.Snapshot(event).Build(),
			target: event.Metadata.UID,
			want: []wantRC{{uid: event.Metadata.UID, finalizer: rules.FinalizerOrphan, reason: ReasonGCUnmonitored, removedBy: rules.ActorGC,
				actions: []string{ActionRemoveFinalizer}}},
		},
		{
			name:   "a third-party namespace spec finalizer",
			snap:   testobj.Snapshot(specNS).Build(),
			target: specNS.Metadata.UID,
			want: []wantRC{{uid: specNS.Metadata.UID, finalizer: "openshift.io/origin", reason: ReasonControllerNotFound, removedBy: rules.ActorUnknown,
				actions: []string{ActionFixController, ActionRemoveFinalizer}}},
		},
		{
			name:   "PVC held by a running pod's generic ephemeral volume",
			snap:   testobj.Snapshot(ephClaim, ephUser).Build(),
			target: ephClaim.Metadata.UID,
			want:   []wantRC{{uid: ephUser.Metadata.UID, reason: ReasonClaimInUse, actions: []string{ActionDelete}}},
		},
		{
			name:   "PVC not held by a shut-down pod's generic ephemeral volume",
			snap:   testobj.Snapshot(ephClaim, ephShutDown).Build(),
			target: ephClaim.Metadata.UID,
			want:   []wantRC{{uid: ephClaim.Metadata.UID, finalizer: rules.FinalizerPVC, reason: ReasonInProgress, removedBy: rules.ActorPVCProtection}},
		},
		{
			name:   "PV held by the claim it is bound to",
			snap:   testobj.Snapshot(vol, liveClaim).Build(),
			target: vol.Metadata.UID,
			want:   []wantRC{{uid: liveClaim.Metadata.UID, reason: ReasonVolumeBound, actions: []string{ActionDelete}}},
		},
		{
			name:   "namespace content waits for the pods, and what will hold it once deleted is a root cause too",
			snap:   testobj.Snapshot(podsFirstNS, podsFirstPod, podsFirstCM, node("n2", "False")).Build(),
			target: podsFirstNS.Metadata.UID,
			want: []wantRC{{uid: podsFirstPod.Metadata.UID, reason: ReasonNodeNotReady, removedBy: rules.ActorKubelet},
				{uid: podsFirstCM.Metadata.UID, finalizer: "example.com/keep", reason: ReasonControllerNotFound, removedBy: rules.ActorUnknown}},
		},
		{
			name:   "a pod blocking two owners is one root cause with an edge to each",
			snap:   testobj.Snapshot(dia, diaRS1, diaRS2, diaPod).Build(),
			target: dia.Metadata.UID,
			want: []wantRC{{uid: diaPod.Metadata.UID, finalizer: "example.com/x", reason: ReasonControllerNotFound, removedBy: rules.ActorUnknown,
				actions: []string{ActionFixController, ActionUnblockOwnerReference, ActionUnblockOwnerReference, ActionRemoveOwnerReference, ActionRemoveOwnerReference, ActionRemoveFinalizer}}},
		},
		{
			name:   "foreground held by a blocking dependent terminating on a custom finalizer, two levels down",
			snap:   testobj.Snapshot(deploy, rs, stuckPod, readyNode).Build(),
			target: deploy.Metadata.UID,
			want: []wantRC{{uid: stuckPod.Metadata.UID, finalizer: "example.com/cleanup", reason: ReasonControllerNotFound, removedBy: rules.ActorUnknown,
				actions: []string{ActionFixController, ActionUnblockOwnerReference, ActionRemoveOwnerReference, ActionRemoveFinalizer}}},
		},
		{
			name:   "foreground cycle of objects already deleting",
			snap:   testobj.Snapshot(cycA, cycB).Build(),
			target: cycA.Metadata.UID,
			want: []wantRC{{uid: cycA.Metadata.UID, finalizer: rules.FinalizerForeground, reason: ReasonForegroundCycle, removedBy: rules.ActorGC,
				actions: []string{ActionUnblockOwnerReference, ActionRemoveOwnerReference, ActionRemoveFinalizer}}},
		},
		{
			name:   "foreground held by a dependent the garbage collector cannot resolve",
			snap:   live(testobj.Snapshot(fgOwner, badDep, okDep).Build()),
			target: fgOwner.Metadata.UID,
			want: []wantRC{
				{uid: badDep.Metadata.UID, reason: ReasonGCCannotResolve, removedBy: rules.ActorGC,
					actions: []string{ActionDelete, ActionUnblockOwnerReference, ActionRemoveOwnerReference}},
				// Ten minutes after the owner's deletion, a dependent the
				// collector deletes "on its next pass" means it is stalled.
				{uid: okDep.Metadata.UID, reason: ReasonControllerStalled, removedBy: rules.ActorGC,
					actions: []string{ActionFixController, ActionDelete, ActionUnblockOwnerReference, ActionRemoveOwnerReference}},
			},
		},
		{
			name:   "orphan whose dependents keep their reference long after the delete",
			snap:   testobj.Snapshot(orphanOwner, orphanDep).Build(),
			target: orphanOwner.Metadata.UID,
			want: []wantRC{{uid: orphanOwner.Metadata.UID, finalizer: rules.FinalizerOrphan, reason: ReasonOrphanPatchFailing, removedBy: rules.ActorGC,
				actions: []string{ActionFixController, ActionRemoveOwnerReference, ActionRemoveFinalizer}}},
		},
		{
			name:   "orphan on a type the garbage collector does not watch",
			snap:   testobj.Snapshot(gadgetOwner).CRD("example.com", "Gadget", "gadgets", true).Verbs("example.com", "Gadget", "get", "list", "delete").Build(),
			target: gadgetOwner.Metadata.UID,
			want: []wantRC{{uid: gadgetOwner.Metadata.UID, finalizer: rules.FinalizerOrphan, reason: ReasonGCUnmonitored, removedBy: rules.ActorGC,
				actions: []string{ActionRemoveFinalizer}}},
		},
		{
			name:   "namespace held by a custom resource whose controller is absent",
			snap:   widgets(testobj.Snapshot(team, w1)).Build(),
			target: team.Metadata.UID,
			want: []wantRC{{uid: w1.Metadata.UID, finalizer: "example.com/cleanup", reason: ReasonControllerNotFound, removedBy: rules.ActorUnknown,
				actions: []string{ActionFixController, ActionRemoveFinalizer}}},
		},
		{
			name:   "namespace held by a custom resource whose controller runs but fails",
			snap:   widgets(testobj.Snapshot(team, w1, presentCtrl)).Build(),
			target: team.Metadata.UID,
			want:   []wantRC{{uid: w1.Metadata.UID, finalizer: "example.com/cleanup", reason: ReasonControllerPending, removedBy: rules.ActorUnknown}},
		},
		{
			name:   "namespace whose operator was deleted with it",
			snap:   widgets(testobj.Snapshot(operatorNS, operator, w3)).Build(),
			target: operatorNS.Metadata.UID,
			want: []wantRC{
				{uid: operator.Metadata.UID, reason: ReasonNoFinalizers, removedBy: rules.ActorAPIServer},
				{uid: w3.Metadata.UID, finalizer: "example.com/cleanup", reason: ReasonControllerTerminating, removedBy: rules.ActorUnknown},
			},
		},
		{
			name: "namespace held by a failing aggregated API",
			snap: testobj.Snapshot(discoNS).Resource(snapshot.Resource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods", Kind: "PodMetrics", Namespaced: true,
				Error: "unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request"}).Build(),
			target: discoNS.Metadata.UID,
			want: []wantRC{{uid: discoNS.Metadata.UID, finalizer: rules.FinalizerNamespace, reason: ReasonDiscoveryFailure, removedBy: rules.ActorNamespace,
				actions: []string{ActionFixAPIService, ActionDeleteAPIService, ActionRemoveFinalizer}}},
		},
		{
			name: "namespace held by a group version whose discovery failed during capture",
			snap: func() *snapshot.Snapshot {
				s := testobj.Snapshot(discoNS).Build()
				s.DiscoveryErrors = []snapshot.DiscoveryError{{GroupVersion: "custom.metrics.k8s.io/v1beta2", Error: "the server is currently unable to handle the request"}}
				return s
			}(),
			target: discoNS.Metadata.UID,
			want: []wantRC{{uid: discoNS.Metadata.UID, finalizer: rules.FinalizerNamespace, reason: ReasonDiscoveryFailure, removedBy: rules.ActorNamespace,
				actions: []string{ActionFixAPIService, ActionDeleteAPIService, ActionRemoveFinalizer}}},
		},
		{
			name:   "offline, namespace condition names the failing aggregated API",
			snap:   testobj.Snapshot(discoNS).Build(),
			target: discoNS.Metadata.UID,
			want: []wantRC{{uid: discoNS.Metadata.UID, finalizer: rules.FinalizerNamespace, reason: ReasonDiscoveryFailure, removedBy: rules.ActorNamespace,
				actions: []string{ActionFixAPIService, ActionDeleteAPIService, ActionRemoveFinalizer}}},
		},
		{
			name:   "namespace status names content kgc could not list",
			snap:   testobj.Snapshot(hiddenNS).CRD("example.com", "Gizmo", "gizmos", true).Unlisted("example.com", "Gizmo", "forbidden").Build(),
			target: hiddenNS.Metadata.UID,
			want: []wantRC{{uid: hiddenNS.Metadata.UID, finalizer: rules.FinalizerNamespace, reason: ReasonContentNotInSnapshot, removedBy: rules.ActorNamespace,
				actions: []string{ActionWait, ActionRemoveFinalizer}}},
		},
		{
			name:   "CRD held by an instance terminating on its controller's finalizer",
			snap:   widgets(testobj.Snapshot(crd, w2)).Build(),
			target: crd.Metadata.UID,
			want:   []wantRC{{uid: w2.Metadata.UID, finalizer: "example.com/cleanup", reason: ReasonControllerNotFound, removedBy: rules.ActorUnknown}},
		},
		{
			name:   "PVC held by a running pod that mounts it; an unscheduled one does not count",
			snap:   testobj.Snapshot(claim, sts, claimUser, unscheduledUser, readyNode).Build(),
			target: claim.Metadata.UID,
			want:   []wantRC{{uid: claimUser.Metadata.UID, reason: ReasonClaimInUse, actions: []string{ActionDelete}}},
		},
		{
			name:   "pod on a NotReady node",
			snap:   testobj.Snapshot(notReadyPod, node("n2", "Unknown")).Build(),
			target: notReadyPod.Metadata.UID,
			want: []wantRC{{uid: notReadyPod.Metadata.UID, reason: ReasonNodeNotReady, removedBy: rules.ActorKubelet,
				actions: []string{ActionFixNode, ActionTaintOutOfService, ActionForceDelete}}},
		},
		{
			name:   "pod on a NotReady node tainted out-of-service is the pod GC's",
			snap:   testobj.Snapshot(notReadyPod, node("n2", "False", "node.kubernetes.io/out-of-service:NoExecute")).Build(),
			target: notReadyPod.Metadata.UID,
			want:   []wantRC{{uid: notReadyPod.Metadata.UID, reason: ReasonInProgress, removedBy: rules.ActorPodGC}},
		},
		{
			name:   "pod on a node that no longer exists",
			snap:   testobj.Snapshot(missingNodePod, readyNode).Build(),
			target: missingNodePod.Metadata.UID,
			want: []wantRC{{uid: missingNodePod.Metadata.UID, reason: ReasonNodeMissing, removedBy: rules.ActorPodGC,
				actions: []string{ActionFixController, ActionForceDelete}}},
		},
		{
			name:   "pod within its grace period",
			snap:   testobj.Snapshot(inGracePod, readyNode).Build(),
			target: inGracePod.Metadata.UID,
			want:   []wantRC{{uid: inGracePod.Metadata.UID, reason: ReasonInProgress, removedBy: rules.ActorKubelet, actions: []string{ActionWait}}},
		},
		{
			name:   "pod past its grace period on a Ready node",
			snap:   testobj.Snapshot(hungPod, readyNode).Build(),
			target: hungPod.Metadata.UID,
			want:   []wantRC{{uid: hungPod.Metadata.UID, reason: ReasonKubeletNotConfirming, removedBy: rules.ActorKubelet, actions: []string{ActionFixNode, ActionForceDelete}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(tc.snap, nil, Options{}).Diagnose(tc.target)
			if err != nil {
				t.Fatal(err)
			}
			if !d.Terminating {
				t.Fatalf("terminating = false")
			}
			if len(d.RootCauses) != len(tc.want) {
				t.Fatalf("got %d root causes, want %d:\n%s", len(d.RootCauses), len(tc.want), describe(d.RootCauses))
			}
			for i, w := range tc.want {
				got := d.RootCauses[i]
				if got.Object.UID != w.uid || got.Finalizer != w.finalizer || got.Reason != w.reason || got.RemovedBy != w.removedBy {
					t.Errorf("root cause %d = %s %q %s by %q, want %s %q %s by %q\n%s", i+1, got.Object.UID, got.Finalizer, got.Reason, got.RemovedBy,
						w.uid, w.finalizer, w.reason, w.removedBy, got.Message)
				}
				if w.actions != nil {
					var actions []string
					for _, r := range got.Remedies {
						actions = append(actions, r.Action)
					}
					if !slices.Equal(actions, w.actions) {
						t.Errorf("root cause %d remedies = %v, want %v", i+1, actions, w.actions)
					}
				}
				for _, r := range got.Remedies {
					if r.Action == ActionRemoveFinalizer && r.Risk != rules.LookupFinalizer(got.Finalizer).Risk {
						t.Errorf("finalizer removal risk = %q, want what removing %s skips", r.Risk, got.Finalizer)
					}
				}
			}
			// Top-level remedies are every root cause's, in order.
			n := 0
			for _, rc := range d.RootCauses {
				n += len(rc.Remedies)
			}
			if len(d.Remedies) != n {
				t.Errorf("top-level remedies: %d, want %d", len(d.Remedies), n)
			}
		})
	}
}

func describe(rcs []RootCause) string {
	var b strings.Builder
	for _, rc := range rcs {
		b.WriteString("  " + rc.Object.UID + " " + rc.Finalizer + " " + rc.Reason + " by " + rc.RemovedBy + ": " + rc.Message + "\n")
	}
	return b.String()
}

func TestRemedyCommands(t *testing.T) {
	specNS := testobj.Namespace("legacy").Deleting(ago(time.Hour)).Facts(&snapshot.Facts{Namespace: &snapshot.NamespaceFacts{
		Phase: "Terminating", SpecFinalizers: []string{"openshift.io/origin"}}}).Build()
	pv := testobj.PV("pv-9").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerPV, "acme.io/snapshot").
		Facts(&snapshot.Facts{PV: &snapshot.PVFacts{Phase: "Released"}}).Build()
	tests := []struct {
		name string
		obj  snapshot.Object
		want string // the last remedy's command
	}{
		{"namespace spec finalizers go through /finalize", specNS,
			`kubectl get namespace legacy -o json | jq '.spec.finalizers -= ["openshift.io/origin"]' | kubectl replace --raw /api/v1/namespaces/legacy/finalize -f -`},
		{"cluster-scoped object, finalizer at index 1", pv,
			`kubectl patch persistentvolumes pv-9 --type=json -p '[{"op":"test","path":"/metadata/finalizers/1","value":"acme.io/snapshot"},{"op":"remove","path":"/metadata/finalizers/1"}]'`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(testobj.Snapshot(tc.obj).Build(), nil, Options{}).Diagnose(tc.obj.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			rc := d.RootCauses[len(d.RootCauses)-1]
			got := rc.Remedies[len(rc.Remedies)-1]
			if got.Action != ActionRemoveFinalizer || got.Command != tc.want {
				t.Errorf("last remedy = %s %q\nwant remove-finalizer %q", got.Action, got.Command, tc.want)
			}
		})
	}
}

// live marks a snapshot as captured from a server, whose discovery is
// the whole truth about served kinds.
func live(s *snapshot.Snapshot) *snapshot.Snapshot {
	s.Source = snapshot.Source{Type: "live", Server: "https://127.0.0.1:6443"}
	return s
}

func TestDiscoveryFailureNamesTheAPIService(t *testing.T) {
	ns := terminatingNS("team-b", ago(time.Hour), snapshot.Condition{Type: condDiscoveryFailure, Status: "True", Reason: "DiscoveryFailed",
		Message: "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: stale GroupVersion discovery: metrics.k8s.io/v1beta1"})
	d, err := New(testobj.Snapshot(ns).Build(), nil, Options{}).Diagnose(ns.Metadata.UID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.RootCauses) != 1 {
		t.Fatalf("%d root causes:\n%s", len(d.RootCauses), describe(d.RootCauses))
	}
	rc := d.RootCauses[0]
	if len(rc.Related) != 1 || rc.Related[0].Kind != "APIService" || rc.Related[0].Name != "v1beta1.metrics.k8s.io" {
		t.Errorf("related = %+v, want APIService v1beta1.metrics.k8s.io", rc.Related)
	}
	var cmds []string
	for _, r := range rc.Remedies {
		cmds = append(cmds, r.Command)
	}
	if !slices.Contains(cmds, "kubectl delete apiservice v1beta1.metrics.k8s.io") {
		t.Errorf("commands %q lack the APIService deletion", cmds)
	}
}

func TestForegroundChainAnyDepth(t *testing.T) {
	const depth = 50
	objs := []snapshot.Object{testobj.ConfigMap("deep", "c-0").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerForeground).Build()}
	for i := 1; i < depth; i++ {
		b := testobj.ConfigMap("deep", fmt.Sprintf("c-%d", i)).OwnedBy(objs[i-1]).Deleting(ago(time.Hour))
		if i == depth-1 {
			b = b.Finalizers("example.com/last")
		} else {
			b = b.Finalizers(rules.FinalizerForeground)
		}
		objs = append(objs, b.Build())
	}
	d, err := New(testobj.Snapshot(objs...).Build(), nil, Options{}).Diagnose(objs[0].Metadata.UID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.RootCauses) != 1 || d.RootCauses[0].Object.UID != objs[depth-1].Metadata.UID || d.RootCauses[0].Finalizer != "example.com/last" {
		t.Fatalf("root causes:\n%s", describe(d.RootCauses))
	}
	// The tree has one level per object.
	levels := 0
	for bs := d.Blockers; len(bs) > 0; bs = bs[0].Blockers {
		levels++
	}
	if levels != depth {
		t.Errorf("tree depth %d, want %d", levels, depth)
	}
}

// A type a live capture failed to list and a type a plain dump does not
// contain are different gaps, and the notes say which.
func TestUnlistedContentWording(t *testing.T) {
	ns := terminatingNS("team-d", ago(time.Hour))
	for _, c := range []struct {
		name string
		snap *snapshot.Snapshot
		want string
	}{
		{"capture failed", testobj.Snapshot(ns).Live().CRD("example.com", "Gizmo", "gizmos", true).Unlisted("example.com", "Gizmo", "forbidden").Build(),
			"1 type could not be listed, so their objects in the namespace are not shown: gizmos.example.com"},
		{"not in the dump", func() *snapshot.Snapshot {
			s := testobj.Snapshot(ns).CRD("example.com", "Gizmo", "gizmos", true).Build()
			for i := range s.Resources {
				if s.Resources[i].Kind == "Gizmo" {
					s.Resources[i].Listed = false
				}
			}
			return s
		}(), "1 type is not in the input (a dump holds only the types it was dumped with), so their objects in the namespace are not shown: gizmos.example.com"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := New(c.snap, graph.Build(c.snap), Options{}).Diagnose(ns.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			if d.Complete || !slices.Contains(d.Notes, c.want) {
				t.Errorf("complete %v, notes %q; want incomplete with %q", d.Complete, d.Notes, c.want)
			}
		})
	}
}

// An owner of a type kgc failed to list and one of a type a dump does not
// hold are both unknown; only the first is kgc's failure, and the owner's
// message says which, as the namespace status's remaining content does.
func TestUnknownOwnerWording(t *testing.T) {
	owner := testobj.ReplicaSet("shop", "web-1").UID("rs-gone").Build()
	pod := testobj.Pod("shop", "web-1-x").UID("p").OwnedBy(owner).Build()
	hidden := terminatingNS("team-c", ago(time.Hour),
		snapshot.Condition{Type: condContentRemaining, Status: "True", Reason: "SomeResourcesRemain", Message: "Some resources are remaining: replicasets.apps has 2 resource instances"})
	for _, c := range []struct {
		name, reason, owner, content string
	}{
		{"capture failed", "forbidden", "Pod/web-1-x -n shop names owner ReplicaSet/web-1 -n shop, which is not in the input, but kgc could not list replicasets.apps (forbidden), so kgc cannot tell whether the owner exists.",
			"the namespace status reports 2 replicasets.apps remaining that kgc could not list"},
		{"not in the dump", "", "Pod/web-1-x -n shop names owner ReplicaSet/web-1 -n shop, which is not in the input, but the input holds no replicasets.apps objects, so kgc cannot tell whether the owner exists.",
			"the namespace status reports 2 replicasets.apps remaining, which the input does not hold"},
	} {
		t.Run(c.name, func(t *testing.T) {
			snap := testobj.Snapshot(pod, hidden).Unlisted("apps", "ReplicaSet", c.reason).Build()
			d, err := New(snap, graph.Build(snap), Options{}).Diagnose(pod.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			if gc := d.GarbageCollection; gc == nil || len(gc.Owners) != 1 || gc.Owners[0].Message != c.owner {
				t.Errorf("owners = %+v\nwant the message %q", gc, c.owner)
			}
			d, err = New(snap, graph.Build(snap), Options{}).Diagnose(hidden.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			var msgs []string
			for _, rc := range d.RootCauses {
				msgs = append(msgs, rc.Message)
			}
			if !slices.ContainsFunc(msgs, func(m string) bool { return strings.HasPrefix(m, c.content) }) {
				t.Errorf("root causes %q; want one starting %q", msgs, c.content)
			}
		})
	}
}

// Removing a finalizer skips its cleanup: a remedy that may leave a cloud
// load balancer or a disk behind says so, and comes after every remedy that
// does not.
func TestRemediesSayWhatLeaks(t *testing.T) {
	svc := testobj.Service("shop", "lb").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerLB).Build()
	deleteDisk := testobj.PV("pv-delete").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerExtProv).
		Facts(&snapshot.Facts{PV: &snapshot.PVFacts{Phase: "Released", ReclaimPolicy: "Delete"}}).Build()
	keepDisk := testobj.PV("pv-retain").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerExtProv).
		Facts(&snapshot.Facts{PV: &snapshot.PVFacts{Phase: "Released", ReclaimPolicy: "Retain"}}).Build()
	d := New(testobj.Snapshot(svc, deleteDisk, keepDisk).Build(), nil, Options{})
	cases := []struct {
		obj  snapshot.Object
		leak string
	}{{svc, "cloud load balancer"}, {deleteDisk, "disk"}, {keepDisk, ""}}
	for _, c := range cases {
		diag, err := d.Diagnose(c.obj.Metadata.UID)
		if err != nil {
			t.Fatal(err)
		}
		rems := diag.Remedies
		if len(rems) == 0 {
			t.Fatalf("%s: no remedies", c.obj.Ref())
		}
		last := rems[len(rems)-1]
		if last.Action != ActionRemoveFinalizer {
			t.Errorf("%s: last remedy is %s, want remove-finalizer", c.obj.Ref(), last.Action)
		}
		if !strings.Contains(last.Leaks, c.leak) || (c.leak == "") != (last.Leaks == "") {
			t.Errorf("%s: leaks %q, want one naming %q", c.obj.Ref(), last.Leaks, c.leak)
		}
		for _, r := range rems[:len(rems)-1] {
			if r.Leaks != "" {
				t.Errorf("%s: %s leaks but is not last", c.obj.Ref(), r.Action)
			}
		}
	}
}

// A finalizer whose domain is too generic to search for (kubernetes.io)
// still names the controller it guesses, and the root cause must not then
// claim it cannot tell which controller that is.
func TestNoEvidenceNamesNoController(t *testing.T) {
	// A workload sharing a word with the domain is no evidence.
	lookalike := testobj.Deployment("kube-system", "kubernetes-custom-cleanup").Label("app", "custom-cleanup").Build()
	for _, f := range []string{"kubernetes.io/custom-cleanup", "custom-cleanup", "finalizers.acme.io/drain"} {
		cm := gone(testobj.ConfigMap("shop", "c").Deleting(ago(time.Hour)).Finalizers(f).Build())
		d, err := New(testobj.Snapshot(cm, lookalike).Build(), nil, Options{}).Diagnose(cm.Metadata.UID)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.RootCauses) != 1 {
			t.Fatalf("%s: %d root causes:\n%s", f, len(d.RootCauses), describe(d.RootCauses))
		}
		rc := d.RootCauses[0]
		if rc.Reason != ReasonControllerNotFound || rc.Controller != "" || rc.Attribution == nil || rc.Attribution.Evidence != EvidenceNone || rc.Attribution.Confidence != ConfidenceNone {
			t.Errorf("%s: reason %q, controller %q, attribution %+v; want controller-not-found without a controller", f, rc.Reason, rc.Controller, rc.Attribution)
		}
		if !strings.Contains(rc.Message, "no controller for this finalizer found in the input") {
			t.Errorf("%s: message %q", f, rc.Message)
		}
		for _, rem := range rc.Remedies {
			if strings.Contains(rem.Command, "kubectl logs") || strings.Contains(rem.Description, lookalike.Metadata.Name) {
				t.Errorf("%s: remedy points at a workload no evidence names: %+v", f, rem)
			}
		}
		for _, s := range []string{"probably", "guessed"} {
			if strings.Contains(rc.Message, s) {
				t.Errorf("%s: message %q says %q", f, rc.Message, s)
			}
		}
	}
}

// An object held by a finalizer is no all-clear when a live capture
// failed to list a type its dependents may be of (a 5xx after retries):
// the diagnosis is incomplete and names the type, since what its remedy
// finishes may miss them. A dump lacking the type says nothing here.
func TestFinalizerHeldWithAFailedList(t *testing.T) {
	held := testobj.ConfigMap("shop", "held").Finalizers("example.com/hold").Deleting(ago(time.Hour)).Build()
	failed := testobj.Snapshot(held).Live().Unlisted("", "Secret", "fault: injected Internal Server Error (HTTP 500)").Build()
	d, err := New(failed, nil, Options{}).Diagnose(held.Metadata.UID)
	if err != nil {
		t.Fatal(err)
	}
	want := "1 type could not be listed, so their objects may be dependents that are not shown: secrets"
	if d.Complete || !slices.Contains(d.Notes, want) {
		t.Errorf("complete %v, notes %q; want incomplete with %q", d.Complete, d.Notes, want)
	}
	dump := testobj.Snapshot(held).Build()
	if d, err := New(dump, nil, Options{}).Diagnose(held.Metadata.UID); err != nil || !d.Complete {
		t.Errorf("from a dump: complete %v, notes %q (%v); want complete", d.Complete, d.Notes, err)
	}
}
