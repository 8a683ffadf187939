package diagnose

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// actionRank orders remedies from least to most destructive: waiting or
// fixing the responsible party changes nothing by hand; deleting a
// blocking dependent is what the foreground deletion asked for anyway;
// unblocking keeps the ownership record while removing the reference
// loses it; force deletion and finalizer removal skip work a controller
// was supposed to do.
var actionRank = map[string]int{
	ActionWait:                  0,
	ActionFixController:         1,
	ActionFixAPIService:         1,
	ActionFixNode:               1,
	ActionFixService:            1,
	ActionCheckWebhook:          1,
	ActionGrantRBAC:             1,
	ActionCheckPolicy:           1,
	ActionFixPolicy:             1,
	ActionPatchPolicyBinding:    6,
	ActionDeletePolicyBinding:   6,
	ActionDelete:                2,
	ActionTaintOutOfService:     3,
	ActionUnblockOwnerReference: 4,
	ActionRemoveOwnerReference:  5,
	ActionDeleteAPIService:      6,
	ActionPatchWebhook:          6,
	ActionPatchCRDConversion:    6,
	ActionDeleteWebhook:         6,
	ActionForceDelete:           7,
	ActionRemoveFinalizer:       8,
}

// remedies derives a root cause's ways out, least destructive first: what
// its reason suggests, the remedies its finder added, those that detach
// the object from the owners it blocks, and the last resorts.
func (r *run) remedies(l *leaf) []Remedy {
	out := r.reasonRemedies(l)
	out = append(out, l.extra...)
	out = append(out, r.edgeRemedies(l)...)
	out = append(out, r.lastResorts(l)...)
	for i := range out {
		r.executable(&out[i], l)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if li, lj := out[i].Leaks != "", out[j].Leaks != ""; li != lj {
			return lj
		}
		return actionRank[out[i].Action] < actionRank[out[j].Action]
	})
	return out
}

