package graph

import (
	"iter"
	"slices"

	"github.com/kgc-dev/kgc/internal/background"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// AllFindingsLater starts AllFindings on a goroutine of its own and
// returns a function that waits for them: the caller draws the nodes
// meanwhile.
func (g *Graph) AllFindingsLater() func() []Finding { return background.Start(g.AllFindings) }

// AllFindings returns every hazard of the graph, sorted by (type, first
// object, message), computed once.
func (g *Graph) AllFindings() []Finding {
	g.allOnce.Do(func() {
		if g.Findings != nil {
			g.all = g.Findings
			return
		}
		g.all = g.findings(nil)
	})
	return g.all
}

// FindingsAbout returns the findings a view shows: those naming an object
// that is one of nodes, has one of uids, or lives in one of namespaces
// (AllFindings filtered so, in the same order). Only the owner references
// and cycles that can be named so are judged, so the findings about one
// tree cost in proportion to that tree, plus one cheap pass over the
// objects.
func (g *Graph) FindingsAbout(nodes []*Node, uids, namespaces []string) []Finding {
	sc := newScope(nodes, uids, namespaces)
	if g.Findings != nil {
		return slices.DeleteFunc(slices.Clone(g.Findings), func(f Finding) bool { return !sc.about(f) })
	}
	return g.findings(sc)
}

// scope is what a view shows: objects by UID, and namespaces. A nil
// scope shows everything.
type scope struct {
	uids       map[string]bool
	namespaces []string
}

func newScope(nodes []*Node, uids, namespaces []string) *scope {
	sc := &scope{uids: make(map[string]bool, len(nodes)+len(uids)), namespaces: namespaces}
	for _, n := range nodes {
		sc.uids[n.UID()] = true
	}
	for _, u := range uids {
		sc.uids[u] = true
	}
	return sc
}

// names reports whether the view shows r.
func (sc *scope) names(r snapshot.ObjectRef) bool {
	return sc.uids[r.UID] || (r.Namespace != "" && slices.Contains(sc.namespaces, r.Namespace))
}

// about reports whether the view shows one of the objects f names.
func (sc *scope) about(f Finding) bool {
	return slices.ContainsFunc(f.Objects, sc.names)
}

// judged returns the observed nodes with owners whose references sc can
// see judged, and the lookups to judge them with. A finding about an
// owner reference names the dependent and the owner, with the
// reference's UID and either the dependent's namespace, no namespace, or
// the namespace of an object holding that UID; so a dependent can matter
// only when it is in view, or a reference's UID is in view or held by an
// object of a namespace in view. Every other dependent is left unjudged.
func (g *Graph) judged(sc *scope) ([]*Node, rules.Lookup) {
	var out []*Node
	if sc == nil {
		// Sized once: nearly every object of a cluster has an owner.
		out = make([]*Node, 0, len(g.sortedNodes()))
		for _, n := range g.sortedNodes() {
			if !n.Virtual && len(n.Owners) > 0 {
				out = append(out, n)
			}
		}
		if look := g.graphLookup(); look != nil {
			return out, look
		}
		types, uids := lookedUp(func(yield func([]snapshot.OwnerReference) bool) {
			for _, n := range out {
				if !yield(n.Owners) {
					return
				}
			}
		}, true)
		return out, rules.NewOwnerIndex(g.snap.Objects, types, uids)
	}
	inNS := sc.uidsInNamespaces(g.snap.Objects)
	namespaces, uids := map[string]bool{"": true}, map[string]bool{}
	// In any order, then sorted: the few nodes in view, not the cluster.
	for n := range g.eachNode {
		if n.Virtual || len(n.Owners) == 0 || !sc.mayJudge(n, inNS) {
			continue
		}
		out = append(out, n)
		namespaces[n.Object.Metadata.Namespace] = true
		for _, r := range n.Owners {
			uids[r.UID] = true
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	sortNodes(out)
	return out, rules.NewPartialIndex(g.snap.Objects, namespaces, uids)
}

// lookedUp returns what judging the owner references refs yields looks
// up: their owners' types by name, and (withUIDs) their UIDs. A reference
// that maps maps to its own group and kind, so those are taken as written
// rather than mapped here and again when judged; one that does not map is
// never looked up by name, and indexing its kind's names changes no
// answer. References that are not judged only add entries no judgement
// asks for.
func lookedUp(refs iter.Seq[[]snapshot.OwnerReference], withUIDs bool) (map[rules.GroupKind]bool, map[string]bool) {
	types := map[rules.GroupKind]bool{}
	var uids map[string]bool
	if withUIDs {
		uids = map[string]bool{}
	}
	for rs := range refs {
		for _, r := range rs {
			if r.UID == "" {
				continue
			}
			if withUIDs {
				uids[r.UID] = true
			}
			types[rules.GroupKind{Group: snapshot.GroupOf(r.APIVersion), Kind: r.Kind}] = true
		}
	}
	return types, uids
}

// nameFinder finds objects by name as rules.Index does.
type nameFinder interface {
	ByName(group, kind, namespace, name string) *snapshot.Object
}

// ownerNames prepares what a whole replay's judgement looks owners up by
// name in, before the replay: objs themselves when they are in the
// contract's order (inOrder), as read; otherwise an index by name of the
// objects of every type an owner reference names.
func ownerNames(objs []snapshot.Object, inOrder bool) nameFinder {
	if inOrder {
		return rules.NewSortedNames(objs)
	}
	types, _ := lookedUp(func(yield func([]snapshot.OwnerReference) bool) {
		for i := range objs {
			if !yield(objs[i].Metadata.OwnerReferences) {
				return
			}
		}
	}, false)
	return rules.NewOwnerIndex(objs, types, nil)
}

// graphLookup answers a whole replay's judgement: names from what
// ownerNames prepared, UIDs from the graph, which has already found every
// observed object by UID, and from the few objects it does not observe. That is what an
// index of every object answers as long as no observed object shares its
// UID with another object (an index keeps the first in the snapshot's
// order, the graph the first observed); otherwise, and for a replay about
// some objects, it is nil.
func (g *Graph) graphLookup() rules.Lookup {
	if g.names == nil || len(g.replayDups) > 0 {
		return nil
	}
	l := &uidsOfGraph{names: g.names(), g: g, unobserved: make(map[string]*snapshot.Object, len(g.unobserved))}
	for _, i := range g.unobserved {
		o := &g.snap.Objects[i]
		if n := g.Node(o.Metadata.UID); n != nil && n.Object != nil {
			return nil // a UID shared with an observed object
		}
		if _, repeated := l.unobserved[o.Metadata.UID]; !repeated {
			l.unobserved[o.Metadata.UID] = o // the first, as an index keeps it
		}
	}
	return l
}

// uidsOfGraph is graphLookup's answer: ByName from what ownerNames
// prepared, ByUID from the graph.
type uidsOfGraph struct {
	names      nameFinder
	g          *Graph
	unobserved map[string]*snapshot.Object
}

func (l *uidsOfGraph) ByUID(uid string) *snapshot.Object {
	if n := l.g.Node(uid); n != nil && n.Object != nil {
		return n.Object
	}
	return l.unobserved[uid]
}

func (l *uidsOfGraph) ByName(group, kind, namespace, name string) *snapshot.Object {
	return l.names.ByName(group, kind, namespace, name)
}

// ByRef is ByName for ref's owner: when the objects are in order, the
// observed object holding ref's UID, if it is what ByName returns, as it
// nearly always is; a search by name otherwise.
func (l *uidsOfGraph) ByRef(group, kind, namespace string, ref snapshot.OwnerReference) *snapshot.Object {
	if sn, ok := l.names.(*rules.SortedNames); ok {
		if k, found := l.g.uids.Find(ref.UID); found {
			if i := int(l.g.keys[k]); sn.Named(i, group, kind, namespace, ref.Name) {
				return &l.g.snap.Objects[i]
			}
		}
	}
	return l.names.ByName(group, kind, namespace, ref.Name)
}

// mayJudge reports whether a finding about one of n's references could be
// in view (see judged).
func (sc *scope) mayJudge(n *Node, inNS map[string]bool) bool {
	if sc.names(n.Object.Ref()) {
		return true
	}
	for _, r := range n.Owners {
		if sc.uids[r.UID] || inNS[r.UID] {
			return true
		}
	}
	return false
}

// uidsInNamespaces returns the UIDs of the objects in the scope's
// namespaces.
func (sc *scope) uidsInNamespaces(objs []snapshot.Object) map[string]bool {
	out := map[string]bool{}
	if len(sc.namespaces) == 0 {
		return out
	}
	for i := range objs {
		if m := &objs[i].Metadata; m.Namespace != "" && slices.Contains(sc.namespaces, m.Namespace) {
			out[m.UID] = true
		}
	}
	return out
}

// cycleCandidates returns the nodes a cycle sc can see may run through,
// in contract order. A cycle is connected, so one that names an object in
// view lies in the connected component of what is in view; and only a
// node with both owners and dependents can be on one.
func (g *Graph) cycleCandidates(sc *scope) []*Node {
	if sc == nil {
		return mayCycleIn(g.sortedNodes())
	}
	seeds := make([]string, 0, len(sc.uids))
	for uid := range sc.uids {
		seeds = append(seeds, uid)
	}
	if len(sc.namespaces) > 0 {
		for n := range g.eachNode {
			if slices.Contains(sc.namespaces, n.Identity().Namespace) {
				seeds = append(seeds, n.UID())
			}
		}
	}
	return mayCycleIn(g.Component(seeds...))
}

// mayCycleIn keeps the nodes of nodes that can be on a cycle, in order.
func mayCycleIn(nodes []*Node) []*Node {
	var out []*Node
	for _, n := range nodes {
		if mayCycle(n) {
			out = append(out, n)
		}
	}
	return out
}

// mayCycle reports whether n can be on a cycle of owner references: it
// needs an owner and a dependent (a node that owns itself has both).
func mayCycle(n *Node) bool { return len(n.Owners) > 0 && len(n.Dependents) > 0 }

// duplicatedUIDs returns the UIDs that more than one object has, among
// the snapshot's objects and the ones the reader dropped (Duplicates),
// without a map of every UID: replaying already met the observed
// repeats, and the rest are the few unobserved objects and the dropped
// ones.
func (g *Graph) duplicatedUIDs() map[string]bool {
	dup := map[string]bool{}
	for _, uid := range g.replayDups {
		dup[uid] = true
	}
	seen := map[string]bool{}
	for _, i := range g.unobserved {
		uid := g.snap.Objects[i].Metadata.UID
		if n := g.Node(uid); (n != nil && n.Object != nil) || seen[uid] {
			dup[uid] = true
		}
		seen[uid] = true
	}
	for i := range g.snap.Duplicates {
		if uid := g.snap.Duplicates[i].Metadata.UID; uid != "" {
			dup[uid] = true
		}
	}
	return dup
}
