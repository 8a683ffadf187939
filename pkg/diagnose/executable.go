package diagnose

import (
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// RemedyRequest is the one API request that carries out a remedy, guarded
// so that it fails instead of doing more than the diagnosis saw: a DELETE
// with preconditions, or a JSON patch whose test operations pin the
// object's UID, resourceVersion and the whole list it edits.
type RemedyRequest struct {
	// Verb is DELETE or PATCH.
	Verb   string             `json:"verb"`
	Object snapshot.ObjectRef `json:"object"`
	// Preconditions of a DELETE.
	Preconditions *Preconditions `json:"preconditions,omitempty"`
	// GracePeriodSeconds of a DELETE (0 for a force delete).
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
	// Patch is a JSON patch (RFC 6902), application/json-patch+json.
	Patch []PatchOp `json:"patch,omitempty"`
}

// Preconditions pin the object a DELETE may delete.
type Preconditions struct {
	UID             string `json:"uid"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// PatchOp is one JSON patch operation.
type PatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// Request verbs.
const (
	VerbDelete = "DELETE"
	VerbPatch  = "PATCH"
)

// executable gives rem an ID and the guarded request that carries it out,
// when kgc can send it itself: removing a metadata finalizer from the root
// cause's object, force-deleting its pod, deleting the APIService it names
// or tainting its node out-of-service. Other remedies (fixing a
// controller, a namespace's spec finalizer through /finalize) stay for a
// person to carry out.
func (r *run) executable(rem *Remedy, l *leaf) {
	o := l.obj
	if o == nil || o.Metadata.UID == "" {
		return
	}
	switch {
	case rem.Action == ActionRemoveFinalizer && o.HasFinalizer(l.rc.Finalizer):
		rem.Request = removeFinalizerRequest(o, l.rc.Finalizer)
		rem.ID = RemedyID(rem.Action, o.Ref(), l.rc.Finalizer)
	case rem.Action == ActionDeleteAPIService:
		if api := r.relatedObject(l, "APIService"); api != nil {
			rem.Request = &RemedyRequest{Verb: VerbDelete, Object: api.Ref(),
				Preconditions: &Preconditions{UID: api.Metadata.UID, ResourceVersion: api.Metadata.ResourceVersion}}
			rem.ID = RemedyID(rem.Action, api.Ref(), "")
		}
		return
	case rem.Action == ActionTaintOutOfService:
		if node := r.relatedObject(l, "Node"); node != nil {
			rem.Request = taintRequest(node)
			rem.ID = RemedyID(rem.Action, node.Ref(), "")
		}
		return
	case rem.Action == ActionForceDelete:
		zero := int64(0)
		rem.Request = &RemedyRequest{Verb: VerbDelete, Object: o.Ref(), GracePeriodSeconds: &zero,
			Preconditions: &Preconditions{UID: o.Metadata.UID, ResourceVersion: o.Metadata.ResourceVersion}}
		rem.ID = RemedyID(rem.Action, o.Ref(), "")
	}
}

// relatedObject is the root cause's related object of kind, from the
// input, or nil.
func (r *run) relatedObject(l *leaf, kind string) *snapshot.Object {
	for _, ref := range l.rc.Related {
		if ref.Kind == kind && ref.UID != "" {
			return r.ix.byUID(ref.UID)
		}
	}
	return nil
}

// taintRequest adds the out-of-service taint to a node, pinned to the
// node's uid and resourceVersion: taint values are not in a snapshot, so
// the list cannot be tested, but any change to the node since it was read
// fails the patch.
func taintRequest(node *snapshot.Object) *RemedyRequest {
	taint := map[string]string{"key": rules.TaintOutOfService, "value": "nodeshutdown", "effect": "NoExecute"}
	ops := []PatchOp{{Op: "test", Path: "/metadata/uid", Value: node.Metadata.UID}}
	if rv := node.Metadata.ResourceVersion; rv != "" {
		ops = append(ops, PatchOp{Op: "test", Path: "/metadata/resourceVersion", Value: rv})
	}
	if f := node.Facts; f != nil && f.Node != nil && len(f.Node.Taints) > 0 {
		ops = append(ops, PatchOp{Op: "add", Path: "/spec/taints/-", Value: taint})
	} else {
		ops = append(ops, PatchOp{Op: "add", Path: "/spec/taints", Value: []any{taint}})
	}
	return &RemedyRequest{Verb: VerbPatch, Object: node.Ref(), Patch: ops}
}

// removeFinalizerRequest tests the UID, the resourceVersion and the whole
// finalizer list before replacing the list by the same list without f:
// a concurrent change of any of them makes the patch fail, so nothing but
// the named finalizer is ever removed.
func removeFinalizerRequest(o *snapshot.Object, f string) *RemedyRequest {
	was := slices.Clone(o.Metadata.Finalizers)
	now := slices.DeleteFunc(slices.Clone(was), func(x string) bool { return x == f })
	ops := []PatchOp{{Op: "test", Path: "/metadata/uid", Value: o.Metadata.UID}}
	if rv := o.Metadata.ResourceVersion; rv != "" {
		// A dump without resourceVersions cannot pin one; apply always
		// sends the request of a fresh, live diagnosis, which has it.
		ops = append(ops, PatchOp{Op: "test", Path: "/metadata/resourceVersion", Value: rv})
	}
	ops = append(ops, PatchOp{Op: "test", Path: "/metadata/finalizers", Value: was},
		PatchOp{Op: "replace", Path: "/metadata/finalizers", Value: now})
	return &RemedyRequest{Verb: VerbPatch, Object: o.Ref(), Patch: ops}
}

// RemedyID is a remedy's stable name, the same in every diagnosis of the
// same root cause: ACTION:KIND:NAMESPACE/NAME[:FINALIZER] (KIND:NAME for
// a cluster-scoped object), the kind in lower case ("remove-finalizer:widget:shop/gizmo:widgets.example.com/cleanup").
func RemedyID(action string, o snapshot.ObjectRef, finalizer string) string {
	id := action + ":" + strings.ToLower(o.Kind) + ":" + o.Name
	if o.Namespace != "" {
		id = action + ":" + strings.ToLower(o.Kind) + ":" + o.Namespace + "/" + o.Name
	}
	if finalizer != "" {
		id += ":" + finalizer
	}
	return id
}

// FindRemedy returns the remedy with the given ID and the root cause it
// resolves, or false.
func (d *Diagnosis) FindRemedy(id string) (Remedy, RootCause, bool) {
	for _, rem := range d.Remedies {
		if rem.ID == id && rem.RootCause >= 1 && rem.RootCause <= len(d.RootCauses) {
			return rem, d.RootCauses[rem.RootCause-1], true
		}
	}
	return Remedy{}, RootCause{}, false
}