// reasonRemedies are the remedies a root cause's reason suggests.
func (r *run) reasonRemedies(l *leaf) []Remedy {
	rc := l.rc
	o := l.obj
	var out []Remedy
	add := func(rem Remedy) { out = append(out, rem) }
	switch rc.Reason {
	case ReasonInProgress, ReasonNoFinalizers:
		who := rc.RemovedBy
		if who == "" {
			who = "responsible controller"
		}
		add(Remedy{Action: ActionWait, Description: "Wait: the " + who + " should finish this within seconds to minutes; if nothing changes, check that it runs",
			Command: "kubectl wait --for=delete " + r.waitTarget(rc.Object) + " --timeout=5m"})
	case ReasonNamespaceBlocksItself:
		name := relatedName(rc, "APIService")
		add(Remedy{Action: ActionDeleteAPIService, Description: "Delete " + snapshot.KubectlName("APIService", "", name) + ": what serves it is deleted with the namespace, so it cannot become available again; every terminating namespace then finishes (reinstall the extension outside this namespace afterwards if it is still wanted)",
			Command: "kubectl delete apiservice " + name,
			Risk:    "its API disappears for every client until the extension is reinstalled"})
	case ReasonDiscoveryFailure, ReasonAPIServiceUnavailable:
		if len(rc.Related) > 0 {
			name := relatedName(rc, "APIService")
			add(Remedy{Action: ActionFixAPIService, Description: "Make " + snapshot.KubectlName("APIService", "", name) + " available again: its status.conditions say why it fails; its backing service must answer",
				Command: "kubectl get apiservice " + name + " -o yaml"})
			add(Remedy{Action: ActionDeleteAPIService, Description: "If the extension behind " + name + " was uninstalled, delete its stale APIService; every terminating namespace then finishes",
				Command: "kubectl delete apiservice " + name,
				Risk:    "if the extension is still wanted, its API disappears for every client until it is reinstalled"})
		} else {
			add(Remedy{Action: ActionFixAPIService, Description: "Find the APIServices that are not Available and fix or delete them",
				Command: "kubectl get apiservices | grep -v True"})
		}
	case ReasonNodeNotReady:
		node := relatedName(rc, "Node")
		add(Remedy{Action: ActionFixNode, Description: "Bring node " + node + " back: its kubelet then confirms the termination", Command: "kubectl describe node " + node})
		add(Remedy{Action: ActionTaintOutOfService, Description: "If node " + node + " is really shut down, taint it out-of-service: the pod garbage collector then force-deletes its terminating pods and their volumes are detached",
			Command: "kubectl taint nodes " + node + " " + rules.TaintOutOfService + "=nodeshutdown:NoExecute",
			Risk:    "if the node still runs, its containers keep running unsupervised while their volumes are detached"})
	case ReasonNodeMissing:
		add(Remedy{Action: ActionFixController, Description: "Check that kube-controller-manager (its pod garbage collector) runs: it deletes pods of missing nodes",
			Command: "kubectl get pods -n kube-system -l component=kube-controller-manager"})
	case ReasonKubeletNotConfirming:
		node := relatedName(rc, "Node")
		add(Remedy{Action: ActionFixNode, Description: "Find what hangs in the pod's events and in the kubelet logs of node " + node,
			Command: "kubectl describe pod " + rc.Object.Name + " -n " + rc.Object.Namespace})
	case ReasonClaimInUse:
		rem := Remedy{Action: ActionDelete, Description: "Delete pod " + rc.Object.Name + ", which still uses the claim", Command: "kubectl delete " + r.ix.kubectlTarget(rc.Object) + " --wait=false"}
		if o != nil {
			for _, ref := range o.Metadata.OwnerReferences {
				if ref.IsController() {
					rem.Risk = "its controller " + ref.Kind + "/" + ref.Name + " recreates it: scale that down or delete it instead"
				}
			}
		}
		add(rem)
	case ReasonVolumeBound:
		add(Remedy{Action: ActionDelete, Description: "Delete claim " + rc.Object.Name + " to release the volume", Command: "kubectl delete " + r.ix.kubectlTarget(rc.Object) + " --wait=false",
			Risk: "a pod using the claim loses its storage; with reclaimPolicy Delete the data is destroyed"})
	case ReasonGCCannotResolve:
		add(Remedy{Action: ActionDelete, Description: "Delete " + rc.Object.String() + " yourself: the foreground deletion was going to delete it, but the garbage collector cannot",
			Command: "kubectl delete " + r.ix.kubectlTarget(rc.Object) + " --wait=false"})
	case ReasonControllerStalled:
		add(stalledRemedy(rc.RemovedBy))
	case ReasonForegroundNotQueued:
		add(Remedy{Action: ActionFixController, Description: "Restart kube-controller-manager: a freshly started garbage collector sees foregroundDeletion alone on the object and removes it, as nothing blocks it",
			Command: "kubectl -n kube-system delete pod -l component=kube-controller-manager",
			Risk:    "every controller restarts and resyncs; on a managed control plane, ask the provider instead"})
	case ReasonOrphanPatchFailing:
		out = append(out, r.orphanPatchRemedies(&rc)...)
	}
	return out
}

// orphanPatchRemedies find why the collector's orphaning patches fail,
// or do its work: remove each dependent's owner reference to the object.
func (r *run) orphanPatchRemedies(rc *RootCause) []Remedy {
	out := []Remedy{{Action: ActionFixController, Description: "Find why the garbage collector's patches fail in the kube-controller-manager logs (look for the dependents named here; an admission webhook rejecting the patch is the usual cause)",
		Command: "kubectl logs -n kube-system -l component=kube-controller-manager --tail=500 | grep -i " + rc.Object.Name}}
	for _, dep := range rc.Related {
		d := r.ix.byUID(dep.UID)
		if d == nil {
			continue
		}
		for i, ref := range d.Metadata.OwnerReferences {
			if ref.UID == rc.Object.UID {
				out = append(out, Remedy{Action: ActionRemoveOwnerReference, Description: "Do the garbage collector's work: remove " + d.Ref().String() + "'s owner reference to " + rc.Object.Name + " (the garbage collector then removes orphan)",
					Command: r.ownerRefPatch(d, i, false)})
			}
		}
	}
	return out
}

