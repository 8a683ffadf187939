package graph

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/internal/parallel"
	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// StuckAfter is how long an object may be terminating with finalizers
// before kgc calls it stuck. Most finalizers finish in seconds; five
// minutes is past every controller's normal retry backoff.
const StuckAfter = 5 * time.Minute

// refCheck is the verdict on one owner reference (rules.ClassifyReference),
// with the finding it raises (typ empty when the reference is fine).
type refCheck struct {
	rules.Reference
	owner snapshot.ObjectRef // the owner as found, or as the reference describes it
	typ   string
	why   string
}

// findings finds the hazards sc asks about (every hazard when sc is
// nil), sorted. Owner references are judged, and cycles looked for, only
// where sc can see them; the cheap passes over every object run whole and
// are filtered.
func (g *Graph) findings(sc *scope) []Finding {
	var out []Finding
	out = append(out, g.duplicateUIDs()...)
	out = append(out, g.invalidReferences()...)
	out = append(out, g.judge(g.judged(sc))...)
	out = append(out, g.cycles(g.cycleCandidates(sc))...)
	out = append(out, g.stuckFinalizers()...)
	if sc != nil {
		out = slices.DeleteFunc(out, func(f Finding) bool { return !sc.about(f) })
	}
	if len(out) == 0 {
		// The same answer however it was filtered: no findings is nil.
		return nil
	}
	sortFindings(out)
	return out
}

// judge returns the findings about the owner references of nodes, in
// their order. A cluster's million references are judged one part per
// core side by side: the lookups are only read.
func (g *Graph) judge(nodes []*Node, ix rules.Lookup) []Finding {
	if len(nodes) < judgeInParts {
		return g.judgeEach(nodes, ix)
	}
	return parallel.Concat(len(nodes), func(from, to int) []Finding { return g.judgeEach(nodes[from:to], ix) })
}

// judgeInParts is how many nodes are worth more goroutines than one.
const judgeInParts = 4096

func (g *Graph) judgeEach(nodes []*Node, ix rules.Lookup) []Finding {
	var out []Finding
	for _, n := range nodes {
		out = append(out, g.ownerFindings(n, ix)...)
	}
	return out
}

// name names an object in a sentence as every command does
// (snapshot.KubectlName): "ReplicaSet/web-1 -n web", "Node/n1".
func name(r snapshot.ObjectRef) string { return r.String() }

