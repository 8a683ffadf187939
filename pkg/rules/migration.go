package rules

import (
	"strconv"

	"k8s.io/apimachinery/pkg/util/version"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// In-tree volume plugins and who deletes their storage today. Upstream
// (k8s.io/kubernetes v1.36.3, pkg/volume/csimigration/plugin_manager.go,
// IsMigrationCompleteForPlugin) redirects every operation of seven of them
// to their CSI driver; pkg/apis/core/types.go marks the others "no longer
// supported". A Delete volume of a migrated plugin is destroyed by its CSI
// driver's external-provisioner, not kept: telling a user that data
// survives when it does not is the worst error kgc can make, so where the
// input cannot tell, the storage is "destroyed if its provisioner runs".

// InTreePlugin is an in-tree volume plugin whose deleter left
// kube-controller-manager.
type InTreePlugin struct {
	// Spec is the PersistentVolume spec field of its volumes
	// (awsElasticBlockStore), Name the plugin's name as the
	// pv.kubernetes.io/provisioned-by annotation spells it.
	Spec, Name string
	// Driver is the CSI driver its volumes are migrated to; "" when
	// migration never left alpha and nothing replaces the plugin.
	Driver string
	// MigrationGA is the minor release in which CSI migration went GA
	// (locked on: the CSI driver serves every volume); 0 when it never
	// did.
	MigrationGA int
	// Removed is the minor release without the in-tree plugin (for the
	// plugins without a recorded release: the release by which all of
	// them were gone).
	Removed int
	// Source is where upstream says so.
	Source string
	// Controller is the name of the CSI driver's controller workload as
	// its project deploys it (evidence that the deleter runs).
	Controller string
}

// InTreePlugins is the table, by spec field.
var InTreePlugins = []InTreePlugin{
	{"awsElasticBlockStore", "kubernetes.io/aws-ebs", "ebs.csi.aws.com", 25, 27, "https://kubernetes-csi.github.io/docs/kubernetes-changelog.html", "ebs-csi-controller"},
	{"azureDisk", "kubernetes.io/azure-disk", "disk.csi.azure.com", 24, 27, "https://kubernetes-csi.github.io/docs/kubernetes-changelog.html", "csi-azuredisk-controller"},
	{"azureFile", "kubernetes.io/azure-file", "file.csi.azure.com", 26, 30, "https://www.kubernetes.dev/resources/keps/1885/", "csi-azurefile-controller"},
	{"cinder", "kubernetes.io/cinder", "cinder.csi.openstack.org", 24, 26, "https://kubernetes-csi.github.io/docs/kubernetes-changelog.html", "csi-cinder-controllerplugin"},
	{"gcePersistentDisk", "kubernetes.io/gce-pd", "pd.csi.storage.gke.io", 25, 28, "https://kubernetes-csi.github.io/docs/kubernetes-changelog.html", "csi-gce-pd-controller"},
	{"portworxVolume", "kubernetes.io/portworx-volume", "pxd.portworx.com", 33, 36, "https://github.com/kubernetes/kubernetes/pull/135322", "px-csi-ext"},
	{"vsphereVolume", "kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com", 26, 30, "https://www.kubernetes.dev/resources/keps/1491/", "vsphere-csi-controller"},
	{"rbd", "kubernetes.io/rbd", "", 0, 31, "https://github.com/kubernetes/kubernetes/pull/124546", ""},
	{"glusterfs", "kubernetes.io/glusterfs", "", 0, 26, "https://kubernetes.io/docs/concepts/storage/volumes/#glusterfs", ""},
	{"storageos", "kubernetes.io/storageos", "", 0, 25, "https://github.com/kubernetes/kubernetes/pull/111620", ""},
	{"quobyte", "kubernetes.io/quobyte", "", 0, 31, "https://kubernetes.io/docs/concepts/storage/volumes/", ""},
	{"scaleIO", "kubernetes.io/scaleio", "", 0, 31, "https://kubernetes.io/docs/concepts/storage/volumes/", ""},
	{"photonPersistentDisk", "kubernetes.io/photon-pd", "", 0, 31, "https://kubernetes.io/docs/concepts/storage/volumes/", ""},
	{"flocker", "kubernetes.io/flocker", "", 0, 31, "https://kubernetes.io/docs/concepts/storage/volumes/", ""},
}

// inTreePlugin is the table's row of a volume: by its spec field, or by
// the in-tree name its provisioned-by annotation gives.
func inTreePlugin(pv *snapshot.PVFacts) (InTreePlugin, bool) {
	for _, p := range InTreePlugins {
		if pv.Plugin == p.Spec || pv.ProvisionedBy == p.Name {
			return p, true
		}
	}
	return InTreePlugin{}, false
}

// ServerMinor is the minor release of a server version ("v1.36.3-eks-1"
// → 36); 0 when the input does not say (a dump) or it does not parse.
func ServerMinor(serverVersion string) int {
	v, err := version.ParseGeneric(serverVersion)
	if err != nil || v.Major() != 1 {
		return 0
	}
	return int(v.Minor())
}

// reclaimer is who deletes a volume of plugin p on a server of minor
// release minor (0: unknown).
func (p InTreePlugin) reclaimer(minor int) Reclaimer {
	short := p.Name[len("kubernetes.io/"):]
	if p.Driver != "" {
		if minor != 0 && minor < p.MigrationGA {
			return Reclaimer{Deletable: true, Why: "the in-tree " + short + " deleter of kube-controller-manager 1." + strconv.Itoa(minor) +
				", or " + p.Driver + " where CSI migration is on"}
		}
		return Reclaimer{External: p.Driver, Deletable: true, Migrated: true,
			Why: "the in-tree " + short + " plugin is migrated to CSI (GA in 1." + strconv.Itoa(p.MigrationGA) +
				", removed in 1." + strconv.Itoa(p.Removed) + "): its CSI driver " + p.Driver + " deletes it"}
	}
	gone := "the in-tree " + short + " plugin was removed in 1." + strconv.Itoa(p.Removed) + " and no CSI driver took its volumes over"
	switch {
	case minor >= p.Removed:
		return Reclaimer{Why: gone}
	case minor != 0:
		return Reclaimer{Deletable: true, Why: "the in-tree " + short + " deleter of kube-controller-manager 1." + strconv.Itoa(minor)}
	}
	return Reclaimer{Deletable: true, Unsure: "the in-tree " + short + " deleter of kube-controller-manager before 1." + strconv.Itoa(p.Removed) +
		" (the input does not say the cluster's version)", Why: gone + "; before that its in-tree deleter deletes it"}
}
