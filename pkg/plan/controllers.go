package plan

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// The controllers besides the garbage collector that finish deletions:
// the namespace controller (spec §4), the apiextensions CRD finalizer, the
// kubelet and PodGC for terminating pods (§3), the PVC and PV protection
// controllers, the Job controller's pod tracking finalizer, and, under
// --assume-finalizers=remove, whatever controller owns any other finalizer.
// Each decides from the snapshot's facts.

type ctlKind uint8

const (
	kNamespace ctlKind = iota
	kCRD
	kPod
	kPVC
	kPV
	kJobPod
	kAssume
	kVolume
)

type ctlItem struct {
	kind ctlKind
	i    int32
}

type controllers struct {
	s       *sim
	enabled map[string]bool
	q       *queue[ctlItem]
	// lazily built indexes (objects are never created during a simulation)
	byNS     map[string][]int32
	byRes    map[*resInfo][]int32
	termPVCs map[string][]int32 // namespace → PVCs seen terminating
	termPVs  []int32
	jobPods  []int32
	// why says why a controller cannot finish an object now (for blockers).
	why    map[int32]string
	waited map[int32]bool
	vol    volumes
}

func newControllers(s *sim) *controllers {
	c := &controllers{s: s, enabled: map[string]bool{}, q: newQueue[ctlItem]("controllers"),
		termPVCs: map[string][]int32{}, why: map[int32]string{}, waited: map[int32]bool{},
		vol: volumes{fates: map[string]*VolumeFate{}, waited: map[int32]bool{}}}
	for _, n := range s.opts.Controllers {
		c.enabled[n] = true
	}
	return c
}

// handles reports whether a simulated controller removes finalizer f.
func (c *controllers) handles(f string) bool {
	switch f {
	case rules.FinalizerOrphan, rules.FinalizerForeground:
		return true
	case rules.FinalizerCRD:
		return c.enabled[ControllerCRDFinalizer]
	case rules.FinalizerPVC:
		return c.enabled[ControllerPVCProtection]
	case rules.FinalizerPV:
		return c.enabled[ControllerPVProtection]
	case rules.FinalizerJob:
		return c.enabled[ControllerJob]
	}
	return false
}

func isKind(ri *resInfo, group, kind string) bool { return ri.group == group && ri.kind == kind }

func (c *controllers) observe(i int32, ri *resInfo, typ eventType, old, new *snapshot.Object, w int) {
	c.observeVolume(ri, typ, old, new, w)
	if typ == deleteEvent {
		switch {
		case isKind(ri, "", "Pod"):
			for _, p := range c.termPVCs[old.Metadata.Namespace] {
				c.q.add(ctlItem{kPVC, p}, w)
			}
		case isKind(ri, "", "PersistentVolumeClaim"):
			for _, p := range c.termPVs {
				c.q.add(ctlItem{kPV, p}, w)
			}
		case isKind(ri, "batch", "Job"):
			c.wakeJobPods(old.Metadata.UID, w)
		}
		return
	}
	o := new
	deleting := o.Metadata.DeletionTimestamp != nil
	switch {
	case ri.isNamespace:
		if deleting && c.enabled[ControllerNamespace] {
			c.q.add(ctlItem{kNamespace, i}, w)
		}
	case ri.isCRD:
		if deleting && hasFin(o, rules.FinalizerCRD) && c.enabled[ControllerCRDFinalizer] {
			c.q.add(ctlItem{kCRD, i}, w)
		}
	case isKind(ri, "", "Pod"):
		if deleting && o.Metadata.DeletionGracePeriodSeconds != nil && *o.Metadata.DeletionGracePeriodSeconds > 0 {
			c.q.add(ctlItem{kPod, i}, w)
		}
		if hasFin(o, rules.FinalizerJob) && c.enabled[ControllerJob] {
			if !slices.Contains(c.jobPods, i) {
				c.jobPods = append(c.jobPods, i)
			}
			c.q.add(ctlItem{kJobPod, i}, w)
		}
	case isKind(ri, "", "PersistentVolumeClaim"):
		if deleting && hasFin(o, rules.FinalizerPVC) && c.enabled[ControllerPVCProtection] {
			ns := o.Metadata.Namespace
			if !slices.Contains(c.termPVCs[ns], i) {
				c.termPVCs[ns] = append(c.termPVCs[ns], i)
			}
			c.q.add(ctlItem{kPVC, i}, w)
		}
	case isKind(ri, "", "PersistentVolume"):
		if deleting && hasFin(o, rules.FinalizerPV) && c.enabled[ControllerPVProtection] {
			if !slices.Contains(c.termPVs, i) {
				c.termPVs = append(c.termPVs, i)
			}
			c.q.add(ctlItem{kPV, i}, w)
		}
	case isKind(ri, "batch", "Job"):
		c.wakeJobPods(o.Metadata.UID, w)
	}
	if deleting && c.s.opts.AssumeFinalizers == AssumeRemove {
		for _, f := range o.Metadata.Finalizers {
			if !c.handles(f) {
				c.q.add(ctlItem{kAssume, i}, w)
				break
			}
		}
	}
}

