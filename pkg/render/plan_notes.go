package render

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// unsettledPrefix starts the warning pkg/plan writes when the input is not
// settled (result.go). That warning counts every baseline step in the
// cluster; the text view replaces it with one about the objects this plan
// concerns, and says where the rest can be seen.
const unsettledPrefix = "the input is not settled:"

// maxNamed is how many objects a warning names before "and N more".
const maxNamed = 3

// planWarnings are the plan's completeness, warnings and notes.
func planWarnings(bw *bufio.Writer, p *plan.Plan, opts PlanOptions, st Style) {
	if !p.Complete {
		fmt.Fprintf(bw, "\n%s the plan is incomplete: it depends on something the input does not show\n", st.Paint(Yellow, "warning:"))
	}
	for _, of := range p.KeptAndDeleted() {
		fmt.Fprintf(bw, "%s %s is marked %s, but the cascade deletes it: the garbage collector ignores the markers of Helm, Argo CD and Flux (kgc apply refuses unless --allow-kept names it)\n",
			st.Paint(Yellow, "warning:"), refText(of.Object), of.Keep)
	}
	for _, w := range p.Warnings {
		if strings.HasPrefix(w, unsettledPrefix) {
			planUnsettled(bw, p, opts, st, strings.Contains(w, " shown"))
			continue
		}
		fmt.Fprintf(bw, "%s %s\n", st.Paint(Yellow, "warning:"), w)
	}
	for _, n := range p.Notes {
		if plan.IsRaceNote(n) {
			// The races section lists the objects and their alternatives,
			// and only when there are some.
			continue
		}
		fmt.Fprintf(bw, "%s %s\n", st.Paint(Dim, "note:"), n)
	}
}

// baselineObject is an object the controllers act on without the delete,
// and the last thing they do to it.
type baselineObject struct {
	ref  snapshot.ObjectRef
	last plan.Step
}

// planUnsettled says what the controllers would do anyway, in two parts: a
// warning naming the objects this plan concerns (the ones it lists, the
// target, and a namespace target's content), since their final state is
// measured on top of that; and a note naming the first few others, which
// have nothing to do with the question (on a live cluster, work pending in
// unrelated namespaces). capped says the plan lists only the first
// baseline steps.
func planUnsettled(bw *bufio.Writer, p *plan.Plan, opts PlanOptions, st Style, capped bool) {
	related, other := splitBaseline(p)
	where := "--show-steps lists them, marked baseline"
	if opts.ShowSteps {
		where = "the steps marked baseline above"
	}
	if len(related) > 0 {
		fmt.Fprintf(bw, "%s the input is not settled: even without this delete the controllers would act on %s this plan concerns: %s; the final state shows what the delete changes on top of that (%s)\n",
			st.Paint(Yellow, "warning:"), words.Count(len(related), "object"), baselineNames(related, true), where)
	}
	if len(other) > 0 {
		also, count := "", words.Count(len(other), "other object")
		if len(related) == 0 {
			count = words.Count(len(other), "object")
		}
		if len(related) > 0 {
			also = " also"
		}
		if capped {
			count = "at least " + count
		}
		fmt.Fprintf(bw, "%s the controllers%s have work pending on %s that this delete does not touch: %s (%s)\n",
			st.Paint(Dim, "note:"), also, count, baselineNames(other, false), where)
	}
}

// splitBaseline sorts the objects of the baseline steps, in step order,
// into those the plan concerns and the others.
func splitBaseline(p *plan.Plan) (related, other []baselineObject) {
	concerns := map[string]bool{p.Target.UID: true}
	for _, of := range p.Objects {
		concerns[of.Object.UID] = true
	}
	// A namespace's delete concerns its content; any other delete, only
	// the objects it changes, whatever namespace they share.
	ns := ""
	if p.Target.Namespace == "" && p.Target.Kind == "Namespace" {
		ns = p.Target.Name
	}
	seen := map[string]int{}
	var all []baselineObject
	for _, s := range p.Steps {
		if !s.Baseline {
			continue
		}
		if i, ok := seen[s.Object.UID]; ok {
			all[i].last = s
			continue
		}
		seen[s.Object.UID] = len(all)
		all = append(all, baselineObject{ref: s.Object, last: s})
	}
	for _, o := range all {
		if concerns[o.ref.UID] || (ns != "" && o.ref.Namespace == ns) {
			related = append(related, o)
		} else {
			other = append(other, o)
		}
	}
	return related, other
}

// baselineNames names the first few objects, with what happens to each
// when detail is set, and counts the rest.
func baselineNames(objs []baselineObject, detail bool) string {
	var parts []string
	for i, o := range objs {
		if i == maxNamed {
			parts = append(parts, fmt.Sprintf("and %d more", len(objs)-maxNamed))
			break
		}
		s := refText(o.ref)
		if detail {
			s += " (" + o.last.Actor + ": " + o.last.Action + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
