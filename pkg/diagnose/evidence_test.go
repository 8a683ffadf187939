package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

func clusterRole(name string, rules ...snapshot.PolicyRule) snapshot.Object {
	return testobj.New("rbac.authorization.k8s.io/v1", "ClusterRole", "", name).Facts(&snapshot.Facts{RBAC: &snapshot.RBACFacts{Rules: rules}}).Build()
}

func clusterRoleBinding(name, role, saNS, sa string) snapshot.Object {
	return testobj.New("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", name).Facts(&snapshot.Facts{RBAC: &snapshot.RBACFacts{
		RoleRef: &snapshot.RoleRef{Kind: "ClusterRole", Name: role}, Subjects: []snapshot.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: saNS}}}}).Build()
}

func allow(group, resources, verbs string) snapshot.PolicyRule {
	return snapshot.PolicyRule{APIGroups: []string{group}, Resources: strings.Fields(resources), Verbs: strings.Fields(verbs)}
}

// controllerWorkload is a Deployment running as sa with n available pods.
func controllerWorkload(b *testobj.Builder, sa string, n int32) snapshot.Object {
	one := int32(1)
	return b.Facts(&snapshot.Facts{Workload: &snapshot.WorkloadFacts{Replicas: &one, ServiceAccount: sa, Available: &n}}).Build()
}

func crdObj(group, kind, plural, scope string) *testobj.Builder {
	return testobj.New("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", plural+"."+group).
		Facts(&snapshot.Facts{CRD: &snapshot.CRDFacts{Group: group, Kind: kind, Plural: plural, Scope: scope}})
}

