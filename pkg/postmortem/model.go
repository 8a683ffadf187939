package postmortem

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// This file places, by kgc's model, an object whose end no evidence shows:
// it was in the before snapshot, no logged request names its going, and
// no after snapshot lists its type (or there is none). When every owner of
// it went with a policy that deletes dependents, the garbage collector
// deletes it; the link says that this is the model's answer, not the
// log's, so a question about the object gets its chain and how sure kgc
// is, never "no deletion".

// endUnseen: the evidence does not show how r ended.
func (ix *index) endUnseen(r *record) bool {
	return r.before != nil && r.after == nil && r.start() == nil && !ix.covers(r) && !ix.gone(r)
}

// modelCause is, by kgc's model, the garbage collector deleting r for
// owners that all went, each with a policy that deletes dependents, or
// else the namespace controller emptying r's namespace.
func (ix *index) modelCause(r *record) (cause, bool) {
	if !ix.endUnseen(r) {
		return cause{}, false
	}
	if c, ok := ix.ownersModel(r); ok {
		return c, true
	}
	ns := ix.namespaceRecord(r.key.namespace)
	if ns == nil || ns == r || ns.start() == nil {
		return cause{}, false
	}
	c := cause{parent: ns, via: ViaNamespace, evidence: EvidenceModel, actor: ActorNamespaceController, likely: true, modeled: true,
		detail: "per kgc's model: the namespace controller deletes everything in a namespace being deleted; not confirmed: no request names its going, and no after snapshot lists its type"}
	if fins := heldBy(r); len(fins) > 0 {
		c.detail = fmt.Sprintf("per kgc's model its deletion started with its namespace's; it held finalizers %s, and the evidence does not show whether they were removed", strings.Join(fins, ", "))
	}
	return c, true
}

// ownersModel is the collector deleting r for owners that all went with
// a policy that deletes dependents.
func (ix *index) ownersModel(r *record) (cause, bool) {
	if len(r.owners) == 0 {
		return cause{}, false
	}
	var last *record
	for _, ref := range r.owners {
		o := ix.ownerOf(r, ref.UID)
		if o == nil || o == r || o.start() == nil || !ix.deletesDependents(o) {
			return cause{}, false
		}
		if last == nil || o.start().ReceivedAt().After(last.start().ReceivedAt()) {
			last = o
		}
	}
	c := cause{parent: last, via: ViaOwnerReference, evidence: EvidenceModel, actor: ActorGarbageCollector, likely: true, modeled: true}
	c.detail = "per kgc's model: the garbage collector deletes a dependent whose owners all went; not confirmed: no request names its going, and no after snapshot lists its type"
	if fins := heldBy(r); len(fins) > 0 {
		c.detail = fmt.Sprintf("per kgc's model its deletion started; it held finalizers %s, and the evidence does not show whether they were removed", strings.Join(fins, ", "))
	}
	return c, true
}

// deletesDependents: the owner's logged DELETE asked for its dependents'
// deletion, as the API server decides it from the request's options, the
// type's default and the finalizers the owner had. Unknown options (a
// Metadata-level log) decide nothing.
func (ix *index) deletesDependents(o *record) bool {
	orphans, known := ix.orphansDependents(o)
	return known && !orphans
}

// orphansDependents says whether the owner's logged DELETE orphans its
// dependents, and whether the log says (its options were logged).
func (ix *index) orphansDependents(o *record) (orphans, known bool) {
	s := o.start()
	if s == nil || s.Verb != "delete" || s.Delete == nil && s.Level != audit.LevelRequest && s.Level != audit.LevelRequestResponse {
		return false, false
	}
	opts := rules.DeleteOptions{}
	if d := s.Delete; d != nil {
		opts = rules.DeleteOptions{Policy: rules.Policy(d.PropagationPolicy), OrphanDependents: d.OrphanDependents}
	}
	var fins []string
	if o.before != nil {
		fins = o.before.Metadata.Finalizers
	}
	ref := o.ref()
	group, version := snapshot.SplitAPIVersion(ref.APIVersion)
	after, _ := rules.TypeGCPolicy(group, ref.Kind, version).DeletionFinalizers(fins, opts)
	return rules.EffectivePolicy(after) == rules.PolicyOrphan, true
}

// optionsKnown: the log holds the options of o's logged DELETE.
func (ix *index) optionsKnown(o *record) bool {
	_, known := ix.orphansDependents(o)
	return known
}

// heldBy lists the finalizers other than the collector's that r had
// before: what may still hold it.
func heldBy(r *record) []string {
	var out []string
	for _, f := range r.before.Metadata.Finalizers {
		if f != rules.FinalizerOrphan && f != rules.FinalizerForeground && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}
