package plan

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// The volume's end of a delete: kube-controller-manager's
// persistentvolume controller (pkg/controller/volume/persistentvolume,
// pv_controller.go: syncVolume, reclaimVolume, deleteVolumeOperation)
// releases a volume whose claim is gone and reclaims it by its policy;
// under Delete the storage behind it is deleted by the controller itself
// for in-tree plugins, or by the CSI driver's external-provisioner, which
// kgc takes to run only where a workload of it is in the input
// (rules.ProvisionerWorkloads).

// volumes is the persistentvolume controller's state.
type volumes struct {
	// fates are what the controller decided for each volume's storage,
	// by the volume's UID.
	fates map[string]*VolumeFate
	// workloads are the snapshot's Deployments, StatefulSets and
	// DaemonSets (nil until a provisioner is looked for).
	workloads []*snapshot.Object
	waited    map[int32]bool
}

// observeVolume queues the volumes the persistentvolume controller syncs
// after an event: the volume of a claim deleted, and a volume that is
// Released or Bound to a claim that is gone.
func (c *controllers) observeVolume(ri *resInfo, typ eventType, old, o *snapshot.Object, w int) {
	if !c.enabled[ControllerPVBinder] {
		return
	}
	switch {
	case typ == deleteEvent && isKind(ri, "", "PersistentVolumeClaim"):
		if old.Facts == nil || old.Facts.PVC == nil || old.Facts.PVC.VolumeName == "" {
			return
		}
		if pv, ok := c.s.res.byGK[gk{"", "PersistentVolume"}]; ok {
			if k, cur := c.s.st.getByName(pv, "", old.Facts.PVC.VolumeName); cur != nil {
				c.q.add(ctlItem{kVolume, k}, w)
			}
		}
	case typ != deleteEvent && isKind(ri, "", "PersistentVolume") && o.Metadata.DeletionTimestamp == nil && o.Facts != nil && o.Facts.PV != nil:
		// Only volumes with work: a queued item that does nothing would
		// still take a turn of the controllers' queue.
		pv := o.Facts.PV
		if pv.Phase == rules.VolumeReleased && c.vol.fates[o.Metadata.UID] == nil || pv.Phase == rules.VolumeBound && c.claimGone(pv) != "" {
			if k, ok := c.s.st.byUID[o.Metadata.UID]; ok {
				c.q.add(ctlItem{kVolume, k}, w)
			}
		}
	}
}

// syncVolume is syncVolume for a volume that is not being deleted: a
// Bound volume whose claim is gone is Released, a Released one reclaimed.
func (c *controllers) syncVolume(i int32) {
	o := c.obj(i)
	if o == nil || o.Metadata.DeletionTimestamp != nil || o.Facts == nil || o.Facts.PV == nil {
		return
	}
	pv := o.Facts.PV
	switch pv.Phase {
	case rules.VolumeBound:
		if claim := c.claimGone(pv); claim != "" {
			c.setPhase(i, rules.ActorPVController, ActionRelease, rules.VolumeReleased,
				claim+" is gone: the volume is Released (reclaim policy "+pv.ReclaimPolicy+")")
		}
	case rules.VolumeReleased:
		c.reclaim(i, o, pv)
	}
}

// claimGone names a Bound volume's claim when the
// claim no longer exists (or was replaced by another of the same name),
// "" while it exists or when the input cannot tell (claims not listed).
func (c *controllers) claimGone(pv *snapshot.PVFacts) string {
	cr := pv.ClaimRef
	ri, ok := c.s.res.byGK[gk{"", "PersistentVolumeClaim"}]
	if cr == nil || !ok || !ri.listed {
		return ""
	}
	if cl := c.claim(cr.Namespace, cr.Name); cl != nil && (cr.UID == "" || cr.UID == cl.Metadata.UID) {
		return ""
	}
	return snapshot.KubectlName("PersistentVolumeClaim", cr.Namespace, cr.Name)
}

// setPhase writes a volume's new phase (a status update) as one step.
func (c *controllers) setPhase(i int32, actor, action, phase, detail string) {
	o := c.obj(i)
	n := clone(o)
	f := *o.Facts
	pv := *f.PV
	pv.Phase = phase
	f.PV = &pv
	n.Facts = &f
	c.s.record(actor, action, n, "", detail)
	c.s.st.update(actor, i, n)
}

// reclaim is reclaimVolume: Retain keeps the storage, Delete has it
// deleted by whoever can (rules.VolumeReclaimer), then the volume.
func (c *controllers) reclaim(i int32, o *snapshot.Object, pv *snapshot.PVFacts) {
	f := &VolumeFate{ReclaimPolicy: pv.ReclaimPolicy, Capacity: pv.Capacity, Plugin: pv.Plugin, Storage: rules.DiskKept}
	if pv.ClaimRef != nil {
		cr := *pv.ClaimRef
		f.Claim = &cr
	}
	c.vol.fates[o.Metadata.UID] = f
	switch pv.ReclaimPolicy {
	case rules.ReclaimDelete:
	case rules.ReclaimRetain:
		f.Reason = "reclaim policy Retain: the volume stays Released and its storage is kept"
		f.Reclaim = rules.ReclaimCommand(o.Metadata.Name, pv)
		return
	default:
		f.Reason = "reclaim policy " + pv.ReclaimPolicy + " is not simulated: the volume stays Released"
		return
	}
	r := rules.VolumeReclaimer(pv, c.s.snap.Source.ServerVersion)
	f.Driver = r.External
	switch {
	case !r.Deletable:
		f.Reason = "reclaim policy Delete, but " + r.Why + ": the volume goes Failed and its storage is kept"
		f.Reclaim = rules.ReclaimCommand(o.Metadata.Name, pv)
		c.setPhase(i, rules.ActorPVController, ActionWait, rules.VolumeFailed, r.Why+": the volume goes Failed (VolumeFailedDelete)")
	case r.Unsure != "" || r.External != "" && len(c.provisioner(r.External)) == 0:
		c.destroyedIfRuns(i, o, r, f)
	default:
		c.destroy(i, o, r, f)
	}
}

