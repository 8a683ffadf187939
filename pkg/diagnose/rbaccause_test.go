package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

func roleBinding(ns, name, roleKind, role string, subjects ...snapshot.Subject) snapshot.Object {
	return testobj.New("rbac.authorization.k8s.io/v1", "RoleBinding", ns, name).Facts(&snapshot.Facts{RBAC: &snapshot.RBACFacts{
		RoleRef: &snapshot.RoleRef{Kind: roleKind, Name: role}, Subjects: subjects}}).Build()
}

func groupBinding(name, role, group string) snapshot.Object {
	return testobj.New("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", name).Facts(&snapshot.Facts{RBAC: &snapshot.RBACFacts{
		RoleRef: &snapshot.RoleRef{Kind: "ClusterRole", Name: role}, Subjects: []snapshot.Subject{{Kind: "Group", Name: group}}}}).Build()
}

// systemRBAC is what every cluster has: a ClusterRole and its binding
// that grant nothing of interest here.
func systemRBAC() []snapshot.Object {
	return []snapshot.Object{clusterRole("system:basic-user", allow("authorization.k8s.io", "selfsubjectreviews", "create")),
		groupBinding("system:basic-user", "system:basic-user", "system:authenticated")}
}

// TestControllerForbidden: a controller that runs but whose ServiceAccount
// RBAC does not let patch or update the held object is the root cause,
// named with the verbs, the resource, the ServiceAccount and the role to
// fix; and kgc never claims a missing grant the input cannot show.
func TestControllerForbidden(t *testing.T) {
	// https://github.com/kubernetes-csi/external-provisioner/issues/231
	// and PR 1155 (https://github.com/kubernetes-csi/external-provisioner/pull/1155):
	// the csi-hostpath driver's provisioner, bound to the example
	// ClusterRole external-provisioner-runner (get, list, watch, create,
	// delete on persistentvolumes), deletes the volume and then fails
	// "to remove finalizer for persistentvolume: … cannot update resource
	// \"persistentvolumes\"": the PV stays Terminating while it runs.
	// (The same with patch: https://github.com/kubevirt/hostpath-provisioner-operator/pull/546,
	// "BugFix: PVs of HPP are stuck Terminating".)
	pv := gone(testobj.PV("pvc-881d9151").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerExtProv).
		Facts(&snapshot.Facts{PV: &snapshot.PVFacts{Phase: "Released", ReclaimPolicy: "Delete", Driver: "hostpath.csi.k8s.io"}}).Build())
	provisioner := controllerWorkload(testobj.StatefulSet("default", "csi-hostpathplugin"), "csi-provisioner", 1)
	runner := clusterRole("external-provisioner-runner", allow("", "persistentvolumes", "get list watch create delete"), allow("", "persistentvolumeclaims", "get list watch update"))
	runnerPatched := clusterRole("external-provisioner-runner", allow("", "persistentvolumes", "get list watch create delete patch"))
	runnerBinding := clusterRoleBinding("csi-provisioner-role", "external-provisioner-runner", "default", "csi-provisioner")

	// https://github.com/datashim-io/datashim/pull/25 and
	// https://github.com/storageos/cluster-operator/pull/310 ("Add perm to
	// allow va finalizer removal"): the external-attacher's ClusterRole
	// lacks patch on volumeattachments, so a detached VolumeAttachment
	// keeps its finalizer while the driver's controller runs.
	va := gone(testobj.New("storage.k8s.io/v1", "VolumeAttachment", "", "csi-4fa1070e").Deleting(ago(time.Hour)).Finalizers("external-attacher/ebs-csi-aws-com").
		Facts(&snapshot.Facts{Volume: &snapshot.VolumeFacts{Attachment: &snapshot.VolumeAttachmentFacts{Attacher: "ebs.csi.aws.com", NodeName: "node-1", PersistentVolumeName: "pvc-1"}}}).Build())
	ebs := controllerWorkload(testobj.Deployment("kube-system", "ebs-csi-controller"), "ebs-csi-controller-sa", 2)
	attacherRole := clusterRole("ebs-external-attacher-role", allow("storage.k8s.io", "volumeattachments", "get list watch"), allow("storage.k8s.io", "volumeattachments/status", "patch"))
	attacherBinding := clusterRoleBinding("ebs-csi-attacher-binding", "ebs-external-attacher-role", "kube-system", "ebs-csi-controller-sa")

	// A bucket operator (its Deployment labelled with the finalizer's
	// domain) whose only grant on buckets is a RoleBinding in its own
	// namespace, while the Bucket lives in another: it can read its own
	// namespace's buckets and nothing else.
	bucket := gone(testobj.New("acme.io/v1", "Bucket", "team-a", "logs").Deleting(ago(time.Hour)).Finalizers("buckets.acme.io/cleanup").Build())
	operator := controllerWorkload(testobj.Deployment("acme-system", "bucket-operator").Label("buckets.acme.io/controller", "true"), "bucket-operator", 1)
	bucketRole := clusterRole("bucket-editor", allow("acme.io", "buckets", "get list watch update patch"))
	ownNS := roleBinding("acme-system", "bucket-operator", "ClusterRole", "bucket-editor", snapshot.Subject{Kind: "ServiceAccount", Name: "bucket-operator"})
	teamBindings := roleBinding("team-a", "viewers", "ClusterRole", "view", snapshot.Subject{Kind: "Group", Name: "team-a"})
	// An aggregated ClusterRole whose rules the input holds empty: its
	// selector picks up bucket-editor once it carries the label.
	aggregated := testobj.New("rbac.authorization.k8s.io/v1", "ClusterRole", "", "acme-aggregate").Facts(&snapshot.Facts{RBAC: &snapshot.RBACFacts{
		AggregationRule: []snapshot.LabelSelector{{MatchLabels: map[string]string{"acme.io/aggregate": "true"}}}}}).Build()
	labelledEditor := testobj.New("rbac.authorization.k8s.io/v1", "ClusterRole", "", "bucket-editor").Label("acme.io/aggregate", "true").
		Facts(&snapshot.Facts{RBAC: &snapshot.RBACFacts{Rules: []snapshot.PolicyRule{allow("acme.io", "buckets", "patch")}}}).Build()
	toAggregate := clusterRoleBinding("bucket-operator", "acme-aggregate", "acme-system", "bucket-operator")
	toMissing := clusterRoleBinding("bucket-operator", "acme-gone", "acme-system", "bucket-operator")
	allSAs := groupBinding("all-sas", "bucket-editor", "system:serviceaccounts:acme-system")

	tests := []struct {
		name          string
		objs          []snapshot.Object
		target        snapshot.Object
		reason        string
		says, notSays []string
		firstCommand  string
	}{
		{"a CSI provisioner without patch on persistentvolumes", append(systemRBAC(), pv, provisioner, runner, runnerBinding), pv, ReasonControllerForbidden,
			[]string{"StatefulSet/csi-hostpathplugin -n default runs as ServiceAccount/csi-provisioner -n default",
				"neither patch nor update on persistentvolumes cluster-wide",
				"ClusterRoleBinding/csi-provisioner-role grants it ClusterRole/external-provisioner-runner: get, list, watch, create, delete on persistentvolumes"}, nil,
			`kubectl patch clusterrole external-provisioner-runner --type=json -p '[{"op":"add","path":"/rules/-","value":{"apiGroups":[""],"resources":["persistentvolumes"],"verbs":["patch","update"]}}]'`},
		{"a CSI attacher without patch on volumeattachments", append(systemRBAC(), va, ebs, attacherRole, attacherBinding), va, ReasonControllerForbidden,
			[]string{"Deployment/ebs-csi-controller -n kube-system runs as ServiceAccount/ebs-csi-controller-sa -n kube-system",
				"neither patch nor update on volumeattachments.storage.k8s.io cluster-wide",
				"get, list, watch on volumeattachments"}, nil,
			"kubectl patch clusterrole ebs-external-attacher-role "},
		// Granted, the driver its StorageClass names runs: it is not
		// finishing, and RBAC is not why.
		{"the same provisioner once granted patch", append(systemRBAC(), pv, provisioner, runnerPatched, runnerBinding), pv, ReasonControllerNotFinishing,
			[]string{"hostpath.csi.k8s.io runs (StatefulSet/csi-hostpathplugin -n default)"}, []string{"RBAC", "forbid"}, ""},
		{"no RBAC in the input: no claim", []snapshot.Object{pv, provisioner}, pv, ReasonControllerNotFinishing,
			[]string{"is unknown: the input holds no clusterrolebindings"}, []string{"forbid"}, ""},
		{"an operator granted in its own namespace only", append(systemRBAC(), bucket, operator, bucketRole, ownNS, teamBindings), bucket, ReasonControllerForbidden,
			[]string{"neither patch nor update on buckets.acme.io in namespace team-a",
				"RoleBinding/bucket-operator -n acme-system grants it ClusterRole/bucket-editor in namespace acme-system only"}, nil,
			"kubectl create clusterrole bucket-operator-patch-update-buckets --verb=patch,update --resource=buckets.acme.io && kubectl create rolebinding bucket-operator-patch-update-buckets -n team-a --clusterrole=bucket-operator-patch-update-buckets --serviceaccount=acme-system:bucket-operator"},
		{"an aggregated ClusterRole grants it", append(systemRBAC(), bucket, operator, aggregated, labelledEditor, toAggregate, teamBindings), bucket, ReasonControllerNotFinishing,
			nil, []string{"RBAC", "forbid"}, "kubectl logs deployment/bucket-operator -n acme-system"},
		{"a grant to every ServiceAccount of its namespace", append(systemRBAC(), bucket, operator, bucketRole, allSAs, teamBindings), bucket, ReasonControllerNotFinishing,
			nil, []string{"RBAC", "forbid"}, "kubectl logs deployment/bucket-operator -n acme-system"},
		{"bound to a role the input lacks: unknown", append(systemRBAC(), bucket, operator, toMissing, teamBindings), bucket, ReasonControllerNotFinishing,
			[]string{"whether RBAC lets ServiceAccount/bucket-operator -n acme-system patch or update buckets.acme.io is unknown: ClusterRoleBinding/bucket-operator grants it ClusterRole/acme-gone, which is not in the input"},
			[]string{"forbid"}, "kubectl logs deployment/bucket-operator -n acme-system"},
		{"RoleBindings of the object's namespace not in the input: unknown", append(systemRBAC(), bucket, operator, bucketRole, ownNS), bucket, ReasonControllerNotFinishing,
			[]string{"is unknown: the input holds no rolebindings in namespace team-a, which kgc would need to tell"}, []string{"forbid"}, "kubectl logs deployment/bucket-operator -n acme-system"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap := testobj.Snapshot(tc.objs...).CRD("acme.io", "Bucket", "buckets", true).Build()
			for i := range snap.Resources {
				if snap.Resources[i].Kind == "RoleBinding" && !hasKind(tc.objs, "RoleBinding") {
					// A dump shows a type through its objects.
					snap.Resources[i].Listed = false
				}
			}
			d, err := New(snap, nil, Options{}).Diagnose(tc.target.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			rc := rootCause(t, d, tc.reason)
			for _, s := range tc.says {
				if !strings.Contains(rc.Message, s) {
					t.Errorf("message %q lacks %q", rc.Message, s)
				}
			}
			for _, s := range tc.notSays {
				if strings.Contains(rc.Message, s) {
					t.Errorf("message %q says %q", rc.Message, s)
				}
			}
			if tc.firstCommand != "" && (len(rc.Remedies) == 0 || !strings.HasPrefix(rc.Remedies[0].Command, tc.firstCommand)) {
				t.Errorf("first remedy %+v, want the command %s", rc.Remedies, tc.firstCommand)
			}
			if tc.reason == ReasonControllerForbidden && (rc.Remedies[0].Action != ActionGrantRBAC || rc.Remedies[0].Risk == "" ||
				rc.Remedies[len(rc.Remedies)-1].Action != ActionRemoveFinalizer) {
				t.Errorf("remedies %+v: want a grant with its risk first, the finalizer's removal last", rc.Remedies)
			}
		})
	}
}

