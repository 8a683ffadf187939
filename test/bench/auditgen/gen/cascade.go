package gen

import (
	"fmt"
	"strings"
)

// The cascades a post-mortem reconstructs: a user's DELETE and what the
// garbage collector, the namespace controller and the kubelets do after.

func (g *generator) cascade() {
	g.stats.Cascades++
	ns := g.pickNS()
	switch r := g.rnd.IntN(20); {
	case r < 3:
		g.namespaceCascade(ns)
	case r < 6:
		g.orphanCascade(ns)
	default:
		g.deploymentCascade(ns)
	}
	if len(ns.deployments) < 2 {
		g.addDeployment(ns)
	}
}

func deployURI(ns, name string) string {
	return "/apis/apps/v1/namespaces/" + ns + "/deployments/" + name
}
func rsURI(ns, name string) string { return "/apis/apps/v1/namespaces/" + ns + "/replicasets/" + name }

func (d *deployment) body(ns string) string {
	return fmt.Sprintf(`{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":%q,"namespace":%q,"uid":%q,"resourceVersion":"%d","annotations":{"deployment.kubernetes.io/revision":"1"}},"spec":{"replicas":%d,"template":{"spec":{"containers":[{"name":"app","image":"registry.example.com/app:1.4.2"}]}}}}`,
		d.name, ns, d.uid, d.rv, len(d.pods))
}

func (d *deployment) rsBody(ns string, owned bool) string {
	owners := ""
	if owned {
		owners = `,"ownerReferences":` + ownerRef("Deployment", d.name, d.uid)
	}
	return fmt.Sprintf(`{"kind":"ReplicaSet","apiVersion":"apps/v1","metadata":{"name":%q,"namespace":%q,"uid":%q,"resourceVersion":"%d"%s},"spec":{"replicas":%d}}`,
		d.rs.name, ns, d.rs.uid, d.rs.rv, owners, len(d.pods))
}

// deploymentCascade: a user deletes a Deployment (Background); the
// garbage collector deletes its ReplicaSet, then the ReplicaSet's Pods;
// each kubelet deletes its Pod for good once its containers stopped.
func (g *generator) deploymentCascade(ns *namespace) {
	d := g.takeDeployment(ns)
	if d == nil {
		return
	}
	u, gr, a := g.human()
	g.emit(event{level: "RequestResponse", verb: "delete", uri: deployURI(ns.name, d.name), user: u, groups: gr, agent: a, code: 200,
		request: deleteOptions("Background", "", -1), response: d.body(ns.name), received: true,
		ref: ref{resource: "deployments", namespace: ns.name, name: d.name, group: "apps", version: "v1"}})
	gu, gg, ga := controller("generic-garbage-collector")
	g.emit(event{level: "RequestResponse", verb: "delete", uri: rsURI(ns.name, d.rs.name), user: gu, groups: gg, agent: ga, code: 200,
		request: deleteOptions("Background", d.rs.uid, -1), response: d.rsBody(ns.name, true),
		ref: ref{resource: "replicasets", namespace: ns.name, name: d.rs.name, group: "apps", version: "v1"}})
	g.deletePods(ns, d, true)
}

// deletePods: the garbage collector's graceful DELETE of each Pod (when
// gc), then the kubelet's final one.
func (g *generator) deletePods(ns *namespace, d *deployment, gc bool) {
	gu, gg, ga := controller("generic-garbage-collector")
	for i := range d.pods {
		p := &d.pods[i]
		if gc {
			g.emit(event{level: "RequestResponse", verb: "delete", uri: podURI(ns.name, p.name), user: gu, groups: gg, agent: ga, code: 200,
				request: deleteOptions("Background", p.uid, -1), response: g.pod(ns, d, p, "node-001", true),
				ref: ref{resource: "pods", namespace: ns.name, name: p.name, version: "v1"}})
		}
	}
	for i := range d.pods {
		p := &d.pods[i]
		node := g.nodes[g.rnd.IntN(len(g.nodes))]
		g.emit(event{level: "RequestResponse", verb: "delete", uri: podURI(ns.name, p.name), user: "system:node:" + node, groups: nodeGroups, agent: kubeletAgent, code: 200,
			request: deleteOptions("", p.uid, 0), response: g.pod(ns, d, p, node, true),
			ref: ref{resource: "pods", namespace: ns.name, name: p.name, version: "v1"}})
	}
}