// destroyedIfRuns is a Released volume whose deleter the input does not
// show: the plan leaves it Released, and says its storage is destroyed if
// the deleter runs, never that it is kept.
func (c *controllers) destroyedIfRuns(i int32, o *snapshot.Object, r rules.Reclaimer, f *VolumeFate) {
	f.Storage = rules.DiskDestroyedIfRuns
	f.Reason = rules.DestroyedIfRuns(r)
	who := r.Unsure
	if who == "" {
		who = "the provisioner of " + r.External
	}
	c.why[i] = who + " is not in the input"
	if !c.vol.waited[i] {
		c.vol.waited[i] = true
		actor := rules.ActorPVController
		if r.External != "" {
			actor = rules.ProvisionerActor(r.External)
		}
		c.s.record(actor, ActionWait, o, "", "the storage is destroyed if "+who+" runs (not in the input)")
	}
}

// destroy deletes a Released volume's storage and then the volume, as the
// deleter does: the storage first, its own finalizer, then the object
// (which pv-protection then lets go, the volume not being Bound).
func (c *controllers) destroy(i int32, o *snapshot.Object, r rules.Reclaimer, f *VolumeFate) {
	actor, fin := rules.ActorPVController, rules.FinalizerPVCtrl
	by := "the persistentvolume controller"
	if r.External != "" {
		actor, fin = rules.ProvisionerActor(r.External), rules.FinalizerExtProv
		by = "the external-provisioner of " + r.External
		if ws := c.provisioner(r.External); len(ws) > 0 {
			by += " (" + ws[0].Ref().String() + ")"
		}
	}
	f.Storage = rules.DiskDestroyed
	f.Reason = "reclaim policy Delete: " + by + " deletes the storage (" + r.Why + "), then the volume"
	size := ""
	if f.Capacity != "" {
		size = f.Capacity + " "
	}
	c.s.record(actor, ActionDeleteStorage, o, "", "reclaim policy Delete: the "+size+"storage behind the volume is deleted ("+r.Why+")")
	if hasFin(o, fin) {
		c.removeFin(i, actor, fin, "the storage is deleted")
	}
	if c.obj(i) != nil {
		_ = c.s.st.delete(actor, i, deleteOptions{}, "reclaim policy Delete: the storage is gone")
	}
}

// provisioner returns the workloads running provisioner name that the
// plan leaves running: found in the snapshot, and not deleted (or being
// deleted) by the simulation so far.
func (c *controllers) provisioner(name string) []*snapshot.Object {
	if c.vol.workloads == nil {
		full := c.s.snap
		if c.s.st.reach != nil {
			full = c.s.st.reach.full
		}
		c.vol.workloads = []*snapshot.Object{}
		for k := range full.Objects {
			if w := &full.Objects[k]; strings.HasPrefix(w.APIVersion, "apps/") {
				c.vol.workloads = append(c.vol.workloads, w)
			}
		}
	}
	var out []*snapshot.Object
	for _, w := range rules.ProvisionerWorkloads(name, c.vol.workloads) {
		if k, ok := c.s.st.byUID[w.Metadata.UID]; ok && (c.s.st.objs[k] == nil || c.s.st.objs[k].Terminating()) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// volumeFate is the fate of volume uid's storage, with its phase in o
// (nil: deleted); nil for an object that is no volume the plan released.
func (c *controllers) volumeFate(uid string, o *snapshot.Object) *VolumeFate {
	f, ok := c.vol.fates[uid]
	if !ok {
		return nil
	}
	out := *f
	out.Phase = ""
	if o != nil && o.Facts != nil && o.Facts.PV != nil {
		out.Phase = o.Facts.PV.Phase
	}
	return &out
}

// countVolumes adds what the plan does to storage to its summary.
func countVolumes(p *Plan) {
	var total resource.Quantity
	for _, of := range p.Objects {
		v := of.Volume
		switch {
		case v == nil:
		case v.Storage == rules.DiskDestroyed:
			p.Summary.VolumesDestroyed++
			if q, err := resource.ParseQuantity(v.Capacity); err == nil {
				total.Add(q)
			}
		case v.Storage == rules.DiskNotReclaimed:
			p.Summary.VolumesNotReclaimed++
		case v.Storage == rules.DiskDestroyedIfRuns:
			p.Summary.VolumesDestroyedIfRuns++
		default:
			p.Summary.VolumesKept++
		}
	}
	p.Summary.BytesDestroyed = total.Value()
}
