package render

import (
	"fmt"
	"io"

	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// whyStuckHTML is the model of the why-stuck page: one diagnosis per
// object asked about.
type whyStuckHTML struct {
	Items []diagnosisHTML
}

type diagnosisHTML struct {
	D          *diagnose.Diagnosis
	Blockers   []blockerHTML
	RootCauses []rootCauseHTML
	Apply      string // how to apply a remedy, on a live diagnosis
}

// blockerHTML is one item of the blocker tree, as the text tree groups it
// (blockerItems): an object heading its blockers, or a blocker.
type blockerHTML struct {
	Header    string
	Label     string
	RootCause int
	Repeated  bool
	Lines     []string
	Children  []blockerHTML
}

type rootCauseHTML struct {
	N         int
	RC        diagnose.RootCause
	RemovedBy string
	Evidence  string
	Holds     string
}

// WhyStuckHTML writes diagnoses as a page: for each object, the verdict,
// the blocker tree, the root causes and their remedies, least destructive
// first, each command ready to copy, with its risk.
func WhyStuckHTML(w io.Writer, ds []diagnose.Diagnosis, s Style) error {
	body := whyStuckHTML{}
	for i := range ds {
		d := &ds[i]
		item := diagnosisHTML{D: d, Blockers: blockersHTML(d.Blockers, d)}
		if d.Cluster != nil {
			item.Apply = s.Cmd() + " apply WHY.json --remedy "
		}
		for j, rc := range d.RootCauses {
			r := rootCauseHTML{N: j + 1, RC: rc, Holds: listRefs(rc.Holds)}
			if rc.RemovedBy != "" {
				r.RemovedBy = removedBy(rc.RemovedBy, rc.Controller, rc.Attribution)
			}
			if a := rc.Attribution; a != nil {
				r.Evidence = a.Evidence + " (" + a.Confidence + " confidence): " + a.Detail
				if a.Evidence == diagnose.EvidenceNone {
					r.Evidence = a.Evidence + ": " + a.Detail
				}
			}
			item.RootCauses = append(item.RootCauses, r)
		}
		body.Items = append(body.Items, item)
	}
	return writeHTMLPage(w, htmlPage{Kind: "why-stuck", Title: "kgc why-stuck", Body: body, Data: struct{}{}})
}

func blockersHTML(bs []diagnose.Blocker, d *diagnose.Diagnosis) []blockerHTML {
	return blockerLevel(bs, d.Object)
}

// blockerLevel is one level of the tree, grouped as the text tree is.
func blockerLevel(bs []diagnose.Blocker, parent snapshot.ObjectRef) []blockerHTML {
	var out []blockerHTML
	for _, it := range blockerItems(bs, parent) {
		if it.header != nil {
			h := blockerHTML{Header: it.header.String()}
			if len(it.kids) == 1 && it.kids[0].Repeated {
				h.Repeated = true
			} else {
				h.Children = blockerLevel(it.kids, *it.header)
			}
			out = append(out, h)
			continue
		}
		out = append(out, blockerNode(*it.blk))
	}
	return out
}

func blockerNode(x diagnose.Blocker) blockerHTML {
	if x.Repeated {
		return blockerHTML{Repeated: true}
	}
	b := blockerHTML{Label: blockerLabel(x, Style{}), RootCause: x.RootCause}
	if x.WaitingFor != "" {
		b.Lines = append(b.Lines, "waiting for: "+x.WaitingFor)
	}
	for _, c := range x.Conditions {
		b.Lines = append(b.Lines, "status "+c.Type+": "+c.Message)
	}
	for _, c := range x.StaleConditions {
		b.Lines = append(b.Lines, fmt.Sprintf("stale status %s=%s: %s; contradicted by %s", c.Type, c.Status, c.Message, c.ContradictedBy))
	}
	if rest := blockerObjects(x); len(rest) > 0 {
		b.Lines = append(b.Lines, "objects: "+listRefs(rest))
	}
	b.Children = blockerLevel(x.Blockers, x.Object)
	return b
}
