package diagnose

import (
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// byProject names the controller of a finalizer of a well-known project
// (rules.Projects) that only its domain identifies: the project, its
// controller as published, and, when that controller is not in the input,
// so much said in the project's words, with the uninstall order that
// avoids the stuck state.
func (r *run) byProject(o *snapshot.Object, f string, info rules.FinalizerInfo) attribution {
	p := info.Project
	a := attribution{att: Attribution{Evidence: EvidenceWellKnown, Confidence: ConfidenceHigh, Controller: info.RemovedBy,
		Detail: "kgc's table of well-known projects: " + f + " is " + p.Name + "'s (domain " + rules.FinalizerDomainOf(f) + "); " + p.Controller + " removes it (source: " + p.Source + ")"}}
	var live, dying []*snapshot.Object
	for _, w := range r.workloads("project:"+p.Name, func(w *snapshot.Object) bool {
		return p.PublishedAs(w.Metadata.Namespace, w.Metadata.Name, w.Metadata.Labels["app.kubernetes.io/name"])
	}) {
		if r.going(w) {
			dying = append(dying, w)
		} else {
			live = append(live, w)
		}
	}
	a.att.Objects = refsOf(append(append([]*snapshot.Object{}, live...), dying...))
	names := publishedNames(p)
	absent := "its controller is not in the input (no Deployment, StatefulSet or DaemonSet named " + strings.Join(names, ", ") +
		"; it usually runs in namespace " + p.Namespace + "): it is not installed, runs outside the cluster, or was not captured"
	a.fill(r, o, f, p.Controller, live, dying, r.workloadsListed(), absent,
		"Reinstall "+p.Name+" ("+p.Controller+") so that it finishes its cleanup and removes "+f+" itself",
		"kubectl get deployments,statefulsets,daemonsets -A | grep -e "+strings.Join(names, " -e "))
	if a.reason == ReasonControllerAbsent || a.reason == ReasonControllerUnknown {
		a.message = p.Name + "'s finalizer " + f + ": " + p.Controller + " removes it; " + strings.TrimPrefix(a.message, p.Controller+" removes "+f+", and ")
	}
	a.remedies = append(a.remedies, Remedy{Action: ActionFixController, Description: "To uninstall " + p.Name + " without leaving objects stuck: " + p.Uninstall + " (" + p.Source + ")"})
	r.suffixObject(o, f, r.projectGroups(p), &a)
	return a
}

// publishedNames are the plain names a project's controller is published
// as, for messages and grep.
func publishedNames(p *rules.Project) []string {
	var out []string
	for _, w := range p.Workloads {
		if _, n, ok := strings.Cut(w, "/"); ok {
			w = n
		}
		w = strings.Trim(strings.ReplaceAll(w, "*", ""), "-")
		if w != "" && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// projectGroups are the API groups of the input's CRDs that lie in the
// project's domains.
func (r *run) projectGroups(p *rules.Project) []string {
	var out []string
	for _, c := range r.ix.ofKind("apiextensions.k8s.io", "CustomResourceDefinition") {
		if c.Facts == nil || c.Facts.CRD == nil || slices.Contains(out, c.Facts.CRD.Group) {
			continue
		}
		if q, ok := rules.ProjectOf(c.Facts.CRD.Group); ok && q.Name == p.Name {
			out = append(out, c.Facts.CRD.Group)
		}
	}
	return out
}
