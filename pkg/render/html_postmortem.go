package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/postmortem"
)

// postmortemHTML is the model of the post-mortem page: what the evidence
// cannot show first, then each root, then what is still going.
type postmortemHTML struct {
	Window         postmortem.Window
	Before, After  string
	Complete       bool
	Warnings       []string
	MissingRoots   []string
	Unexplained    []postmortem.Unexplained
	StillGoing     []postmortem.StillGoing
	PolicyFindings []audit.PolicyFinding
	Roots          []rootHTML
	Requests       int
	Marks          int
}

// rootHTML is one root: its sentence, its request, and its plan against
// reality. Its cascade is drawn by the script from the page's data.
type rootHTML struct {
	Index      int
	Sentence   string
	Request    postmortem.Request
	Options    string
	Prediction *postmortem.Prediction
	Unitemized []postmortem.Sweep
	Links      int
}

// postmortemData is what the script draws on demand: the timeline, each
// root's cascade, and how many links they hold in all (a page of few is
// drawn unfolded at once, a page of many a root at a time).
type postmortemData struct {
	Timeline *timeline    `json:"timeline"`
	Cascades [][]linkHTML `json:"cascades"`
	Links    int          `json:"links"`
}

// linkHTML is one link of a cascade, in the words the text output uses.
type linkHTML struct {
	Object   string     `json:"o"`
	Result   string     `json:"r"`
	By       string     `json:"by,omitempty"`
	How      string     `json:"how,omitempty"`
	Evidence string     `json:"ev"`
	Detail   string     `json:"d,omitempty"`
	Children []linkHTML `json:"c,omitempty"`
}

// PostMortemHTML writes pm as a page: the warnings and holes of the
// evidence at the top, a timeline of the requests with one lane per
// actor, each root's cascade as a tree with how each link is known, and
// the plan against reality.
func PostMortemHTML(w io.Writer, pm *postmortem.PostMortem) error {
	body := postmortemHTML{Window: pm.Window, Before: pm.Before, After: pm.After, Complete: pm.Complete,
		Warnings: pm.Warnings, Unexplained: pm.Unexplained, StillGoing: pm.StillGoing, PolicyFindings: pm.PolicyFindings}
	data := postmortemData{Cascades: make([][]linkHTML, len(pm.Roots))}
	for i := range pm.Roots {
		r := &pm.Roots[i]
		if r.Request.Missing {
			body.MissingRoots = append(body.MissingRoots, RootSentence(r))
		}
		n := 0
		data.Cascades[i] = linksHTML(r.Cascade, &n)
		data.Links += n
		body.Roots = append(body.Roots, rootHTML{Index: i, Sentence: RootSentence(r), Request: r.Request,
			Options: deleteOptionsText(r.Request), Prediction: r.Prediction, Unitemized: r.Unitemized, Links: n})
	}
	data.Timeline = newTimeline(pm)
	body.Requests, body.Marks = data.Timeline.total, len(data.Timeline.Marks)
	return writeHTMLPage(w, htmlPage{Kind: "postmortem", Title: "kgc post-mortem", Body: body, Data: data})
}

// linksHTML converts a cascade, counting its links into n.
func linksHTML(ls []postmortem.Link, n *int) []linkHTML {
	if len(ls) == 0 {
		return nil
	}
	out := make([]linkHTML, len(ls))
	for i, l := range ls {
		*n++
		out[i] = linkHTML{Object: l.Object.String(), Result: l.Result, By: linkActors(l), Evidence: l.Evidence, Children: linksHTML(l.Dependents, n)}
		if l.Via != postmortem.ViaRoot {
			out[i].How = howKnown(l)
		}
		if l.Detail != postmortem.DetailNotLogged {
			out[i].Detail = l.Detail
		}
	}
	return out
}

// deleteOptionsText is a root request's DeleteOptions as a person reads
// them: each field set, or why none is known.
func deleteOptionsText(q postmortem.Request) string {
	d := q.DeleteOptions
	switch {
	case q.Missing:
		return ""
	case !q.DeleteOptionsKnown:
		return policyWords(q)
	case d == nil:
		return "none (" + policyWords(q) + ")"
	}
	var parts []string
	if d.PropagationPolicy != "" {
		parts = append(parts, "propagationPolicy="+d.PropagationPolicy)
	}
	if d.OrphanDependents != nil {
		parts = append(parts, fmt.Sprintf("orphanDependents=%t", *d.OrphanDependents))
	}
	if d.GracePeriodSeconds != nil {
		parts = append(parts, fmt.Sprintf("gracePeriodSeconds=%d", *d.GracePeriodSeconds))
	}
	if len(d.DryRun) > 0 {
		parts = append(parts, "dryRun="+strings.Join(d.DryRun, ","))
	}
	if p := d.Preconditions; p != nil {
		if p.UID != "" {
			parts = append(parts, "preconditions.uid="+p.UID)
		}
		if p.ResourceVersion != "" {
			parts = append(parts, "preconditions.resourceVersion="+p.ResourceVersion)
		}
	}
	if len(parts) == 0 {
		return "none (" + policyWords(q) + ")"
	}
	return strings.Join(parts, ", ")
}
