package plan

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// The store is the simulated API server: every object by UID, a logical
// clock and resourceVersions, and the delete/update semantics of the
// generic registry (spec §1). Objects are never modified in place: every
// write stores a fresh shallow copy with fresh slices, so the snapshot is
// never touched and a saved slice of pointers is a cheap checkpoint.

var (
	errNotFound = errors.New("not found")
	errConflict = errors.New("conflict")
	errInvalid  = errors.New("invalid")
)

type eventType uint8

const (
	addEvent eventType = iota
	updateEvent
	deleteEvent
)

type nameKey struct {
	ri       *resInfo
	ns, name string
}

// keyOf is the store's key for the object of type ri named name in ns: a
// cluster-scoped type's objects are found without a namespace, whatever
// their metadata says.
func keyOf(ri *resInfo, ns, name string) nameKey {
	if !ri.namespaced {
		ns = ""
	}
	return nameKey{ri, ns, name}
}

// typeWarnings collects the warning on the first object of each type the
// catalog lacks.
type typeWarnings struct {
	warned map[gk]bool
	list   []string
}

// see is told o's type, ri, and whether the catalog knew it.
func (w *typeWarnings) see(o *snapshot.Object, ri *resInfo, known bool) {
	if known || w.warned[gk{ri.group, ri.kind}] {
		return
	}
	if w.warned == nil {
		w.warned = map[gk]bool{}
	}
	w.warned[gk{ri.group, ri.kind}] = true
	w.list = append(w.list, fmt.Sprintf("type %s/%s is not in the snapshot's resource catalog: assumed served at %s and watched by the garbage collector", o.APIVersion, o.Kind, o.APIVersion))
}

type store struct {
	res    *resources
	objs   []*snapshot.Object // current state; nil once deleted
	orig   []*snapshot.Object
	info   []*resInfo
	byUID  map[string]int32
	byName map[nameKey]int32
	// reach is set when the store holds part of the snapshot (reach.go).
	reach  *reach
	now    time.Time
	rv     int64
	writes int
	// onChange receives every persisted change (old nil on add, new nil on delete).
	onChange func(i int32, typ eventType, old, new *snapshot.Object)
	// record receives the steps; wave is the causal depth of the write.
	record func(actor, action string, o *snapshot.Object, policy Policy, detail string)
}

func newStore(snap *snapshot.Snapshot, res *resources) (*store, []string) {
	n := len(snap.Objects)
	s := &store{res: res, objs: make([]*snapshot.Object, n), orig: make([]*snapshot.Object, n),
		info: make([]*resInfo, n), byUID: make(map[string]int32, n), byName: make(map[nameKey]int32, n),
		now: snap.CapturedAt}
	var warnings typeWarnings
	var missingRV []int32
	for i := range snap.Objects {
		o := &snap.Objects[i]
		ri, known := res.forObject(o)
		warnings.see(o, ri, known)
		if _, dup := s.byUID[o.Metadata.UID]; dup || o.Metadata.UID == "" {
			warnings.list = append(warnings.list, fmt.Sprintf("%s: duplicate or empty uid %q: ignored", o.Ref(), o.Metadata.UID))
			continue
		}
		s.objs[i], s.orig[i], s.info[i] = o, o, ri
		if o.Metadata.ResourceVersion == "" {
			missingRV = append(missingRV, int32(i))
		}
		s.byUID[o.Metadata.UID] = int32(i)
		s.byName[keyOf(ri, o.Metadata.Namespace, o.Metadata.Name)] = int32(i)
		if v := parseRV(o.Metadata.ResourceVersion); v > s.rv {
			s.rv = v
		}
	}
	// Every stored object has a resourceVersion, and the GC's deletes
	// carry it as a precondition (which matters: a patch between its GET
	// and its DELETE makes the DELETE fail). Objects read without one get one.
	for _, i := range missingRV {
		c := clone(s.objs[i])
		c.Metadata.ResourceVersion = s.nextRV()
		s.objs[i] = c
	}
	return s, warnings.list
}

// index finds the object with uid, deleted or not. A simulation of part
// of the snapshot escapes when the object is outside the part.
func (s *store) index(uid string) (int32, bool) {
	i, ok := s.byUID[uid]
	if !ok && s.reach != nil {
		s.reach.missedUID(uid)
	}
	return i, ok
}

// indexByName is index by type, namespace and name.
func (s *store) indexByName(ri *resInfo, ns, name string) (int32, bool) {
	k := keyOf(ri, ns, name)
	i, ok := s.byName[k]
	if !ok && s.reach != nil {
		s.reach.missedName(k)
	}
	return i, ok
}

func (s *store) get(uid string) (int32, *snapshot.Object) {
	i, ok := s.index(uid)
	if !ok || s.objs[i] == nil {
		return -1, nil
	}
	return i, s.objs[i]
}

