package render

import (
	"bufio"
	"fmt"
	"slices"
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

// planWarnings are the plan's completeness, warnings and notes. What the
// controllers would do elsewhere anyway, and notes about objects the
// delete does not concern, are one line unless opts.Verbose or
// opts.ShowSteps: they answer another question than the one asked.
func planWarnings(bw *bufio.Writer, p *plan.Plan, opts PlanOptions, st Style) {
	if !p.Complete {
		fmt.Fprintf(bw, "\n%s the plan is incomplete: it depends on something the input does not show\n", st.Paint(Yellow, "warning:"))
	}
	for _, of := range p.KeptAndDeleted() {
		fmt.Fprintf(bw, "%s %s is marked %s, but the cascade deletes it: the garbage collector ignores the markers of Helm, Argo CD and Flux (kgc apply refuses unless --allow-kept names it)\n",
			st.Paint(Yellow, "warning:"), refText(of.Object), of.Keep)
	}
	concerns := concernsOf(p)
	related, other := splitBaseline(p, concerns)
	for _, w := range p.Warnings {
		if strings.HasPrefix(w, unsettledPrefix) {
			planUnsettled(bw, related, opts, st)
			continue
		}
		fmt.Fprintf(bw, "%s %s\n", st.Paint(Yellow, "warning:"), w)
	}
	var elsewhere []string
	for _, n := range p.Notes {
		if plan.IsRaceNote(n) {
			// The races section lists the objects and their alternatives,
			// and only when there are some.
			continue
		}
		if ref, ok := p.NoteAbout[n]; ok && !concerns(ref) {
			elsewhere = append(elsewhere, n)
			continue
		}
		fmt.Fprintf(bw, "%s %s\n", st.Paint(Dim, "note:"), n)
	}
	planElsewhere(bw, p, other, elsewhere, opts, st)
}

// planElsewhere is what concerns objects the delete does not touch: the
// controllers' pending work on them and notes about them, named with
// -v=1 or --show-steps, otherwise counted in one line that says how to
// see them.
func planElsewhere(bw *bufio.Writer, p *plan.Plan, other []baselineObject, notes []string, opts PlanOptions, st Style) {
	capped := slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.HasPrefix(w, unsettledPrefix) && strings.Contains(w, " shown") })
	count := words.Count(len(other), "object")
	if capped {
		count = "at least " + count
	}
	if opts.Verbose || opts.ShowSteps {
		if len(other) > 0 {
			where := "--show-steps lists them, marked baseline"
			if opts.ShowSteps {
				where = "the steps marked baseline above"
			}
			fmt.Fprintf(bw, "%s the controllers have work pending on %s that this delete does not touch: %s (%s)\n",
				st.Paint(Dim, "note:"), count, baselineNames(other, false), where)
		}
		for _, n := range notes {
			fmt.Fprintf(bw, "%s %s\n", st.Paint(Dim, "note:"), n)
		}
		return
	}
	n := words.Count(len(notes), "note")
	switch {
	case len(other) > 0 && len(notes) > 0:
		fmt.Fprintf(bw, "%s the controllers have work pending on %s this delete does not touch, and %s about such objects (-v=1 shows them)\n",
			st.Paint(Dim, "note:"), count, n+" "+words.Agree(len(notes), "is", "are"))
	case len(other) > 0:
		fmt.Fprintf(bw, "%s the controllers have work pending on %s this delete does not touch (-v=1 names them)\n", st.Paint(Dim, "note:"), count)
	case len(notes) > 0:
		fmt.Fprintf(bw, "%s %s about objects this delete does not touch (-v=1 shows %s)\n", st.Paint(Dim, "note:"), n, words.Agree(len(notes), "it", "them"))
	}
}

// baselineObject is an object the controllers act on without the delete,
// and the last thing they do to it.
type baselineObject struct {
	ref  snapshot.ObjectRef
	last plan.Step
}

// planUnsettled warns of what the controllers would do anyway to the
// objects this plan concerns (the ones it lists, the target, and a
// namespace target's content), since their final state is measured on
// top of that.
func planUnsettled(bw *bufio.Writer, related []baselineObject, opts PlanOptions, st Style) {
	if len(related) == 0 {
		return
	}
	where := "--show-steps lists them, marked baseline"
	if opts.ShowSteps {
		where = "the steps marked baseline above"
	}
	fmt.Fprintf(bw, "%s the input is not settled: even without this delete the controllers would act on %s this plan concerns: %s; the final state shows what the delete changes on top of that (%s)\n",
		st.Paint(Yellow, "warning:"), words.Count(len(related), "object"), baselineNames(related, true), where)
}

// concernsOf says whether an object is one the plan concerns: its target,
// an object whose fate it lists, or, for a namespace's delete, the
// namespace's content. Any other delete concerns only the objects it
// changes, whatever namespace they share.
func concernsOf(p *plan.Plan) func(snapshot.ObjectRef) bool {
	uids := map[string]bool{p.Target.UID: true}
	for _, of := range p.Objects {
		uids[of.Object.UID] = true
	}
	ns := ""
	if p.Target.Namespace == "" && p.Target.Kind == "Namespace" {
		ns = p.Target.Name
	}
	return func(r snapshot.ObjectRef) bool { return uids[r.UID] || (ns != "" && r.Namespace == ns) }
}

// splitBaseline sorts the objects of the baseline steps, in step order,
// into those the plan concerns and the others.
func splitBaseline(p *plan.Plan, concerns func(snapshot.ObjectRef) bool) (related, other []baselineObject) {
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
		if concerns(o.ref) {
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
