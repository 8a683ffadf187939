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
		{"csi without provisioner", csi, nil, rules.DiskDestroyedIfRuns, "exists fin=kubernetes.io/pv-protection", rules.VolumeReleased, 0},
		// aws-ebs-csi-driver#1298: an in-tree kubernetes.io/aws-ebs volume
		// (migrated-to ebs.csi.aws.com) is the CSI driver's to delete.
		{"in-tree aws-ebs with the ebs csi controller", snapshot.PVFacts{ReclaimPolicy: "Delete", Capacity: "16Gi", Plugin: "awsElasticBlockStore", ProvisionedBy: "kubernetes.io/aws-ebs"},
			[]snapshot.Object{provisioner}, rules.DiskDestroyed, "gone", "", 16 << 30},
		{"in-tree aws-ebs, kube-system not in the input", snapshot.PVFacts{ReclaimPolicy: "Delete", Capacity: "16Gi", Plugin: "awsElasticBlockStore"},
			nil, rules.DiskDestroyedIfRuns, "exists fin=kubernetes.io/pv-protection", rules.VolumeReleased, 0},
		{"a volume whose plugin the input does not show", snapshot.PVFacts{ReclaimPolicy: "Delete", Capacity: "1Gi"},
			nil, rules.DiskDestroyedIfRuns, "exists fin=kubernetes.io/pv-protection", rules.VolumeReleased, 0},
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
			if tc.storage == rules.DiskKept && vf.Reclaim == "" {
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

// TestNeverFalseKept: a plan may say a volume's storage is kept only when
// it is sure nothing deletes it: reclaim policy Retain, a plugin that never
// had a deleter, a hostPath outside /tmp, or an in-tree plugin without a
// CSI successor on a server (its version in the input) that no longer has
// it. Every in-tree plugin under CSI migration, with or without its
// provisioner in the input, on any server version or none, is destroyed
// or destroyed if its provisioner runs. Modelled on k8ssandra/cass-operator#302
// (EKS: deleting the claims of a StatefulSet deleted their EBS volumes) and
// kubernetes-sigs/aws-ebs-csi-driver#1298 (in-tree kubernetes.io/aws-ebs
// volumes migrated-to ebs.csi.aws.com).
func TestNeverFalseKept(t *testing.T) {
	versions := []string{"", "v1.22.0", "v1.24.3", "v1.25.0", "v1.27.1", "v1.30.2", "v1.31.0", "v1.33.0", "v1.36.3-eks-1"}
	for _, p := range rules.InTreePlugins {
		for _, v := range versions {
			for _, withProv := range []bool{false, true} {
				var extra []snapshot.Object
				if withProv && p.Driver != "" {
					extra = append(extra, testobj.Deployment("kube-system", p.Controller).UID("ctl").Build())
				}
				pv := snapshot.PVFacts{ReclaimPolicy: "Delete", Capacity: "8Gi", Plugin: p.Spec}
				claim, vol := boundPair("app", "data", "pv-data", pv)
				snap := world(append([]snapshot.Object{claim, vol}, extra...)...).Build()
				snap.Source.ServerVersion = v
				_, pl := simulate(t, snap, []Action{Delete{UID: claim.Metadata.UID, Policy: PolicyBackground}}, Options{})
				vf := volumeOf(pl, vol.Metadata.UID)
				if vf == nil {
					t.Fatalf("%s on %q: the plan says nothing of the storage", p.Spec, v)
				}
				minor := rules.ServerMinor(v)
				mayKeep := p.Driver == "" && minor >= p.Removed
				if vf.Storage == rules.DiskKept && !mayKeep || vf.Storage == rules.DiskNotReclaimed {
					t.Errorf("%s on %q (provisioner in input: %v): storage %q: %s", p.Spec, v, withProv, vf.Storage, vf.Reason)
				}
				if mayKeep && vf.Storage != rules.DiskKept {
					t.Errorf("%s on %q: storage %q, want kept: the plugin is gone and nothing took it over", p.Spec, v, vf.Storage)
				}
				if p.Driver != "" && (minor == 0 || minor >= p.MigrationGA) && withProv && vf.Storage != rules.DiskDestroyed {
					t.Errorf("%s on %q with %s running: storage %q, want destroyed", p.Spec, v, p.Driver, vf.Storage)
				}
			}
		}
	}
}

func volumeOf(p *Plan, uid string) *VolumeFate {
	for _, of := range p.Objects {
		if of.Object.UID == uid {
			return of.Volume
		}
	}
	return nil
}
