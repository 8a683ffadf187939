package render

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// PlanOptions tunes the human plan output.
type PlanOptions struct {
	// ShowSteps lists every numbered step (with baseline and wait steps)
	// instead of the cascade by waves.
	ShowSteps bool
	// Verbose (-v=1 and up) names what the plan sees elsewhere in the
	// input: the controllers' pending work on objects the delete does not
	// touch, and notes about them; otherwise one line counts them.
	Verbose bool
}

// PlanText writes a plan for people: the summary line, the cascade in
// waves (actor, action, object, why), then the final fate of every
// affected object with blocked objects and their blockers highlighted, and
// warnings when the plan is incomplete.
func PlanText(w io.Writer, p *plan.Plan, opts PlanOptions, st Style) error {
	bw := bufio.NewWriter(w)
	planHeader(bw, p, st)
	if opts.ShowSteps {
		planSteps(bw, p, st)
	} else {
		planCascade(bw, p, st)
	}
	planFinalState(bw, p, st)
	// What holds a blocked object belongs under its final state, before
	// the next section.
	planBlocked(bw, p, st)
	planVolumes(bw, p, st)
	planRaces(bw, p, st)
	planWarnings(bw, p, opts, st)
	return bw.Flush()
}

// planHeader is the request and the summary counts.
func planHeader(bw *bufio.Writer, p *plan.Plan, st Style) {
	policy := p.PropagationPolicy
	if policy == "" {
		policy = "none (the resource's default"
		if p.EffectivePolicy != "" {
			policy += ": " + p.EffectivePolicy
		}
		policy += ")"
	}
	fmt.Fprintf(bw, "%s %s with propagationPolicy %s\n", st.Paint(Bold, "Plan: delete"), planTargetsText(p), policy)
	planUndone(bw, p, st)
	s := p.Summary
	fmt.Fprintf(bw, "%s deleted, %s orphaned, %s updated, %s blocked",
		st.Paint(Red, fmt.Sprint(s.Deleted)), st.Paint(Cyan, fmt.Sprint(s.Orphaned)), fmt.Sprint(s.Updated), st.Paint(Yellow, fmt.Sprint(s.Blocked)))
	if s.Recreated > 0 {
		// Only when there are some, so that every other plan reads as before.
		fmt.Fprintf(bw, ", %s recreated", st.Paint(Magenta, fmt.Sprint(s.Recreated)))
	}
	planStorageCounts(bw, s, st)
	fmt.Fprintln(bw)
}

// planUndone calls out, before anything else, a delete whose target a
// controller creates again: the delete does not do what it was meant to.
func planUndone(bw *bufio.Writer, p *plan.Plan, st Style) {
	for _, of := range p.Objects {
		if of.Object.UID != p.Target.UID || of.Fate != plan.FateRecreated || of.RecreatedBy == nil {
			continue
		}
		r := of.RecreatedBy
		fmt.Fprintf(bw, "%s this delete will be undone by %s: %s %s (%s); %s\n", st.Paint(Yellow, "warning:"), refText(r.Owner),
			r.Controller, recreatesWhat(of.Object, r), recreatedHow(r), rules.UndoAdvice(r.Controller))
	}
	for _, of := range p.Objects {
		if r := of.RecreatedBy; of.Object.UID == p.Target.UID && r != nil && !r.Certain {
			fmt.Fprintf(bw, "%s this delete may be undone by %s: %s may %s (%s); kgc cannot tell from the input, or does not simulate it\n",
				st.Paint(Dim, "note:"), refText(r.Owner), r.Controller, strings.Replace(recreatesWhat(of.Object, r), "creates", "create", 1), recreatedHow(r))
		}
	}
}

// recreatesWhat says what the controller makes: the object again, or a
// replacement under a new name.
func recreatesWhat(o snapshot.ObjectRef, r *plan.RecreatedBy) string {
	if r.SameName {
		return "creates " + refText(o) + " again"
	}
	return "creates a replacement for " + refText(o)
}

// recreatedHow says whether the replacement keeps the name and the UID.
func recreatedHow(r *plan.RecreatedBy) string {
	name := "a new name"
	if r.SameName {
		name = "same name"
	}
	if r.NewUID {
		return name + ", new UID"
	}
	return name
}

