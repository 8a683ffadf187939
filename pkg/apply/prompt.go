package apply

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/kgc-dev/kgc/pkg/plan"
)

// Prompt shows what the delete does and asks for the target's name, as a
// repository deletion does: typing a name takes attention that "y" does
// not.
func Prompt(in io.Reader, out io.Writer, p *plan.Plan) error {
	if in == nil || out == nil {
		return refuse(ReasonNotConfirmed, "not confirmed: there is no terminal to ask on; pass --yes")
	}
	s := p.WorstCase()
	t := p.Request.Target
	recreated := ""
	if s.Recreated > 0 {
		recreated = fmt.Sprintf(", %d recreated by their controllers", s.Recreated)
	}
	fmt.Fprintf(out, "kgc will delete %s (propagationPolicy %s): %d deleted, %d orphaned, %d updated, %d blocked%s.\n",
		refString(t), policyName(p.Request.PropagationPolicy), s.Deleted, s.Orphaned, s.Updated, s.Blocked, recreated)
	fmt.Fprintf(out, "Plan digest: %s\nType the name of the %s (%s) to confirm: ", p.Digest, t.Kind, t.Name)
	answer, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && answer == "" {
		return refuse(ReasonNotConfirmed, "not confirmed: no answer was given (%v); nothing was deleted", err)
	}
	if strings.TrimSpace(answer) != t.Name {
		return refuse(ReasonNotConfirmed, "not confirmed: %q is not %q; nothing was deleted", strings.TrimSpace(answer), t.Name)
	}
	return nil
}

func policyName(p string) string {
	if p == "" {
		return "none: the resource's default"
	}
	return p
}
