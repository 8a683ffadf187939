package render

import (
	"io"
	"strings"

	"github.com/kgc-dev/kgc/pkg/plan"
)

// PlanTable lists a plan's objects one per row, kubectl style, in the
// plan's order: -o table means one row per object in every command.
// FATE says every outcome when timing decides ("deleted|blocked"), and
// REASON is the plan's reason for the first.
func PlanTable(w io.Writer, p *plan.Plan) error {
	rows := make([][]string, 0, len(p.Objects))
	for _, of := range p.Objects {
		fates := []string{of.Fate}
		for _, a := range of.Alternatives {
			if !strings.Contains("|"+strings.Join(fates, "|")+"|", "|"+a.Fate+"|") {
				fates = append(fates, a.Fate)
			}
		}
		ns := of.Object.Namespace
		if ns == "" {
			ns = "<none>"
		}
		rows = append(rows, []string{ns, of.Object.Kind, of.Object.Name, strings.Join(fates, "|"), of.Reason})
	}
	if len(rows) == 0 {
		_, err := io.WriteString(w, "No objects in the plan.\n")
		return err
	}
	return plainTable(w, []string{"NAMESPACE", "KIND", "NAME", "FATE", "REASON"}, rows)
}