// planSteps lists every step, baseline ones included (--show-steps).
func planSteps(bw *bufio.Writer, p *plan.Plan, st Style) {
	fmt.Fprintf(bw, "\n%s\n", st.Paint(Bold, "Steps:"))
	var t columns
	for _, step := range p.Steps {
		mark := ""
		if step.Baseline {
			mark = " (baseline)"
		}
		pol := string(step.PropagationPolicy)
		if step.PropagationPolicy == plan.PolicyDefault {
			pol = "-"
		}
		t.add(text(fmt.Sprintf("  %d.", step.Step)), text(fmt.Sprintf("wave %d%s", step.Wave, mark)), text(step.Actor),
			painted(actionColor(step.Action), step.Action), text(refText(step.Object)), text(pol), painted(Dim, step.Detail))
	}
	t.flush(bw, st)
}

// planFinalState is every object the plan changes, with its fate.
func planFinalState(bw *bufio.Writer, p *plan.Plan, st Style) {
	fmt.Fprintf(bw, "\n%s\n", st.Paint(Bold, "Final state:"))
	if len(p.Objects) == 0 {
		fmt.Fprintln(bw, "  no object changes")
	}
	var t columns
	for _, of := range p.Objects {
		t.add(text("  ").then(fateSpan(of.Fate)), text(refText(of.Object)), text(fateText(of)))
	}
	t.flush(bw, st)
}

// planBlocked says, for each blocked object, what holds it and who should
// remove it.
func planBlocked(bw *bufio.Writer, p *plan.Plan, st Style) {
	for _, of := range p.Objects {
		if of.Fate != plan.FateBlocked {
			continue
		}
		fmt.Fprintf(bw, "  %s %s:\n", st.Paint(Yellow, "blocked"), refText(of.Object))
		for _, b := range of.BlockedBy {
			fmt.Fprintf(bw, "    - %s\n", blockerLine(b, st))
			for _, o := range b.Objects {
				fmt.Fprintf(bw, "        %s %s\n", st.Paint(Yellow, "blocker"), refText(o))
			}
		}
	}
}

func blockerLine(b plan.Blocker, st Style) string {
	return b.Words(func(f string) string { return st.Paint(Yellow, f) })
}

// planRaces lists the objects whose outcome depends on which garbage
// collector worker acts first, with each alternative.
func planRaces(bw *bufio.Writer, p *plan.Plan, st Style) {
	var t columns
	for _, of := range p.Objects {
		if len(of.Alternatives) == 0 {
			continue
		}
		t.add(text("  "+refText(of.Object)), cell{fateSpan(of.Fate)}, text(finalText(of.Final)))
		for _, a := range of.Alternatives {
			t.add(text("  "), painted(Dim, "or").then(span{text: " "}, fateSpan(a.Fate)), text(finalText(a.Final)))
		}
	}
	if len(t.rows) == 0 {
		return
	}
	fmt.Fprintf(bw, "\n%s\n", st.Paint(Bold, "Depends on which garbage collector worker acts first:"))
	t.flush(bw, st)
}

// refText names an object in a plan's text as every command does
// (snapshot.KubectlName).
func refText(r snapshot.ObjectRef) string { return r.String() }

// actionColor is the palette entry of a step's action.
func actionColor(a string) string {
	switch a {
	case plan.ActionDelete:
		return Red
	case plan.ActionMarkDeleting:
		return Yellow
	case plan.ActionRemoveOwner:
		return Cyan
	}
	return ""
}

// FateColor is the palette entry of a fate: red deleted, cyan orphaned,
// yellow blocked, green kept.
func FateColor(fate string) string {
	switch fate {
	case plan.FateDeleted:
		return Red
	case plan.FateOrphaned:
		return Cyan
	case plan.FateBlocked:
		return Yellow
	case plan.FateUnchanged:
		return Green
	case plan.FateRecreated:
		return Magenta
	}
	return ""
}

func fateSpan(f string) span { return span{code: FateColor(f), text: f} }

// fateText is an object's final state, and who recreates it.
func fateText(of plan.ObjectFate) string {
	s := finalText(of.Final)
	if r := of.RecreatedBy; r != nil {
		by := r.Controller + " (" + refText(r.Owner) + ")"
		if r.Certain {
			s += ", recreated by " + by + ": " + recreatedHow(r)
		} else {
			s += ", may be recreated by " + by
		}
	}
	if a := of.AdoptedBy; a != nil {
		s += ", then adopted by the new " + refText(a.Owner) + " (" + a.Controller + ")"
	}
	return s
}