// getByName is a GET through the type's REST mapping.
func (s *store) getByName(ri *resInfo, ns, name string) (int32, *snapshot.Object) {
	i, ok := s.indexByName(ri, ns, name)
	if !ok || s.objs[i] == nil {
		return -1, nil
	}
	return i, s.objs[i]
}

// clone returns a shallow copy with private finalizer and ownerRef slices.
func clone(o *snapshot.Object) *snapshot.Object {
	c := *o
	c.Metadata.Finalizers = slices.Clone(o.Metadata.Finalizers)
	c.Metadata.OwnerReferences = slices.Clone(o.Metadata.OwnerReferences)
	return &c
}

func (s *store) nextRV() string {
	s.rv++
	return strconv.FormatInt(s.rv, 10)
}

// persist writes n as the new state of object i and emits an update event.
func (s *store) persist(i int32, n *snapshot.Object) {
	old := s.objs[i]
	if unchanged(old, n) {
		// etcd3's GuaranteedUpdate skips a write that changes nothing: no
		// new resourceVersion, no watch event.
		return
	}
	n.Metadata.ResourceVersion = s.nextRV()
	s.objs[i] = n
	s.writes++
	s.onChange(i, updateEvent, old, n)
}

// remove deletes object i from storage and emits a delete event.
func (s *store) remove(i int32) {
	old := s.objs[i]
	s.objs[i] = nil
	s.writes++
	s.onChange(i, deleteEvent, old, nil)
}

// deleteOptions mirrors metav1.DeleteOptions: the fields that decide the
// GC finalizers (rules.DeleteOptions), the grace period and the
// preconditions.
type deleteOptions struct {
	rules.DeleteOptions
	grace      *int64
	precondUID string
	precondRV  string
}

func hasFin(o *snapshot.Object, f string) bool { return slices.Contains(o.Metadata.Finalizers, f) }

// beforeDelete is rest.BeforeDelete on a copy c of the object: it may set
// deletionTimestamp/grace on c. It returns graceful, pendingGraceful and
// the grace period of a graceful delete.
func (s *store) beforeDelete(ri *resInfo, c *snapshot.Object, opts *deleteOptions) (bool, bool, int64) {
	if opts.grace != nil && *opts.grace < 0 {
		one := int64(1)
		opts.grace = &one
	}
	if !ri.graceful {
		return false, false, 0
	}
	m := &c.Metadata
	if m.DeletionTimestamp != nil {
		if m.DeletionGracePeriodSeconds == nil || *m.DeletionGracePeriodSeconds == 0 {
			return false, false, 0
		}
		if opts.grace != nil {
			period := *opts.grace
			if period >= *m.DeletionGracePeriodSeconds {
				return false, true, 0
			}
			nt := m.DeletionTimestamp.Add(-time.Duration(*m.DeletionGracePeriodSeconds) * time.Second).Add(time.Duration(period) * time.Second)
			if nt.Before(s.now) {
				nt = s.now
				if period != 0 {
					period = 1
				}
			}
			m.DeletionTimestamp = &nt
			m.DeletionGracePeriodSeconds = &period
			return true, false, *opts.grace
		}
		return false, true, 0
	}
	p := rules.PodDeleteGrace(c, opts.grace)
	t := s.now.Add(time.Duration(p) * time.Second)
	m.DeletionTimestamp = &t
	m.DeletionGracePeriodSeconds = &p
	if m.Generation > 0 {
		m.Generation++
	}
	return true, false, p
}

// markAsDeleting sets deletionTimestamp (never later than an existing one)
// and a zero grace period.
func (s *store) markAsDeleting(c *snapshot.Object) {
	m := &c.Metadata
	if m.DeletionTimestamp == nil || m.DeletionTimestamp.After(s.now) {
		if m.DeletionTimestamp == nil && m.Generation > 0 {
			m.Generation++
		}
		t := s.now
		m.DeletionTimestamp = &t
	}
	zero := int64(0)
	m.DeletionGracePeriodSeconds = &zero
}

func checkPreconditions(o *snapshot.Object, opts deleteOptions) error {
	if opts.precondUID != "" && opts.precondUID != o.Metadata.UID {
		return fmt.Errorf("%w: uid precondition %s does not match %s", errConflict, opts.precondUID, o.Metadata.UID)
	}
	if opts.precondRV != "" && opts.precondRV != o.Metadata.ResourceVersion {
		return fmt.Errorf("%w: resourceVersion precondition %s does not match %s", errConflict, opts.precondRV, o.Metadata.ResourceVersion)
	}
	return nil
}