// edgeRemedies delete a dependent the collector is about to delete anyway,
// or unblock or remove its owner references to the owners it holds up.
func (r *run) edgeRemedies(l *leaf) []Remedy {
	rc := l.rc
	o := l.obj
	var out []Remedy
	add := func(rem Remedy) { out = append(out, rem) }

	if o != nil && !o.Terminating() && (rc.Reason == ReasonInProgress || rc.Reason == ReasonControllerStalled) && len(l.edges) > 0 {
		add(Remedy{Action: ActionDelete, Description: "Delete " + rc.Object.String() + " yourself, as the garbage collector is about to",
			Command: "kubectl delete " + r.ix.kubectlTarget(rc.Object) + " --wait=false"})
	}
	if o != nil {
		for _, e := range l.edges {
			if e.index < 0 {
				continue
			}
			if o.Metadata.Namespace == "" && e.owner.Metadata.Namespace != "" {
				// The collector never deletes a cluster-scoped dependent of a
				// namespaced owner (it cannot look the owner up without a
				// namespace): unblocking would leave it behind for ever.
				out = append(out, r.strandedRemedies(o, e)...)
				continue
			}
			add(Remedy{Action: ActionUnblockOwnerReference,
				Description: "Let " + e.owner.Ref().String() + " finish without waiting for " + rc.Object.String() + ": set blockOwnerDeletion=false on its owner reference",
				Command:     r.ownerRefPatch(o, e.index, true),
				Risk:        unblockRisk(o)})
			add(Remedy{Action: ActionRemoveOwnerReference,
				Description: "Detach " + rc.Object.String() + " from " + e.owner.Ref().String() + ": remove the owner reference",
				Command:     r.ownerRefPatch(o, e.index, false),
				Risk:        removeRefRisk(o)})
		}
	}
	return out
}

// lastResorts skip the responsible party: removing the finalizer (through
// /finalize for a namespace's spec finalizer) or force-deleting a pod. They
// are offered for stuck root causes, and for in-progress ones that have
// waited too long.
func (r *run) lastResorts(l *leaf) []Remedy {
	rc := l.rc
	o := l.obj
	var out []Remedy
	add := func(rem Remedy) { out = append(out, rem) }
	stale := o != nil && o.Terminating() && r.ix.snap.CapturedAt.Sub(*o.Metadata.DeletionTimestamp) > staleAfter
	offerRemoval := rc.Reason != ReasonInProgress && rc.Reason != ReasonNoFinalizers || stale
	if o != nil && offerRemoval && o.Terminating() {
		switch {
		case rc.Finalizer != "" && isSpecFinalizer(o, rc.Finalizer):
			info := rules.LookupFinalizer(rc.Finalizer)
			add(Remedy{Action: ActionRemoveFinalizer,
				Description: "Last resort: remove " + rc.Finalizer + " from the namespace's spec.finalizers through the finalize subresource",
				Command: fmt.Sprintf(`kubectl get namespace %s -o json | jq '.spec.finalizers -= ["%s"]' | kubectl replace --raw /api/v1/namespaces/%s/finalize -f -`,
					o.Metadata.Name, rc.Finalizer, o.Metadata.Name),
				Risk: info.Risk})
		case rc.Finalizer != "":
			if i := slices.Index(o.Metadata.Finalizers, rc.Finalizer); i >= 0 {
				info := rules.LookupFinalizer(rc.Finalizer)
				add(Remedy{Action: ActionRemoveFinalizer, Leaks: rules.Leaks(rc.Finalizer, o),
					Description: "Last resort: remove finalizer " + rc.Finalizer + " from " + rc.Object.String(),
					Command:     r.finalizerPatch(o, rc.Finalizer),
					Risk:        info.Risk})
			}
		case isKind(o, "", "Pod"):
			risk := "skips the kubelet's confirmation: if the node still runs the containers they keep running, and a StatefulSet may start a replacement with the same identity alongside"
			switch rc.Reason {
			case ReasonCSIDriverMissing, ReasonVolumeAttachmentStuck, ReasonVolumeMissing:
				risk += "; its volumes stay mounted (and attached) on the node until their driver tears them down, so a replacement needing a ReadWriteOnce volume elsewhere cannot attach it"
			}
			add(Remedy{Action: ActionForceDelete,
				Description: "Last resort: force-delete the pod without the kubelet's confirmation",
				Command:     "kubectl delete " + r.ix.kubectlTarget(rc.Object) + " --grace-period=0 --force",
				Risk:        risk})
		}
	}
	return out
}

// stalledRemedy points at the component that runs a stalled actor: the
// CRD finalizer runs in kube-apiserver, every other controller kgc names
// in kube-controller-manager.
func stalledRemedy(actor string) Remedy {
	component := "kube-controller-manager"
	if actor == rules.ActorCRDFinalizer {
		component = "kube-apiserver"
	}
	return Remedy{Action: ActionFixController,
		Description: "Check that " + component + " runs and what its " + actor + " reports (sync errors, a type it cannot list); restart it if it is wedged",
		Command:     "kubectl -n kube-system logs -l component=" + component + " --tail=500 | grep -i -e " + strings.Fields(actor)[0] + " -e error"}
}

