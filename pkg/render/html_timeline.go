package render

import (
	"sort"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/pkg/postmortem"
)

// timeline is the post-mortem's requests over time, one lane per actor:
// each person, then each controller (the garbage collector, the namespace
// controller, the kubelets, the API server, …). A mark is every request
// of a lane in one slice of the window: requests too close to tell apart
// are one mark, listing the first few, and the page stays quick whatever
// the log's size.
type timeline struct {
	From     int64             `json:"from"`
	To       int64             `json:"to"`
	Lanes    []string          `json:"lanes"`
	Marks    []timelineMark    `json:"marks"`
	Requests []timelineRequest `json:"requests"`
	total    int
}

type timelineMark struct {
	Lane     int    `json:"l"`
	At       int64  `json:"t"`
	N        int    `json:"n"`
	Requests []int  `json:"r"`
	Class    string `json:"cls,omitempty"`
}

// timelineRequest is what the document knows of a request: all of it for
// a root request, and for the steps of a chain what their Step records.
type timelineRequest struct {
	ID      string `json:"id"`
	Time    string `json:"time"`
	Verb    string `json:"verb"`
	URI     string `json:"uri,omitempty"`
	Object  string `json:"object"`
	User    string `json:"user"`
	Actor   string `json:"actor,omitempty"`
	Agent   string `json:"ua,omitempty"`
	Options string `json:"opts,omitempty"`
	Code    int    `json:"code,omitempty"`
	Authz   string `json:"authz,omitempty"`
	What    string `json:"what,omitempty"`
	Apply   string `json:"apply,omitempty"`
	at      time.Time
	lane    string
	person  bool
	root    bool
}

// The timeline's window is cut into timelineSlices slices (the script
// draws it 900 units wide, a mark 9 across, at the middle of its slice, so
// that marks never overlap); a mark lists at most markListed requests.
const (
	timelineSlices = 100
	markListed     = 12
)

func newTimeline(pm *postmortem.PostMortem) *timeline {
	reqs := timelineRequests(pm)
	t := &timeline{total: len(reqs), Marks: []timelineMark{}, Requests: []timelineRequest{}, Lanes: []string{}}
	from, to := pm.Window.From, pm.Window.To
	for _, q := range reqs {
		if from.IsZero() || q.at.Before(from) {
			from = q.at
		}
		if q.at.After(to) {
			to = q.at
		}
	}
	if !from.IsZero() {
		t.From, t.To = from.UnixMilli(), to.UnixMilli()
	}
	lanes := timelineLanes(reqs)
	for _, l := range lanes {
		t.Lanes = append(t.Lanes, l.name)
	}
	laneOf := map[string]int{}
	for i, l := range lanes {
		laneOf[l.name] = i
	}
	t.slice(reqs, laneOf)
	return t
}

// slice gathers the requests of each lane by slice of the window.
func (t *timeline) slice(reqs []timelineRequest, laneOf map[string]int) {
	span := max(t.To-t.From, 1)
	type key struct{ lane, slice int }
	at := map[key]int{}
	for _, q := range reqs {
		ms := q.at.UnixMilli()
		k := key{laneOf[q.lane], int(min((ms-t.From)*timelineSlices/span, timelineSlices-1))}
		i, ok := at[k]
		if !ok {
			i = len(t.Marks)
			at[k] = i
			t.Marks = append(t.Marks, timelineMark{Lane: k.lane, At: t.From + (2*int64(k.slice)+1)*span/(2*timelineSlices)})
		}
		m := &t.Marks[i]
		m.N++
		if len(m.Requests) < markListed {
			m.Requests = append(m.Requests, len(t.Requests))
			t.Requests = append(t.Requests, q)
		}
		if c := markClass(q); c == "root" || (c != "" && m.Class == "") {
			m.Class = c
		}
	}
	sort.SliceStable(t.Marks, func(i, j int) bool {
		a, b := t.Marks[i], t.Marks[j]
		if a.Lane != b.Lane {
			return a.Lane < b.Lane
		}
		return a.At < b.At
	})
}

