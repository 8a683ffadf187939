package apply

import (
	"fmt"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"strings"

	"github.com/kgc-dev/kgc/pkg/plan"
)

// barWidth is the bar's width in cells: with its counts, the line fits an
// 80-column terminal.
const barWidth = 24

// progressBar is the line a terminal shows while apply follows the
// cascade: how many of the objects the plan deletes are gone, the wave of
// the plan the cascade has reached (the lowest wave of a step whose
// object is not as planned yet), and the divergences so far.
//
//	following [#########---------------] 18/50 deleted  wave 2/3  0 diverged
func progressBar(p *plan.Plan, objs []report.ObjectResult) string {
	planned, gone := 0, 0
	for _, o := range objs {
		if o.PlannedFate != plan.FateDeleted && o.PlannedFate != plan.FateRecreated {
			continue
		}
		planned++
		if o.Observed != nil && !o.Observed.Exists {
			gone++
		}
	}
	filled := 0
	if planned > 0 {
		filled = gone * barWidth / planned
	}
	bar := strings.Repeat("#", filled) + strings.Repeat("-", barWidth-filled)
	wave, waves := currentWave(p, objs)
	return fmt.Sprintf("following [%s] %d/%d deleted  wave %d/%d  %d diverged", bar, gone, planned, wave, waves, summarize(objs).Diverged)
}

// currentWave returns the lowest wave holding a step on an object not
// yet as planned (the last wave when every object is), and the plan's
// number of waves.
func currentWave(p *plan.Plan, objs []report.ObjectResult) (wave, waves int) {
	pending := map[string]bool{}
	for _, o := range objs {
		if o.Result != report.ResultAsPlanned {
			pending[o.Object.UID] = true
		}
	}
	for _, s := range p.Steps {
		waves = max(waves, s.Wave)
		if pending[s.Object.UID] && (wave == 0 || s.Wave < wave) {
			wave = s.Wave
		}
	}
	if wave == 0 {
		wave = waves
	}
	return wave, waves
}