// wakeJobPods queues the tracked pods of the Job with uid. The Job
// controller syncs the Job that changed, so it looks again at that Job's
// pods only. Waking every tracked pod of the cluster made one Job's plan
// depend on the other Jobs': their pods, ahead in the queue, let the
// garbage collector act first.
func (c *controllers) wakeJobPods(uid string, w int) {
	for _, p := range c.jobPods {
		if pod := c.obj(p); pod != nil {
			if ref := rules.JobOwner(pod); ref != nil && ref.UID == uid {
				c.q.add(ctlItem{kJobPod, p}, w)
			}
		}
	}
}

func (c *controllers) wake(writes int) bool { return c.q.wake(writes) }

// processOne runs one controller work item.
func (c *controllers) processOne() bool {
	it, w, ok := c.q.pop()
	if !ok {
		return false
	}
	c.s.wave = w
	var retry string
	var delay time.Duration
	switch it.kind {
	case kNamespace:
		retry, delay = c.syncNamespace(it.i)
	case kCRD:
		retry, delay = c.syncCRD(it.i)
	case kPod:
		c.syncPod(it.i)
	case kPVC:
		c.syncPVC(it.i)
	case kPV:
		c.syncPV(it.i)
	case kJobPod:
		c.syncJobPod(it.i)
	case kAssume:
		c.syncAssumed(it.i)
	case kVolume:
		c.syncVolume(it.i)
	}
	// A controller that read what a later wave changed waits in that wave
	// when it retries (observeGone).
	w = max(w, c.s.wave)
	switch {
	case retry == "":
		c.q.forget(it)
	case delay > 0:
		// A delayed requeue (ResourcesRemainingError, CRD instance poll):
		// the clock advances to it only when everything else is idle.
		writes := c.s.st.writes
		c.s.after(delay, func() { c.q.requeue(it, w, writes, retry) })
	default:
		c.q.requeue(it, w, c.s.st.writes, retry)
	}
	return true
}

func (c *controllers) obj(i int32) *snapshot.Object { return c.s.st.objs[i] }

func (c *controllers) indexNS() {
	if c.byNS != nil {
		return
	}
	c.byNS = map[string][]int32{}
	for i, o := range c.s.st.orig {
		if o != nil && o.Metadata.Namespace != "" && c.s.st.info[i].namespaced {
			c.byNS[o.Metadata.Namespace] = append(c.byNS[o.Metadata.Namespace], int32(i))
		}
	}
	for _, l := range c.byNS {
		sort.Slice(l, func(a, b int) bool { return c.s.st.orig[l[a]].Metadata.Name < c.s.st.orig[l[b]].Metadata.Name })
	}
}

