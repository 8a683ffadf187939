package snapshotio

import (
	"reflect"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// TestVolumeFacts: a PersistentVolume's facts say who deletes its storage
// and how much there is; the provisioned-by annotation is kept as a fact,
// never the annotations.
func TestVolumeFacts(t *testing.T) {
	s := readString(t, `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: PersistentVolume
  metadata:
    name: csi
    uid: u1
    annotations:
      pv.kubernetes.io/provisioned-by: ebs.csi.aws.com
      secret.example.com/token: hunter2
  spec:
    capacity: {storage: 10Gi}
    persistentVolumeReclaimPolicy: Delete
    csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}
    claimRef: {namespace: shop, name: data, uid: c1}
  status: {phase: Bound}
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: host, uid: u2}
  spec:
    capacity: {storage: 1Mi}
    persistentVolumeReclaimPolicy: Retain
    hostPath: {path: /tmp/x}
  status: {phase: Available}
`)
	want := map[string]snapshot.PVFacts{
		"csi":  {Phase: "Bound", ReclaimPolicy: "Delete", Capacity: "10Gi", Driver: "ebs.csi.aws.com", ProvisionedBy: "ebs.csi.aws.com", ClaimRef: &snapshot.ObjectRef{Namespace: "shop", Name: "data", UID: "c1"}},
		"host": {Phase: "Available", ReclaimPolicy: "Retain", Capacity: "1Mi", Plugin: "hostPath", HostPath: "/tmp/x"},
	}
	for _, o := range s.Objects {
		if o.Facts == nil || o.Facts.PV == nil {
			t.Fatalf("%s: no volume facts", o.Metadata.Name)
		}
		if got := *o.Facts.PV; !reflect.DeepEqual(got, want[o.Metadata.Name]) {
			t.Errorf("%s: facts %+v, want %+v", o.Metadata.Name, got, want[o.Metadata.Name])
		}
	}
}
