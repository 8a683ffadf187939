package plan

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/kgc-dev/kgc/internal/uidtable"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// A delete reaches few of a cluster's objects, and simulating the other
// million costs seconds: their add events, their graph nodes, the
// collector's checks of their owners. reach is the part of the snapshot
// one delete can touch, and the promise that the rest stays still; the
// plan simulates that part alone and falls back to the whole cluster
// (escape) the moment the promise is in doubt, so its document is always
// the whole cluster's.
//
// The part holds the target and every object that could move without the
// delete (stirs), and is closed under what the simulator follows from an
// object to another (closeOver). Outside it, every object is settled: not
// deleting, every owner reference solid. The simulation of the part then
// escapes when
//   - it looks up an object by UID or name that the snapshot holds outside
//     the part (the closure missed a relation);
//   - it lists a namespace's content or a type's objects, and some of them
//     are outside the part;
//   - the part's baseline moves while an object outside the part is
//     observed before its owner: the whole cluster's baseline would
//     interleave that object's read-only check with the part's steps, and
//     the plan lists baseline steps in the order they happen.
type reach struct {
	full *snapshot.Snapshot
	res  *resources
	info []*resInfo // the type of each of full's objects
	// byUID indexes full's objects; in marks the part's.
	byUID *uidtable.Table
	in    []bool
	// owners.Of(i)[k] is the index of the owner that object i's k-th
	// reference names by UID, or -1.
	owners uidtable.Refs
	// dependents of full's object i: depList[depStart[i]:depStart[i+1]].
	depStart, depList []int32
	// sub holds the part's objects in full's order.
	sub *snapshot.Snapshot
	// warnings are the whole snapshot's store warnings.
	warnings []string
	maxRV    int64
	// noRV counts full's objects without a resourceVersion.
	noRV int
	// byType lists full's objects by type, and names indexes the types
	// looked up by name more than a few times, for the escape checks.
	byType map[*resInfo][]int32
	names  map[*resInfo]*typeNames
	// checked are the namespaces whose listing was checked.
	checked map[string]bool
	// escaped says why the part's simulation is not the plan; "" when it is.
	escaped string
}

// newReach finds the part of snap that deleting the object with uid
// target can touch; nil, with the reason, when the simulation needs the
// whole snapshot anyway.
func newReach(snap *snapshot.Snapshot, target string) (*reach, string) {
	r := &reach{full: snap, res: newResources(rules.NewServedTypes(snap)), checked: map[string]bool{}, names: map[*resInfo]*typeNames{}}
	if why := r.indexAll(); why != "" {
		return nil, why
	}
	t, ok := r.byUID.Find(target)
	if !ok {
		return nil, "the target is not in the snapshot"
	}
	r.closeOver(r.stirs(), t)
	r.sub = r.part()
	return r, ""
}

// indexAll types and indexes every object, as the store would, and
// collects the store's warnings. Input the store warns about in other ways
// (an empty or repeated UID) is simulated whole, and so is input whose
// replay order a part could not keep: rules.ReplayOrder compares
// resourceVersions only when both objects have one, so the order of a part
// is the order of the whole only if the objects without one are those
// without a creation time (as an assumed namespace), or none.
func (r *reach) indexAll() string {
	objs := r.full.Objects
	r.info = make([]*resInfo, len(objs))
	var repeats []int
	if r.byUID, repeats = uidtable.New(len(objs), func(i int) string { return objs[i].Metadata.UID }); repeats != nil {
		return "a UID is repeated"
	}
	var warnings typeWarnings
	lone := false // an object with a creation time but no resourceVersion, or the reverse
	var lastAV, lastKind string
	var last *resInfo
	for i := range objs {
		o := &objs[i]
		if o.APIVersion != lastAV || o.Kind != lastKind || last == nil {
			ri, known := r.res.forObject(o)
			warnings.see(o, ri, known)
			lastAV, lastKind, last = o.APIVersion, o.Kind, ri
		}
		r.info[i] = last
		if o.Metadata.UID == "" {
			return "a UID is empty"
		}
		_, err := strconv.ParseUint(o.Metadata.ResourceVersion, 10, 64)
		if err != nil {
			r.noRV++
		}
		lone = lone || (err == nil) != (o.Metadata.CreationTimestamp != nil)
		r.maxRV = max(r.maxRV, parseRV(o.Metadata.ResourceVersion))
	}
	if r.noRV > 0 && lone {
		return "some objects have a resourceVersion and some do not"
	}
	r.warnings = warnings.list
	return ""
}