// delete is the DELETE verb on object i (STORE Delete, with the Namespace
// and CRD REST overrides).
func (s *store) delete(actor string, i int32, opts deleteOptions, why string) error {
	o := s.objs[i]
	if o == nil {
		return errNotFound
	}
	ri := s.info[i]
	if opts.OrphanDependents != nil && opts.Policy != PolicyDefault {
		return fmt.Errorf("%w: orphanDependents and propagationPolicy may not both be set", errInvalid)
	}
	if err := checkPreconditions(o, opts); err != nil {
		return err
	}
	switch {
	case ri.isNamespace:
		if o.Metadata.DeletionTimestamp == nil {
			return s.namespaceFirstDelete(actor, i, opts, why)
		}
		if nsSpecFinalizers(o) != nil {
			return nil
		}
	case ri.isCRD:
		if o.Metadata.DeletionTimestamp == nil {
			return s.crdFirstDelete(actor, i, why)
		}
	}
	return s.genericDelete(actor, i, opts, why)
}

// genericDelete is the generic registry's Store.Delete once the request
// is checked: BeforeDelete, then the update that marks the object as
// being deleted while finalizers or a grace period hold it, or its
// removal.
func (s *store) genericDelete(actor string, i int32, opts deleteOptions, why string) error {
	o, ri := s.objs[i], s.info[i]
	c := clone(o)
	graceful, pending, grace := s.beforeDelete(ri, c, &opts)
	if pending {
		return nil
	}
	nf, gcChange := ri.gc.DeletionFinalizers(o.Metadata.Finalizers, opts.DeleteOptions)
	policy := sentPolicy(opts, nf)
	if !graceful && len(o.Metadata.Finalizers) == 0 && !gcChange {
		return s.removeDeleted(actor, i, o, policy, why)
	}
	c.Metadata.Finalizers = slices.Clone(nf)
	switch {
	case graceful && (len(nf) > 0 || grace > 0):
		return s.persistDeleting(actor, i, c, ActionMarkDeleting, policy, joinWhy(why, graceDetail(grace, nf)))
	case graceful:
		// A pod with nothing pending: the timestamp is persisted, then it
		// goes at once.
		s.persist(i, c)
		return s.removeDeleted(actor, i, o, policy, why)
	case len(nf) == 0:
		return s.removeDeleted(actor, i, o, policy, why)
	}
	s.markAsDeleting(c)
	return s.persistDeleting(actor, i, c, deletingAction(o, nf, gcChange), policy, joinWhy(why, "finalizers "+finList(nf)))
}

// persistDeleting ends a DELETE that leaves object i in storage as c,
// marked as being deleted or with its GC finalizers changed: the step is
// recorded (none when action is ""), then c is written with its watch
// event.
func (s *store) persistDeleting(actor string, i int32, c *snapshot.Object, action string, policy Policy, detail string) error {
	if action != "" {
		s.record(actor, action, c, policy, detail)
	}
	s.persist(i, c)
	return nil
}

// removeDeleted ends a DELETE that removes object i, o before the
// request: the step is recorded, then the object goes with its watch
// event.
func (s *store) removeDeleted(actor string, i int32, o *snapshot.Object, policy Policy, why string) error {
	s.record(actor, ActionDelete, o, policy, why)
	s.remove(i)
	return nil
}

// deletingAction names the step of a non-graceful DELETE that leaves o in
// storage with finalizers nf: marked deleting or, when it already was, a
// GC finalizer added or removed. A repeated DELETE that changes nothing
// the contract shows gets no step (""), though the write happens.
func deletingAction(o *snapshot.Object, nf []string, gcChange bool) string {
	switch {
	case o.Metadata.DeletionTimestamp == nil:
		return ActionMarkDeleting
	case !gcChange:
		return ""
	case len(nf) <= len(o.Metadata.Finalizers):
		return ActionRemoveFin
	}
	return ActionAddFinalizer
}

// graceDetail says what holds a pod a graceful DELETE marked.
func graceDetail(grace int64, nf []string) string {
	detail := fmt.Sprintf("grace period %ds", grace)
	if len(nf) > 0 {
		detail += ", finalizers " + finList(nf)
	}
	return detail
}

// crdFirstDelete is the CRD REST Delete of a CRD without
// deletionTimestamp (apiextensions-apiserver's
// customresourcedefinition/etcd.go): whatever the options, it sets the
// timestamp and adds the cleanup finalizer.
func (s *store) crdFirstDelete(actor string, i int32, why string) error {
	c := clone(s.objs[i])
	t := s.now
	c.Metadata.DeletionTimestamp = &t
	if !hasFin(c, rules.FinalizerCRD) {
		c.Metadata.Finalizers = append(c.Metadata.Finalizers, rules.FinalizerCRD)
	}
	return s.persistDeleting(actor, i, c, ActionMarkDeleting, PolicyDefault, joinWhy(why, "the CRD registry ignores the propagation policy and adds "+rules.FinalizerCRD))
}