func finalText(f plan.FinalState) string {
	if !f.Exists {
		return "gone"
	}
	var parts []string
	if f.Terminating {
		parts = append(parts, "terminating")
	} else {
		parts = append(parts, "exists")
	}
	if len(f.Finalizers) > 0 {
		parts = append(parts, "finalizers ["+strings.Join(f.Finalizers, ", ")+"]")
	}
	if len(f.OwnerReferences) > 0 {
		parts = append(parts, words.Count(len(f.OwnerReferences), "owner reference"))
	} else {
		parts = append(parts, "no owners")
	}
	return strings.Join(parts, ", ")
}

// PlanDOT draws the affected subgraph coloured by fate, in the style of
// every kgc drawing (dot_style.go): every object of the plan with the
// graph's identity attributes (kind, namespace, name, uid) and its fate,
// edges from dependent to owner (bold when blockOwnerDeletion), blocker
// edges dashed. Node IDs are UIDs, like the graph's DOT. It is written with
// fmt for the same reason as GraphDOT.
func PlanDOT(w io.Writer, p *plan.Plan, owners func(uid string) []snapshot.OwnerReference) error {
	bw := bufio.NewWriter(w)
	in := map[string]bool{}
	refs := []snapshot.ObjectRef{}
	for _, of := range p.Objects {
		in[of.Object.UID] = true
		refs = append(refs, of.Object)
	}
	target := p.Target.UID != "" && !in[p.Target.UID]
	if target {
		in[p.Target.UID] = true
		refs = append(refs, p.Target)
	}
	edges := planDOTEdges(p, owners, in)
	ids := make([]string, 0, len(refs))
	for _, r := range refs {
		ids = append(ids, r.UID)
	}
	contextNS := dotContextNamespace(refs, "")
	// The legend is one more component.
	dotOpen(bw, "digraph kgcplan", dotComponents(ids, edgePairs(edges))+1)
	if target {
		planDOTNode(bw, p.Target, contextNS, "target", "white", [][2]string{{"penwidth", "2"}})
	}
	for _, of := range p.Objects {
		var extra [][2]string
		if of.Object.UID == p.Target.UID || slices.ContainsFunc(p.Targets, func(t snapshot.ObjectRef) bool { return t.UID == of.Object.UID }) {
			extra = append(extra, [2]string{"penwidth", "2"})
		}
		fate := of.Fate
		if len(of.Alternatives) > 0 {
			// Timing decides: say every fate, dashed.
			seen := []string{of.Fate}
			for _, a := range of.Alternatives {
				if !slices.Contains(seen, a.Fate) {
					seen = append(seen, a.Fate)
				}
			}
			fate = strings.Join(seen, " or ")
			extra = append(extra, [2]string{"style", "rounded,filled,dashed"})
		}
		if r := of.RecreatedBy; r != nil {
			// A replacement comes (or may come) back: a double border,
			// and who makes it.
			if r.Certain {
				fate += " by " + r.Controller
			} else {
				fate += ", may be recreated by " + r.Controller
			}
			extra = append(extra, [2]string{"peripheries", "2"})
		}
		planDOTNode(bw, of.Object, contextNS, fate, planFateColor(of.Fate), extra)
	}
	for _, e := range edges {
		fmt.Fprintf(bw, "  %q -> %q%s;\n", e.from, e.to, e.attrs)
	}
	writeDOTLegend(bw, "Fates", "the fates and marks drawn", planDOTLegend(p, edges))
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}

// planFates are the fates a plan's drawing fills its objects by, in the
// contract's order: each with its colour and what the legend says of it.
func planFates() []struct{ fate, color, meaning string } {
	return []struct{ fate, color, meaning string }{
		{plan.FateDeleted, "#f4a6a6", "gone once the delete settles"},
		{plan.FateRecreated, "#dcb8f4", "deleted, then created again by its controller"},
		{plan.FateOrphaned, "#a6e1f4", "kept, its owner reference removed"},
		{plan.FateUpdated, "#e0e0e0", "kept, changed (finalizers, owner references)"},
		{plan.FateBlocked, "#f4e1a6", "left terminating"},
		{plan.FateUnchanged, "#c8f4a6", "a blocker the plan does not change"},
	}
}

// planDOTBlocks draws what blocks an object, pointing at it.
func planDOTBlocks() [][2]string {
	return [][2]string{{"style", "dashed"}, {"color", "orange"}, {"label", "blocks"}}
}

// planFateColor is the fill of an object of fate.
func planFateColor(fate string) string {
	for _, f := range planFates() {
		if f.fate == fate {
			return f.color
		}
	}
	return ""
}

