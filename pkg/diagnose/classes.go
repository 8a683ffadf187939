package diagnose

import (
	"strings"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Class objects name controllers (rules.ClassOf): an IngressClass's
// spec.controller, a GatewayClass's spec.controllerName, a StorageClass's
// provisioner, a VolumeSnapshotClass's driver say which implementation
// owns the objects of the class and their finalizers; a Service's
// spec.loadBalancerClass, a VolumeSnapshotContent's spec.driver and a
// volume's CSI driver name it directly. For a finalizer nothing else
// names (rules.ClassOwnsFinalizer) that is the evidence, "class-object",
// and the diagnosis says whether a workload implementing it is in the
// input.

// classEvidence is what an object's class says of its controller.
type classEvidence struct {
	controller string
	detail     string
	objects    []snapshot.ObjectRef
}

// classOf finds the controller o's class names: o's own field, or the
// class object o names (its kind's default class when o names none).
func (r *run) classOf(o *snapshot.Object) (classEvidence, bool) {
	ref, ok := rules.ClassOf(o)
	if !ok {
		if ref, ok = r.defaultClass(o); !ok {
			return classEvidence{}, false
		}
	}
	if ref.Kind.Kind == "" {
		return classEvidence{controller: ref.Controller, detail: o.Ref().String() + " names controller " + ref.Controller + " (its " + ref.Field + ")"}, true
	}
	var class *snapshot.Object
	for _, c := range r.ix.ofKind(ref.Kind.Group, ref.Kind.Kind) {
		if c.Metadata.Name == ref.Name {
			class = c
		}
	}
	if class == nil || class.Facts == nil || class.Facts.Class == nil || class.Facts.Class.Controller == "" {
		return classEvidence{}, false
	}
	c := class.Facts.Class.Controller
	return classEvidence{controller: c, objects: []snapshot.ObjectRef{class.Ref()},
		detail: "class object: " + class.Ref().String() + " names controller " + c + " (its " + ref.Kind.Field + "), and " + o.Ref().String() + " is of that class (" + ref.Field + ")"}, true
}

// defaultClass is the class an object of a class kind that names none
// gets: the one class of that kind marked default.
func (r *run) defaultClass(o *snapshot.Object) (rules.ClassRef, bool) {
	k, ok := rules.MemberClassKind(snapshot.GroupOf(o.APIVersion), o.Kind)
	if !ok || o.Facts == nil || o.Facts.Class == nil || o.Facts.Class.Name != "" {
		return rules.ClassRef{}, false
	}
	var found []string
	for _, c := range r.ix.ofKind(k.Group, k.Kind) {
		if c.Facts != nil && c.Facts.Class != nil && c.Facts.Class.Default {
			found = append(found, c.Metadata.Name)
		}
	}
	if len(found) != 1 {
		return rules.ClassRef{}, false
	}
	return rules.ClassRef{Kind: k, Name: found[0], Field: "it names no class, and " + k.Kind + "/" + found[0] + " is the default"}, true
}

// byClass attributes finalizer f of o to the controller o's class names,
// and looks for a workload implementing it: the project's published
// names when kgc's table knows the controller, else a workload named
// like it (rules.NamesImplementation).
func (r *run) byClass(o *snapshot.Object, f string) (attribution, bool) {
	if !rules.ClassOwnsFinalizer(f) {
		return attribution{}, false
	}
	ce, ok := r.classOf(o)
	if !ok {
		return attribution{}, false
	}
	who := ce.controller
	run := "Run the controller " + who
	a := attribution{att: Attribution{Evidence: EvidenceClass, Confidence: ConfidenceMedium, Controller: who, Detail: ce.detail, Objects: ce.objects}}
	tokens := rules.ImplementationTokens(ce.controller)
	match := func(w *snapshot.Object) bool { return rules.NamesImplementation(ce.controller, w) }
	absent := "no Deployment, StatefulSet or DaemonSet named like it (" + strings.Join(tokens[1:], ", ") +
		") is in the input: it was uninstalled, runs outside the cluster, or is published under another name"
	grep := "kubectl get deployments,statefulsets,daemonsets -A --show-labels | grep -e " + strings.Join(tokens[1:], " -e ")
	if len(tokens) == 1 {
		absent = "no Deployment, StatefulSet or DaemonSet named like it is in the input: it was uninstalled, runs outside the cluster, or is published under another name"
		grep = "kubectl get deployments,statefulsets,daemonsets -A --show-labels | grep -F " + ce.controller
	}
	if p, ok := rules.ProjectOf(ce.controller); ok {
		who = p.Controller + " (" + p.Name + ")"
		run = "Run " + who
		a.att.Controller, a.att.Confidence = who, ConfidenceHigh
		a.att.Detail += "; kgc's table of well-known projects: " + ce.controller + " is " + p.Name + "'s (" + p.Source + ")"
		match = func(w *snapshot.Object) bool {
			return p.PublishedAs(w.Metadata.Namespace, w.Metadata.Name, w.Metadata.Labels["app.kubernetes.io/name"])
		}
		names := publishedNames(&p)
		absent = "its controller is not in the input (usually " + strings.Join(names, ", ") + " in namespace " + p.Namespace + ")"
		grep = "kubectl get deployments,statefulsets,daemonsets -A | grep -e " + strings.Join(names, " -e ")
	}
	var live, dying []*snapshot.Object
	for _, w := range r.workloads("class:"+ce.controller, match) {
		if r.going(w) {
			dying = append(dying, w)
		} else {
			live = append(live, w)
		}
	}
	a.att.Objects = append(a.att.Objects, refsOf(append(append([]*snapshot.Object{}, live...), dying...))...)
	a.fill(r, o, f, who, live, dying, r.workloadsListed(), absent,
		run+" again, so that it finishes its cleanup of "+o.Ref().String()+" and removes "+f+" itself", grep)
	return a, true
}
