package snapshotio

import (
	"strings"
	"testing"
)

// TestReadKeepsTheOldestManager: of an object's managedFields, only the
// manager of the oldest entry of the object itself is kept (the API
// server lists Apply entries before Update ones, so it is not always the
// first; a status writer never created it), and nothing else of them; a
// snapshot keeps it as written.
func TestReadKeepsTheOldestManager(t *testing.T) {
	s := readString(t, `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app-config-x7k2p
    namespace: shop
    uid: c1
    managedFields:
    - {manager: kubectl-client-side-apply, operation: Apply, time: "2026-11-20T09:59:00Z", fieldsType: FieldsV1, fieldsV1: {"f:data": {"f:s3cr3t": {}}}}
    - {manager: widget-operator, operation: Update, time: "2026-11-20T09:00:01Z", fieldsType: FieldsV1, fieldsV1: {"f:metadata": {}}}
    - {manager: kube-controller-manager, operation: Update, time: "2026-11-20T09:30:00Z"}
    - {manager: status-writer, operation: Update, subresource: status, time: "2026-11-20T09:00:00Z"}
`)
	if got := s.Objects[0].Metadata.Manager; got != "widget-operator" {
		t.Errorf("manager %q, want the oldest entry's, widget-operator", got)
	}
	var out strings.Builder
	if err := Write(&out, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "s3cr3t") || strings.Contains(out.String(), "managedFields") || strings.Contains(out.String(), "kubectl-client-side-apply") {
		t.Errorf("the snapshot keeps more of managedFields than the manager:\n%s", out.String())
	}
	if back := readString(t, out.String()); back.Objects[0].Metadata.Manager != "widget-operator" {
		t.Errorf("read back: manager %q", back.Objects[0].Metadata.Manager)
	}
}