// numberRVs gives the part's objects without a resourceVersion the ones
// the whole snapshot's store gives them: the next after the highest, in
// the snapshot's order.
func (r *reach) numberRVs(st *store) {
	k, n := 0, int64(0)
	for i := range r.full.Objects {
		if r.full.Objects[i].Metadata.ResourceVersion == "" {
			n++
			if r.in[i] {
				st.objs[k].Metadata.ResourceVersion = strconv.FormatInt(r.maxRV+n, 10)
			}
		}
		if r.in[i] {
			k++
		}
	}
	st.rv = r.maxRV + n
}

// stirs lists the objects that could move without the delete: deleting
// ones, pods the Job controller tracks, and objects with an owner
// reference that is not solid. It indexes the dependents on the way.
func (r *reach) stirs() []int32 {
	objs := r.full.Objects
	r.resolveRefs()
	var out []int32
	solid := r.solidCache()
	for i := range objs {
		o := &objs[i]
		moves := o.Metadata.DeletionTimestamp != nil || (isKind(r.info[i], "", "Pod") && hasFin(o, rules.FinalizerJob))
		for k, ref := range o.Metadata.OwnerReferences {
			if j := r.owners.Of(i)[k]; j < 0 || !solid(int32(i), ref, j) {
				moves = true
			}
		}
		if moves {
			out = append(out, int32(i))
		}
	}
	out = append(out, r.unsettledVolumes()...)
	slices.Sort(out)
	out = slices.Compact(out)
	r.indexDependents()
	return out
}

// unsettledVolumes lists the PersistentVolumes the persistentvolume
// controller acts on without the delete: Released ones, and Bound ones
// whose claim is not in the snapshot.
func (r *reach) unsettledVolumes() []int32 {
	objs := r.full.Objects
	var bound, out []int32
	for i := range objs {
		o := &objs[i]
		if !isKind(r.info[i], "", "PersistentVolume") || o.Facts == nil || o.Facts.PV == nil {
			continue
		}
		switch o.Facts.PV.Phase {
		case rules.VolumeReleased:
			out = append(out, int32(i))
		case rules.VolumeBound:
			bound = append(bound, int32(i))
		}
	}
	if len(bound) == 0 {
		return out
	}
	claims := map[[2]string]string{}
	for i := range objs {
		if o := &objs[i]; isKind(r.info[i], "", "PersistentVolumeClaim") {
			claims[[2]string{o.Metadata.Namespace, o.Metadata.Name}] = o.Metadata.UID
		}
	}
	for _, i := range bound {
		cr := objs[i].Facts.PV.ClaimRef
		if cr == nil {
			continue
		}
		if uid, ok := claims[[2]string{cr.Namespace, cr.Name}]; !ok || (cr.UID != "" && cr.UID != uid) {
			out = append(out, i)
		}
	}
	return out
}

// resolveRefs finds the owner of every reference by UID, on every core.
func (r *reach) resolveRefs() {
	objs := r.full.Objects
	r.owners = r.byUID.Resolve(len(objs), func(i int) int { return len(objs[i].Metadata.OwnerReferences) },
		func(i, k int) string { return objs[i].Metadata.OwnerReferences[k].UID })
}

// indexDependents turns the resolved references around: depList lists
// each object's dependents, in the snapshot's order.
func (r *reach) indexDependents() {
	n := len(r.full.Objects)
	r.depStart = make([]int32, n+1)
	for _, j := range r.owners.Owner {
		if j >= 0 {
			r.depStart[j+1]++
		}
	}
	for i := range n {
		r.depStart[i+1] += r.depStart[i]
	}
	r.depList = make([]int32, r.depStart[n])
	next := slices.Clone(r.depStart[:n])
	for i := range n {
		for _, j := range r.owners.Of(i) {
			if j >= 0 {
				r.depList[next[j]] = int32(i)
				next[j]++
			}
		}
	}
}

// solidCache is solid with the REST mapping of each apiVersion and kind
// looked up once.
func (r *reach) solidCache() func(i int32, ref snapshot.OwnerReference, j int32) bool {
	type avk struct{ apiVersion, kind string }
	mapped := map[avk]*resInfo{}
	return func(i int32, ref snapshot.OwnerReference, j int32) bool {
		m, ok := mapped[avk{ref.APIVersion, ref.Kind}]
		if !ok {
			m = r.res.mapping(ref.APIVersion, ref.Kind)
			mapped[avk{ref.APIVersion, ref.Kind}] = m
		}
		return r.solid(i, ref, j, m)
	}
}

