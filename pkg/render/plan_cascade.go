package render

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/plan"
)

// wave is one wave of the cascade: the steps the default view shows, and
// the waits it hides.
type wave struct {
	n            int
	shown, waits []plan.Step
}

// planCascade prints what the delete changes wave by wave, in wave order.
// A wave is what follows from the one before, so its steps could happen
// in any order; the simulator numbers steps as its collector workers
// interleave, so step order would print a wave more than once. Baseline
// steps are left out (they are not this delete's), and so are waits, but
// a wave that holds only waits is still printed, with what it waits for,
// so that wave numbers never skip without a word.
func planCascade(bw *bufio.Writer, p *plan.Plan, st Style) {
	fmt.Fprintf(bw, "\n%s\n", st.Paint(Bold, "Cascade:"))
	waves := cascadeWaves(p.Steps)
	if len(waves) == 0 {
		fmt.Fprintln(bw, "  nothing happens")
		return
	}
	for _, w := range waves {
		var t columns
		switch {
		case len(w.shown) > 0:
			fmt.Fprintf(bw, "  wave %d\n", w.n)
			for _, step := range w.shown {
				t.add(text("    "+step.Actor), painted(actionColor(step.Action), step.Action), text(refText(step.Object)), painted(Dim, step.Detail))
			}
		case len(w.waits) > 0:
			fmt.Fprintf(bw, "  wave %d %s\n", w.n, st.Paint(Dim, "(waits only; --show-steps lists each)"))
			waitRows(&t, w.waits)
		default:
			fmt.Fprintf(bw, "  wave %d %s\n", w.n, st.Paint(Dim, "(no step)"))
		}
		t.flush(bw, st)
	}
}

// cascadeWaves groups the plan's own steps by wave, keeping step order
// within a wave, from its first wave to the last one that changes
// something.
func cascadeWaves(steps []plan.Step) []wave {
	byWave := map[int]*wave{}
	first, last := 0, 0
	for _, s := range steps {
		if s.Baseline {
			continue
		}
		w := byWave[s.Wave]
		if w == nil {
			w = &wave{n: s.Wave}
			byWave[s.Wave] = w
		}
		if s.Action == plan.ActionWait {
			w.waits = append(w.waits, s)
			continue
		}
		w.shown = append(w.shown, s)
		if first == 0 || s.Wave < first {
			first = s.Wave
		}
		last = max(last, s.Wave)
	}
	var out []wave
	for n := first; n <= last && first > 0; n++ {
		if w := byWave[n]; w != nil {
			out = append(out, *w)
		} else {
			out = append(out, wave{n: n})
		}
	}
	return out
}

// waitRows summarises a wave's waits: one row per actor, kind and
// detail ("kubelet  wait  5 Pods  until the grace period ends at …").
func waitRows(t *columns, waits []plan.Step) {
	type key struct{ actor, kind, detail string }
	var order []key
	groups := map[key][]plan.Step{}
	for _, s := range waits {
		k := key{s.Actor, s.Object.Kind, s.Detail}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], s)
	}
	for _, k := range order {
		g := groups[k]
		what := refText(g[0].Object)
		if len(g) > 1 {
			what = words.Count(len(g), k.kind)
		}
		t.add(text("    "+k.actor), painted(Dim, plan.ActionWait), text(what), painted(Dim, strings.TrimSpace(k.detail)))
	}
}
