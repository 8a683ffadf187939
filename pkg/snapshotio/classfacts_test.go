package snapshotio

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// TestReadClassFacts: a class object keeps the controller it names and
// whether it is the default (its annotation is not kept); an object of a
// class keeps the class's name; nothing else of their specs, and a
// snapshot written and read back keeps the same facts.
func TestReadClassFacts(t *testing.T) {
	s := readString(t, `apiVersion: v1
kind: List
items:
- apiVersion: networking.k8s.io/v1
  kind: IngressClass
  metadata: {name: nginx, uid: c1, annotations: {ingressclass.kubernetes.io/is-default-class: "true", note: s3cr3t}}
  spec: {controller: k8s.io/ingress-nginx, parameters: {kind: Secret, name: s3cr3t}}
- apiVersion: networking.k8s.io/v1
  kind: Ingress
  metadata: {name: web, namespace: shop, uid: i1}
  spec: {ingressClassName: nginx, rules: [{host: s3cr3t.example.com}]}
- apiVersion: gateway.networking.k8s.io/v1
  kind: GatewayClass
  metadata: {name: eg, uid: c2}
  spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}
- apiVersion: gateway.networking.k8s.io/v1
  kind: Gateway
  metadata: {name: gw, namespace: shop, uid: g1}
  spec: {gatewayClassName: eg, listeners: [{name: http, port: 80, protocol: HTTP}]}
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: gp3, uid: c3}
  provisioner: ebs.csi.aws.com
  parameters: {type: gp3}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: data, namespace: shop, uid: p1}
  spec: {storageClassName: gp3, volumeName: pv-1}
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-1, uid: v1}
  spec: {storageClassName: gp3, persistentVolumeReclaimPolicy: Delete}
- apiVersion: snapshot.storage.k8s.io/v1
  kind: VolumeSnapshotClass
  metadata: {name: csi-aws-vsc, uid: c4}
  driver: ebs.csi.aws.com
  deletionPolicy: Delete
- apiVersion: snapshot.storage.k8s.io/v1
  kind: VolumeSnapshot
  metadata: {name: snap, namespace: shop, uid: s1}
  spec: {volumeSnapshotClassName: csi-aws-vsc, source: {persistentVolumeClaimName: data}}
- apiVersion: snapshot.storage.k8s.io/v1
  kind: VolumeSnapshotContent
  metadata: {name: snapcontent-1, uid: s2}
  spec: {driver: ebs.csi.aws.com, volumeSnapshotClassName: csi-aws-vsc, deletionPolicy: Delete}
`)
	want := map[string]string{
		"IngressClass":          `{"controller":"k8s.io/ingress-nginx","default":true}`,
		"Ingress":               `{"name":"nginx"}`,
		"GatewayClass":          `{"controller":"gateway.envoyproxy.io/gatewayclass-controller"}`,
		"Gateway":               `{"name":"eg"}`,
		"StorageClass":          `{"controller":"ebs.csi.aws.com"}`,
		"VolumeSnapshotClass":   `{"controller":"ebs.csi.aws.com"}`,
		"VolumeSnapshot":        `{"name":"csi-aws-vsc"}`,
		"VolumeSnapshotContent": `{"controller":"ebs.csi.aws.com","name":"csi-aws-vsc"}`,
	}
	check := func(s *snapshot.Snapshot, when string) {
		t.Helper()
		for i := range s.Objects {
			o := &s.Objects[i]
			switch o.Kind {
			case "PersistentVolumeClaim":
				if o.Facts.PVC.StorageClass != "gp3" {
					t.Errorf("%s: claim facts %+v, want storage class gp3", when, o.Facts.PVC)
				}
			case "PersistentVolume":
				if o.Facts.PV.StorageClass != "gp3" {
					t.Errorf("%s: volume facts %+v, want storage class gp3", when, o.Facts.PV)
				}
			default:
				if got := mustJSON(t, o.Facts.Class); got != want[o.Kind] {
					t.Errorf("%s: %s class facts %s, want %s", when, o.Kind, got, want[o.Kind])
				}
			}
		}
	}
	check(s, "read")
	var out strings.Builder
	if err := Write(&out, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "s3cr3t") || strings.Contains(out.String(), "is-default-class") {
		t.Errorf("the snapshot keeps more than the class facts:\n%s", out.String())
	}
	check(readString(t, out.String()), "read back")
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