// inNamespace lists the objects of namespace ns, as the namespace and
// pvc-protection controllers list them.
func (c *controllers) inNamespace(ns string) []int32 {
	c.indexNS()
	if c.s.st.reach != nil {
		c.s.st.reach.listsNamespace(ns)
	}
	return c.byNS[ns]
}

// ofType lists the objects of type ri.
func (c *controllers) ofType(ri *resInfo) []int32 {
	c.indexRes()
	if c.s.st.reach != nil {
		c.s.st.reach.listsType(ri)
	}
	return c.byRes[ri]
}

func (c *controllers) indexRes() {
	if c.byRes != nil {
		return
	}
	c.byRes = map[*resInfo][]int32{}
	for i, o := range c.s.st.orig {
		if o != nil {
			c.byRes[c.s.st.info[i]] = append(c.byRes[c.s.st.info[i]], int32(i))
		}
	}
}

// syncNamespace is namespacedResourcesDeleter.Delete.
func (c *controllers) syncNamespace(i int32) (string, time.Duration) {
	o := c.obj(i)
	if o == nil || o.Metadata.DeletionTimestamp == nil {
		return "", 0
	}
	if o.Facts == nil || o.Facts.Namespace == nil || o.Facts.Namespace.Phase != "Terminating" {
		n := clone(o)
		n.Facts = terminatingNamespaceFacts(o.Facts)
		c.s.st.persist(i, n)
		o = n
	}
	if !slices.Contains(nsSpecFinalizers(o), rules.FinalizerNamespace) {
		return "", 0
	}
	name := o.Metadata.Name
	content := c.inNamespace(name)
	existing := func(match func(ri *resInfo) bool) []int32 {
		var out []int32
		for _, k := range content {
			if c.s.st.objs[k] != nil && match(c.s.st.info[k]) {
				out = append(out, k)
			}
		}
		return out
	}
	isPod := func(ri *resInfo) bool { return isKind(ri, "", "Pod") }
	bg := deleteOptions{DeleteOptions: rules.DeleteOptions{Policy: PolicyBackground}}
	why := fmt.Sprintf("namespace %s is being deleted (DeleteCollection, propagationPolicy Background)", name)
	for _, k := range existing(isPod) {
		if c.s.st.info[k].hasDelete {
			_ = c.s.st.delete(rules.ActorNamespace, k, bg, why)
		}
	}
	if pods := existing(isPod); len(pods) > 0 {
		c.setConditions(i, pods)
		c.waitStep(i, words.Count(len(pods), "pod")+" "+words.Agree(len(pods), "remains", "remain")+"; other content is deleted only after every pod is gone")
		return "pods remain", c.podEstimate(o, pods)
	}
	// It deletes the rest because the pods are gone: after their deletes.
	c.observeGone(content, isPod)
	// Every other type, in catalog order, as discovery lists them.
	others := existing(func(ri *resInfo) bool { return !isPod(ri) && ri.hasDelete })
	sort.SliceStable(others, func(a, b int) bool {
		return c.resOrder(c.s.st.info[others[a]]) < c.resOrder(c.s.st.info[others[b]])
	})
	for _, k := range others {
		_ = c.s.st.delete(rules.ActorNamespace, k, bg, why)
	}
	if left := existing(func(ri *resInfo) bool { return true }); len(left) > 0 {
		c.setConditions(i, left)
		c.waitStep(i, words.Count(len(left), "object")+" "+words.Agree(len(left), "remains", "remain"))
		return "content remains", 8 * time.Second // estimate 15 s: requeue after 15/2+1
	}
	if why := c.discoveryBlocks(i); why != "" {
		// Woken by the next write: deleting the failing APIService ends it.
		c.why[i] = why
		c.waitStep(i, why)
		return "discovery fails", 0
	}
	o = c.obj(i)
	n := clone(o)
	nf := *terminatingNamespaceFacts(o.Facts)
	ns := *nf.Namespace
	ns.SpecFinalizers = slices.DeleteFunc(slices.Clone(ns.SpecFinalizers), func(f string) bool { return f == rules.FinalizerNamespace })
	ns.Conditions = nil
	nf.Namespace = &ns
	n.Facts = &nf
	c.s.record(rules.ActorNamespace, ActionRemoveFin, n, "", "spec.finalizers kubernetes via /finalize: the namespace is empty")
	c.s.st.update(rules.ActorNamespace, i, n)
	return "", 0
}

