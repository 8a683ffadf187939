package plan

import (
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// The reconcile step of the controllers that create again what a delete
// removes (recreate.go, rules.Recreate): each controller, the "may" case,
// and the cases where nothing comes back.

func i32(n int32) *int32 { return &n }

func workloadFacts(w snapshot.WorkloadFacts) *snapshot.Facts { return &snapshot.Facts{Workload: &w} }

// recreateWorld is one namespace with a Deployment mid-rollout (new
// ReplicaSet web-new at revision 2, old web-old at 1), a StatefulSet, a
// DaemonSet, a Job, a CronJob with a Job, a ReplicationController, a
// Service with its slice, kube-root-ca.crt and the default ServiceAccount.
type recreateWorld struct {
	objs []snapshot.Object
}

func (w *recreateWorld) add(o snapshot.Object) snapshot.Object {
	w.objs = append(w.objs, o)
	return o
}

func newRecreateWorld(deploy snapshot.WorkloadFacts, job snapshot.JobFacts) *recreateWorld {
	w := &recreateWorld{}
	const ns = "shop"
	running := &snapshot.Facts{Pod: &snapshot.PodFacts{NodeName: "node-a", Phase: "Running"}}
	w.add(testobj.Namespace(ns).Facts(&snapshot.Facts{Namespace: &snapshot.NamespaceFacts{Phase: "Active", SpecFinalizers: []string{"kubernetes"}}}).Build())
	w.add(testobj.Node("node-a").Label("disk", "ssd").Facts(&snapshot.Facts{Node: &snapshot.NodeFacts{Ready: "True"}}).Build())
	w.add(testobj.Node("node-b").Facts(&snapshot.Facts{Node: &snapshot.NodeFacts{Ready: "True", Taints: []string{"dedicated:NoSchedule"}}}).Build())

	d := w.add(testobj.Deployment(ns, "web").Facts(workloadFacts(deploy)).Build())
	rsNew := w.add(testobj.ReplicaSet(ns, "web-new").Label(rules.LabelPodTemplateHash, "new").OwnedBy(d).
		Facts(workloadFacts(snapshot.WorkloadFacts{Replicas: i32(2), Revision: "2", SelectorMatchesTemplate: true})).Build())
	w.add(testobj.ReplicaSet(ns, "web-old").Label(rules.LabelPodTemplateHash, "old").OwnedBy(d).
		Facts(workloadFacts(snapshot.WorkloadFacts{Replicas: i32(1), Revision: "1", SelectorMatchesTemplate: true})).Build())
	w.add(pod(ns, "web-new-a").OwnedBy(rsNew).Label(rules.LabelPodTemplateHash, "new").Facts(running).Build())
	w.add(pod(ns, "web-new-b").OwnedBy(rsNew).Label(rules.LabelPodTemplateHash, "new").Facts(running).Build())
	zero := w.add(testobj.ReplicaSet(ns, "idle").Facts(workloadFacts(snapshot.WorkloadFacts{Replicas: i32(0), SelectorMatchesTemplate: true})).Build())
	w.add(pod(ns, "idle-a").OwnedBy(zero).Facts(running).Build())
	rcObj := w.add(rc(ns, "legacy").Facts(workloadFacts(snapshot.WorkloadFacts{Replicas: i32(1), SelectorMatchesTemplate: true})).Build())
	w.add(pod(ns, "legacy-a").OwnedBy(rcObj).Facts(running).Build())

	sts := w.add(testobj.StatefulSet(ns, "db").Facts(workloadFacts(snapshot.WorkloadFacts{Replicas: i32(2), SelectorMatchesTemplate: true})).Build())
	w.add(pod(ns, "db-1").OwnedBy(sts).Facts(&snapshot.Facts{Pod: &snapshot.PodFacts{NodeName: "node-a", Phase: "Running", Claims: []string{"data-db-1"}}}).Build())
	w.add(pod(ns, "db-5").OwnedBy(sts).Facts(running).Build())

	ds := w.add(testobj.DaemonSet(ns, "agent").Facts(workloadFacts(snapshot.WorkloadFacts{SelectorMatchesTemplate: true})).Build())
	w.add(pod(ns, "agent-a").OwnedBy(ds).Facts(running).Build())
	w.add(pod(ns, "agent-b").OwnedBy(ds).Facts(&snapshot.Facts{Pod: &snapshot.PodFacts{NodeName: "node-b", Phase: "Running"}}).Build())
	ssd := w.add(testobj.DaemonSet(ns, "ssd-only").Facts(workloadFacts(snapshot.WorkloadFacts{NodeSelector: map[string]string{"disk": "hdd"}, SelectorMatchesTemplate: true})).Build())
	w.add(pod(ns, "ssd-only-a").OwnedBy(ssd).Facts(running).Build())

	j := w.add(testobj.Job(ns, "batch").Facts(&snapshot.Facts{Job: &job}).Build())
	w.add(pod(ns, "batch-a").OwnedBy(j).Facts(running).Build())
	cj := w.add(testobj.CronJob(ns, "nightly").Facts(workloadFacts(snapshot.WorkloadFacts{})).Build())
	w.add(testobj.Job(ns, "nightly-1").OwnedBy(cj).Facts(&snapshot.Facts{Job: &snapshot.JobFacts{Spec: true, Finished: true}}).Build())

	sel := true
	svc := w.add(testobj.Service(ns, "web").Facts(&snapshot.Facts{Service: &snapshot.ServiceFacts{Selector: &sel}}).Build())
	w.add(testobj.New("discovery.k8s.io/v1", "EndpointSlice", ns, "web-x1").OwnedBy(svc).Label(rules.LabelManagedBy, rules.ManagedByEndpointSlice).Build())
	w.add(cm(ns, rules.RootCAConfigMap).Build())
	w.add(testobj.New("v1", "ServiceAccount", ns, "default").Build())
	return w
}

func (w *recreateWorld) uid(kind, name string) string {
	for _, o := range w.objs {
		if o.Kind == kind && o.Metadata.Name == name {
			return o.Metadata.UID
		}
	}
	panic("no " + kind + " " + name)
}

// fates plans the delete of kind/name and returns the plan's objects by name.
func (w *recreateWorld) fates(t *testing.T, kind, name string, policy Policy, opts Options) (map[string]ObjectFate, *Plan) {
	t.Helper()
	opts.Target, opts.Policy = w.uid(kind, name), policy
	p, err := Simulate(testobj.Snapshot(w.objs...).Resource(snapshot.Resource{Version: "v1", Resource: "replicationcontrollers", Kind: "ReplicationController", Namespaced: true, Listed: true}).Build(), opts)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]ObjectFate{}
	for _, of := range p.Objects {
		out[of.Object.Kind+"/"+of.Object.Name] = of
	}
	return out, p
}

