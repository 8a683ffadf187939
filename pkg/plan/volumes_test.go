package plan

import (
	"testing"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// boundPair is a claim ns/name bound to volume pv with the given facts.
func boundPair(ns, name, pvName string, pv snapshot.PVFacts) (snapshot.Object, snapshot.Object) {
	claim := testobj.PVC(ns, name).UID("claim-" + name).Finalizers(rules.FinalizerPVC).
		Facts(&snapshot.Facts{PVC: &snapshot.PVCFacts{Phase: "Bound", VolumeName: pvName}}).Build()
	pv.Phase = rules.VolumeBound
	pv.ClaimRef = &snapshot.ObjectRef{APIVersion: "v1", Kind: "PersistentVolumeClaim", Namespace: ns, Name: name, UID: "claim-" + name}
	vol := testobj.PV(pvName).UID("pv-" + name).Finalizers(rules.FinalizerPV).Facts(&snapshot.Facts{PV: &pv}).Build()
	return claim, vol
}

func TestVolumeOfDeletedClaim(t *testing.T) {
	csi := snapshot.PVFacts{ReclaimPolicy: "Delete", Capacity: "10Gi", Driver: "ebs.csi.aws.com"}
	provisioner := testobj.Deployment("kube-system", "ebs-csi-controller").UID("ebs").Build()
	for _, tc := range []struct {
		name     string
		pv       snapshot.PVFacts
		extra    []snapshot.Object
		storage  string // rules.Disk*
		final    string // the volume's final state
		phase    string
		capacity int64 // Summary.BytesDestroyed
	}{
		{"csi with its provisioner", csi, []snapshot.Object{provisioner}, rules.DiskDestroyed, "gone", "", 10 << 30},
		{"csi without provisioner", csi, nil, rules.DiskNotReclaimed, "exists fin=kubernetes.io/pv-protection", rules.VolumeReleased, 0},
		{"retain", snapshot.PVFacts{ReclaimPolicy: "Retain", Capacity: "5Gi", Plugin: "hostPath", HostPath: "/tmp/kgc/a"}, nil, rules.DiskKept, "exists fin=kubernetes.io/pv-protection", rules.VolumeReleased, 0},
		{"hostPath under /tmp", snapshot.PVFacts{ReclaimPolicy: "Delete", Capacity: "1Gi", Plugin: "hostPath", HostPath: "/tmp/kgc/b"}, nil, rules.DiskDestroyed, "gone", "", 1 << 30},
		{"hostPath elsewhere", snapshot.PVFacts{ReclaimPolicy: "Delete", Capacity: "1Gi", Plugin: "hostPath", HostPath: "/data/b"}, nil, rules.DiskKept, "exists fin=kubernetes.io/pv-protection", rules.VolumeFailed, 0},
		{"nfs", snapshot.PVFacts{ReclaimPolicy: "Delete", Plugin: "nfs"}, nil, rules.DiskKept, "exists fin=kubernetes.io/pv-protection", rules.VolumeFailed, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			claim, vol := boundPair("app", "data", "pv-data", tc.pv)
			snap := world(append([]snapshot.Object{claim, vol}, tc.extra...)...).Build()
			got, p := simulate(t, snap, []Action{Delete{UID: claim.Metadata.UID, Policy: PolicyBackground}}, Options{})
			checkStates(t, got, map[string]string{claim.Metadata.UID: "gone", vol.Metadata.UID: tc.final}, p)
			var vf *VolumeFate
			for _, of := range p.Objects {
				if of.Object.UID == vol.Metadata.UID {
					vf = of.Volume
				}
			}
			if vf == nil {
				t.Fatalf("the plan says nothing of the volume's storage: %+v", p.Objects)
			}
			if vf.Storage != tc.storage || vf.Phase != tc.phase || vf.Reason == "" {
				t.Errorf("storage %q phase %q (%s), want %q phase %q", vf.Storage, vf.Phase, vf.Reason, tc.storage, tc.phase)
			}
			if p.Summary.BytesDestroyed != tc.capacity {
				t.Errorf("bytes destroyed %d, want %d", p.Summary.BytesDestroyed, tc.capacity)
			}
			if tc.storage != rules.DiskDestroyed && vf.Reclaim == "" {
				t.Errorf("kept storage without a way to reclaim it: %+v", vf)
			}
		})
	}
}

// A StatefulSet whose claim retention policy is Delete owns its claims:
// deleting it deletes the claims through the garbage collector, and the
// volumes follow; with Retain (no owner reference) they stay Bound.
func TestStatefulSetClaimRetentionReachesVolumes(t *testing.T) {
	sts := testobj.StatefulSet("app", "db").UID("sts").Build()
	pv := snapshot.PVFacts{ReclaimPolicy: "Delete", Capacity: "2Gi", Plugin: "hostPath", HostPath: "/tmp/kgc/db"}
	owned, vol := boundPair("app", "data-db-0", "pv-0", pv)
	owned.Metadata.OwnerReferences = []snapshot.OwnerReference{testobj.Ref(sts, testobj.Block)}
	kept, keptVol := boundPair("app", "data-db-1", "pv-1", pv)
	snap := world(sts, owned, vol, kept, keptVol).Build()
	got, p := simulate(t, snap, []Action{Delete{UID: sts.Metadata.UID, Policy: PolicyBackground}}, Options{})
	checkStates(t, got, map[string]string{vol.Metadata.UID: "gone", keptVol.Metadata.UID: "exists fin=kubernetes.io/pv-protection"}, p)
	if p.Summary.VolumesDestroyed != 1 || p.Summary.BytesDestroyed != 2<<30 {
		t.Errorf("summary %+v, want 1 volume destroyed (2Gi)", p.Summary)
	}
}
