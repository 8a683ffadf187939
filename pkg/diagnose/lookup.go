package diagnose

import (
	"sort"
	"strings"
	"sync"

	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// index answers the lookups diagnosis makes many times: objects by UID,
// name, namespace and group/kind, the resource catalog (rules.ServedTypes,
// built as the graph builds it, so that diagnosis judges types as the
// graph does), and the collector's graph.
type index struct {
	snap *snapshot.Snapshot
	cat  *rules.ServedTypes
	// g is the collector's graph: the whole cluster's when New was given
	// it, else replayed about the objects diagnosis reached (seeds), and
	// again, larger, when it reaches one outside it. One object's
	// diagnosis then costs its own part of the graph, not the cluster's.
	g       *graph.Graph
	whole   bool
	seeds   []string
	replays int
	// objects finds objects by UID and name: the whole graph's index, or
	// one of the snapshot's own, so that a graph replayed again does not
	// index the snapshot again.
	objOnce sync.Once
	objects *rules.Index
	// The groupings below cost a pass and a sort of every object: built
	// on first use, as most diagnoses never ask (one object that is not
	// terminating, or why-stuck -A on a cluster where nothing is).
	groupOnce sync.Once
	byNS      map[string][]*snapshot.Object
	byGK      map[[2]string][]*snapshot.Object
}

// newIndex indexes snap for diagnosis; g is its whole graph, or nil to
// replay only what diagnosis reaches.
func newIndex(snap *snapshot.Snapshot, g *graph.Graph) *index {
	if g != nil {
		return &index{snap: snap, g: g, whole: true, cat: g.ServedTypes()}
	}
	return &index{snap: snap, cat: rules.NewServedTypes(snap)}
}

// graphAbout returns a graph that covers uids, replaying one about them
// and the objects reached before when the current graph does not.
func (ix *index) graphAbout(uids ...string) *graph.Graph {
	var missing []string
	for _, u := range uids {
		if ix.g == nil || !ix.g.Covers(u) {
			missing = append(missing, u)
		}
	}
	switch {
	case len(missing) == 0:
	case ix.replays >= maxPartialReplays:
		// A diagnosis that keeps reaching outside the graph (a namespace
		// whose objects own nothing of each other) would replay it again
		// for every object: replay the cluster once instead.
		ix.g = graph.Replay(ix.snap)
	default:
		ix.replays++
		ix.seeds = append(ix.seeds, missing...)
		ix.g = graph.ReplayAbout(ix.snap, ix.seeds...)
	}
	return ix.g
}

// maxPartialReplays is how many times diagnosis replays the graph about
// the objects it reached before it replays the whole cluster.
const maxPartialReplays = 3

// node returns uid's node in the collector's graph, or nil.
func (ix *index) node(uid string) *graph.Node { return ix.graphAbout(uid).Node(uid) }

// index returns the lookups of objects by UID and name.
func (ix *index) index() *rules.Index {
	ix.objOnce.Do(func() {
		if ix.whole {
			ix.objects = ix.g.Index()
			return
		}
		ix.objects = rules.NewIndex(ix.snap.Objects)
	})
	return ix.objects
}

// group builds byNS and byGK.
func (ix *index) group() {
	ix.byNS = map[string][]*snapshot.Object{}
	ix.byGK = map[[2]string][]*snapshot.Object{}
	for i := range ix.snap.Objects {
		o := &ix.snap.Objects[i]
		ix.byNS[o.Metadata.Namespace] = append(ix.byNS[o.Metadata.Namespace], o)
		gk := [2]string{snapshot.GroupOf(o.APIVersion), o.Kind}
		ix.byGK[gk] = append(ix.byGK[gk], o)
	}
	for _, l := range ix.byNS {
		sortObjects(l)
	}
	for _, l := range ix.byGK {
		sortObjects(l)
	}
}

// inNamespace returns the objects of namespace ns, in contract order.
func (ix *index) inNamespace(ns string) []*snapshot.Object {
	ix.groupOnce.Do(ix.group)
	return ix.byNS[ns]
}

// ofKind returns the objects of group/kind, in contract order.
func (ix *index) ofKind(group, kind string) []*snapshot.Object {
	ix.groupOnce.Do(ix.group)
	return ix.byGK[[2]string{group, kind}]
}

func sortObjects(l []*snapshot.Object) {
	sort.SliceStable(l, func(i, j int) bool { return l[i].Ref().Less(l[j].Ref()) })
}

// byUID returns the object with uid, or nil.
func (ix *index) byUID(uid string) *snapshot.Object { return ix.index().ByUID(uid) }

// byName returns the object of group/kind named name in namespace, or nil.
func (ix *index) byName(group, kind, namespace, name string) *snapshot.Object {
	return ix.index().ByName(group, kind, namespace, name)
}

// resource returns the catalog entry of an object's type.
func (ix *index) resource(apiVersion, kind string) (snapshot.Resource, bool) {
	r, _, ok := ix.cat.Resource(snapshot.GroupOf(apiVersion), kind)
	return r, ok
}

// monitored reports whether the garbage collector watches the type.
func (ix *index) monitored(apiVersion, kind string) bool { return ix.cat.Monitored(apiVersion, kind) }

// listed reports whether kgc could list the type, so that absence from
// the snapshot means absence from the cluster.
func (ix *index) listed(group, kind string) bool { return ix.cat.Listed(group, kind) }

// kubectlType is the unambiguous TYPE kubectl accepts: the plural resource,
// with its group for non-core types ("deployments.apps").
func (ix *index) kubectlType(o snapshot.ObjectRef) string {
	if r, ok := ix.resource(o.APIVersion, o.Kind); ok && r.Resource != "" {
		if r.Group == "" {
			return r.Resource
		}
		return r.Resource + "." + r.Group
	}
	k := strings.ToLower(o.Kind)
	if g := snapshot.GroupOf(o.APIVersion); g != "" {
		return k + "." + g
	}
	return k
}

// kubectlTarget is "TYPE NAME [-n NS]" for commands.
func (ix *index) kubectlTarget(o snapshot.ObjectRef) string {
	s := ix.kubectlType(o) + " " + o.Name
	if o.Namespace != "" {
		s += " -n " + o.Namespace
	}
	return s
}
