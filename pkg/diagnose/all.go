package diagnose

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// All diagnoses every terminating object in scope: the whole snapshot when
// namespace is "", otherwise the objects in that namespace plus the
// namespace itself. Items and groups are oldest first, so the longest-stuck
// deletions lead.
func (d *Diagnoser) All(namespace string) *DiagnosisList {
	var targets []*snapshot.Object
	seen := map[string]bool{}
	for i := range d.ix.snap.Objects {
		o := &d.ix.snap.Objects[i]
		if !o.Terminating() || o.Metadata.UID == "" || seen[o.Metadata.UID] {
			continue
		}
		inScope := namespace == "" || o.Metadata.Namespace == namespace ||
			(isKind(o, "", "Namespace") && o.Metadata.Name == namespace)
		if inScope {
			seen[o.Metadata.UID] = true
			targets = append(targets, o)
		}
	}
	return d.list(targets)
}

// List diagnoses the objects with these UIDs, as All does those of a
// namespace: the terminating ones grouped by root cause, oldest first,
// then the others (which hold nothing) in the order given.
func (d *Diagnoser) List(uids ...string) (*DiagnosisList, error) {
	var targets, others []*snapshot.Object
	seen := map[string]bool{}
	for _, uid := range uids {
		o := d.ix.byUID(uid)
		switch {
		case o == nil:
			return nil, unknownUID(uid)
		case seen[uid]:
		case o.Terminating():
			targets = append(targets, o)
		default:
			others = append(others, o)
		}
		seen[uid] = true
	}
	return d.list(append(targets, others...)), nil
}

// list diagnoses targets into list: terminating ones first, oldest first.
func (d *Diagnoser) list(targets []*snapshot.Object) *DiagnosisList {
	at := d.ix.snap.CapturedAt
	list := &DiagnosisList{APIVersion: snapshot.APIVersion, Kind: KindDiagnosisList, CapturedAt: at, Groups: []Group{}, Items: []Diagnosis{}, Cluster: plan.ClusterOf(d.ix.snap)}
	n := 0
	for n < len(targets) && targets[n].Terminating() {
		n++
	}
	sort.SliceStable(targets[:n], func(i, j int) bool { return olderFirst(targets[i], targets[j]) })
	// One replay of the graph about every target, rather than one more
	// each time a diagnosis reaches a target outside the graph so far.
	uids := make([]string, len(targets))
	for i, o := range targets {
		uids[i] = o.Metadata.UID
	}
	d.ix.graphAbout(uids...)

	groups := map[string]*Group{}
	var order []string
	for _, o := range targets {
		diag, err := d.Diagnose(o.Metadata.UID)
		if err != nil {
			// Diagnose fails only for an unknown UID; targets come from the
			// snapshot itself.
			continue
		}
		list.Items = append(list.Items, *diag)
		if !o.Terminating() {
			continue
		}
		held := Held{Object: o.Ref(), Since: o.Metadata.DeletionTimestamp.UTC(), AgeSeconds: int64(at.Sub(*o.Metadata.DeletionTimestamp) / time.Second)}
		for _, rc := range diag.RootCauses {
			key := rootKey(rc)
			byController := controllerGroupKey(rc)
			if byController != "" {
				key = byController
			}
			g, ok := groups[key]
			if !ok {
				g = &Group{RootCause: rc}
				g.RootCause.Holds = nil
				if byController != "" {
					g.Controller = rc.Controller
				}
				groups[key] = g
				order = append(order, key)
			}
			if g.Controller != "" {
				g.Finalizers = appendString(g.Finalizers, rc.Finalizer)
				g.RootObjects = appendRef(g.RootObjects, rc.Object)
			}
			dup := false
			for _, h := range g.Objects {
				if h.Object.UID == held.Object.UID {
					dup = true
				}
			}
			if !dup {
				g.Objects = append(g.Objects, held)
			}
			for _, h := range rc.Holds {
				g.RootCause.Holds = appendRef(g.RootCause.Holds, h)
			}
		}
	}
	// Targets were visited oldest first, so each group's objects are
	// already oldest first and its first object is its oldest.
	sort.SliceStable(order, func(i, j int) bool {
		a, b := groups[order[i]].Objects[0], groups[order[j]].Objects[0]
		if !a.Since.Equal(b.Since) {
			return a.Since.Before(b.Since)
		}
		return order[i] < order[j]
	})
	for _, k := range order {
		g := groups[k]
		if g.Controller != "" {
			g.Summary = controllerSummary(g)
		}
		list.Groups = append(list.Groups, *g)
	}
	return list
}

func olderFirst(a, b *snapshot.Object) bool {
	ta, tb := *a.Metadata.DeletionTimestamp, *b.Metadata.DeletionTimestamp
	if !ta.Equal(tb) {
		return ta.Before(tb)
	}
	return a.Ref().Less(b.Ref())
}

// controllerGroupKey groups, in triage, the root causes of one missing or
// stalled controller: every object whose finalizer it does not remove is
// one thing to fix, not one per object. "" for other root causes.
func controllerGroupKey(rc RootCause) string {
	switch rc.Reason {
	case ReasonControllerTerminating, ReasonControllerNotFinishing, ReasonControllerAbsent, ReasonControllerPending, ReasonControllerForbidden:
		if rc.Controller != "" && rc.Attribution != nil && rc.Attribution.Evidence != EvidenceNone {
			return "controller|" + rc.Reason + "|" + rc.Controller
		}
	}
	return ""
}

// controllerSummary says what a controller's group is in one line:
// "DaemonSet/longhorn-system/longhorn-manager is gone with its namespace
// (longhorn-system is being deleted): 11 objects hold longhorn.io".
func controllerSummary(g *Group) string {
	state := map[string]string{
		ReasonControllerTerminating:  "is gone, or going, with its namespace",
		ReasonControllerNotFinishing: "runs and is available, but is not finishing its cleanup",
		ReasonControllerAbsent:       "is not installed",
		ReasonControllerPending:      "has not removed its finalizers",
		ReasonControllerForbidden:    "runs, but RBAC forbids it to remove its finalizers",
	}[g.RootCause.Reason]
	return g.Controller + " " + state + ": " + plural(len(g.RootObjects), "object") + " " + holdWord(len(g.RootObjects)) + " " + strings.Join(g.Finalizers, ", ")
}

func holdWord(n int) string {
	if n == 1 {
		return "holds"
	}
	return "hold"
}

func appendString(l []string, s string) []string {
	if s == "" || slices.Contains(l, s) {
		return l
	}
	l = append(l, s)
	slices.Sort(l)
	return l
}