var liveDeploy = snapshot.WorkloadFacts{Replicas: i32(3), Revision: "2", SelectorMatchesTemplate: true}
var runningJob = snapshot.JobFacts{Spec: true, Completions: i32(1), Parallelism: i32(1), BackoffLimit: i32(6)}

func TestRecreatedByTheirControllers(t *testing.T) {
	type want struct {
		fate, controller, owner, name string
		sameName, certain             bool
	}
	tests := []struct {
		name         string
		kind, target string
		policy       Policy
		deploy       *snapshot.WorkloadFacts
		job          *snapshot.JobFacts
		controllers  []string
		want         map[string]want
		reason       map[string]string // object → part of its reason
	}{
		{name: "the new ReplicaSet of a live Deployment comes back with its name", kind: "ReplicaSet", target: "web-new", policy: PolicyBackground,
			want: map[string]want{
				"ReplicaSet/web-new": {FateRecreated, rules.ActorDeployment, "Deployment/web -n shop", "web-new", true, true},
				"Pod/web-new-a":      {fate: FateDeleted},
				"Pod/web-new-b":      {fate: FateDeleted},
			},
			reason: map[string]string{"Pod/web-new-a": "ReplicaSet/web-new -n shop comes back and creates new pods"}},
		{name: "orphan: the ReplicaSet comes back and adopts its pods", kind: "ReplicaSet", target: "web-new", policy: PolicyOrphan,
			want: map[string]want{
				"ReplicaSet/web-new": {FateRecreated, rules.ActorDeployment, "Deployment/web -n shop", "web-new", true, true},
				"Pod/web-new-a":      {fate: FateOrphaned},
			},
			reason: map[string]string{"Pod/web-new-a": "comes back and adopts it again"}},
		{name: "foreground: the same", kind: "ReplicaSet", target: "web-new", policy: PolicyForeground,
			want: map[string]want{"ReplicaSet/web-new": {FateRecreated, rules.ActorDeployment, "Deployment/web -n shop", "web-new", true, true}}},
		{name: "an old ReplicaSet is not recreated", kind: "ReplicaSet", target: "web-old", policy: PolicyBackground,
			want:   map[string]want{"ReplicaSet/web-old": {fate: FateDeleted}},
			reason: map[string]string{"ReplicaSet/web-old": "an old ReplicaSet"}},
		{name: "a paused Deployment creates nothing", kind: "ReplicaSet", target: "web-new", policy: PolicyBackground,
			deploy: &snapshot.WorkloadFacts{Replicas: i32(3), Revision: "2", Paused: true},
			want:   map[string]want{"ReplicaSet/web-new": {fate: FateDeleted}},
			reason: map[string]string{"ReplicaSet/web-new": "paused"}},
		{name: "a Deployment scaled to 0 still keeps its ReplicaSet, empty", kind: "ReplicaSet", target: "web-new", policy: PolicyBackground,
			deploy: &snapshot.WorkloadFacts{Replicas: i32(0), Revision: "2", SelectorMatchesTemplate: true},
			want:   map[string]want{"ReplicaSet/web-new": {FateRecreated, rules.ActorDeployment, "Deployment/web -n shop", "web-new", true, true}},
			reason: map[string]string{"ReplicaSet/web-new": "no pods (the Deployment is scaled to 0)"}},
		{name: "a Deployment read without spec may recreate", kind: "ReplicaSet", target: "web-new", policy: PolicyBackground,
			deploy: &snapshot.WorkloadFacts{}, // replaced by nil facts below
			want:   map[string]want{"ReplicaSet/web-new": {FateDeleted, rules.ActorDeployment, "Deployment/web -n shop", "web-new", true, false}},
			reason: map[string]string{"ReplicaSet/web-new": "may be recreated by deployment-controller"}},
		{name: "the Deployment deleted too: nothing comes back", kind: "Deployment", target: "web", policy: PolicyBackground,
			want: map[string]want{"ReplicaSet/web-new": {fate: FateDeleted}, "Pod/web-new-a": {fate: FateDeleted}}},
		{name: "a pod of a ReplicaSet is replaced under a new name", kind: "Pod", target: "web-new-a", policy: PolicyBackground,
			want: map[string]want{"Pod/web-new-a": {FateRecreated, rules.ActorReplicaSet, "ReplicaSet/web-new -n shop", "", false, true}}},
		{name: "a ReplicaSet scaled to zero replaces nothing", kind: "Pod", target: "idle-a", policy: PolicyBackground,
			want:   map[string]want{"Pod/idle-a": {fate: FateDeleted}},
			reason: map[string]string{"Pod/idle-a": "scaled to 0"}},
		{name: "a pod of a ReplicationController", kind: "Pod", target: "legacy-a", policy: PolicyBackground,
			want: map[string]want{"Pod/legacy-a": {FateRecreated, rules.ActorReplicationController, "ReplicationController/legacy -n shop", "", false, true}}},
		{name: "a StatefulSet pod comes back with its name and claims", kind: "Pod", target: "db-1", policy: PolicyBackground,
			want:   map[string]want{"Pod/db-1": {FateRecreated, rules.ActorStatefulSet, "StatefulSet/db -n shop", "db-1", true, true}},
			reason: map[string]string{"Pod/db-1": "reusing 1 claim data-db-1"}},
		{name: "a StatefulSet pod beyond the replicas does not", kind: "Pod", target: "db-5", policy: PolicyBackground,
			want: map[string]want{"Pod/db-5": {fate: FateDeleted}}},
		{name: "a DaemonSet pod on an eligible node", kind: "Pod", target: "agent-a", policy: PolicyBackground,
			want: map[string]want{"Pod/agent-a": {FateRecreated, rules.ActorDaemonSet, "DaemonSet/agent -n shop", "", false, true}}},
		{name: "a DaemonSet pod on a node it does not tolerate", kind: "Pod", target: "agent-b", policy: PolicyBackground,
			want:   map[string]want{"Pod/agent-b": {fate: FateDeleted}},
			reason: map[string]string{"Pod/agent-b": "taint dedicated:NoSchedule"}},
		{name: "a DaemonSet pod on a node its selector no longer matches", kind: "Pod", target: "ssd-only-a", policy: PolicyBackground,
			want: map[string]want{"Pod/ssd-only-a": {fate: FateDeleted}}},
		{name: "a running Job replaces its pod", kind: "Pod", target: "batch-a", policy: PolicyBackground,
			want: map[string]want{"Pod/batch-a": {FateRecreated, rules.ActorJob, "Job/batch -n shop", "", false, true}}},
		{name: "a finished Job recreates nothing", kind: "Pod", target: "batch-a", policy: PolicyBackground,
			job:    &snapshot.JobFacts{Spec: true, Finished: true},
			want:   map[string]want{"Pod/batch-a": {fate: FateDeleted}},
			reason: map[string]string{"Pod/batch-a": "a finished Job recreates nothing"}},
		{name: "a suspended Job recreates nothing", kind: "Pod", target: "batch-a", policy: PolicyBackground,
			job:  &snapshot.JobFacts{Spec: true, Suspend: true},
			want: map[string]want{"Pod/batch-a": {fate: FateDeleted}}},
		{name: "a Job at its backoffLimit fails instead", kind: "Pod", target: "batch-a", policy: PolicyBackground,
			job:  &snapshot.JobFacts{Spec: true, BackoffLimit: i32(2), Failed: 2},
			want: map[string]want{"Pod/batch-a": {fate: FateDeleted}}},
		{name: "a CronJob does not recreate past Jobs", kind: "Job", target: "nightly-1", policy: PolicyBackground,
			want:   map[string]want{"Job/nightly-1": {fate: FateDeleted}},
			reason: map[string]string{"Job/nightly-1": "does not recreate past Jobs"}},
		{name: "kube-root-ca.crt", kind: "ConfigMap", target: rules.RootCAConfigMap, policy: PolicyBackground,
			want: map[string]want{"ConfigMap/kube-root-ca.crt": {FateRecreated, rules.ActorRootCAPublisher, "Namespace/shop", "kube-root-ca.crt", true, true}}},
		{name: "the default ServiceAccount", kind: "ServiceAccount", target: "default", policy: PolicyBackground,
			want: map[string]want{"ServiceAccount/default": {FateRecreated, rules.ActorServiceAccount, "Namespace/shop", "default", true, true}}},
		{name: "an EndpointSlice of a Service with a selector", kind: "EndpointSlice", target: "web-x1", policy: PolicyBackground,
			want: map[string]want{"EndpointSlice/web-x1": {FateRecreated, rules.ActorEndpointSlice, "Service/web -n shop", "", false, true}}},
		{name: "the namespace deleted: nothing comes back", kind: "Namespace", target: "shop", policy: PolicyBackground,
			want: map[string]want{"ConfigMap/kube-root-ca.crt": {fate: FateDeleted}, "ServiceAccount/default": {fate: FateDeleted}, "Pod/web-new-a": {fate: FateDeleted}}},
		{name: "a controller not simulated: may be recreated", kind: "Pod", target: "db-1", policy: PolicyBackground,
			controllers: []string{ControllerNamespace, ControllerKubelet},
			want:        map[string]want{"Pod/db-1": {FateDeleted, rules.ActorStatefulSet, "StatefulSet/db -n shop", "db-1", true, false}},
			reason:      map[string]string{"Pod/db-1": "statefulset-controller is not simulated"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			deploy, job := liveDeploy, runningJob
			if tt.deploy != nil {
				deploy = *tt.deploy
			}
			if tt.job != nil {
				job = *tt.job
			}
			w := newRecreateWorld(deploy, job)
			if tt.name == "a Deployment read without spec may recreate" {
				for i := range w.objs {
					if w.objs[i].Kind == "Deployment" {
						w.objs[i].Facts = nil
					}
				}
			}
			got, p := w.fates(t, tt.kind, tt.target, tt.policy, Options{Controllers: tt.controllers})
			for obj, wt := range tt.want {
				of, ok := got[obj]
				if !ok {
					t.Errorf("%s is not in the plan", obj)
					continue
				}
				if of.Fate != wt.fate {
					t.Errorf("%s: fate %s, want %s (%s)", obj, of.Fate, wt.fate, of.Reason)
				}
				if of.Fate == FateRecreated && of.Final.Exists {
					t.Errorf("%s: recreated but final.exists", obj)
				}
				r := of.RecreatedBy
				switch {
				case wt.controller == "" && r != nil:
					t.Errorf("%s: recreatedBy %+v, want none", obj, *r)
				case wt.controller != "" && r == nil:
					t.Errorf("%s: no recreatedBy, want %s (%s)", obj, wt.controller, of.Reason)
				case r != nil:
					if r.Controller != wt.controller || r.Owner.String() != wt.owner || r.Name != wt.name || r.SameName != wt.sameName || !r.NewUID || r.Certain != wt.certain {
						t.Errorf("%s: recreatedBy %+v, want %+v", obj, *r, wt)
					}
				}
			}
			for obj, part := range tt.reason {
				if !strings.Contains(got[obj].Reason, part) {
					t.Errorf("%s: reason %q lacks %q", obj, got[obj].Reason, part)
				}
			}
			n := 0
			for _, of := range p.Objects {
				if of.Fate == FateRecreated {
					n++
				}
			}
			if p.Summary.Recreated != n {
				t.Errorf("summary.recreated = %d, want %d", p.Summary.Recreated, n)
			}
		})
	}
}