// solid reports whether dependent i's reference ref to object j (m is
// ref's REST mapping) is one the collector resolves to j as it is: through
// a watched, listed type, naming the version the collector observes j at
// (another makes the graph builder check the dependent), under j's name and, for a namespaced owner, in i's namespace. Anything
// else makes the collector look further (virtual nodes, identity checks),
// so i is simulated.
func (r *reach) solid(i int32, ref snapshot.OwnerReference, j int32, m *resInfo) bool {
	owner, ri := &r.full.Objects[j], r.info[j]
	if m != ri || ref.APIVersion != ri.apiVersion || !ri.monitored || !ri.listed || ref.Name != owner.Metadata.Name {
		return false
	}
	return !ri.namespaced || (r.info[i].namespaced && owner.Metadata.Namespace == r.full.Objects[i].Metadata.Namespace)
}

// closeOver puts into the part the seeds, the target and everything the
// simulator follows from them: owners and dependents, a pod's node, a
// namespaced object's namespace, all the content of a namespace that is
// deleted or whose claims the pvc-protection controller checks, a deleted
// CRD's instances, a volume's claim and a claim's volume, and the APIServices a namespace's
// finalization asks about.
func (r *reach) closeOver(seeds []int32, target int32) {
	objs := r.full.Objects
	r.in = make([]bool, len(objs))
	named := r.namedObjects()
	queue := seeds
	wantNS, wantType, wantClaim, wantVolume := map[string]bool{}, map[*resInfo]bool{}, map[[2]string]bool{}, map[string]bool{}
	add := func(i int32) {
		if !r.in[i] {
			r.in[i] = true
			queue = append(queue, i)
		}
	}
	for _, s := range seeds {
		r.in[s] = true
	}
	add(target)
	for len(queue) > 0 || len(wantNS)+len(wantType)+len(wantClaim)+len(wantVolume) > 0 {
		for len(queue) > 0 {
			i := queue[0]
			queue = queue[1:]
			o, ri := &objs[i], r.info[i]
			for _, j := range r.owners.Of(int(i)) {
				if j >= 0 {
					add(j)
				}
			}
			for _, d := range r.depList[r.depStart[i]:r.depStart[i+1]] {
				add(d)
			}
			for _, j := range named.related(o, ri) {
				add(j)
			}
			deleted := o.Metadata.DeletionTimestamp != nil || i == target
			switch {
			case ri.isNamespace && deleted:
				wantNS[o.Metadata.Name] = true
			case ri.isCRD && deleted && o.Facts != nil && o.Facts.CRD != nil:
				if t, ok := r.res.byGK[gk{o.Facts.CRD.Group, o.Facts.CRD.Kind}]; ok {
					wantType[t] = true
				}
			case isKind(ri, "", "PersistentVolumeClaim"):
				wantNS[o.Metadata.Namespace] = true
				if o.Facts != nil && o.Facts.PVC != nil && o.Facts.PVC.VolumeName != "" {
					wantVolume[o.Facts.PVC.VolumeName] = true
				}
			case isKind(ri, "", "PersistentVolume") && o.Facts != nil && o.Facts.PV != nil && o.Facts.PV.ClaimRef != nil:
				wantClaim[[2]string{o.Facts.PV.ClaimRef.Namespace, o.Facts.PV.ClaimRef.Name}] = true
			}
		}
		if len(wantNS)+len(wantType)+len(wantClaim)+len(wantVolume) == 0 {
			break
		}
		// One pass over the snapshot for everything asked for since the last.
		for k := range objs {
			o, ri := &objs[k], r.info[k]
			if wantNS[o.Metadata.Namespace] && ri.namespaced || wantType[ri] ||
				isKind(ri, "", "PersistentVolumeClaim") && wantClaim[[2]string{o.Metadata.Namespace, o.Metadata.Name}] ||
				isKind(ri, "", "PersistentVolume") && wantVolume[o.Metadata.Name] {
				add(int32(k))
			}
		}
		clear(wantNS)
		clear(wantType)
		clear(wantClaim)
		clear(wantVolume)
	}
}

// named finds the few cluster-scoped objects the simulator looks up by
// name from another: nodes, namespaces, and the APIServices.
type named struct {
	nodes, namespaces map[string]int32
	apiServices       []int32
}

func (r *reach) namedObjects() named {
	n := named{nodes: map[string]int32{}, namespaces: map[string]int32{}}
	for i, ri := range r.info {
		switch {
		case isKind(ri, "", "Node"):
			n.nodes[r.full.Objects[i].Metadata.Name] = int32(i)
		case ri.isNamespace:
			n.namespaces[r.full.Objects[i].Metadata.Name] = int32(i)
		case isKind(ri, "apiregistration.k8s.io", "APIService"):
			n.apiServices = append(n.apiServices, int32(i))
		}
	}
	return n
}

