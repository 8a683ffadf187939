package diagnose

import (
	"slices"
	"sort"
	"strings"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// A pod past its grace period on a Ready node is held by its kubelet,
// which confirms termination only once the pod's volumes are torn down.
// A CSI volume is unmounted by calling its driver's node plugin through
// the socket the plugin registered with the kubelet: with the driver
// uninstalled (no CSIDriver object, no DaemonSet running its node
// plugin, the node's CSINode not listing it), the kubelet retries for
// ever ("driver name D not found in the list of registered CSI
// drivers"). kgc reads those facts, and the attachments and volumes the
// pod's claims lead to; it says what it checked when none explains it.

// Reasons of a pod whose volumes cannot be torn down.
const (
	// ReasonCSIDriverMissing: a CSI driver one of the pod's volumes
	// needs is not installed or its node plugin is not registered on the
	// pod's node, so the kubelet cannot unmount the volume.
	ReasonCSIDriverMissing = "csi-driver-missing"
	// ReasonVolumeAttachmentStuck: a VolumeAttachment of one of the pod's
	// volumes on its node failed to attach or is stuck detaching.
	ReasonVolumeAttachmentStuck = "volume-attachment-stuck"
	// ReasonVolumeMissing: a claim the pod uses is bound to a
	// PersistentVolume that no longer exists (or the claim itself is gone).
	ReasonVolumeMissing = "volume-missing"
	// ReasonVolumeNotReclaimed: a Released PersistentVolume with reclaim
	// policy Delete whose external provisioner does not run: nothing
	// deletes its storage, which stays (and is paid for) until it runs.
	ReasonVolumeNotReclaimed = "volume-not-reclaimed"
)

// volumeProblem is one thing in the way of a pod's volume teardown.
type volumeProblem struct {
	reason   string
	msg      string
	related  []snapshot.ObjectRef
	remedies []Remedy
}

// podVolumes are the CSI drivers a pod's volumes need, each with the
// volumes that need it, and the problems found on the way (a claim or
// volume gone).
type podVolumes struct {
	drivers map[string][]string
	// refs are, by driver, the claims and volumes that need it.
	refs     map[string][]snapshot.ObjectRef
	pvs      []string
	problems []volumeProblem
	checked  []string
}

// volumeTeardown looks at what the kubelet of node needs to tear the
// pod's volumes down, and returns what stands in its way and what was
// checked.
func (r *run) volumeTeardown(pod *snapshot.Object, node string) ([]volumeProblem, []string) {
	pf := rules.PodFacts(pod)
	if pf == nil {
		return nil, []string{"the pod's volumes (the snapshot holds no spec for it)"}
	}
	v := podVolumes{drivers: map[string][]string{}, refs: map[string][]snapshot.ObjectRef{}}
	for _, d := range pf.CSIDrivers {
		v.drivers[d] = append(v.drivers[d], "an inline CSI volume")
	}
	for _, c := range append(slices.Clone(pf.Claims), pf.EphemeralClaims...) {
		r.claimVolume(pod, c, &v)
	}
	if len(v.drivers) == 0 && len(v.problems) == 0 {
		if len(v.checked) == 0 {
			v.checked = append(v.checked, "it uses no CSI volume and no claim")
		}
		return nil, v.checked
	}
	names := make([]string, 0, len(v.drivers))
	for d := range v.drivers {
		names = append(names, d)
	}
	sort.Strings(names)
	for _, d := range names {
		if p, ok := r.csiDriver(d, node, v.drivers[d]); ok {
			p.related = append(p.related, v.refs[d]...)
			v.problems = append(v.problems, p)
		} else {
			v.checked = append(v.checked, p.msg)
		}
		v.problems = append(v.problems, r.stuckAttachments(d, node, v.pvs)...)
	}
	return v.problems, v.checked
}

// claimVolume follows claim c of pod to its PersistentVolume and driver.
func (r *run) claimVolume(pod *snapshot.Object, c string, v *podVolumes) {
	ns := pod.Metadata.Namespace
	pvc := r.ix.byName("", "PersistentVolumeClaim", ns, c)
	claimRef := snapshot.ObjectRef{APIVersion: "v1", Kind: "PersistentVolumeClaim", Namespace: ns, Name: c}
	switch {
	case pvc == nil && r.ix.listed("", "PersistentVolumeClaim"):
		v.problems = append(v.problems, volumeProblem{reason: ReasonVolumeMissing, related: []snapshot.ObjectRef{claimRef},
			msg: "claim " + c + " of its volumes no longer exists, so the kubelet tears down a volume whose claim was removed under the pod"})
		return
	case pvc == nil:
		v.checked = append(v.checked, "claim "+c+" (claims were not listed)")
		return
	}
	vol := ""
	if pvc.Facts != nil && pvc.Facts.PVC != nil {
		vol = pvc.Facts.PVC.VolumeName
	}
	if vol == "" {
		v.checked = append(v.checked, "claim "+c+" (bound to no volume)")
		return
	}
	pv := r.ix.byName("", "PersistentVolume", "", vol)
	switch {
	case pv == nil && r.ix.listed("", "PersistentVolume"):
		v.problems = append(v.problems, volumeProblem{reason: ReasonVolumeMissing, related: []snapshot.ObjectRef{pvc.Ref()},
			msg: "claim " + c + " is bound to volume " + vol + ", which no longer exists: its PersistentVolume was deleted (or its finalizer removed) while the pod used it, and the kubelet and the attach/detach controller cannot tear down a volume they no longer find"})
	case pv == nil:
		v.checked = append(v.checked, "volume "+vol+" of claim "+c+" (volumes were not listed)")
	case pv.Facts == nil || pv.Facts.PV == nil || pv.Facts.PV.Driver == "":
		v.checked = append(v.checked, "volume "+vol+" of claim "+c+" (not a CSI volume)")
	default:
		d := pv.Facts.PV.Driver
		v.drivers[d] = append(v.drivers[d], "volume "+vol+" (claim "+c+")")
		v.refs[d] = append(v.refs[d], pvc.Ref(), pv.Ref())
		v.pvs = append(v.pvs, vol)
	}
}

// csiDriver judges whether driver d can tear down volumes on node: its
// CSIDriver object, the DaemonSet running its node plugin, and whether
// the node's CSINode lists it. ok is true when something is wrong; the
// problem's msg otherwise says what was checked.
func (r *run) csiDriver(d, node string, vols []string) (volumeProblem, bool) {
	obj := r.ix.byName("storage.k8s.io", "CSIDriver", "", d)
	var plugins, going []*snapshot.Object
	for _, ds := range r.ix.ofKind("apps", "DaemonSet") {
		if ds.Facts != nil && ds.Facts.Volume != nil && slices.Contains(ds.Facts.Volume.NodePlugins, d) {
			if r.going(ds) {
				going = append(going, ds)
			} else {
				plugins = append(plugins, ds)
			}
		}
	}
	csiNode := r.ix.byName("storage.k8s.io", "CSINode", "", node)
	registered, regKnown := false, csiNode != nil && csiNode.Facts != nil && csiNode.Facts.Volume != nil
	if regKnown {
		registered = slices.Contains(csiNode.Facts.Volume.NodeDrivers, d)
	}
	noObject := obj == nil && r.ix.listed("storage.k8s.io", "CSIDriver")
	noPlugin := len(plugins) == 0 && r.ix.listed("apps", "DaemonSet")
	uses := strings.Join(vols, " and ")
	p := volumeProblem{reason: ReasonCSIDriverMissing}
	if obj != nil {
		p.related = append(p.related, obj.Ref())
	}
	if csiNode != nil {
		p.related = append(p.related, csiNode.Ref())
	}
	p.related = append(p.related, refsOf(append(append([]*snapshot.Object{}, plugins...), going...))...)
	var facts []string
	switch {
	case noObject:
		facts = append(facts, "no CSIDriver object names it")
	case obj == nil:
		facts = append(facts, "CSIDriver objects were not listed")
	default:
		facts = append(facts, "its CSIDriver object exists")
	}
	switch {
	case len(going) > 0 && len(plugins) == 0:
		facts = append(facts, "the DaemonSet running its node plugin, "+going[0].Ref().String()+", is being deleted (or its namespace is)")
	case noPlugin:
		facts = append(facts, "no DaemonSet runs its node plugin (none mounts the kubelet plugin directory …/kubelet/plugins/"+d+")")
	case len(plugins) > 0:
		facts = append(facts, plugins[0].Ref().String()+" runs its node plugin")
	}
	switch {
	case regKnown && registered:
		facts = append(facts, "node "+node+"'s CSINode lists it")
	case regKnown:
		facts = append(facts, "node "+node+"'s CSINode does not list it: no node plugin of it is registered with that kubelet")
	case r.ix.listed("storage.k8s.io", "CSINode"):
		facts = append(facts, "node "+node+" has no CSINode")
	}
	pluginGone := noPlugin || len(going) > 0 && len(plugins) == 0
	if (!regKnown || registered) && !pluginGone {
		p.msg = "CSI driver " + d + " of " + uses + " (" + strings.Join(facts, ", ") + ")"
		return p, false
	}
	what := "the node plugin of CSI driver " + d + " is not registered on node " + node
	if noObject && pluginGone {
		what = "CSI driver " + d + " is uninstalled"
	}
	p.msg = what + " (" + strings.Join(facts, "; ") + "), and " + uses + " need" + verbS(len(vols)) + " it: the kubelet cannot call it to unmount, so it never confirms the pod's termination (its events say \"driver name " + d + " not found in the list of registered CSI drivers\")"
	p.remedies = []Remedy{{Action: ActionFixController,
		Description: "Reinstall CSI driver " + d + " (its CSIDriver object and the DaemonSet running its node plugin on node " + node + "): once it registers with the kubelet, the kubelet unmounts the volume and confirms the termination",
		Command:     "kubectl get csidriver " + d + "; kubectl get csinode " + node + " -o jsonpath='{.spec.drivers[*].name}'"}}
	if len(plugins) > 0 {
		ds := plugins[0]
		p.remedies = append([]Remedy{{Action: ActionFixController,
			Description: "Find why " + ds.Ref().String() + " has no node plugin of " + d + " registered on node " + node + " (its pod there: not scheduled, crashing, or its registrar failing)",
			Command:     "kubectl get pods -n " + ds.Metadata.Namespace + " -o wide --field-selector spec.nodeName=" + node}}, p.remedies...)
	}
	return p, true
}

// stuckAttachments are the VolumeAttachments of driver d on node for the
// pod's volumes that failed to attach or are stuck detaching.
func (r *run) stuckAttachments(d, node string, pvs []string) []volumeProblem {
	var out []volumeProblem
	for _, va := range r.ix.ofKind("storage.k8s.io", "VolumeAttachment") {
		if va.Facts == nil || va.Facts.Volume == nil || va.Facts.Volume.Attachment == nil {
			continue
		}
		a := va.Facts.Volume.Attachment
		if a.Attacher != d || a.NodeName != node || a.PersistentVolumeName != "" && !slices.Contains(pvs, a.PersistentVolumeName) {
			continue
		}
		var state string
		switch {
		case a.DetachError:
			state = "its last detach failed (status.detachError)"
		case va.Terminating():
			state = "it is being deleted since " + Age(r.ix.snap.CapturedAt.Sub(*va.Metadata.DeletionTimestamp)) + " ago and still " + map[bool]string{true: "attached", false: "not detached"}[a.Attached]
		case a.AttachError && !a.Attached:
			state = "the volume never attached (status.attachError): the kubelet keeps waiting for a volume it cannot mount nor unmount"
		default:
			continue
		}
		vol := a.PersistentVolumeName
		if vol == "" {
			vol = "an inline volume"
		}
		out = append(out, volumeProblem{reason: ReasonVolumeAttachmentStuck, related: []snapshot.ObjectRef{va.Ref()},
			msg: va.Ref().String() + " of " + vol + " on node " + node + " is stuck: " + state + "; driver " + d + "'s controller (its external-attacher) is failing to attach or detach",
			remedies: []Remedy{{Action: ActionFixController, Description: "Read why driver " + d + " fails on " + va.Ref().String() + " (its status and events, the logs of the driver's controller and external-attacher)",
				Command: "kubectl describe volumeattachment " + va.Metadata.Name}}})
	}
	return out
}

func verbS(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}

// hungVolumes records a pod on a Ready node whose volume teardown the
// input shows is blocked, or, when nothing is found, the fallback that
// says what was checked.
func (r *run) hungVolumes(pod, node *snapshot.Object, past string, b *Blocker) {
	problems, checked := r.volumeTeardown(pod, node.Metadata.Name)
	base := "its grace period ended " + past + " ago and node " + node.Metadata.Name + " is Ready, yet its kubelet has not confirmed termination"
	if len(problems) == 0 {
		msg := base + ": a container, a preStop hook or a volume unmount is probably hanging (kubectl describe pod; kubelet logs)"
		if len(checked) > 0 {
			msg += "; its volumes show nothing wrong (checked: " + strings.Join(checked, "; ") + ")"
		}
		b.RootCause = r.addLeaf(leaf{obj: pod, rc: RootCause{Object: pod.Ref(), Reason: ReasonKubeletNotConfirming, RemovedBy: rules.ActorKubelet, Related: []snapshot.ObjectRef{node.Ref()}, Message: msg}}, pod, nil)
		return
	}
	var msgs []string
	var extra []Remedy
	related := []snapshot.ObjectRef{node.Ref()}
	for _, p := range problems {
		msgs = append(msgs, p.msg)
		extra = append(extra, p.remedies...)
		for _, x := range p.related {
			related = appendRef(related, x)
		}
	}
	b.WaitingFor = "the kubelet on node " + node.Metadata.Name + " to tear down the pod's volumes and confirm that its containers stopped"
	b.Objects = related
	b.RootCause = r.addLeaf(leaf{obj: pod, rc: RootCause{Object: pod.Ref(), Reason: problems[0].reason, RemovedBy: rules.ActorKubelet, Related: related,
		Message: base + ": " + strings.Join(msgs, "; ")}, extra: extra}, pod, nil)
}

// unreclaimed is the root cause of a volume released under reclaim policy
// Delete whose storage nothing deletes, as the plan judges it
// (rules.VolumeReclaimer, rules.ProvisionerWorkloads): o is the volume, or
// a claim whose volume it is. ok is false for any other object. As in the
// plan, the provisioner runs when a workload of the input is named like it.
func (r *run) unreclaimed(o *snapshot.Object) (rc RootCause, ok bool) {
	pv := o
	if o.Kind == "PersistentVolumeClaim" && o.Facts != nil && o.Facts.PVC != nil && o.Facts.PVC.VolumeName != "" {
		pv = r.ix.byName("", "PersistentVolume", "", o.Facts.PVC.VolumeName)
	}
	if pv == nil || pv.Kind != "PersistentVolume" || pv.Facts == nil || pv.Facts.PV == nil {
		return rc, false
	}
	f := pv.Facts.PV
	rec := rules.VolumeReclaimer(f, r.ix.snap.Source.ServerVersion)
	if f.Phase != rules.VolumeReleased || f.ReclaimPolicy != rules.ReclaimDelete || rec.External == "" {
		return rc, false
	}
	var workloads []*snapshot.Object
	for _, kind := range []string{"Deployment", "StatefulSet", "DaemonSet"} {
		workloads = append(workloads, r.ix.ofKind("apps", kind)...)
	}
	if len(rules.ProvisionerWorkloads(rec.External, workloads)) > 0 {
		return rc, false
	}
	released := "released"
	if f.ClaimRef != nil {
		released += " by its claim " + f.ClaimRef.String() + ", which is gone"
	}
	size := ""
	if f.Capacity != "" {
		size = " (" + f.Capacity + ")"
	}
	rc = RootCause{Object: pv.Ref(), Reason: ReasonVolumeNotReclaimed, RemovedBy: rules.ProvisionerActor(rec.External),
		Message: "the storage" + size + " behind it is not deleted: it was " + released + "; " + rules.NotReclaimed(rec),
		Remedies: []Remedy{
			{Action: ActionFixController, Description: sentence(rules.StartProvisioner(rec)) + " (for a CSI driver, its controller with the external-provisioner sidecar); the volume's events say what it waits for",
				Command: "kubectl describe persistentvolume " + pv.Metadata.Name},
			{Action: ActionDelete, Description: sentence(rules.ReclaimCommand(pv.Metadata.Name, f)),
				Command: "kubectl delete persistentvolume " + pv.Metadata.Name,
				Leaks:   "the storage behind the volume, unless deleted by hand first: no provisioner deletes it once the volume is gone"},
		}}
	if pv != o {
		rc.Related = []snapshot.ObjectRef{o.Ref()}
	}
	return rc, true
}

// sentence starts s with a capital letter.
func sentence(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
