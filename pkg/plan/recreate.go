package plan

import (
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// The reconcile step of the workload and per-namespace controllers: once
// the delete has settled, an object it removed whose owner survives is
// made again by that owner's controller (rules.Recreate decides how). The
// replacement is not simulated as a new object: the plan says, on the
// deleted one, that it comes back (fate recreated), or may (recreatedBy
// with certain false). It runs on the objects the plan deletes only, and
// finds owners through the store's indexes.

// recreatingController is the simulated controller (Options.Controllers)
// behind each actor that recreates.
func recreatingController(actor string) string {
	switch actor {
	case rules.ActorDeployment:
		return ControllerDeployment
	case rules.ActorReplicaSet:
		return ControllerReplicaSet
	case rules.ActorReplicationController:
		return ControllerReplicationController
	case rules.ActorStatefulSet:
		return ControllerStatefulSet
	case rules.ActorDaemonSet:
		return ControllerDaemonSet
	case rules.ActorJob:
		return ControllerJob
	case rules.ActorRootCAPublisher:
		return ControllerRootCAPublisher
	case rules.ActorServiceAccount:
		return ControllerServiceAccount
	case rules.ActorEndpointSlice:
		return ControllerEndpointSlice
	}
	return ""
}

// recreate gives a deleted object (of, whose state before the delete was
// b) its recreation: fate recreated when a simulated controller certainly
// makes it again, recreatedBy with certain false when one may, and the
// reason why not when its owner survives but the controller does not act.
func (s *sim) recreate(of *ObjectFate, b *snapshot.Object) {
	rec, not := rules.Recreate(b, s.recreateLookup())
	if rec == nil {
		if not != "" {
			of.Reason = joinWhy(of.Reason, "not recreated: "+not)
		}
		return
	}
	certain := rec.Certain
	why := rec.Why
	if ctl := recreatingController(rec.Controller); !s.ctrl.enabled[ctl] {
		certain = false
		why = rec.Controller + " is not simulated (--controllers)"
	}
	of.RecreatedBy = &RecreatedBy{Controller: rec.Controller, Owner: rec.Owner, Name: rec.Name, SameName: rec.SameName, NewUID: rec.NewUID, Certain: certain}
	if certain {
		of.Fate = FateRecreated
		of.Reason = joinWhy(of.Reason, "then "+why)
		return
	}
	of.Reason = joinWhy(of.Reason, "may be recreated by "+rec.Controller+" ("+rec.Owner.String()+"): "+why)
}

// recreateLookup reads the store at quiescence.
func (s *sim) recreateLookup() rules.RecreateLookup {
	if s.recLook != nil {
		return *s.recLook
	}
	nsRes, hasNS := s.res.byGK[gk{"", "Namespace"}]
	look := rules.RecreateLookup{
		Object: func(uid string) *snapshot.Object { _, o := s.st.get(uid); return o },
		Namespace: func(name string) (*snapshot.Object, bool) {
			if !hasNS {
				return nil, false
			}
			i, ok := s.st.indexByName(nsRes, "", name)
			if !ok {
				return nil, false
			}
			return s.st.objs[i], true
		},
		Node: s.ctrl.node,
	}
	s.recLook = &look
	return look
}

// replacedWithOwner says, on a pod whose controller owner is recreated,
// what the owner's replacement does with it: a deleted pod is replaced by
// new ones (the pods are gone, not the capacity); an orphaned pod of a
// ReplicaSet that comes back under the same name is adopted again, since
// its pod-template-hash label still matches the selector.
func (s *sim) replacedWithOwner(p *Plan) {
	back := map[string]*ObjectFate{}
	for k := range p.Objects {
		if p.Objects[k].Fate == FateRecreated {
			back[p.Objects[k].Object.UID] = &p.Objects[k]
		}
	}
	if len(back) == 0 {
		return
	}
	for k := range p.Objects {
		of := &p.Objects[k]
		if (of.Fate != FateDeleted && of.Fate != FateOrphaned) || of.Object.Kind != "Pod" {
			continue
		}
		i, _ := s.st.index(of.Object.UID)
		pod := s.st.orig[i]
		for _, r := range pod.Metadata.OwnerReferences {
			owner, ok := back[r.UID]
			if !ok || !r.IsController() {
				continue
			}
			o := owner.Object
			switch {
			case of.Fate == FateDeleted:
				of.Reason = joinWhy(of.Reason, o.String()+" comes back and creates new pods")
			case o.Kind == "ReplicaSet" && owner.RecreatedBy.SameName:
				j, _ := s.st.index(o.UID)
				rs := s.st.orig[j]
				if h := rs.Metadata.Labels[rules.LabelPodTemplateHash]; h != "" && pod.Metadata.Labels[rules.LabelPodTemplateHash] == h {
					of.Reason = joinWhy(of.Reason, o.String()+" comes back and adopts it again (its "+rules.LabelPodTemplateHash+" label matches)")
					replacement := o
					replacement.UID = ""
					of.AdoptedBy = &AdoptedBy{Controller: rules.ActorReplicaSet, Owner: replacement}
				}
			}
		}
	}
}