// discoveryBlocks says why namespace i cannot be finalized yet although
// its content is gone, or "": a group version failing discovery while
// the APIServices that exist at this point of the simulation exist
// (rules.FailingDiscovery), or a failure the namespace's own conditions
// report and the input cannot show the end of
// (rules.StandingNamespaceFailure).
func (c *controllers) discoveryBlocks(i int32) string {
	served := map[string]bool{}
	var now []*snapshot.Object
	if ri, ok := c.s.res.byGK[gk{"apiregistration.k8s.io", "APIService"}]; ok {
		for _, k := range c.ofType(ri) {
			served[rules.APIServiceGroupVersion(c.s.st.orig[k])] = true
			if o := c.obj(k); o != nil {
				now = append(now, o)
			}
		}
	}
	if failing := rules.FailingDiscovery(c.s.res.cat.DiscoveryFailures(), served, now); len(failing) > 0 {
		gvs := make([]string, len(failing))
		for k, f := range failing {
			gvs[k] = f.GroupVersion
		}
		return "discovery of " + strings.Join(gvs, ", ") + " to succeed (while any API group fails discovery, the namespace controller keeps its finalizer, even on an empty namespace)"
	}
	if why := rules.StandingNamespaceFailure(c.s.st.orig[i], served, c.s.snap.Source.Type == "live"); why != "" {
		return "the failure it reports to end: " + why
	}
	return ""
}

func (c *controllers) resOrder(ri *resInfo) int {
	for k, r := range c.s.snap.Resources {
		if r.Group == ri.group && r.Kind == ri.kind {
			return k
		}
	}
	return len(c.s.snap.Resources)
}

// podEstimate mirrors estimateGracefulTermination for pods: the longest
// grace period among non-terminal pods, counted from the namespace's
// deletion; a delay of estimate/2+1 seconds.
func (c *controllers) podEstimate(ns *snapshot.Object, pods []int32) time.Duration {
	var est int64
	for _, k := range pods {
		p := c.obj(k)
		pf := rules.PodFacts(p)
		if pf != nil && (pf.Phase == "Succeeded" || pf.Phase == "Failed") {
			continue
		}
		g := int64(30)
		if pf != nil && pf.TerminationGracePeriodSeconds != nil {
			g = *pf.TerminationGracePeriodSeconds
		}
		if g > est {
			est = g
		}
	}
	if ns.Metadata.DeletionTimestamp != nil && c.s.st.now.Sub(*ns.Metadata.DeletionTimestamp) > time.Duration(est)*time.Second {
		est = 0
	}
	if est == 0 {
		est = 15 // items with finalizers
	}
	return time.Duration(est/2+1) * time.Second
}

func (c *controllers) waitStep(i int32, detail string) {
	if c.waited[i] {
		return
	}
	c.waited[i] = true
	c.s.record(rules.ActorNamespace, ActionWait, c.obj(i), "", detail)
}

