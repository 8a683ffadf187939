package render

import (
	"bufio"
	"io"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// planHTML is the model of the plan page.
type planHTML struct {
	// Header is the text output's header, line by line: the request, what
	// undoes it, the counts.
	Header     []string
	Recreated  []planCallout
	Volumes    []planCallout
	Waves      []waveHTML
	Objects    []fateHTML
	Warnings   []string
	Notes      []string
	Incomplete bool
}

// planCallout is one thing a plan calls out before the rest: a volume
// whose storage goes, or an object a controller makes again.
type planCallout struct {
	Object, Text, Fill string
	Bad                bool
}

type waveHTML struct {
	N     int
	Steps []stepHTML
	Waits int
}

type stepHTML struct {
	Actor, Action, Object, Detail, Fill string
}

type fateHTML struct {
	Object, Fate, Fill, Final, Reason string
	Blockers                          []string
}

// PlanHTML writes p as a page: what the plan calls out first (the volumes
// whose storage it destroys, the objects controllers recreate), its waves
// as columns, each object coloured by its fate as the DOT drawing colours
// it (fateFill), the final fates, and the owner graph of what it touches,
// laid out by kgc. owners gives an object's owner references, as PlanDOT
// takes them.
func PlanHTML(w io.Writer, p *plan.Plan, owners func(uid string) []snapshot.OwnerReference) error {
	var hb strings.Builder
	bw := bufio.NewWriter(&hb)
	planHeader(bw, p, Style{})
	if err := bw.Flush(); err != nil {
		return err
	}
	body := planHTML{Header: strings.Split(strings.TrimSpace(hb.String()), "\n"), Warnings: p.Warnings, Notes: p.Notes, Incomplete: !p.Complete}
	fates := map[string]plan.ObjectFate{}
	for _, of := range p.Objects {
		fates[of.Object.UID] = of
		body.Objects = append(body.Objects, planFateHTML(of))
		if r := of.RecreatedBy; r != nil {
			body.Recreated = append(body.Recreated, planCallout{Object: refText(of.Object), Fill: fateFill(of.Fate),
				Text: strings.TrimPrefix(fateText(of), finalText(of.Final)+", ")})
		}
		if v := of.Volume; v != nil {
			text := v.Storage + ", claim " + claimText(v) + ": " + v.Reason
			if v.Capacity != "" {
				text = v.Capacity + " " + text
			}
			if v.Reclaim != "" {
				text += "; to reclaim it: " + v.Reclaim
			}
			body.Volumes = append(body.Volumes, planCallout{Object: refText(of.Object), Text: text, Fill: fateFill(of.Fate), Bad: v.Storage == "destroyed"})
		}
	}
	// Destroyed storage first: it cannot be undone.
	rank := func(c planCallout) int {
		if c.Bad {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(body.Volumes, func(a, b planCallout) int { return rank(a) - rank(b) })
	for _, wv := range cascadeWaves(p.Steps) {
		h := waveHTML{N: wv.n, Waits: len(wv.waits)}
		for _, s := range wv.shown {
			h.Steps = append(h.Steps, stepHTML{Actor: s.Actor, Action: s.Action, Object: refText(s.Object), Detail: s.Detail,
				Fill: fateFill(fates[s.Object.UID].Fate)})
		}
		body.Waves = append(body.Waves, h)
	}
	return writeHTMLPage(w, htmlPage{Kind: "plan", Title: "kgc plan", Body: body, Data: planDrawing(p, owners)})
}

func planFateHTML(of plan.ObjectFate) fateHTML {
	f := fateHTML{Object: refText(of.Object), Fate: planFateLabel(of), Fill: fateFill(of.Fate), Final: fateText(of), Reason: of.Reason}
	for _, b := range of.BlockedBy {
		line := blockerLine(b, Style{})
		if len(b.Objects) > 0 {
			names := make([]string, len(b.Objects))
			for i, o := range b.Objects {
				names[i] = refText(o)
			}
			line += " (" + strings.Join(names, ", ") + ")"
		}
		f.Blockers = append(f.Blockers, line)
	}
	return f
}

// planDrawing is the owner graph of the plan's objects, as PlanDOT draws
// it: coloured by fate, the target outlined, blockers dashed.
func planDrawing(p *plan.Plan, owners func(uid string) []snapshot.OwnerReference) htmlDrawing {
	in := map[string]bool{}
	refs := []snapshot.ObjectRef{}
	for _, of := range p.Objects {
		in[of.Object.UID] = true
		refs = append(refs, of.Object)
	}
	var nodes []drawNode
	if p.Target.UID != "" && !in[p.Target.UID] {
		in[p.Target.UID] = true
		refs = append(refs, p.Target)
	}
	contextNS := dotContextNamespace(refs, "")
	isTarget := func(uid string) bool {
		return uid == p.Target.UID || slices.ContainsFunc(p.Targets, func(t snapshot.ObjectRef) bool { return t.UID == uid })
	}
	for _, r := range refs {
		n := drawNode{id: r.UID, tip: dotTooltip(r), label: dotLabel(r, contextNS, "target")}
		if isTarget(r.UID) {
			n.class = "target"
		}
		nodes = append(nodes, n)
	}
	for i, of := range p.Objects {
		nodes[i].label = dotLabel(of.Object, contextNS, planFateLabel(of))
		nodes[i].fill = fateFill(of.Fate)
		if len(of.Alternatives) > 0 {
			nodes[i].class = strings.TrimSpace(nodes[i].class + " undecided")
		}
	}
	var edges []drawEdge
	for _, e := range planDOTEdges(p, owners, in) {
		de := drawEdge{dependent: e.from, owner: e.to, ownerRef: !e.blocks}
		switch {
		case e.blocks:
			de.class, de.tip = "blocks", "blocks"
		case e.blocking:
			de.class = "blocking"
		}
		edges = append(edges, de)
	}
	return newDrawing(nodes, edges)
}
