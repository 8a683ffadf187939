package snapshotio

import (
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// TestReadControllerEvidenceFacts: a controller's ServiceAccount, its
// availability and what RBAC grants it are read, and nothing more of the
// roles (resourceNames are dropped).
func TestReadControllerEvidenceFacts(t *testing.T) {
	s := readString(t, `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: external-secrets, namespace: es, uid: d1}
  spec:
    replicas: 1
    selector: {matchLabels: {app: es}}
    template:
      metadata: {labels: {app: es}}
      spec: {serviceAccountName: external-secrets, containers: [{name: c, image: x, env: [{name: TOKEN, value: s3cr3t}]}]}
  status: {availableReplicas: 1}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: longhorn-manager, namespace: longhorn-system, uid: d2}
  spec:
    selector: {matchLabels: {app: lm}}
    template:
      metadata: {labels: {app: lm}}
      spec: {serviceAccountName: longhorn-service-account}
  status: {numberAvailable: 0}
- apiVersion: rbac.authorization.k8s.io/v1
  kind: ClusterRole
  metadata: {name: external-secrets-controller, uid: r1}
  rules:
  - apiGroups: [external-secrets.io]
    resources: [externalsecrets, externalsecrets/finalizers]
    resourceNames: [secret-name]
    verbs: [get, update, patch]
- apiVersion: rbac.authorization.k8s.io/v1
  kind: ClusterRoleBinding
  metadata: {name: external-secrets-controller, uid: b1}
  roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: external-secrets-controller}
  subjects: [{kind: ServiceAccount, name: external-secrets, namespace: es}]
`)
	by := map[string]*snapshot.Object{}
	for i := range s.Objects {
		by[s.Objects[i].Kind] = &s.Objects[i]
	}
	if w := by["Deployment"].Facts.Workload; w.ServiceAccount != "external-secrets" || w.Available == nil || *w.Available != 1 {
		t.Errorf("deployment facts %+v, want serviceAccount external-secrets and 1 available", w)
	}
	if w := by["DaemonSet"].Facts.Workload; w.ServiceAccount != "longhorn-service-account" || w.Available == nil || *w.Available != 0 {
		t.Errorf("daemonset facts %+v, want serviceAccount longhorn-service-account and 0 available", w)
	}
	r := by["ClusterRole"].Facts.RBAC
	if len(r.Rules) != 1 || strings.Join(r.Rules[0].Resources, ",") != "externalsecrets,externalsecrets/finalizers" || strings.Join(r.Rules[0].Verbs, ",") != "get,update,patch" {
		t.Errorf("role facts %+v", r)
	}
	b := by["ClusterRoleBinding"].Facts.RBAC
	if b.RoleRef == nil || b.RoleRef.Name != "external-secrets-controller" || len(b.Subjects) != 1 || b.Subjects[0].Namespace != "es" {
		t.Errorf("binding facts %+v", b)
	}
	var out strings.Builder
	if err := Write(&out, s); err != nil {
		t.Fatal(err)
	}
	back := readString(t, out.String())
	for i := range back.Objects {
		o := &back.Objects[i]
		if w := o.Facts.Workload; w != nil && (w.ServiceAccount == "" || w.Available == nil) {
			t.Errorf("%s read back from the snapshot lost its facts: %+v", o.Kind, w)
		}
		if o.Facts.RBAC == nil && strings.HasPrefix(o.APIVersion, "rbac") {
			t.Errorf("%s read back from the snapshot lost its RBAC facts", o.Kind)
		}
	}
	for _, leak := range []string{"s3cr3t", "secret-name"} {
		if strings.Contains(out.String(), leak) {
			t.Errorf("the snapshot keeps %q", leak)
		}
	}
}