func hasKind(objs []snapshot.Object, kind string) bool {
	for _, o := range objs {
		if o.Kind == kind {
			return true
		}
	}
	return false
}

// TestAuthorizeSubjects: the RBAC authorizer's subject and scope rules,
// which a false "forbidden" would follow from.
func TestAuthorizeSubjects(t *testing.T) {
	role := clusterRole("editor", allow("acme.io", "buckets", "patch"))
	req := rules.AccessRequest{Verbs: rules.FinalizerVerbs, Group: "acme.io", Resource: "buckets", Namespace: "team-a"}
	for _, tc := range []struct {
		name    string
		binding snapshot.Object
		allowed bool
	}{
		{"ServiceAccount subject, RoleBinding's namespace by default", roleBinding("ops", "b", "ClusterRole", "editor", snapshot.Subject{Kind: "ServiceAccount", Name: "op"}), false},
		{"RoleBinding in the object's namespace", roleBinding("team-a", "b", "ClusterRole", "editor", snapshot.Subject{Kind: "ServiceAccount", Name: "op", Namespace: "ops"}), true},
		{"the ServiceAccount's user name", roleBinding("team-a", "b", "ClusterRole", "editor", snapshot.Subject{Kind: "User", Name: "system:serviceaccount:ops:op"}), true},
		{"system:authenticated", groupBinding("b", "editor", "system:authenticated"), true},
		{"another namespace's ServiceAccounts", groupBinding("b", "editor", "system:serviceaccounts:other"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := rules.RBACInput{Role: func(kind, ns, name string) *snapshot.Object {
				if kind == "ClusterRole" && name == "editor" {
					return &role
				}
				return nil
			}, Bindings: []*snapshot.Object{&tc.binding}}
			if got := rules.Authorize(in, "ops", "op", req).Allowed; got != tc.allowed {
				t.Errorf("allowed %v, want %v", got, tc.allowed)
			}
		})
	}
}