// setConditions writes NamespaceContentRemaining/FinalizersRemaining.
func (c *controllers) setConditions(i int32, left []int32) {
	o := c.obj(i)
	counts := map[string]int{}
	fins := map[string]int{}
	for _, k := range left {
		ri := c.s.st.info[k]
		name := ri.plural
		if ri.group != "" {
			name += "." + ri.group
		}
		counts[name]++
		for _, f := range c.obj(k).Metadata.Finalizers {
			fins[f]++
		}
	}
	conds := []snapshot.Condition{
		{Type: rules.CondDiscoveryFailure, Status: "False", Reason: "ResourcesDiscovered", Message: "All resources successfully discovered"},
		{Type: rules.CondGVParsingFailure, Status: "False", Reason: "ParsedGroupVersions", Message: "All legacy kube types successfully parsed"},
		{Type: rules.CondContentFailure, Status: "False", Reason: "ContentDeleted", Message: "All content successfully deleted, may be waiting on finalization"},
		{Type: rules.CondContentRemaining, Status: "True", Reason: "SomeResourcesRemain", Message: "Some resources are remaining: " + countList(counts, "resource instances")},
	}
	if len(fins) > 0 {
		conds = append(conds, snapshot.Condition{Type: rules.CondFinalizersRemained, Status: "True", Reason: "SomeFinalizersRemain",
			Message: "Some content in the namespace has finalizers remaining: " + countList(fins, "resource instances")})
	} else {
		conds = append(conds, snapshot.Condition{Type: rules.CondFinalizersRemained, Status: "False", Reason: "ContentHasNoFinalizers", Message: "All content-preserving finalizers finished"})
	}
	if o.Facts != nil && o.Facts.Namespace != nil && slices.EqualFunc(o.Facts.Namespace.Conditions, conds, func(a, b snapshot.Condition) bool { return a == b }) {
		return
	}
	n := clone(o)
	nf := *terminatingNamespaceFacts(o.Facts)
	ns := *nf.Namespace
	ns.Conditions = conds
	nf.Namespace = &ns
	n.Facts = &nf
	c.s.st.persist(i, n)
	var parts []string
	for f, k := range fins {
		parts = append(parts, fmt.Sprintf("%s in %d", f, k))
	}
	sort.Strings(parts)
	c.why[i] = "its content to be deleted: " + countLeft(counts)
	if len(parts) > 0 {
		c.why[i] += " (finalizers: " + strings.Join(parts, ", ") + ")"
	}
}

// countList words counts as the namespace controller's conditions do,
// upstream's grammar included ("has 1 resource instances").
func countList(m map[string]int, what string) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s has %d %s", k, v, what))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// countLeft says in kgc's words how many objects of each type are left:
// "pods has 1 object left".
func countLeft(m map[string]int) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, k+" has "+words.Count(v, "object")+" left")
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// syncCRD is the apiextensions CRD finalizer: delete every instance
// (DeleteCollection with nil options: no policy, so the instances' own GC
// finalizers are honoured), then remove the finalizer once none is left.
func (c *controllers) syncCRD(i int32) (string, time.Duration) {
	o := c.obj(i)
	if o == nil || o.Metadata.DeletionTimestamp == nil || !hasFin(o, rules.FinalizerCRD) {
		return "", 0
	}
	var instances []int32
	established := true
	if o.Facts != nil && o.Facts.CRD != nil {
		cf := o.Facts.CRD
		established = cf.Established || len(cf.Versions) == 0 && cf.Kind == ""
		if ri, ok := c.s.res.byGK[gk{cf.Group, cf.Kind}]; ok {
			for _, k := range c.ofType(ri) {
				if c.s.st.objs[k] != nil {
					instances = append(instances, k)
				}
			}
		}
	}
	if established && len(instances) > 0 {
		why := "its " + o.Ref().String() + " is being deleted"
		for _, k := range instances {
			_ = c.s.st.delete(rules.ActorCRDFinalizer, k, deleteOptions{}, why)
		}
		var left []int32
		for _, k := range instances {
			if c.s.st.objs[k] != nil {
				left = append(left, k)
			}
		}
		if len(left) > 0 {
			c.why[i] = "its instances to be deleted: " + words.Count(len(left), "instance") + " " + words.Agree(len(left), "remains", "remain")
			return "instances remain", 5 * time.Second
		}
	}
	o = c.obj(i)
	n := clone(o)
	n.Metadata.Finalizers = slices.DeleteFunc(n.Metadata.Finalizers, func(f string) bool { return f == rules.FinalizerCRD })
	c.s.record(rules.ActorCRDFinalizer, ActionRemoveFin, n, "", rules.FinalizerCRD+": no instance is left")
	c.s.st.update(rules.ActorCRDFinalizer, i, n)
	return "", 0
}

