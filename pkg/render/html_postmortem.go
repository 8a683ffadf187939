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
	Roots          int
	Requests       int
	Marks          int
}

// postmortemData is what the script draws on demand: the timeline, and
// the roots, with how many links they hold in all. A post-mortem of a big
// log has thousands of roots: the script draws them a page at a time,
// unfolded at once when they are few, a cascade when it is opened when
// they are many, so the page opens in seconds whatever the log's size.
type postmortemData struct {
	Timeline *timeline  `json:"timeline"`
	Roots    []rootHTML `json:"roots"`
	Links    int        `json:"links"`
}

// rootHTML is one root: its sentence, its request (as the timeline shows
// it), its cascade and the plan against reality.
type rootHTML struct {
	Sentence   string           `json:"s"`
	Request    *timelineRequest `json:"q,omitempty"`
	Links      int              `json:"n"`
	Cascade    []linkHTML       `json:"c"`
	Unitemized []string         `json:"u,omitempty"`
	Prediction *predictionHTML  `json:"p,omitempty"`
}

// predictionHTML is a root's plan against reality, in words, and one row
// per object: object, predicted, happened, result, detail.
type predictionHTML struct {
	Summary string      `json:"s"`
	Rows    [][5]string `json:"rows,omitempty"`
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
	data := postmortemData{Roots: make([]rootHTML, len(pm.Roots))}
	for i := range pm.Roots {
		r := &pm.Roots[i]
		root := rootHTML{Sentence: RootSentence(r), Prediction: predictionOf(r.Prediction)}
		if r.Request.Missing {
			body.MissingRoots = append(body.MissingRoots, root.Sentence)
		} else {
			q := rootRequest(r.Request)
			root.Request = &q
		}
		root.Cascade = linksHTML(r.Cascade, &root.Links)
		data.Links += root.Links
		for _, u := range r.Unitemized {
			root.Unitemized = append(root.Unitemized, u.Resource)
		}
		data.Roots[i] = root
	}
	data.Timeline = newTimeline(pm)
	body.Roots, body.Requests, body.Marks = len(pm.Roots), data.Timeline.total, len(data.Timeline.Marks)
	return writeHTMLPage(w, htmlPage{Kind: "postmortem", Title: "kgc post-mortem", Body: body, Data: data})
}

// predictionOf is the plan against reality in the text output's words.
func predictionOf(p *postmortem.Prediction) *predictionHTML {
	if p == nil {
		return nil
	}
	if p.Error != "" {
		return &predictionHTML{Summary: "No plan: " + p.Error}
	}
	policy := string(p.PropagationPolicy)
	if policy == "" {
		policy = "the type's default policy"
	}
	if !p.PolicyKnown {
		policy += ", assumed: the log does not say"
	}
	out := &predictionHTML{Summary: fmt.Sprintf("kgc plan delete on the before snapshot, %s: %d as predicted, %d not predicted, %d predicted but did not happen.",
		policy, p.AsPredicted, p.NotPredicted, p.PredictedNotHappened)}
	for _, o := range p.Objects {
		detail := o.Detail
		if o.WhyStuck != "" {
			detail = strings.TrimSpace(detail + " why-stuck: " + o.WhyStuck)
		}
		out.Rows = append(out.Rows, [5]string{o.Object.String(), o.Predicted, o.Happened, o.Result, detail})
	}
	return out
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
