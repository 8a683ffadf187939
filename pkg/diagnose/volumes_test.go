package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// Pods that do not finish on a Ready node because their volumes cannot
// be torn down, modelled on public reports:
//   - the driver uninstalled under its pods (Longhorn and Rook/Ceph
//     uninstalled before their workloads; the kubelet then reports
//     "driver name … not found in the list of registered CSI drivers":
//     https://github.com/rook/rook/issues/5391,
//     https://github.com/juicedata/juicefs-csi-driver/issues/1191);
//   - a VolumeAttachment left with a detach error
//     (https://github.com/kubernetes/cloud-provider-openstack/issues/944,
//     https://github.com/kubernetes-csi/external-attacher/issues/66) or an
//     attach that never succeeded while the pod was deleted
//     (https://github.com/kubernetes/kubernetes/issues/128739);
//   - a claim whose PersistentVolume was deleted under the pod
//     (https://github.com/kubernetes/kubernetes/issues/69697).
func TestPodWhoseVolumesCannotBeTornDown(t *testing.T) {
	ready := node("n1", "True")
	hung := func(facts *snapshot.PodFacts) snapshot.Object {
		facts.NodeName, facts.Phase = "n1", "Running"
		return grace(testobj.Pod("shop", "db-0").Deleting(ago(time.Hour)).Facts(&snapshot.Facts{Pod: facts}).Build(), 30)
	}
	claimed := hung(&snapshot.PodFacts{Claims: []string{"data-db-0"}})
	pvc := testobj.PVC("shop", "data-db-0").Facts(&snapshot.Facts{PVC: &snapshot.PVCFacts{Phase: "Bound", VolumeName: "pvc-1"}}).Build()
	pv := func(driver string) snapshot.Object {
		return testobj.PV("pvc-1").Facts(&snapshot.Facts{PV: &snapshot.PVFacts{Phase: "Bound", Driver: driver}}).Build()
	}
	csiDriver := func(d string) snapshot.Object {
		return testobj.New("storage.k8s.io/v1", "CSIDriver", "", d).Facts(&snapshot.Facts{Volume: &snapshot.VolumeFacts{CSIDriver: d}}).Build()
	}
	csiNode := func(drivers ...string) snapshot.Object {
		return testobj.New("storage.k8s.io/v1", "CSINode", "", "n1").Facts(&snapshot.Facts{Volume: &snapshot.VolumeFacts{NodeDrivers: drivers}}).Build()
	}
	plugin := func(ns, name, d string) snapshot.Object {
		return testobj.DaemonSet(ns, name).Facts(&snapshot.Facts{Workload: &snapshot.WorkloadFacts{}, Volume: &snapshot.VolumeFacts{NodePlugins: []string{d}}}).Build()
	}
	attachment := func(a snapshot.VolumeAttachmentFacts) snapshot.Object {
		return testobj.New("storage.k8s.io/v1", "VolumeAttachment", "", "csi-0123").Facts(&snapshot.Facts{Volume: &snapshot.VolumeFacts{Attachment: &a}}).Build()
	}
	ebs := []snapshot.Object{csiDriver("ebs.csi.aws.com"), plugin("kube-system", "ebs-csi-node", "ebs.csi.aws.com")}

	tests := []struct {
		name    string
		objs    []snapshot.Object
		pod     snapshot.Object
		reason  string
		says    []string
		actions string
	}{
		{name: "driver uninstalled: no CSIDriver, no node plugin DaemonSet, not registered on the node",
			objs: append([]snapshot.Object{pvc, pv("driver.longhorn.io"), csiNode("ebs.csi.aws.com")}, ebs...), pod: claimed,
			reason: ReasonCSIDriverMissing,
			says: []string{"CSI driver driver.longhorn.io is uninstalled", "no CSIDriver object names it", "no DaemonSet runs its node plugin",
				"node n1's CSINode does not list it", "volume pvc-1 (claim data-db-0) needs it", `"driver name driver.longhorn.io not found in the list of registered CSI drivers"`},
			actions: "fix-controller,force-delete"},
		{name: "node plugin DaemonSet installed but not registered on the pod's node",
			objs: []snapshot.Object{pvc, pv("rbd.csi.ceph.com"), csiDriver("rbd.csi.ceph.com"), csiNode(), plugin("rook-ceph", "csi-rbdplugin", "rbd.csi.ceph.com")}, pod: claimed,
			reason:  ReasonCSIDriverMissing,
			says:    []string{"the node plugin of CSI driver rbd.csi.ceph.com is not registered on node n1", "DaemonSet/csi-rbdplugin -n rook-ceph runs its node plugin"},
			actions: "fix-controller,fix-controller,force-delete"},
		{name: "node plugin DaemonSet gone with its namespace",
			objs: []snapshot.Object{pvc, pv("driver.longhorn.io"), csiDriver("driver.longhorn.io"), testobj.Namespace("longhorn-system").Deleting(ago(2 * time.Hour)).Build(),
				plugin("longhorn-system", "longhorn-csi-plugin", "driver.longhorn.io")}, pod: claimed,
			reason:  ReasonCSIDriverMissing,
			says:    []string{"the node plugin of CSI driver driver.longhorn.io is not registered on node n1", "DaemonSet/longhorn-csi-plugin -n longhorn-system, is being deleted"},
			actions: "fix-controller,force-delete"},
		{name: "attachment with a detach error",
			objs: append([]snapshot.Object{pvc, pv("ebs.csi.aws.com"), csiNode("ebs.csi.aws.com"),
				attachment(snapshot.VolumeAttachmentFacts{Attacher: "ebs.csi.aws.com", NodeName: "n1", PersistentVolumeName: "pvc-1", Attached: true, DetachError: true})}, ebs...), pod: claimed,
			reason:  ReasonVolumeAttachmentStuck,
			says:    []string{"VolumeAttachment/csi-0123 of pvc-1 on node n1 is stuck: its last detach failed"},
			actions: "fix-controller,force-delete"},
		{name: "attach that never succeeded",
			objs: append([]snapshot.Object{pvc, pv("ebs.csi.aws.com"), csiNode("ebs.csi.aws.com"),
				attachment(snapshot.VolumeAttachmentFacts{Attacher: "ebs.csi.aws.com", NodeName: "n1", PersistentVolumeName: "pvc-1", AttachError: true})}, ebs...), pod: claimed,
			reason: ReasonVolumeAttachmentStuck,
			says:   []string{"the volume never attached"}, actions: "fix-controller,force-delete"},
		{name: "claim bound to a volume that is gone",
			objs: append([]snapshot.Object{pvc, testobj.PV("other").Build()}, ebs...), pod: claimed,
			reason: ReasonVolumeMissing,
			says:   []string{"claim data-db-0 is bound to volume pvc-1, which no longer exists"}, actions: "force-delete"},
		{name: "inline CSI volume of an uninstalled driver",
			objs: append([]snapshot.Object{csiNode("ebs.csi.aws.com")}, ebs...), pod: hung(&snapshot.PodFacts{CSIDrivers: []string{"secrets-store.csi.k8s.io"}}),
			reason: ReasonCSIDriverMissing,
			says:   []string{"CSI driver secrets-store.csi.k8s.io is uninstalled", "an inline CSI volume needs it"}, actions: "fix-controller,force-delete"},
		{name: "driver installed and registered: the fallback says what was checked",
			objs: append([]snapshot.Object{pvc, pv("ebs.csi.aws.com"), csiNode("ebs.csi.aws.com")}, ebs...), pod: claimed,
			reason:  ReasonKubeletNotConfirming,
			says:    []string{"a volume unmount is probably hanging", "checked: CSI driver ebs.csi.aws.com of volume pvc-1 (claim data-db-0) (its CSIDriver object exists, DaemonSet/ebs-csi-node -n kube-system runs its node plugin, node n1's CSINode lists it)"},
			actions: "fix-node,force-delete"},
		{name: "no volumes: the fallback says so",
			objs: ebs, pod: hung(&snapshot.PodFacts{}),
			reason: ReasonKubeletNotConfirming, says: []string{"checked: it uses no CSI volume and no claim"}, actions: "fix-node,force-delete"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := testobj.Snapshot(append([]snapshot.Object{tc.pod, ready}, tc.objs...)...).At(at).Build()
			d, err := New(s, nil, Options{}).Diagnose(tc.pod.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.RootCauses) != 1 {
				t.Fatalf("root causes %+v, want one", d.RootCauses)
			}
			rc := d.RootCauses[0]
			if rc.Reason != tc.reason || rc.Object.UID != tc.pod.Metadata.UID {
				t.Fatalf("root cause %s %s: %s", rc.Object, rc.Reason, rc.Message)
			}
			for _, want := range tc.says {
				if !strings.Contains(rc.Message, want) {
					t.Errorf("message %q lacks %q", rc.Message, want)
				}
			}
			if got := remedyActions(rc.Remedies); got != tc.actions {
				t.Errorf("remedies %s, want %s", got, tc.actions)
			}
			last := rc.Remedies[len(rc.Remedies)-1]
			if tc.reason != ReasonKubeletNotConfirming && !strings.Contains(last.Risk, "volumes stay mounted") {
				t.Errorf("force-delete risk %q does not say the volumes stay mounted", last.Risk)
			}
		})
	}
}

