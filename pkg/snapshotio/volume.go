package snapshotio

import (
	"encoding/json"
	"sort"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// inTreeSources are the volume sources of a PersistentVolume's spec that
// name an in-tree plugin (k8s.io/api core/v1 PersistentVolumeSource):
// which of them is set says who can delete the storage.
var inTreeSources = []string{"hostPath", "nfs", "local", "iscsi", "fc", "rbd", "cephfs", "glusterfs",
	"gcePersistentDisk", "awsElasticBlockStore", "azureDisk", "azureFile", "cinder", "vsphereVolume",
	"portworxVolume", "flexVolume", "flocker", "quobyte", "photonPersistentDisk", "scaleIO", "storageos"}

// pvFacts reads a PersistentVolume's facts from its spec and status:
// the binding, the reclaim policy, the capacity and the plugin or CSI
// driver behind it. Nothing else of the spec (volume handles, secrets
// references, attributes) is kept.
func pvFacts(f topFields) (*snapshot.PVFacts, error) {
	var v struct {
		Spec struct {
			PersistentVolumeReclaimPolicy string
			ClaimRef                      *snapshot.ObjectRef
			Capacity                      map[string]string
			CSI                           *struct{ Driver string }
			HostPath                      *struct{ Path string }
			StorageClassName              string
		}
		Status struct{ Phase string }
	}
	pv := &snapshot.PVFacts{}
	if err := unmarshalParts(f, &v.Spec, &v.Status); err != nil {
		return pv, err
	}
	pv.Phase, pv.ReclaimPolicy, pv.ClaimRef = v.Status.Phase, v.Spec.PersistentVolumeReclaimPolicy, v.Spec.ClaimRef
	pv.Capacity = v.Spec.Capacity["storage"]
	pv.StorageClass = v.Spec.StorageClassName
	if v.Spec.CSI != nil {
		pv.Driver = v.Spec.CSI.Driver
		return pv, nil
	}
	if v.Spec.HostPath != nil {
		pv.HostPath = v.Spec.HostPath.Path
	}
	if f.spec == nil {
		return pv, nil
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(f.spec, &keys); err != nil {
		return pv, err
	}
	var set []string
	for _, k := range inTreeSources {
		if _, ok := keys[k]; ok {
			set = append(set, k)
		}
	}
	sort.Strings(set)
	if len(set) > 0 {
		pv.Plugin = set[0]
	}
	return pv, nil
}
