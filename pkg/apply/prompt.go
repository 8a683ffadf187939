package apply

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/kgc-dev/kgc/pkg/apply/report"
	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/plan"
)

// Prompt shows what the delete does and asks for the target's name, as a
// repository deletion does: typing a name takes attention that "y" does
// not.
func Prompt(in io.Reader, out io.Writer, p *plan.Plan) error {
	if in == nil || out == nil {
		return refuse(report.ReasonNotConfirmed, "not confirmed: there is no terminal to ask on; pass --yes")
	}
	s := p.WorstCase()
	t := p.Request.Target
	recreated := ""
	if s.Recreated > 0 {
		recreated = fmt.Sprintf(", %d recreated by their controllers", s.Recreated)
	}
	fmt.Fprintf(out, "kgc will delete %s (propagationPolicy %s): %d deleted, %d orphaned, %d updated, %d blocked%s.\n",
		refString(t), report.PolicyName(p.Request.PropagationPolicy), s.Deleted, s.Orphaned, s.Updated, s.Blocked, recreated)
	// The digest is not repeated here: the report says it.
	fmt.Fprintf(out, "Type the name of the %s (%s) to confirm: ", t.Kind, t.Name)
	return readName(in, t.Name)
}

// readName reads the typed answer and refuses anything but name.
func readName(in io.Reader, name string) error {
	answer, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && answer == "" {
		return refuse(report.ReasonNotConfirmed, "not confirmed: no answer was given (%v); nothing was sent", err)
	}
	if strings.TrimSpace(answer) != name {
		return refuse(report.ReasonNotConfirmed, "not confirmed: %q is not %q; nothing was sent", strings.TrimSpace(answer), name)
	}
	return nil
}

// PromptRemedy shows the remedy and asks for its object's name.
func PromptRemedy(in io.Reader, out io.Writer, rem diagnose.Remedy) error {
	if in == nil || out == nil {
		return refuse(report.ReasonNotConfirmed, "not confirmed: there is no terminal to ask on; pass --yes")
	}
	o := rem.Request.Object
	fmt.Fprintf(out, "kgc will %s: %s.\n", strings.ToLower(rem.Request.Verb), rem.Description)
	if rem.Risk != "" {
		fmt.Fprintf(out, "Risk: %s\n", rem.Risk)
	}
	if rem.Leaks != "" {
		fmt.Fprintf(out, "May leak: %s\n", rem.Leaks)
	}
	fmt.Fprintf(out, "Type the name of the %s (%s) to confirm: ", o.Kind, o.Name)
	return readName(in, o.Name)
}