func markClass(q timelineRequest) string {
	switch {
	case q.root:
		return "root"
	case q.Code >= 400:
		return "refused"
	}
	return ""
}

type timelineLane struct {
	name   string
	person bool
}

// timelineLanes are the lanes of reqs: people first, then the
// controllers, each by name.
func timelineLanes(reqs []timelineRequest) []timelineLane {
	seen := map[string]bool{}
	var out []timelineLane
	for _, q := range reqs {
		if !seen[q.lane] {
			seen[q.lane] = true
			out = append(out, timelineLane{q.lane, q.person})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].person != out[j].person {
			return out[i].person
		}
		return out[i].name < out[j].name
	})
	return out
}

// laneName is the lane of a request: a person by name, every kubelet in
// one lane, a controller by its name.
func laneName(actor, user string) (string, bool) {
	switch actor {
	case postmortem.ActorUser:
		return user, true
	case postmortem.ActorKubelet:
		return "kubelets", false
	case "":
		return user, false
	}
	return actor, false
}

// timelineRequests are every request the document names, once each by
// audit ID, in time order: the roots' (in full), the steps of their
// chains, and the deletecollections that name no object.
func timelineRequests(pm *postmortem.PostMortem) []timelineRequest {
	var out []timelineRequest
	index := map[string]int{}
	actorOf := map[string]string{}
	add := func(q timelineRequest) {
		if q.ID == "" || q.at.IsZero() {
			return
		}
		if i, ok := index[q.ID]; ok {
			if out[i].What == "" {
				out[i].What = q.What
			}
			return
		}
		if q.Actor != "" {
			actorOf[q.User] = q.Actor
		}
		if q.lane == "" {
			q.lane, q.person = laneName(q.Actor, q.User)
		}
		q.Time = stamp(q.at)
		index[q.ID] = len(out)
		out = append(out, q)
	}
	for i := range pm.Roots {
		if r := pm.Roots[i].Request; !r.Missing {
			add(rootRequest(r))
		}
	}
	for i := range pm.Roots {
		walkSteps(pm.Roots[i].Cascade, add)
	}
	for i := range pm.Roots {
		for _, s := range pm.Roots[i].Unitemized {
			add(timelineRequest{ID: s.AuditID, at: s.Time, Verb: "deletecollection", Object: s.Resource + " in namespace " + s.Namespace,
				User: s.User, Actor: actorOf[s.User]})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].at.Equal(out[j].at) {
			return out[i].at.Before(out[j].at)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// rootRequest is a root's request, all of it: the timeline's mark and the
// root's chain show it alike.
func rootRequest(r postmortem.Request) timelineRequest {
	user := r.User
	if r.ImpersonatedUser != "" {
		user = r.ImpersonatedUser
	}
	q := timelineRequest{ID: r.AuditID, at: r.Time, Time: stamp(r.Time), Verb: r.Verb, URI: r.URI, Object: r.Object.String(), User: who(r),
		Actor: r.Actor, Agent: r.UserAgent, Options: deleteOptionsText(r), Code: r.Code, root: true}
	q.lane, q.person = laneName(r.Actor, user)
	if a := r.Authorization; a != nil {
		q.Authz = strings.TrimSpace(a.Decision + ": " + a.Reason)
	}
	if a := r.ApplyReport; a != nil {
		q.Apply = "plan " + a.Digest + " (report " + a.File + ")"
	}
	return q
}

func walkSteps(ls []postmortem.Link, add func(timelineRequest)) {
	for _, l := range ls {
		for _, s := range l.Steps {
			add(timelineRequest{ID: s.AuditID, at: s.Time, Verb: s.Verb, Object: l.Object.String(), User: s.User,
				Actor: s.Actor, Code: s.Code, What: s.What})
		}
		walkSteps(l.Dependents, add)
	}
}
