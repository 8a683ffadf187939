package snapshotio

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// TestReadVolumeFacts: the CSI facts why-stuck needs to explain a pod
// that cannot tear its volumes down are read from a dump and survive a
// written snapshot, and nothing else of those objects is kept: not a
// volume's attributes, not a node plugin's arguments or environment, not
// the text of a detach error.
func TestReadVolumeFacts(t *testing.T) {
	s := readString(t, `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: web-0, namespace: shop, uid: p1}
  spec:
    nodeName: node-1
    volumes:
    - {name: cache, csi: {driver: inline.csi.example.com, volumeAttributes: {token: s3cr3t-attr}}}
    - {name: data, persistentVolumeClaim: {claimName: data-web-0}}
    - {name: nothing, csi: null}
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pvc-1, uid: v1}
  spec: {csi: {driver: driver.longhorn.io, volumeHandle: h-1, volumeAttributes: {secret: s3cr3t-attr}}}
  status: {phase: Bound}
- apiVersion: storage.k8s.io/v1
  kind: CSINode
  metadata: {name: node-1, uid: n1}
  spec: {drivers: [{name: ebs.csi.aws.com, nodeID: i-123}]}
- apiVersion: storage.k8s.io/v1
  kind: VolumeAttachment
  metadata: {name: csi-abc, uid: va1}
  spec: {attacher: driver.longhorn.io, nodeName: node-1, source: {persistentVolumeName: pvc-1}}
  status: {attached: true, detachError: {time: "2026-11-20T09:00:00Z", message: "s3cr3t-detach"}}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: longhorn-csi-plugin, namespace: longhorn-system, uid: d1}
  spec:
    selector: {matchLabels: {app: csi}}
    template:
      metadata: {labels: {app: csi}}
      spec:
        containers: [{name: registrar, image: x, args: ["--kubelet-registration-path=/var/lib/kubelet/plugins/driver.longhorn.io/csi.sock"], env: [{name: TOKEN, value: s3cr3t-env}]}]
        volumes:
        - {name: socket-dir, hostPath: {path: /var/lib/kubelet/plugins/driver.longhorn.io/}}
        - {name: mounts, hostPath: {path: /var/lib/kubelet/plugins/kubernetes.io/csi}}
        - {name: registration, hostPath: {path: /var/lib/kubelet/plugins_registry}}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: fluentd, namespace: logging, uid: d2}
  spec:
    selector: {matchLabels: {app: f}}
    template:
      metadata: {labels: {app: f}}
      spec: {volumes: [{name: logs, hostPath: {path: /var/log}}]}
`)
	var out bytes.Buffer
	if err := Write(&out, s); err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"s3cr3t", "volumeHandle", "i-123", "registration-path"} {
		if bytes.Contains(out.Bytes(), []byte(leak)) {
			t.Errorf("the snapshot keeps %q", leak)
		}
	}
	again := readString(t, out.String())
	for _, snap := range []*snapshot.Snapshot{s, again} {
		for _, o := range snap.Objects {
			got := describeVolumeFacts(o)
			want := map[string]string{
				"web-0":               "pod csi [inline.csi.example.com]",
				"pvc-1":               "driver driver.longhorn.io",
				"node-1":              "registered [ebs.csi.aws.com]",
				"csi-abc":             "attachment {Attacher:driver.longhorn.io NodeName:node-1 PersistentVolumeName:pvc-1 Attached:true AttachError:false DetachError:true}",
				"longhorn-csi-plugin": "plugins [driver.longhorn.io]",
				"fluentd":             "",
			}[o.Metadata.Name]
			if got != want {
				t.Errorf("%s: facts %q, want %q", o.Metadata.Name, got, want)
			}
		}
	}
}

func describeVolumeFacts(o snapshot.Object) string {
	f := o.Facts
	switch {
	case f == nil:
		return ""
	case f.PV != nil:
		return "driver " + f.PV.Driver
	case f.Pod != nil:
		if len(f.Pod.CSIDrivers) == 0 {
			return ""
		}
		return "pod csi [" + strings.Join(f.Pod.CSIDrivers, " ") + "]"
	case f.Volume == nil:
		return ""
	case f.Volume.CSIDriver != "":
		return "driver " + f.Volume.CSIDriver
	case f.Volume.Attachment != nil:
		return "attachment " + fmt.Sprintf("%+v", *f.Volume.Attachment)
	case f.Volume.NodePlugins != nil:
		return "plugins [" + strings.Join(f.Volume.NodePlugins, " ") + "]"
	}
	return "registered [" + strings.Join(slices.Clone(f.Volume.NodeDrivers), " ") + "]"
}