func names(refs []snapshot.ObjectRef) string {
	s := make([]string, len(refs))
	for i, r := range refs {
		s[i] = name(r)
	}
	switch len(s) {
	case 1:
		return s[0]
	case 2:
		return s[0] + " and " + s[1]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// invalidReference says what an owner reference lacks; "" when valid.
func invalidReference(r snapshot.OwnerReference) string {
	return strings.Join(r.MissingFields(), ", ")
}

func (g *Graph) invalidReferences() []Finding {
	var out []Finding
	for i := range g.snap.Objects {
		o := &g.snap.Objects[i]
		for _, r := range o.Metadata.OwnerReferences {
			missing := invalidReference(r)
			if missing == "" {
				continue
			}
			owner := snapshot.ObjectRef{APIVersion: r.APIVersion, Kind: r.Kind, Name: r.Name, UID: r.UID}
			out = append(out, Finding{
				Type:    FindingInvalidOwnerReference,
				Objects: []snapshot.ObjectRef{o.Ref(), owner},
				Message: fmt.Sprintf("%s has an owner reference without %s: the API server would reject it, so the input was edited or is corrupt; kgc leaves this reference out of the graph",
					name(o.Ref()), missing),
			})
		}
	}
	return out
}

// duplicateUIDs reports UIDs given to several objects: in the objects
// themselves, or among the ones the reader dropped for it
// (Snapshot.Duplicates). The object the graph uses is the one kept in
// Objects.
func (g *Graph) duplicateUIDs() []Finding {
	dup := g.duplicatedUIDs()
	if len(dup) == 0 {
		return nil
	}
	byUID := map[string][]snapshot.ObjectRef{}
	var order []string
	add := func(o *snapshot.Object) {
		uid := o.Metadata.UID
		if !dup[uid] {
			return
		}
		if _, ok := byUID[uid]; !ok {
			order = append(order, uid)
		}
		byUID[uid] = append(byUID[uid], o.Ref())
	}
	for i := range g.snap.Objects {
		add(&g.snap.Objects[i])
	}
	for i := range g.snap.Duplicates {
		add(&g.snap.Duplicates[i])
	}
	var out []Finding
	for _, uid := range order {
		refs := byUID[uid]
		if len(refs) < 2 {
			continue
		}
		kept := refs[0]
		if n := g.Node(uid); n != nil && n.Object != nil {
			kept = n.Object.Ref()
		}
		sort.SliceStable(refs, func(i, j int) bool { return refs[i].Less(refs[j]) })
		out = append(out, Finding{
			Type:    FindingDuplicateUID,
			Objects: refs,
			Message: fmt.Sprintf("%s share UID %s, which a cluster gives to one object only: the input mixes dumps of different objects or was edited; kgc uses %s and ignores the others",
				names(refs), uid, name(kept)),
		})
	}
	return out
}

// ownerFindings judges every owner reference of the observed node n as
// attemptToDeleteItem would, then words each problem with what the
// collector will do to n as a whole: one erroring reference stops it from
// acting on any, and one existing owner keeps n alive.
func (g *Graph) ownerFindings(n *Node, ix rules.Lookup) []Finding {
	dep := n.Object.Ref()
	depNamespaced := g.cat.Dependent(n.Object).Namespaced
	// Most objects have one or two owners: their checks stay off the
	// heap, which judging a million references would otherwise fill.
	var buf [4]refCheck
	checks := buf[:0]
	for _, ref := range n.Owners {
		if invalidReference(ref) != "" {
			continue // reported by invalidReferences
		}
		checks = append(checks, g.checkRef(dep, depNamespaced, ref, ix))
	}

	problems := false
	for _, c := range checks {
		problems = problems || c.typ != ""
	}
	if !problems {
		return nil
	}
	var solid *refCheck
	retry, never, unknown := false, false, false
	for i := range checks {
		switch checks[i].Class {
		case rules.Solid:
			if solid == nil {
				solid = &checks[i]
			}
		case rules.Unresolvable:
			retry = true
		case rules.NamespacedOwnerOfClusterScoped:
			never = true
		case rules.Unknown:
			unknown = true
		case rules.Waiting, rules.Dangling:
			// Waiting keeps nothing and dangling deletes: the fate below
			// follows from the references that do.
		}
	}
	var fate string
	switch {
	case retry:
		fate = fmt.Sprintf("the garbage collector fails to map an owner kind of %s, retries it forever and never collects it, whatever its other owners", name(dep))
	case never:
		fate = fmt.Sprintf("the garbage collector gives up on %s and never collects it, whatever its other owners", name(dep))
	case solid != nil:
		fate = fmt.Sprintf("the garbage collector keeps %s, because its owner %s exists, and removes the broken owner reference", name(dep), name(solid.owner))
	case unknown && !g.listFailed(checks):
		fate = fmt.Sprintf("whether the garbage collector deletes %s depends on owners whose type the input does not hold", name(dep))
	case unknown:
		fate = fmt.Sprintf("whether the garbage collector deletes %s depends on owners whose type kgc could not list", name(dep))
	default:
		fate = fmt.Sprintf("the garbage collector will delete %s", name(dep))
	}

	var out []Finding
	for _, c := range checks {
		if c.typ == "" {
			continue
		}
		msg := c.why + "; " + fate
		switch c.typ {
		case FindingUnresolvableOwnerKind, FindingNamespacedOwnerOfGlobal:
			// Their why already says the dependent is never collected.
			msg = c.why
		case FindingUnknownOwner:
			msg = c.why
			switch {
			case retry || never:
				msg += "; " + fate
			case solid != nil:
				msg += fmt.Sprintf("; either way the garbage collector keeps %s, because its owner %s exists", name(dep), name(solid.owner))
			}
		}
		out = append(out, Finding{Type: c.typ, Objects: []snapshot.ObjectRef{dep, c.owner}, Message: msg})
	}
	return out
}

// listFailed reports whether an unknown owner among checks is unknown
// because kgc failed to list its type, rather than because a dump holds
// no objects of it.
func (g *Graph) listFailed(checks []refCheck) bool {
	for _, c := range checks {
		if c.Class == rules.Unknown && g.snap.ListFailed(c.Type) {
			return true
		}
	}
	return false
}

// checkRef classifies ref as the collector would (rules.ClassifyReference)
// and words what is wrong with it (rules.Reference.Message), with what
// the verdict alone decides of the dependent.
func (g *Graph) checkRef(dep snapshot.ObjectRef, depNamespaced bool, ref snapshot.OwnerReference, ix rules.Lookup) refCheck {
	v := rules.ClassifyReference(g.cat, ix, rules.Dependent{Namespace: dep.Namespace, Namespaced: depNamespaced}, ref)
	c := refCheck{Reference: v, owner: v.OwnerRef(), typ: v.Finding()}
	if c.typ == "" {
		return c
	}
	c.why = v.Message(g.cat, dep)
	switch v.Class {
	case rules.Unresolvable:
		c.why += fmt.Sprintf(", retries %s forever and never collects it, nor acts on its other owners", name(dep))
	case rules.NamespacedOwnerOfClusterScoped:
		c.why += ": the garbage collector gives up on it and never collects it, whatever its other owners"
	case rules.Solid, rules.Waiting, rules.Dangling, rules.Unknown:
	}
	return c
}

// cycles finds the strongly connected components of the owner graph
// (Tarjan's algorithm, iterative so deep chains cannot overflow the stack,
// visiting nodes and owners in contract order so the result is the same
// every time).
func (g *Graph) cycles(nodes []*Node) []Finding {
	owners := func(n *Node) []*Node {
		os := slices.DeleteFunc(g.Owners(n), func(o *Node) bool { return !mayCycle(o) })
		sortNodes(os)
		return os
	}
	index := map[*Node]int{}
	low := map[*Node]int{}
	onStack := map[*Node]bool{}
	var stack []*Node
	next := 0
	var out []Finding

	type frame struct {
		n    *Node
		succ []*Node
		i    int
	}
	for _, root := range nodes {
		if _, seen := index[root]; seen {
			continue
		}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		call := []frame{{n: root, succ: owners(root)}}
		for len(call) > 0 {
			f := &call[len(call)-1]
			if f.i < len(f.succ) {
				w := f.succ[f.i]
				f.i++
				if _, seen := index[w]; !seen {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{n: w, succ: owners(w)})
				} else if onStack[w] {
					low[f.n] = min(low[f.n], index[w])
				}
				continue
			}
			v := f.n
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].n
				low[p] = min(low[p], low[v])
			}
			if low[v] != index[v] {
				continue
			}
			var scc []*Node
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				scc = append(scc, w)
				if w == v {
					break
				}
			}
			if f := cycleFinding(scc); f != nil {
				out = append(out, *f)
			}
		}
	}
	return out
}

