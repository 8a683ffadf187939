package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// maxListed bounds how many objects a tree line names before "+N more":
// a namespace can hold thousands; -o json has them all.
const maxListed = 5

// DiagnosisTree writes a Diagnosis for people: the verdict, the blocker
// tree (each level names the object it holds), the root causes with their
// remedies least destructive first, and what the snapshot could not show.
func DiagnosisTree(w io.Writer, d *diagnose.Diagnosis, s Style) error {
	var b strings.Builder
	head := s.Paint(Bold, d.Object.String())
	if d.Terminating {
		state := "terminating"
		if d.Since != nil {
			state += " since " + d.Since.UTC().Format(time.RFC3339)
		}
		head += " " + s.Paint(Red, state)
	} else {
		head += " " + s.Paint(Green, "not terminating")
	}
	b.WriteString(head + "\n")
	b.WriteString(d.Summary + "\n")

	if d.GarbageCollection != nil {
		writeCollection(&b, d.GarbageCollection, s)
	}
	if len(d.Blockers) > 0 {
		b.WriteString("\n" + s.Paint(Bold, "Blockers") + "\n")
		writeBlockers(&b, d.Blockers, d.Object, "", s)
	}
	if len(d.RootCauses) > 0 {
		b.WriteString("\n" + s.Paint(Bold, "Root causes") + "\n")
		for i, rc := range d.RootCauses {
			writeRootCause(&b, i+1, rc, d.Cluster != nil, s)
		}
	}
	if len(d.Findings) > 0 {
		b.WriteString("\n" + s.Paint(Bold, "Owner-graph findings") + " (" + s.Cmd() + " graph)\n")
		for _, f := range d.Findings {
			b.WriteString("  - " + s.Paint(Yellow, f.Type) + ": " + f.Message + "\n")
		}
	}
	if len(d.Notes) > 0 {
		b.WriteString("\n" + s.Paint(Bold, "Incomplete") + " (the snapshot does not show everything)\n")
		for _, n := range d.Notes {
			b.WriteString("  - " + n + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeCollection(b *strings.Builder, c *diagnose.Collection, s Style) {
	code := Green
	switch c.Verdict {
	case diagnose.VerdictNeverCollected:
		code = Yellow
	case diagnose.VerdictWillBeDeleted:
		code = Red
	}
	b.WriteString("\n" + s.Paint(Bold, "Garbage collection") + ": " + s.Paint(code, c.Verdict) + "\n")
	for _, o := range c.Owners {
		fmt.Fprintf(b, "  ownerReferences[%d] %s/%s (%s): %s\n", o.Index, o.Ref.Kind, o.Ref.Name, o.Class, o.Message)
	}
}

// writeBlockers prints blockers under prefix. Consecutive blockers of an
// object other than parent get that object as a header, so each level of
// the tree says whose finalizer it is.
func writeBlockers(b *strings.Builder, bs []diagnose.Blocker, parent snapshot.ObjectRef, prefix string, s Style) {
	type group struct {
		obj snapshot.ObjectRef
		bs  []diagnose.Blocker
	}
	var groups []group
	for _, x := range bs {
		if n := len(groups); n > 0 && groups[n-1].obj == x.Object {
			groups[n-1].bs = append(groups[n-1].bs, x)
			continue
		}
		groups = append(groups, group{obj: x.Object, bs: []diagnose.Blocker{x}})
	}
	// Flatten into the items drawn at this level: blockers of parent
	// itself, or an object header whose children are its blockers.
	type item struct {
		header *snapshot.ObjectRef
		blk    *diagnose.Blocker
		kids   []diagnose.Blocker
	}
	var items []item
	for gi := range groups {
		g := groups[gi]
		if g.obj == parent {
			for i := range g.bs {
				items = append(items, item{blk: &g.bs[i]})
			}
			continue
		}
		items = append(items, item{header: &groups[gi].obj, kids: g.bs})
	}
	for i, it := range items {
		last := i == len(items)-1
		branch, cont := "├─ ", "│  "
		if last {
			branch, cont = "└─ ", "   "
		}
		if it.header != nil {
			b.WriteString(prefix + branch + s.Paint(Bold, it.header.String()) + "\n")
			if len(it.kids) == 1 && it.kids[0].Repeated {
				b.WriteString(prefix + cont + s.Paint(Dim, "(explained above)") + "\n")
				continue
			}
			writeBlockers(b, it.kids, *it.header, prefix+cont, s)
			continue
		}
		writeBlocker(b, *it.blk, prefix, branch, cont, s)
	}
}

func writeBlocker(b *strings.Builder, x diagnose.Blocker, prefix, branch, cont string, s Style) {
	if x.Repeated {
		b.WriteString(prefix + branch + s.Paint(Dim, "(explained above)") + "\n")
		return
	}
	var label string
	switch {
	case x.Finalizer != "" && x.Spec:
		label = "spec finalizer " + s.Paint(Yellow, x.Finalizer)
	case x.Finalizer != "":
		label = "finalizer " + s.Paint(Yellow, x.Finalizer)
	case x.RemovedBy != "":
		label = "waits for " + x.RemovedBy
	default:
		label = "waits"
	}
	if x.Finalizer != "" && x.RemovedBy != "" {
		label += " ← " + removedBy(x.RemovedBy, x.Controller, x.Attribution)
	}
	if x.RootCause > 0 {
		label += "  " + s.Paint(Red, fmt.Sprintf("[root cause %d]", x.RootCause))
	}
	b.WriteString(prefix + branch + label + "\n")
	inner := prefix + cont
	if x.WaitingFor != "" {
		b.WriteString(inner + s.Paint(Dim, "waiting for: ") + x.WaitingFor + "\n")
	}
	for _, c := range x.Conditions {
		b.WriteString(inner + s.Paint(Dim, "status "+c.Type+": ") + c.Message + "\n")
	}
	for _, c := range x.StaleConditions {
		b.WriteString(inner + s.Paint(Yellow, "stale status "+c.Type+"="+c.Status+": ") + c.Message + "; contradicted by " + c.ContradictedBy + "\n")
	}
	// Objects explained below are not repeated here, except for a count.
	shown := map[snapshot.ObjectRef]bool{}
	for _, k := range x.Blockers {
		shown[k.Object] = true
		for _, o := range k.Objects {
			shown[o] = true
		}
	}
	var rest []snapshot.ObjectRef
	for _, o := range x.Objects {
		if !shown[o] {
			rest = append(rest, o)
		}
	}
	if len(rest) > 0 {
		b.WriteString(inner + s.Paint(Dim, "objects: ") + listRefs(rest) + "\n")
	}
	if len(x.Blockers) > 0 {
		writeBlockers(b, x.Blockers, x.Object, inner, s)
	}
}

func listRefs(refs []snapshot.ObjectRef) string {
	var parts []string
	for i, r := range refs {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("+%d more", len(refs)-maxListed))
			break
		}
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ", ")
}

func writeRootCause(b *strings.Builder, n int, rc diagnose.RootCause, live bool, s Style) {
	title := rc.Object.String()
	if rc.Finalizer != "" {
		title += "  finalizer " + s.Paint(Yellow, rc.Finalizer)
	}
	fmt.Fprintf(b, "%2d. %s  (%s)\n", n, s.Paint(Bold, title), rc.Reason)
	b.WriteString("    " + rc.Message + "\n")
	if rc.RemovedBy != "" {
		b.WriteString("    " + s.Paint(Dim, "removed by: ") + removedBy(rc.RemovedBy, rc.Controller, rc.Attribution) + "\n")
	}
	if a := rc.Attribution; a != nil {
		ev := a.Evidence + " (" + a.Confidence + " confidence)"
		if a.Evidence == diagnose.EvidenceNone {
			ev = a.Evidence
		}
		b.WriteString("    " + s.Paint(Dim, "evidence: ") + ev + ": " + a.Detail + "\n")
	}
	if len(rc.Holds) > 0 {
		b.WriteString("    " + s.Paint(Dim, "holds: ") + listRefs(rc.Holds) + "\n")
	}
	if len(rc.Remedies) == 0 {
		return
	}
	b.WriteString("    Remedies, least destructive first:\n")
	for i, r := range rc.Remedies {
		fmt.Fprintf(b, "      %c) %s\n", 'a'+rune(i%26), r.Description)
		if r.Command != "" {
			b.WriteString("         " + s.Paint(Cyan, "$ "+r.Command) + "\n")
		}
		if r.ID != "" && live {
			// Only a live diagnosis can be applied: say how, guard included.
			b.WriteString("         " + s.Paint(Cyan, "$ "+s.Cmd()+" apply WHY.json --remedy "+r.ID) + s.Paint(Dim, "  (WHY.json: this diagnosis, -o json; guarded by its uid, resourceVersion and finalizers)") + "\n")
		}
		if r.Risk != "" {
			b.WriteString("         " + s.Paint(Yellow, "risk: ") + r.Risk + "\n")
		}
		if r.Leaks != "" {
			b.WriteString("         " + s.Paint(Red, "may leak: ") + r.Leaks + "\n")
		}
		if len(r.Finishes) > 0 {
			b.WriteString("         " + s.Paint(Green, "finishes: ") + listRefs(r.Finishes) + "\n")
		}
	}
}

// DiagnosisTable writes `why-stuck -A`: one block of rows per root cause,
// the longest-held first, naming every terminating object it holds with
// its age. Colour is left out of the cells so columns stay aligned. A root
// cause whose finalizer is on an object not yet deleted holds nothing yet:
// it is marked "(once deleted)" and not counted as stuck. REMOVED BY is
// what the detailed view says, word for word.
func DiagnosisTable(w io.Writer, l *diagnose.DiagnosisList, s Style) error {
	terminating := 0
	deleting := map[string]bool{}
	for _, d := range l.Items {
		if d.Terminating {
			terminating++
			deleting[d.Object.UID] = true
		}
	}
	later := func(rc diagnose.RootCause) bool { return rc.Finalizer != "" && !deleting[rc.Object.UID] }
	if terminating == 0 {
		// Only an object named explicitly can be here while live: say what
		// kgc found about it instead.
		msg := "No terminating objects.\n"
		for _, d := range l.Items {
			msg += d.Summary + "\n"
		}
		_, err := io.WriteString(w, msg)
		return err
	}
	rows := diagnosisRows(l.Groups, later)
	if err := plainTable(w, []string{"ROOT CAUSE", "FINALIZER", "REASON", "REMOVED BY", "HOLDS", "AGE"}, rows); err != nil {
		return err
	}
	var byController []string
	for _, g := range l.Groups {
		if len(g.RootObjects) > 1 {
			byController = append(byController, "  "+g.Summary+" ("+listRefs(g.RootObjects)+")")
		}
	}
	if len(byController) > 0 {
		if _, err := fmt.Fprintf(w, "\nOne controller, one fix:\n%s\n", strings.Join(byController, "\n")); err != nil {
			return err
		}
	}
	// Objects named on the command line that are not terminating hold
	// nothing, but were asked about: each says so in one line.
	var calm []string
	for _, d := range l.Items {
		if !d.Terminating {
			calm = append(calm, "  "+d.Summary)
		}
	}
	if len(calm) > 0 {
		if _, err := fmt.Fprintf(w, "\nNot terminating:\n%s\n", strings.Join(calm, "\n")); err != nil {
			return err
		}
	}
	stuck, pending := 0, 0
	for _, g := range l.Groups {
		switch {
		case later(g.RootCause):
			pending++
		case g.RootCause.Reason != diagnose.ReasonInProgress && g.RootCause.Reason != diagnose.ReasonNoFinalizers:
			stuck++
		}
	}
	counts := fmt.Sprintf("%d stuck, %d in progress", stuck, len(l.Groups)-stuck-pending)
	if pending > 0 {
		counts += fmt.Sprintf(", %d on %s not deleted yet", pending, words.Agree(pending, "an object", "objects"))
	}
	_, err := fmt.Fprintf(w, "\n%s, %s (%s). %s\n",
		words.Count(terminating, "terminating object"), words.Count(len(l.Groups), "root cause"), counts,
		s.Paint(Dim, s.Cmd()+" why-stuck TYPE/NAME explains one and lists its remedies."))
	return err
}

// diagnosisRows are the table's rows: a root cause on its first held
// object's row, each held object with its age.
func diagnosisRows(groups []diagnose.Group, later func(diagnose.RootCause) bool) [][]string {
	var rows [][]string
	for _, g := range groups {
		rc := g.RootCause
		fin := rc.Finalizer
		if fin == "" {
			fin = "-"
		}
		for i, h := range g.Objects {
			age := diagnose.Age(time.Duration(h.AgeSeconds) * time.Second)
			if h.AgeSeconds < 0 {
				// A pod's deletionTimestamp is the end of its grace period.
				age = "terminating, " + diagnose.Age(time.Duration(-h.AgeSeconds)*time.Second) + " of grace left"
			}
			if i > 0 {
				rows = append(rows, []string{"", "", "", "", h.Object.String(), age})
				continue
			}
			name := rc.Object.String()
			if later(rc) {
				name += " (once deleted)"
			}
			rows = append(rows, []string{name, fin, rc.Reason, removedBy(rc.RemovedBy, rc.Controller, rc.Attribution), h.Object.String(), age})
		}
	}
	return rows
}

// removedBy names the remover and, for a finalizer no Kubernetes
// controller removes, the controller the evidence names and the kind of
// evidence: "unknown (the controller in Deployment/x/y; workload-label)",
// "unknown (no controller found in the input)".
func removedBy(actor, controller string, a *diagnose.Attribution) string {
	switch {
	case a != nil && a.Evidence == diagnose.EvidenceNone:
		return actor + " (no controller found in the input)"
	case controller == "" || controller == actor:
		return actor
	case a != nil:
		return actor + " (" + controller + "; " + a.Evidence + ")"
	}
	return actor + " (" + controller + ")"
}

// RootCauseLine is a root cause in one line, as why-stuck words it: the
// object, the finalizer holding it, the reason, the message, and who
// removes it with how kgc knows. The post-mortem's "still terminating"
// says it the same way.
func RootCauseLine(rc diagnose.RootCause) string {
	line := rc.Object.String()
	if rc.Finalizer != "" {
		line += " finalizer " + rc.Finalizer
	}
	line += " (" + rc.Reason + "): " + rc.Message
	if rc.RemovedBy != "" {
		line += "; removed by " + removedBy(rc.RemovedBy, rc.Controller, rc.Attribution)
	}
	return line
}