// TestOrphanedPodsAdoptedByTheReplacement: orphaning the new ReplicaSet
// of a live Deployment orphans its pods, and the ReplicaSet that comes
// back under the same name adopts them again: the plan names it in
// adoptedBy (without a UID: it does not exist yet). Deleting the pods
// instead leaves no adoption.
func TestOrphanedPodsAdoptedByTheReplacement(t *testing.T) {
	w := newRecreateWorld(liveDeploy, runningJob)
	fates, _ := w.fates(t, "ReplicaSet", "web-new", PolicyOrphan, Options{})
	a := fates["Pod/web-new-a"].AdoptedBy
	if a == nil || a.Controller != rules.ActorReplicaSet || a.Owner.Kind != "ReplicaSet" || a.Owner.Name != "web-new" || a.Owner.Namespace != "shop" || a.Owner.UID != "" {
		t.Errorf("Pod/web-new-a adoptedBy = %+v, want the new ReplicaSet/web-new -n shop, without a UID", a)
	}
	fates, _ = w.fates(t, "ReplicaSet", "web-new", PolicyBackground, Options{})
	if a := fates["Pod/web-new-a"].AdoptedBy; a != nil {
		t.Errorf("a deleted pod is adopted by %+v", a)
	}
}

// TestWarnsBeforeAForegroundLoop: a foreground delete of a custom resource
// whose controller owns blocking dependents is warned about before it is
// sent: an operator that keeps reconciling it recreates them for ever
// (ClickHouse/clickhouse-operator#309, dragonflydb/dragonfly-operator#408).
// A background delete, or a built-in owner, is not.
func TestWarnsBeforeAForegroundLoop(t *testing.T) {
	cluster := testobj.New("stable.example.com/v1", "Widget", "db", "ch").UID("w").Build()
	sts := testobj.StatefulSet("db", "ch").UID("sts").OwnedBy(cluster).Build()
	deploy := testobj.Deployment("db", "web").UID("d").Build()
	rs := testobj.ReplicaSet("db", "web-1").UID("rs").OwnedBy(deploy).Build()
	snap := world(cluster, sts, deploy, rs).Build()
	for _, tc := range []struct {
		target string
		policy Policy
		warn   bool
	}{{"w", PolicyForeground, true}, {"w", PolicyBackground, false}, {"d", PolicyForeground, false}} {
		p, err := Simulate(snap, Options{Target: tc.target, Policy: tc.policy})
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, w := range p.Warnings {
			got = got || strings.Contains(w, "creates them again as the garbage collector deletes them") && strings.Contains(w, "StatefulSet/ch -n db")
		}
		if got != tc.warn {
			t.Errorf("delete %s %s: warned %v, want %v: %q", tc.target, tc.policy, got, tc.warn, p.Warnings)
		}
	}
}
