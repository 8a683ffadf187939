package apply

import (
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"strings"

	"github.com/kgc-dev/kgc/pkg/plan"
)

// checkOneDelete refuses a plan of several deletes (kgc plan delete
// deploy/a sts/b): apply sends one guarded DELETE and follows one cascade,
// so such a plan is for review only. Nothing was sent.
func checkOneDelete(p *plan.Plan) error {
	if len(p.Targets) < 2 {
		return nil
	}
	names := make([]string, len(p.Targets))
	for i, t := range p.Targets {
		names[i] = refString(t)
	}
	return refuse(report.ReasonNoBasis, "the plan deletes %d objects (%s): kgc apply carries out one delete; plan and apply each of them", len(p.Targets), strings.Join(names, ", "))
}