func cycleFinding(scc []*Node) *Finding {
	if len(scc) == 1 {
		n := scc[0]
		self := false
		for _, r := range n.Owners {
			if r.UID == n.UID() {
				self = true
			}
		}
		if !self {
			return nil
		}
		return &Finding{Type: FindingCycle, Objects: []snapshot.ObjectRef{n.Identity()},
			Message: fmt.Sprintf("%s lists itself as its owner: it always has an existing owner, so the garbage collector never collects it; delete it explicitly or remove that owner reference", name(n.Identity()))}
	}
	sortNodes(scc)
	refs := make([]snapshot.ObjectRef, len(scc))
	for i, n := range scc {
		refs[i] = n.Identity()
	}
	return &Finding{Type: FindingCycle, Objects: refs,
		Message: fmt.Sprintf("%s own each other in a cycle: each always has an existing owner, so the garbage collector never collects them on its own, even when everything else they belong to is gone; deleting any one of them lets the collector remove the rest", names(refs))}
}

// stuckFinalizers reports objects terminating for longer than StuckAfter
// (measured against the snapshot's capture time, not the clock) that still
// carry finalizers. Without a capture time every terminating object with
// finalizers is reported, since kgc cannot tell how long it has waited.
func (g *Graph) stuckFinalizers() []Finding {
	var out []Finding
	for i := range g.snap.Objects {
		o := &g.snap.Objects[i]
		if !o.Terminating() {
			continue
		}
		fins := append([]string(nil), o.Metadata.Finalizers...)
		if o.Facts != nil && o.Facts.Namespace != nil {
			for _, f := range o.Facts.Namespace.SpecFinalizers {
				fins = append(fins, f+" (spec.finalizers)")
			}
		}
		if len(fins) == 0 {
			continue
		}
		since := ""
		if !g.snap.CapturedAt.IsZero() {
			d := g.snap.CapturedAt.Sub(*o.Metadata.DeletionTimestamp)
			if d <= StuckAfter {
				continue
			}
			since = " for " + words.Age(d)
		}
		ref := o.Ref()
		out = append(out, Finding{Type: FindingStuckFinalizer, Objects: []snapshot.ObjectRef{ref},
			Message: fmt.Sprintf("%s has been terminating%s and is still held by %s; `kgc why-stuck` on it says who should remove %s",
				name(ref), since, words.Agree(len(fins), "finalizer", "finalizers")+" "+strings.Join(fins, ", "), words.Agree(len(fins), "it", "them"))})
	}
	return out
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		for k := 0; k < len(a.Objects) && k < len(b.Objects); k++ {
			if a.Objects[k] != b.Objects[k] {
				return a.Objects[k].Less(b.Objects[k])
			}
		}
		if len(a.Objects) != len(b.Objects) {
			return len(a.Objects) < len(b.Objects)
		}
		return a.Message < b.Message
	})
}