// TestFinalizerFamilyEvidence: a finalizer's controller is found through
// its API-group family (RBAC grants, installation labels), a controller
// that runs is never "not found", and one deleted with its namespace is
// said to be.
func TestFinalizerFamilyEvidence(t *testing.T) {
	// https://github.com/external-secrets/external-secrets/issues/5426 and
	// PR 6381: the operator runs but cannot finish an ExternalSecret's
	// cleanup (its provider answers 403), so externalsecret-cleanup stays.
	esCRD := crdObj("external-secrets.io", "ExternalSecret", "externalsecrets", "Namespaced").Build()
	cesCRD := crdObj("external-secrets.io", "ClusterExternalSecret", "clusterexternalsecrets", "Cluster").Build()
	es := gone(testobj.New("external-secrets.io/v1", "ExternalSecret", "shop", "db").Deleting(ago(time.Hour)).
		Finalizers("externalsecrets.external-secrets.io/externalsecret-cleanup").Build())
	esRole := clusterRole("external-secrets-controller",
		allow("external-secrets.io", "externalsecrets externalsecrets/status externalsecrets/finalizers clusterexternalsecrets", "get list watch update patch"),
		allow("", "namespaces", "get list watch update patch"))
	esBinding := clusterRoleBinding("external-secrets-controller", "external-secrets-controller", "external-secrets", "external-secrets")
	esDeploy := controllerWorkload(testobj.Deployment("external-secrets", "external-secrets"), "external-secrets", 1)
	esDown := controllerWorkload(testobj.Deployment("external-secrets", "external-secrets"), "external-secrets", 0)
	// A cluster-admin CI robot may change anything: no evidence.
	admin := clusterRole("cluster-admin", snapshot.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}})
	ciBinding := clusterRoleBinding("ci", "cluster-admin", "ci", "robot")
	ci := controllerWorkload(testobj.Deployment("ci", "robot"), "robot", 1)

	// https://github.com/external-secrets/external-secrets/issues/6677: a
	// ClusterExternalSecret's finalizer on a namespace (…/ces-NAME) stays
	// while the controller runs.
	nsCES := testobj.Namespace("team-x").Deleting(ago(time.Hour)).Finalizers("externalsecrets.external-secrets.io/ces-repro").
		Facts(&snapshot.Facts{Namespace: &snapshot.NamespaceFacts{Phase: "Terminating"}}).Build()
	ces := testobj.New("external-secrets.io/v1", "ClusterExternalSecret", "", "repro").Build()

	// https://github.com/longhorn/longhorn/issues/3457: longhorn-system
	// deleted with Longhorn in it; "longhorn.io in 11 resource instances".
	lhNS := terminatingNS("longhorn-system", ago(2*time.Hour))
	lhCRD := crdObj("longhorn.io", "Replica", "replicas", "Namespaced").Build()
	replica := gone(testobj.New("longhorn.io/v1beta2", "Replica", "longhorn-system", "pvc-1-r-07001148").Deleting(ago(2 * time.Hour)).Finalizers("longhorn.io").Build())
	lhRole := clusterRole("longhorn-role", allow("longhorn.io", "*", "*"))
	lhBinding := clusterRoleBinding("longhorn-bind", "longhorn-role", "longhorn-system", "longhorn-service-account")
	lhManager := testobj.DaemonSet("longhorn-system", "longhorn-manager").Build()
	lhManager.Facts = &snapshot.Facts{Workload: &snapshot.WorkloadFacts{ServiceAccount: "longhorn-service-account"}}

	// https://github.com/kubernetes-sigs/cluster-api-provider-openstack/issues/906:
	// CAPO runs, fails to authenticate against OpenStack, and the
	// OpenStackCluster's finalizer stays. clusterctl labels the provider's
	// CRDs and controller alike.
	capoCRD := crdObj("infrastructure.cluster.x-k8s.io", "OpenStackCluster", "openstackclusters", "Namespaced").Label("cluster.x-k8s.io/provider", "infrastructure-openstack").Build()
	capiCRD := crdObj("cluster.x-k8s.io", "Cluster", "clusters", "Namespaced").Label("cluster.x-k8s.io/provider", "cluster-api").Build()
	osc := gone(testobj.New("infrastructure.cluster.x-k8s.io/v1beta1", "OpenStackCluster", "magnum-system", "k8s").Deleting(ago(time.Hour)).
		Finalizers("openstackcluster.infrastructure.cluster.x-k8s.io").Build())
	capo := controllerWorkload(testobj.Deployment("capo-system", "capo-controller-manager").Label("cluster.x-k8s.io/provider", "infrastructure-openstack"), "capo-manager", 1)
	capi := controllerWorkload(testobj.Deployment("capi-system", "capi-controller-manager").Label("cluster.x-k8s.io/provider", "cluster-api"), "capi-manager", 1)

	tests := []struct {
		name               string
		snap               *snapshot.Snapshot
		target             snapshot.Object
		reason, evidence   string
		says               []string
		firstCommandPrefix string
	}{
		{"running and available, RBAC names it", testobj.Snapshot(es, esCRD, cesCRD, esRole, esBinding, esDeploy, admin, ciBinding, ci).Build(), es,
			ReasonControllerNotFinishing, EvidenceRBAC,
			[]string{"Deployment/external-secrets -n external-secrets runs and is available (1 pod available)", "not finishing its cleanup of ExternalSecret/db -n shop"},
			"kubectl logs deployment/external-secrets -n external-secrets"},
		{"installed, no pod available", testobj.Snapshot(es, esCRD, esRole, esBinding, esDown).Build(), es,
			ReasonControllerPending, EvidenceRBAC, []string{"none of its pods is available"}, "kubectl describe deployments.apps external-secrets"},
		{"cluster-admin alone is no evidence: the project table names the absent controller", testobj.Snapshot(es, esCRD, admin, ciBinding, ci).Build(), es,
			ReasonControllerAbsent, EvidenceWellKnown, []string{"external-secrets's finalizer externalsecrets.external-secrets.io/externalsecret-cleanup: the external-secrets controller removes it",
				"its controller is not in the input"}, ""},
		// Round two's miss (issue 35, item 5): the external-secrets
		// Deployment runs, the CRDs of external-secrets.io are there, the
		// input holds no RBAC and no install labels; the namespace is held
		// by …/ces-repro. Not "controller not found".
		{"a namespace's ces- finalizer, the controller running, no RBAC in the input", testobj.Snapshot(nsCES, ces, esCRD, cesCRD, esDeploy).Build(), nsCES,
			ReasonControllerNotFinishing, EvidenceWellKnown, []string{"the external-secrets controller runs (Deployment/external-secrets -n external-secrets)", "suffix names ClusterExternalSecret/repro"},
			"kubectl logs deployment/external-secrets"},
		{"a namespace's finalizer naming a ClusterExternalSecret", testobj.Snapshot(nsCES, ces, esCRD, cesCRD, esRole, esBinding, esDeploy).Build(), nsCES,
			ReasonControllerNotFinishing, EvidenceRBAC, []string{"suffix names ClusterExternalSecret/repro"}, "kubectl logs deployment/external-secrets"},
		{"gone with its namespace: only the binding is left", testobj.Snapshot(lhNS, replica, lhCRD, lhRole, lhBinding).Build(), replica,
			ReasonControllerTerminating, EvidenceRBAC,
			[]string{"ServiceAccount/longhorn-service-account -n longhorn-system is gone with its namespace: it lived in longhorn-system, which is being deleted"}, ""},
		{"gone with its namespace: the DaemonSet is still there", testobj.Snapshot(lhNS, replica, lhCRD, lhRole, lhBinding, lhManager).Build(), replica,
			ReasonControllerTerminating, EvidenceRBAC,
			[]string{"DaemonSet/longhorn-manager -n longhorn-system is gone with its namespace: it lives in longhorn-system, which is being deleted"}, ""},
		{"install labels of the most specific group", testobj.Snapshot(osc, capoCRD, capiCRD, capo, capi).Build(), osc,
			ReasonControllerNotFinishing, EvidenceInstallLabels, []string{"Deployment/capo-controller-manager -n capo-system runs and is available"},
			"kubectl logs deployment/capo-controller-manager"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(tc.snap, nil, Options{}).Diagnose(tc.target.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			var rc *RootCause
			for i := range d.RootCauses {
				if d.RootCauses[i].Object.UID == tc.target.Metadata.UID && d.RootCauses[i].Finalizer == tc.target.Metadata.Finalizers[0] {
					rc = &d.RootCauses[i]
				}
			}
			if rc == nil {
				t.Fatalf("no root cause on the finalizer:\n%s", describe(d.RootCauses))
			}
			if rc.Reason != tc.reason || rc.Attribution == nil || rc.Attribution.Evidence != tc.evidence {
				t.Errorf("reason %s on %+v evidence, want %s on %s: %s", rc.Reason, rc.Attribution, tc.reason, tc.evidence, rc.Message)
			}
			for _, s := range tc.says {
				if !strings.Contains(rc.Message, s) {
					t.Errorf("message %q lacks %q", rc.Message, s)
				}
			}
			if strings.Contains(rc.Message, "robot") {
				t.Errorf("message names the cluster-admin robot: %s", rc.Message)
			}
			if tc.firstCommandPrefix != "" && (len(rc.Remedies) == 0 || !strings.HasPrefix(rc.Remedies[0].Command, tc.firstCommandPrefix)) {
				t.Errorf("first remedy %+v, want %q first", rc.Remedies, tc.firstCommandPrefix)
			}
			if last := rc.Remedies[len(rc.Remedies)-1]; tc.reason == ReasonControllerNotFinishing && last.Action != ActionRemoveFinalizer {
				t.Errorf("finalizer removal is not the last resort: %+v", rc.Remedies)
			}
		})
	}
}