// A volume released under reclaim policy Delete whose external
// provisioner does not run keeps its storage: why-stuck on the volume, or
// on a claim bound to it, says so with the plan's rule and its remedies;
// a running provisioner, Retain or a Bound volume says nothing of it.
func TestReleasedVolumeNotReclaimed(t *testing.T) {
	pv := func(phase, policy string) snapshot.Object {
		return testobj.PV("pvc-9b21").Facts(&snapshot.Facts{PV: &snapshot.PVFacts{Phase: phase, ReclaimPolicy: policy, Capacity: "20Gi", Driver: "driver.longhorn.io",
			ClaimRef: &snapshot.ObjectRef{APIVersion: "v1", Kind: "PersistentVolumeClaim", Namespace: "db", Name: "data-1"}}}).Build()
	}
	released := pv("Released", "Delete")
	claim := testobj.PVC("db", "data-1").Facts(&snapshot.Facts{PVC: &snapshot.PVCFacts{Phase: "Lost", VolumeName: "pvc-9b21"}}).Build()
	provisioner := testobj.Deployment("longhorn-system", "csi-provisioner").Label("app.kubernetes.io/component", "driver.longhorn.io").Build()
	for _, tc := range []struct {
		name   string
		objs   []snapshot.Object
		target snapshot.Object
		want   bool
	}{
		{"released, Delete, no provisioner", []snapshot.Object{released}, released, true},
		{"asked about the claim", []snapshot.Object{released, claim}, claim, true},
		{"its provisioner runs", []snapshot.Object{released, provisioner}, released, false},
		{"reclaim policy Retain", []snapshot.Object{pv("Released", "Retain")}, pv("Released", "Retain"), false},
		{"still Bound", []snapshot.Object{pv("Bound", "Delete")}, pv("Bound", "Delete"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(testobj.Snapshot(tc.objs...).At(at).Build(), nil, Options{}).Diagnose(tc.target.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.want {
				if len(d.RootCauses) != 0 || strings.Contains(d.Summary, "not reclaimed") {
					t.Errorf("a volume whose storage is reclaimed or kept on purpose has a root cause: %s %+v", d.Summary, d.RootCauses)
				}
				return
			}
			if len(d.RootCauses) != 1 || d.RootCauses[0].Reason != ReasonVolumeNotReclaimed || d.RootCauses[0].Object.Name != "pvc-9b21" {
				t.Fatalf("root causes %+v, want one volume-not-reclaimed on pvc-9b21", d.RootCauses)
			}
			rc := d.RootCauses[0]
			for _, s := range []string{"20Gi", "PersistentVolumeClaim/data-1 -n db, which is gone", "no workload of driver.longhorn.io's provisioner", "is not reclaimed"} {
				if !strings.Contains(rc.Message, s) {
					t.Errorf("message lacks %q: %s", s, rc.Message)
				}
			}
			if len(d.Remedies) != 2 || d.Remedies[0].Action != ActionFixController || d.Remedies[1].Command != "kubectl delete persistentvolume pvc-9b21" || d.Remedies[1].Leaks == "" {
				t.Errorf("remedies %+v, want run the provisioner, then delete the volume (leaking its storage)", d.Remedies)
			}
			if !strings.Contains(d.Summary, "storage is not reclaimed") {
				t.Errorf("summary does not say it: %s", d.Summary)
			}
		})
	}
}