// namespaceFirstDelete is the Namespace REST Delete of a namespace without
// deletionTimestamp: set it and phase Terminating, and add or drop the GC
// finalizers by the options (pkg/registry/core/namespace/storage).
func (s *store) namespaceFirstDelete(actor string, i int32, opts deleteOptions, why string) error {
	o := s.objs[i]
	c := clone(o)
	t := s.now
	c.Metadata.DeletionTimestamp = &t
	c.Facts = terminatingNamespaceFacts(o.Facts)
	if fins := rules.NamespaceDeleteFinalizers(o.Metadata.Finalizers, opts.DeleteOptions); !rules.SameSet(fins, o.Metadata.Finalizers) {
		c.Metadata.Finalizers = fins
	}
	detail := "phase Terminating; the namespace controller deletes its content"
	if len(c.Metadata.Finalizers) > 0 {
		detail += "; finalizers " + finList(c.Metadata.Finalizers)
	}
	return s.persistDeleting(actor, i, c, ActionMarkDeleting, rules.EffectivePolicy(c.Metadata.Finalizers), joinWhy(why, detail))
}

func nsSpecFinalizers(o *snapshot.Object) []string {
	if o.Facts == nil || o.Facts.Namespace == nil {
		return nil
	}
	return o.Facts.Namespace.SpecFinalizers
}

// terminatingNamespaceFacts are a namespace's facts once its deletion has
// begun: phase Terminating, the rest kept.
func terminatingNamespaceFacts(f *snapshot.Facts) *snapshot.Facts {
	var nf snapshot.Facts
	var ns snapshot.NamespaceFacts
	if f != nil {
		nf = *f
		if f.Namespace != nil {
			ns = *f.Namespace
		}
	} else {
		// A namespace read without facts still carries the "kubernetes"
		// spec finalizer every namespace gets at creation.
		ns.SpecFinalizers = []string{rules.FinalizerNamespace}
	}
	ns.Phase = "Terminating"
	nf.Namespace = &ns
	return &nf
}

// update writes c (a clone of object i with changes) as an Update/Patch
// does, and deletes the object in the same request when the last
// finalizer went on an object being deleted with no grace period left
// (ShouldDeleteDuringUpdate, §1.5).
func (s *store) update(actor string, i int32, c *snapshot.Object) {
	m := &c.Metadata
	ri := s.info[i]
	if len(m.Finalizers) == 0 && m.DeletionTimestamp != nil &&
		(m.DeletionGracePeriodSeconds == nil || *m.DeletionGracePeriodSeconds == 0) &&
		(!ri.isNamespace || len(nsSpecFinalizers(c)) == 0) {
		s.record(rules.ActorAPIServer, ActionDelete, c, PolicyDefault, "no finalizers left on an object being deleted (update by "+actor+")")
		s.objs[i] = c
		s.remove(i)
		return
	}
	s.persist(i, c)
}

func finList(f []string) string {
	if len(f) == 0 {
		return "[]"
	}
	out := "["
	for i, x := range f {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out + "]"
}

func joinWhy(why, detail string) string {
	switch {
	case why == "":
		return detail
	case detail == "":
		return why
	}
	return why + "; " + detail
}

// sentPolicy is the policy a step shows: the one sent, or for a request
// without one what the API server made of it.
func sentPolicy(opts deleteOptions, nf []string) Policy {
	if opts.Policy != PolicyDefault {
		return opts.Policy
	}
	return rules.EffectivePolicy(nf)
}

// unchanged reports whether a write of n over old would store the same
// object (the fields the simulation reads or writes).
func unchanged(old, n *snapshot.Object) bool {
	a, b := &old.Metadata, &n.Metadata
	return slices.Equal(a.Finalizers, b.Finalizers) &&
		slices.EqualFunc(a.OwnerReferences, b.OwnerReferences, refEqual) &&
		timeEqual(a.DeletionTimestamp, b.DeletionTimestamp) &&
		int64PtrEqual(a.DeletionGracePeriodSeconds, b.DeletionGracePeriodSeconds) &&
		a.Generation == b.Generation && old.Facts == n.Facts
}

func refEqual(a, b snapshot.OwnerReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		boolPtrEqual(a.Controller, b.Controller) && boolPtrEqual(a.BlockOwnerDeletion, b.BlockOwnerDeletion)
}

func timeEqual(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

func int64PtrEqual(a, b *int64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func boolPtrEqual(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// parseRV reads a decimal resourceVersion, 0 when it is not one (without
// the error allocation strconv would make for each of a million objects).
func parseRV(rv string) int64 {
	if rv == "" || len(rv) > 18 {
		return 0
	}
	var v int64
	for i := 0; i < len(rv); i++ {
		c := rv[i]
		if c < '0' || c > '9' {
			return 0
		}
		v = v*10 + int64(c-'0')
	}
	return v
}