// TestTriageByController: why-stuck -A gives one group to a controller
// gone with its namespace, whatever the number of objects it leaves
// holding its finalizer (longhorn/longhorn#3457: "longhorn.io in 11
// resource instances"; https://github.com/longhorn/longhorn/issues/3457).
func TestTriageByController(t *testing.T) {
	ns := terminatingNS("longhorn-system", ago(2*time.Hour))
	objs := []snapshot.Object{ns, crdObj("longhorn.io", "Replica", "replicas", "Namespaced").Build(), crdObj("longhorn.io", "Volume", "volumes", "Namespaced").Build(),
		clusterRole("longhorn-role", allow("longhorn.io", "*", "*")), clusterRoleBinding("longhorn-bind", "longhorn-role", "longhorn-system", "longhorn-service-account")}
	for _, n := range []string{"r-1", "r-2", "r-3"} {
		objs = append(objs, gone(testobj.New("longhorn.io/v1beta2", "Replica", "longhorn-system", n).Deleting(ago(time.Hour)).Finalizers("longhorn.io").Build()))
	}
	objs = append(objs, gone(testobj.New("longhorn.io/v1beta2", "Volume", "longhorn-system", "pvc-1").Deleting(ago(time.Hour)).Finalizers("longhorn.io").Build()))
	l := New(testobj.Snapshot(objs...).Build(), nil, Options{}).All("")
	var groups []Group
	for _, g := range l.Groups {
		if g.RootCause.Reason == ReasonControllerTerminating {
			groups = append(groups, g)
		}
	}
	if len(groups) != 1 {
		t.Fatalf("%d groups for the controller gone with longhorn-system, want 1: %+v", len(groups), l.Groups)
	}
	g := groups[0]
	want := "the controller running as ServiceAccount/longhorn-service-account -n longhorn-system is gone, or going, with its namespace: 4 objects hold longhorn.io"
	if g.Summary != want || len(g.RootObjects) != 4 {
		t.Errorf("summary %q (%d objects), want %q", g.Summary, len(g.RootObjects), want)
	}
}