// node is a NodeLookup over the store.
func (c *controllers) node(name string) (*snapshot.Object, bool) {
	ri, ok := c.s.res.byGK[gk{"", "Node"}]
	if !ok || !ri.listed {
		return nil, false
	}
	_, n := c.s.st.getByName(ri, "", name)
	return n, true
}

// syncPod finishes a pod in graceful termination as rules.PodTermination
// decides: the kubelet on a Ready node (DELETE grace 0 with a uid
// precondition once the grace period is over), or the pod garbage
// collector.
func (c *controllers) syncPod(i int32) {
	o := c.obj(i)
	if o == nil {
		return
	}
	end := rules.PodTermination(o, c.node)
	node := end.Node
	switch end.Finisher {
	case rules.NotGraceful:
	case rules.PodGCUnscheduled:
		c.finishPod(i, ControllerPodGC, rules.ActorPodGC, "the pod is terminating and unscheduled (gcUnscheduledTerminating)", c.s.st.now,
			"an unscheduled pod in graceful termination: only PodGC finishes it, and it is not simulated")
	case rules.Kubelet:
		why := "the kubelet on node " + node + " has stopped the containers"
		if end.Unknown != "" {
			why = "the kubelet confirms termination (assumed: " + end.Unknown + ")"
		}
		c.finishPod(i, ControllerKubelet, rules.ActorKubelet, why, *o.Metadata.DeletionTimestamp,
			"waiting for the kubelet on node "+node+" to confirm termination (not simulated)")
	case rules.PodGCOrphaned:
		c.finishPod(i, ControllerPodGC, rules.ActorPodGC, "node "+node+" no longer exists (gcOrphaned, after a 40 s quarantine)", c.s.st.now.Add(rules.PodGCQuarantine),
			"node "+node+" no longer exists and PodGC is not simulated")
	case rules.PodGCOutOfService:
		c.finishPod(i, ControllerPodGC, rules.ActorPodGC, "node "+node+" is NotReady and tainted out-of-service (gcTerminating)", c.s.st.now,
			"node "+node+" is not Ready: no kubelet confirms the termination, so the pod stays Terminating until the node returns or it is force-deleted")
	default:
		c.why[i] = "node " + node + " is not Ready: no kubelet confirms the termination, so the pod stays Terminating until the node returns or it is force-deleted"
	}
}

// finishPod has actor delete the pod with grace 0 at the given time, if
// ctl is simulated; otherwise the pod waits, for why.
func (c *controllers) finishPod(i int32, ctl string, actor, done string, at time.Time, why string) {
	if !c.enabled[ctl] {
		c.why[i] = why
		return
	}
	o := c.obj(i)
	uid := o.Metadata.UID
	w := c.s.wave
	zero := int64(0)
	fire := func() {
		c.s.wave = w + 1
		k, cur := c.s.st.get(uid)
		if cur == nil {
			return
		}
		_ = c.s.st.delete(actor, k, deleteOptions{grace: &zero, precondUID: uid}, done)
	}
	if at.After(c.s.st.now) {
		c.s.record(actor, ActionWait, o, "", fmt.Sprintf("until the grace period ends at %s", at.UTC().Format(time.RFC3339)))
		c.s.timerSeq++
		c.s.timers = append(c.s.timers, timer{at: at, seq: c.s.timerSeq, fn: fire})
		return
	}
	fire()
}