// isSpecFinalizer reports whether f is one of a namespace's
// spec.finalizers rather than a metadata finalizer.
func isSpecFinalizer(o *snapshot.Object, f string) bool {
	if !isKind(o, "", "Namespace") || o.HasFinalizer(f) {
		return false
	}
	if o.Facts == nil || o.Facts.Namespace == nil {
		return f == rules.FinalizerNamespace
	}
	return slices.Contains(o.Facts.Namespace.SpecFinalizers, f)
}

// ownerRefPatch is a JSON patch that first tests the reference's UID, so
// it fails instead of touching the wrong reference if the list changed.
// finalizerPatch removes finalizer f from o, guarded by a test of its
// position ("" when o does not carry it).
func (r *run) finalizerPatch(o *snapshot.Object, f string) string {
	i := slices.Index(o.Metadata.Finalizers, f)
	if i < 0 {
		return ""
	}
	return fmt.Sprintf(`kubectl patch %s --type=json -p '[{"op":"test","path":"/metadata/finalizers/%d","value":"%s"},{"op":"remove","path":"/metadata/finalizers/%d"}]'`,
		r.ix.kubectlTarget(o.Ref()), i, f, i)
}

func (r *run) ownerRefPatch(o *snapshot.Object, i int, unblock bool) string {
	uid := o.Metadata.OwnerReferences[i].UID
	op := fmt.Sprintf(`{"op":"remove","path":"/metadata/ownerReferences/%d"}`, i)
	if unblock {
		op = fmt.Sprintf(`{"op":"replace","path":"/metadata/ownerReferences/%d/blockOwnerDeletion","value":false}`, i)
	}
	return fmt.Sprintf(`kubectl patch %s --type=json -p '[{"op":"test","path":"/metadata/ownerReferences/%d/uid","value":"%s"},%s]'`,
		r.ix.kubectlTarget(o.Ref()), i, uid, op)
}

// waitTarget is "TYPE/NAME [-n NS]" for kubectl wait.
func (r *run) waitTarget(ref snapshot.ObjectRef) string {
	s := r.ix.kubectlType(ref) + "/" + ref.Name
	if ref.Namespace != "" {
		s += " -n " + ref.Namespace
	}
	return s
}

func relatedName(rc RootCause, kind string) string {
	for _, x := range rc.Related {
		if x.Kind == kind {
			return x.Name
		}
	}
	return ""
}

// strandedRemedies are the ways out of a foreground delete held by a
// cluster-scoped dependent o of the namespaced owner of edge e: the
// collector never deletes o (it cannot resolve the owner:
// namespacedOwnerOfClusterScopedObjectErr), so blockOwnerDeletion=false
// would finish the owner and leak o, and the remedy says so.
func (r *run) strandedRemedies(o *snapshot.Object, e fgEdge) []Remedy {
	never := "the garbage collector never deletes " + o.Ref().String() + ": a cluster-scoped object cannot have a namespaced owner, and the collector, unable to look " +
		e.owner.Ref().String() + " up without a namespace, leaves it alone (event OwnerRefInvalidNamespace)"
	// Deleting o yourself, which finishes the owner, is the root cause's
	// own first remedy (gc-cannot-resolve).
	return []Remedy{{Action: ActionUnblockOwnerReference,
		Description: "Let " + e.owner.Ref().String() + " finish without waiting for " + o.Ref().String() + ": set blockOwnerDeletion=false on its owner reference, then delete " + o.Ref().String() + " yourself",
		Command:     r.ownerRefPatch(o, e.index, true),
		Risk:        "the owner goes, and " + o.Ref().String() + " stays for ever unless you delete it: " + never,
		Leaks:       o.Ref().String() + ", never collected"}}
}

func unblockRisk(o *snapshot.Object) string {
	if o.Terminating() {
		return "the owner is deleted before " + o.Ref().String() + ", which keeps a reference to a deleted owner"
	}
	return "the owner is deleted first; the garbage collector then deletes " + o.Ref().String() + " in the background as a dangling dependent"
}

func removeRefRisk(o *snapshot.Object) string {
	if o.Terminating() {
		return o.Ref().String() + " loses the record of its owner"
	}
	return o.Ref().String() + " outlives its owner and is never garbage collected with it"
}