// planDOTLegend names what a plan's drawing shows: each fate drawn, in
// its colour, then the marks used (the object deleted, an outcome timing
// decides, a blocker, a blockOwnerDeletion reference).
func planDOTLegend(p *plan.Plan, edges []planDOTEdge) []dotLegendEntry {
	fates := map[string]bool{}
	timing, recreated := false, false
	for _, of := range p.Objects {
		fates[of.Fate] = true
		timing = timing || len(of.Alternatives) > 0
		recreated = recreated || of.RecreatedBy != nil
	}
	var out []dotLegendEntry
	for _, f := range planFates() {
		if fates[f.fate] {
			out = append(out, dotLegendEntry{key: f.fate, text: f.fate + ": " + f.meaning,
				attrs: [][2]string{{"style", "rounded,filled"}, {"fillcolor", f.color}}})
		}
	}
	out = append(out, dotLegendEntry{key: "target", text: "bold border: an object the delete names", attrs: [][2]string{{"penwidth", "2"}}})
	if recreated {
		out = append(out, dotLegendEntry{key: "recreated-by", text: "double border: its controller creates it again (or may)",
			attrs: [][2]string{{"peripheries", "2"}}})
	}
	if timing {
		out = append(out, dotLegendEntry{key: "timing", text: "dashed border: which fate depends on which collector worker acts first",
			attrs: [][2]string{{"style", "rounded,dashed"}}})
	}
	for _, e := range []dotLegendEntry{
		{key: "blocks", text: "blocks: holds the object it points to", edge: true, color: "orange", attrs: planDOTBlocks()},
		{key: "block-owner-deletion", text: "bold: an owner reference with blockOwnerDeletion", edge: true, color: "black", attrs: dotBlockingEdge()},
	} {
		drawn := " [" + dotAttrList(e.attrs) + "]"
		if slices.ContainsFunc(edges, func(x planDOTEdge) bool { return x.attrs == drawn }) {
			out = append(out, e)
		}
	}
	return out
}

// planDOTNode writes one object of a plan as GraphDOT writes a node: the
// identity attributes, then the drawing ones.
func planDOTNode(w io.Writer, r snapshot.ObjectRef, contextNS string, fate, fill string, extra [][2]string) {
	attrs := [][2]string{{"label", dotLabel(r, contextNS, fate)}, {"kind", r.Kind}, {"namespace", r.Namespace},
		{"name", r.Name}, {"uid", r.UID}, {"fate", fate}, {"style", "rounded,filled"}, {"fillcolor", fill}}
	for _, e := range extra {
		if i := slices.IndexFunc(attrs, func(a [2]string) bool { return a[0] == e[0] }); i >= 0 {
			attrs[i] = e
		} else {
			attrs = append(attrs, e)
		}
	}
	attrs = append(attrs, [2]string{"tooltip", dotTooltip(r)})
	writeDOTAttrs(w, r.UID, attrs)
}

// planDOTEdge is one edge of a plan's drawing and its attributes.
type planDOTEdge struct{ from, to, attrs string }

// planDOTEdges are the owner references between drawn objects (bold when
// blockOwnerDeletion) and, after each object's, the edges of what blocks it.
func planDOTEdges(p *plan.Plan, owners func(uid string) []snapshot.OwnerReference, in map[string]bool) []planDOTEdge {
	var out []planDOTEdge
	for _, of := range p.Objects {
		if owners != nil {
			for _, r := range owners(of.Object.UID) {
				if !in[r.UID] {
					continue
				}
				attrs := ""
				if r.Blocking() {
					attrs = " [" + dotAttrList(dotBlockingEdge()) + "]"
				}
				out = append(out, planDOTEdge{of.Object.UID, r.UID, attrs})
			}
		}
		for _, b := range of.BlockedBy {
			for _, o := range b.Objects {
				if in[o.UID] {
					out = append(out, planDOTEdge{o.UID, of.Object.UID, " [" + dotAttrList(planDOTBlocks()) + "]"})
				}
			}
		}
	}
	return out
}

func edgePairs(es []planDOTEdge) [][2]string {
	out := make([][2]string, len(es))
	for i, e := range es {
		out[i] = [2]string{e.from, e.to}
	}
	return out
}

// planTargetsText names what the plan deletes: its target, or every one of
// them when the request names several.
func planTargetsText(p *plan.Plan) string {
	if len(p.Targets) < 2 {
		return refText(p.Target)
	}
	names := make([]string, len(p.Targets))
	for i, t := range p.Targets {
		names[i] = refText(t)
	}
	return strings.Join(names, ", ")
}