// syncPVC is the pvc-protection controller: it keeps the claim while a
// pod uses it (rules.PodUsesClaim).
func (c *controllers) syncPVC(i int32) {
	o := c.obj(i)
	if o == nil || o.Metadata.DeletionTimestamp == nil || !hasFin(o, rules.FinalizerPVC) {
		return
	}
	content := c.inNamespace(o.Metadata.Namespace)
	for _, k := range content {
		p := c.s.st.objs[k]
		if p == nil || !isKind(c.s.st.info[k], "", "Pod") {
			continue
		}
		if uses, _ := rules.PodUsesClaim(p, o.Metadata.Name); uses {
			c.why[i] = "pod " + p.Metadata.Name + " (scheduled) still uses the claim"
			return
		}
	}
	// "No pod uses it any more" is read after the pods that used it went.
	c.observeGone(content, func(ri *resInfo) bool { return isKind(ri, "", "Pod") })
	c.removeFin(i, rules.ActorPVCProtection, rules.FinalizerPVC, "no pod uses the claim any more")
}

// syncPV is the pv-protection controller: the volume must not be Bound
// (rules.PVBoundClaim).
func (c *controllers) syncPV(i int32) {
	o := c.obj(i)
	if o == nil || o.Metadata.DeletionTimestamp == nil || !hasFin(o, rules.FinalizerPV) {
		return
	}
	if cr := rules.PVBoundClaim(o, c.claim); cr != nil {
		c.why[i] = "still Bound to " + cr.Ref().String()
		return
	}
	c.removeFin(i, rules.ActorPVProtection, rules.FinalizerPV, "the volume is not Bound")
}

// observeGone moves the controller's wave past the deletes of the
// objects among ks of the types match accepts that are gone: a decision
// made because they are gone comes after they went, however early the
// controller's item was queued (sim.observeState).
func (c *controllers) observeGone(ks []int32, match func(ri *resInfo) bool) {
	for _, k := range ks {
		if c.s.st.objs[k] == nil && c.s.st.orig[k] != nil && match(c.s.st.info[k]) {
			c.s.observeState(c.s.st.orig[k].Metadata.UID)
		}
	}
}

// claim is a ClaimLookup over the store.
func (c *controllers) claim(namespace, name string) *snapshot.Object {
	ri, ok := c.s.res.byGK[gk{"", "PersistentVolumeClaim"}]
	if !ok {
		return nil
	}
	_, pvc := c.s.st.getByName(ri, namespace, name)
	return pvc
}

// syncJobPod is the Job controller's tracking-finalizer removal
// (rules.JobTrackingDone).
func (c *controllers) syncJobPod(i int32) {
	o := c.obj(i)
	if o == nil || !hasFin(o, rules.FinalizerJob) {
		return
	}
	job := func(uid string) *snapshot.Object { _, j := c.s.st.get(uid); return j }
	if rules.JobTrackingDone(o, job) {
		c.removeFin(i, rules.ActorJob, rules.FinalizerJob, "the pod is terminating, finished or no longer tracked by a running Job")
	}
}

// syncAssumed removes, one request each, the finalizers no simulated
// controller handles, as their controllers would after their cleanup.
func (c *controllers) syncAssumed(i int32) {
	o := c.obj(i)
	if o == nil || o.Metadata.DeletionTimestamp == nil {
		return
	}
	for _, f := range o.Metadata.Finalizers {
		if !c.handles(f) {
			c.removeFin(i, rules.LookupFinalizer(f).RemovedBy, f, "assumed: its controller finishes its cleanup (--assume-finalizers=remove)")
			if c.obj(i) != nil {
				c.q.add(ctlItem{kAssume, i}, c.s.wave)
			}
			return
		}
	}
}

func (c *controllers) removeFin(i int32, actor, f, why string) {
	o := c.obj(i)
	n := clone(o)
	n.Metadata.Finalizers = slices.DeleteFunc(n.Metadata.Finalizers, func(x string) bool { return x == f })
	c.s.record(actor, ActionRemoveFin, n, "", f+": "+why)
	c.s.st.update(actor, i, n)
	delete(c.why, i)
}