// orphanCascade: a user deletes a Deployment with propagationPolicy
// Orphan; the garbage collector removes the owner reference from the
// ReplicaSet with a strategic merge patch, then deletes the Deployment.
func (g *generator) orphanCascade(ns *namespace) {
	d := g.takeDeployment(ns)
	if d == nil {
		return
	}
	u, gr, a := g.human()
	g.emit(event{level: "RequestResponse", verb: "delete", uri: deployURI(ns.name, d.name), user: u, groups: gr, agent: a, code: 200,
		request: deleteOptions("Orphan", "", -1), response: d.body(ns.name),
		ref: ref{resource: "deployments", namespace: ns.name, name: d.name, group: "apps", version: "v1"}})
	gu, gg, ga := controller("generic-garbage-collector")
	g.emit(event{level: "RequestResponse", verb: "patch", uri: rsURI(ns.name, d.rs.name), user: gu, groups: gg, agent: ga, code: 200,
		request:  `{"metadata":{"ownerReferences":[{"$patch":"delete","uid":"` + d.uid + `"}],"uid":"` + d.rs.uid + `"}}`,
		response: d.rsBody(ns.name, false),
		ref:      ref{resource: "replicasets", namespace: ns.name, name: d.rs.name, group: "apps", version: "v1"}})
	g.emit(event{level: "RequestResponse", verb: "patch", uri: deployURI(ns.name, d.name), user: gu, groups: gg, agent: ga, code: 200,
		request:  `{"metadata":{"$deleteFromPrimitiveList/finalizers":["orphan"],"$setElementOrder/finalizers":[]}}`,
		response: d.body(ns.name), ref: ref{resource: "deployments", namespace: ns.name, name: d.name, group: "apps", version: "v1"}})
}

// namespaceCascade: a user deletes a Namespace; the namespace controller
// deletes each resource of it by deletecollection, the kubelets delete
// the Pods, and the controller finalizes the Namespace. A new namespace
// takes its place so that the cluster keeps its size.
func (g *generator) namespaceCascade(ns *namespace) {
	u, gr, a := g.human()
	g.emit(event{level: "RequestResponse", verb: "delete", uri: "/api/v1/namespaces/" + ns.name, user: u, groups: gr, agent: a, code: 200,
		request: deleteOptions("Background", "", -1), response: `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"` + ns.name + `","uid":"` + ns.uid + `","deletionTimestamp":"` + g.now.Format(canonicalTime) + `","finalizers":[]},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Terminating"}}`,
		ref: ref{resource: "namespaces", name: ns.name, version: "v1"}})
	nu, ng, na := controller("namespace-controller")
	for _, res := range []struct{ resource, group, kind string }{{"configmaps", "", "ConfigMap"}, {"secrets", "", "Secret"}, {"deployments", "apps", "Deployment"}, {"replicasets", "apps", "ReplicaSet"}, {"pods", "", "Pod"}} {
		uri := "/api/v1/namespaces/" + ns.name + "/" + res.resource
		if res.group != "" {
			uri = "/apis/" + res.group + "/v1/namespaces/" + ns.name + "/" + res.resource
		}
		g.emit(event{level: "RequestResponse", verb: "deletecollection", uri: uri, user: nu, groups: ng, agent: na, code: 200,
			request: deleteOptions("Background", "", -1), response: g.items(ns, res.kind),
			ref: ref{resource: res.resource, namespace: ns.name, group: res.group, version: "v1"}})
	}
	for _, d := range ns.deployments {
		g.deletePods(ns, d, false)
	}
	g.emit(event{level: "RequestResponse", verb: "update", uri: "/api/v1/namespaces/" + ns.name + "/finalize", user: nu, groups: ng, agent: na, code: 200,
		request: `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"` + ns.name + `","uid":"` + ns.uid + `"},"spec":{"finalizers":[]}}`,
		ref:     ref{resource: "namespaces", name: ns.name, version: "v1", subresource: "finalize"}})
	g.emit(event{level: "RequestResponse", verb: "delete", uri: "/api/v1/namespaces/" + ns.name, user: nu, groups: ng, agent: na, code: 200,
		request: deleteOptions("Background", ns.uid, 0), ref: ref{resource: "namespaces", name: ns.name, version: "v1"}})
	*ns = *g.newNamespace(fmt.Sprintf("%s-%d", ns.name[:9], g.seq))
}

// items is a deletecollection's response: the List of what it deleted.
func (g *generator) items(ns *namespace, kind string) string {
	var bodies []string
	for _, d := range ns.deployments {
		switch kind {
		case "Deployment":
			bodies = append(bodies, d.body(ns.name))
		case "ReplicaSet":
			bodies = append(bodies, d.rsBody(ns.name, true))
		case "Pod":
			for i := range d.pods {
				bodies = append(bodies, g.pod(ns, d, &d.pods[i], "node-002", true))
			}
		}
	}
	if kind == "Secret" {
		for i := range ns.secrets {
			bodies = append(bodies, secret(ns.name, &ns.secrets[i]))
		}
	}
	if kind == "ConfigMap" {
		for _, c := range ns.configMaps {
			bodies = append(bodies, fmt.Sprintf(`{"metadata":{"name":%q,"namespace":%q,"uid":%q},"data":{"password":%q}}`, c.name, ns.name, c.uid, SecretValue))
		}
	}
	return `{"kind":"` + kind + `List","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[` + strings.Join(bodies, ",") + `]}`
}

// takeDeployment removes a Deployment from ns, to delete it.
func (g *generator) takeDeployment(ns *namespace) *deployment {
	if len(ns.deployments) == 0 {
		return nil
	}
	i := g.rnd.IntN(len(ns.deployments))
	d := ns.deployments[i]
	ns.deployments = append(ns.deployments[:i], ns.deployments[i+1:]...)
	return d
}
