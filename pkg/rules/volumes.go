package rules

import (
	"regexp"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// What happens to a PersistentVolume once its claim is gone, as
// kube-controller-manager's persistentvolume controller decides it
// (pkg/controller/volume/persistentvolume/pv_controller.go:
// reclaimVolume, deleteVolumeOperation, findDeletablePlugin) and the CSI
// external-provisioner carries it out for the volumes it provisioned.

// Reclaim policies and volume phases as the API spells them.
const (
	ReclaimDelete  = "Delete"
	ReclaimRetain  = "Retain"
	ReclaimRecycle = "Recycle"

	VolumeBound     = "Bound"
	VolumeReleased  = "Released"
	VolumeFailed    = "Failed"
	VolumeAvailable = "Available"
)

// What becomes of a volume's storage (the disk) when the volume is
// reclaimed.
const (
	DiskDestroyed    = "destroyed"     // the storage is deleted with the volume
	DiskKept         = "kept"          // Retain, or no deleter: the data stays
	DiskNotReclaimed = "not-reclaimed" // no longer decided: see DiskDestroyedIfRuns
	// DiskDestroyedIfRuns: Delete, and the input does not show whether
	// the deleter runs (its provisioner's workload is outside the input,
	// or the cluster's version decides): the storage is destroyed if it
	// does. Never "kept": a false "kept" tells a user data survives.
	DiskDestroyedIfRuns = "destroyed-if-provisioner-runs"
)

// ActorExternalProvisioner is the CSI (or other out-of-tree) provisioner
// that deletes the storage of the volumes it provisioned.
const ActorExternalProvisioner = "external-provisioner"

// Reclaimer is who deletes a volume's storage under reclaim policy
// Delete, and whether they can.
type Reclaimer struct {
	// External is the provisioner's name (a CSI driver, or the
	// provisioned-by annotation of an out-of-tree provisioner); "" when
	// the persistentvolume controller deletes the storage itself.
	External string
	// Deletable is false when the persistentvolume controller finds no
	// deleter for the volume (an in-tree plugin without one, a hostPath
	// outside /tmp): the volume goes Failed and the storage is kept.
	Deletable bool
	// Why says it in words for plan steps.
	Why string
	// Migrated is set when External is the CSI driver an in-tree
	// plugin's volumes are migrated to (InTreePlugins).
	Migrated bool
	// Unsure names the deleter when only what the input lacks (the
	// cluster's version) decides whether it runs: the storage is then
	// destroyed if it does (DiskDestroyedIfRuns).
	Unsure string
}

// hostPathDeletable is the in-tree hostPath deleter's own check
// (pkg/volume/hostpath/host_path.go, hostPathDeleter.Delete).
var hostPathDeletable = regexp.MustCompile("/tmp/.+")

// VolumeReclaimer is findDeletablePlugin on a server of version
// serverVersion ("" when the input does not say): the provisioned-by
// annotation names the plugin (an out-of-tree name means an external
// provisioner), a CSI volume is its driver's, an in-tree plugin under CSI
// migration is its CSI driver's (InTreePlugins), and otherwise the in-tree
// plugin of the spec decides; of those kube-controller-manager can delete
// only hostPath volumes under /tmp.
func VolumeReclaimer(pv *snapshot.PVFacts, serverVersion string) Reclaimer {
	if p, ok := inTreePlugin(pv); ok && pv.Driver == "" {
		return p.reclaimer(ServerMinor(serverVersion))
	}
	switch {
	case pv.ProvisionedBy != "" && !strings.HasPrefix(pv.ProvisionedBy, "kubernetes.io/"):
		return Reclaimer{External: pv.ProvisionedBy, Deletable: true, Why: "provisioned by " + pv.ProvisionedBy}
	case pv.Driver != "":
		return Reclaimer{External: pv.Driver, Deletable: true, Why: "CSI driver " + pv.Driver}
	case pv.Plugin == "hostPath" && hostPathDeletable.MatchString(pv.HostPath):
		return Reclaimer{Deletable: true, Why: "the hostPath deleter removes " + pv.HostPath}
	case pv.Plugin == "hostPath":
		return Reclaimer{Why: "the hostPath deleter only deletes paths under /tmp, not " + pv.HostPath}
	case pv.Plugin != "":
		return Reclaimer{Why: "the in-tree " + pv.Plugin + " plugin never had a deleter"}
	}
	return Reclaimer{Deletable: true, Unsure: "its deleter (the input does not say which plugin serves the volume)",
		Why: "the input does not say which plugin serves the volume"}
}

// ProvisionerWorkloads returns the workloads (Deployments, StatefulSets,
// DaemonSets, not terminating, not known to have no available pod) that
// run the provisioner named name, by
// the names CSI drivers publish their controllers under: the driver's
// first label with "csi" ("ebs.csi.aws.com" → ebs-csi-controller,
// "hostpath.csi.k8s.io" → csi-hostpathplugin), the driver's name itself
// in a label, or an out-of-tree provisioner's last path element
// ("rancher.io/local-path" → local-path-provisioner). Evidence, not
// proof: a managed cluster runs its provisioners outside the cluster.
func ProvisionerWorkloads(name string, workloads []*snapshot.Object) []*snapshot.Object {
	var out []*snapshot.Object
	for _, w := range workloads {
		if !w.Terminating() && !unavailable(w) && NamesImplementation(name, w) {
			out = append(out, w)
		}
	}
	return out
}

// NamesImplementation reports whether workload w (a Deployment,
// StatefulSet or DaemonSet, of any state) is named like the
// implementation name: a provisioner or CSI driver, or the controller a
// class names (ClassOf), by ImplementationTokens.
func NamesImplementation(name string, w *snapshot.Object) bool {
	return isWorkloadKind(w) && slices.ContainsFunc(provisionerTokens(name), func(t string) bool { return mentions(w, t) })
}

// ImplementationTokens are what NamesImplementation looks for in a
// workload's name and label values, for messages and grep.
func ImplementationTokens(name string) []string { return provisionerTokens(name) }

// unavailable: the snapshot says the workload has no available pod.
func unavailable(w *snapshot.Object) bool {
	f := w.Facts
	return f != nil && f.Workload != nil && f.Workload.Available != nil && *f.Workload.Available == 0
}

func isWorkloadKind(w *snapshot.Object) bool {
	g, _ := snapshot.SplitAPIVersion(w.APIVersion)
	return g == "apps" && (w.Kind == "Deployment" || w.Kind == "StatefulSet" || w.Kind == "DaemonSet")
}

func provisionerTokens(name string) []string {
	name = strings.ToLower(name)
	for _, p := range InTreePlugins {
		if p.Driver == name && p.Controller != "" {
			return append(csiTokens(name), p.Controller)
		}
	}
	return csiTokens(name)
}

// minToken is the shortest name part looked for: "lb" of example.com/lb
// is in too many workload names to say anything.
const minToken = 4

func csiTokens(name string) []string {
	if i := strings.LastIndex(name, "/"); i >= 0 {
		if len(name)-i-1 < minToken {
			return []string{name}
		}
		return []string{name, name[i+1:]}
	}
	tokens := []string{name}
	for _, l := range strings.Split(name, ".") {
		if l != "csi" && l != "" {
			return append(tokens, l+"-csi", "csi-"+l)
		}
	}
	return tokens
}

func mentions(w *snapshot.Object, token string) bool {
	if strings.Contains(strings.ToLower(w.Metadata.Name), token) {
		return true
	}
	for _, v := range w.Metadata.Labels {
		if strings.Contains(strings.ToLower(v), token) {
			return true
		}
	}
	return false
}

// ReclaimCommand is how to free the storage of a volume kept after its
// claim went: delete it where it lives, then the volume object.
func ReclaimCommand(volume string, pv *snapshot.PVFacts) string {
	where := "its storage"
	switch {
	case pv.Driver != "":
		where = "the " + pv.Driver + " volume behind it"
	case pv.HostPath != "":
		where = pv.HostPath + " on the node"
	}
	return "when its data is no longer needed, delete " + where + ", then: kubectl delete persistentvolume " + volume
}

// NotReclaimed says why the storage of a volume released under reclaim
// policy Delete stays, when the external provisioner that deletes it
// (r.External) has no workload in the input.
func NotReclaimed(r Reclaimer) string {
	return "reclaim policy Delete, but no workload of " + r.External + "'s provisioner is in the input (no Deployment, StatefulSet or DaemonSet named like it): the volume stays Released and its storage is not reclaimed until the provisioner runs"
}

// DestroyedIfRuns is why a plan cannot say whether the storage of a
// volume released under reclaim policy Delete is destroyed: the deleter
// r names is not in the input. Never "kept": it may well run (a managed
// cluster runs its CSI controllers outside the cluster, a dump may leave
// kube-system out).
func DestroyedIfRuns(r Reclaimer) string {
	if r.Unsure != "" {
		return "reclaim policy Delete; the deleter is " + r.Unsure + "; " + r.Why
	}
	why := ""
	if r.Migrated {
		why = r.Why + "; "
	}
	return "reclaim policy Delete; " + why + "no Deployment, StatefulSet or DaemonSet of " +
		r.External + "'s provisioner is in the input (a managed cluster runs it outside the cluster); until it deletes the storage and the volume, the volume stays Released"
}

// RunProvisioner is the remedy of a volume NotReclaimed says stays: the
// provisioner deletes the storage and the volume (StartProvisioner), or a
// person does (ReclaimCommand).
func RunProvisioner(volume string, r Reclaimer, pv *snapshot.PVFacts) string {
	return StartProvisioner(r) + "; or " + ReclaimCommand(volume, pv)
}

// StartProvisioner is the first remedy of a volume NotReclaimed says
// stays.
func StartProvisioner(r Reclaimer) string {
	return "run " + r.External + "'s provisioner, which deletes the storage and the volume"
}

// ProvisionerActor names the external provisioner of name as an actor.
func ProvisionerActor(name string) string { return ActorExternalProvisioner + " " + name }