// related lists what the simulator looks up from o by name: a pod's node
// (the kubelet, PodGC), a namespaced object's namespace (whether its
// controller can create it again), and for a namespace the APIServices
// (whether discovery lets it be finalized).
func (n named) related(o *snapshot.Object, ri *resInfo) []int32 {
	var out []int32
	if f := rules.PodFacts(o); f != nil && isKind(ri, "", "Pod") {
		if j, ok := n.nodes[f.NodeName]; ok {
			out = append(out, j)
		}
	}
	if j, ok := n.namespaces[o.Metadata.Namespace]; ok && ri.namespaced {
		out = append(out, j)
	}
	if ri.isNamespace {
		out = append(out, n.apiServices...)
	}
	return out
}

// part is the snapshot of the part's objects, in full's order.
func (r *reach) part() *snapshot.Snapshot {
	sub := *r.full
	sub.Objects = nil
	for i, in := range r.in {
		if in {
			sub.Objects = append(sub.Objects, r.full.Objects[i])
		}
	}
	return &sub
}

// escape records why the part's simulation cannot stand for the whole
// cluster's; the first reason stays.
func (r *reach) escape(why string) {
	if r.escaped == "" {
		r.escaped = why
	}
}

// baselineMoved is told that the part's baseline moved. The whole
// cluster's baseline then has the same steps in the same order only if
// the collector queues nothing for the objects outside the part. A settled
// object queues one read-only check when it is observed before one of its
// owners (addDependentToOwners: a virtual owner node), and those checks
// would take the collector's workers in turn with the part's.
func (r *reach) baselineMoved() {
	objs := r.full.Objects
	sorted := snapshot.Sorted(objs)
	for i := range objs {
		if r.in[i] {
			continue
		}
		for _, j := range r.owners.Of(i) {
			if rules.ObservedBefore(objs, int32(i), j, sorted) {
				r.escape("its baseline moves, and " + objs[i].Ref().String() + ", outside the part, is observed before its owner")
				return
			}
		}
	}
}

// missedUID is told that the part has no object with uid.
func (r *reach) missedUID(uid string) {
	if j, ok := r.byUID.Find(uid); ok && !r.in[j] {
		r.escape("it looks up " + r.full.Objects[j].Ref().String() + ", outside the part")
	}
}

// missedName is told that the part has no object under the store's key k.
func (r *reach) missedName(k nameKey) {
	if j, ok := r.named(k.ri).find(r, k); ok && !r.in[j] {
		r.escape("it looks up " + r.full.Objects[j].Ref().String() + ", outside the part")
	}
}

// typeNames finds one type's objects by name: by a pass over them for
// the first few look-ups (a missing namespace, a dangling owner), then
// by a map.
type typeNames struct {
	lookups int
	byName  map[nameKey]int32
}

func (r *reach) named(ri *resInfo) *typeNames {
	t, ok := r.names[ri]
	if !ok {
		t = &typeNames{}
		r.names[ri] = t
	}
	return t
}

func (t *typeNames) find(r *reach, want nameKey) (int32, bool) {
	key := func(j int32) nameKey {
		o := &r.full.Objects[j]
		return keyOf(want.ri, o.Metadata.Namespace, o.Metadata.Name)
	}
	if t.lookups++; t.lookups > 4 && t.byName == nil {
		t.byName = map[nameKey]int32{}
		for _, j := range r.objectsOf(want.ri) {
			if _, dup := t.byName[key(j)]; !dup {
				t.byName[key(j)] = j
			}
		}
	}
	if t.byName != nil {
		j, ok := t.byName[want]
		return j, ok
	}
	for _, j := range r.objectsOf(want.ri) {
		if key(j) == want {
			return j, true
		}
	}
	return -1, false
}

// objectsOf lists full's objects of type ri.
func (r *reach) objectsOf(ri *resInfo) []int32 {
	if r.byType == nil {
		r.byType = map[*resInfo][]int32{}
		for i, t := range r.info {
			r.byType[t] = append(r.byType[t], int32(i))
		}
	}
	return r.byType[ri]
}

// listsNamespace is told that the simulation lists the content of
// namespace ns, as the store indexes it: the objects of namespaced types.
func (r *reach) listsNamespace(ns string) {
	if r.checked[ns] {
		return
	}
	r.checked[ns] = true
	for i := range r.full.Objects {
		if !r.in[i] && r.info[i].namespaced && r.full.Objects[i].Metadata.Namespace == ns {
			r.escape("it lists namespace " + ns + ", which has objects outside the part")
			return
		}
	}
}

// listsType is told that the simulation lists every object of type ri.
func (r *reach) listsType(ri *resInfo) {
	for _, j := range r.objectsOf(ri) {
		if !r.in[j] {
			r.escape(fmt.Sprintf("it lists type %s/%s, which has objects outside the part", ri.group, ri.kind))
			return
		}
	}
}
