package gen

import (
	"fmt"
	"strings"
)

// The everyday traffic around the cascades: reads, lease renewals,
// status updates, writes of ConfigMaps and Secrets, pod creations.

func (g *generator) human() (string, []string, string) {
	return humans[g.rnd.IntN(len(humans))], humanGroups, kubectlAgent
}

func podURI(ns, name string) string { return "/api/v1/namespaces/" + ns + "/pods/" + name }

func (g *generator) get() {
	ns := g.pickNS()
	_, p := g.anyPod(ns)
	if p == nil {
		return
	}
	u, gr, a := controller("replicaset-controller")
	if g.rnd.IntN(3) == 0 {
		u, gr, a = g.human()
	}
	g.emit(event{level: "Metadata", verb: "get", uri: podURI(ns.name, p.name), user: u, groups: gr, agent: a, code: 200,
		ref: ref{resource: "pods", namespace: ns.name, name: p.name, version: "v1"}})
}

func (g *generator) list() {
	ns := g.pickNS()
	u, gr, a := g.human()
	g.emit(event{level: "Metadata", verb: "list", uri: "/apis/apps/v1/namespaces/" + ns.name + "/deployments?limit=500", user: u, groups: gr, agent: a, code: 200,
		ref: ref{resource: "deployments", namespace: ns.name, group: "apps", version: "v1"}})
}

func (g *generator) watch() {
	node := g.nodes[g.rnd.IntN(len(g.nodes))]
	g.emit(event{level: "Metadata", verb: "watch", uri: "/api/v1/pods?allowWatchBookmarks=true&fieldSelector=spec.nodeName%3D" + node + "&resourceVersion=12345&timeout=7m3s&watch=true",
		user: "system:node:" + node, groups: nodeGroups, agent: kubeletAgent, code: 200, ref: ref{resource: "pods", version: "v1"}})
}

func (g *generator) leaseUpdate() {
	node := g.nodes[g.rnd.IntN(len(g.nodes))]
	body := fmt.Sprintf(`{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":%q,"namespace":"kube-node-lease","uid":%q,"resourceVersion":"%d"},"spec":{"holderIdentity":%q,"leaseDurationSeconds":40,"renewTime":"2026-11-27T10:00:00.000000Z"}}`,
		node, g.uid(), g.rnd.IntN(1e7), node)
	g.emit(event{level: "RequestResponse", verb: "update", uri: "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/" + node + "?timeout=10s",
		user: "system:node:" + node, groups: nodeGroups, agent: kubeletAgent, code: 200, request: body, response: body,
		ref: ref{resource: "leases", namespace: "kube-node-lease", name: node, group: "coordination.k8s.io", version: "v1"}})
}

func (g *generator) statusUpdate() {
	ns := g.pickNS()
	d, p := g.anyPod(ns)
	if p == nil {
		return
	}
	node := g.nodes[g.rnd.IntN(len(g.nodes))]
	body := g.pod(ns, d, p, node, false)
	g.emit(event{level: "RequestResponse", verb: "patch", uri: podURI(ns.name, p.name) + "/status", user: "system:node:" + node, groups: nodeGroups, agent: kubeletAgent,
		code: 200, request: `{"status":{"conditions":[{"type":"Ready","status":"True"}]}}`, response: body,
		ref: ref{resource: "pods", namespace: ns.name, name: p.name, uid: p.uid, version: "v1", subresource: "status"}})
}

func (g *generator) secretUpdate() {
	ns := g.pickNS()
	s := &ns.secrets[g.rnd.IntN(len(ns.secrets))]
	s.rv++
	body := secret(ns.name, s)
	u, gr, a := g.human()
	code := 200
	if g.rnd.IntN(10) == 0 {
		code = 409 // a conflict: the update changed nothing
	}
	g.emit(event{level: "RequestResponse", verb: "update", uri: "/api/v1/namespaces/" + ns.name + "/secrets/" + s.name, user: u, groups: gr, agent: a,
		code: code, request: body, response: body, received: true,
		ref: ref{resource: "secrets", namespace: ns.name, name: s.name, uid: s.uid, version: "v1"}})
}

func (g *generator) configMapPatch() {
	ns := g.pickNS()
	c := &ns.configMaps[g.rnd.IntN(len(ns.configMaps))]
	c.rv++
	u, gr, a := g.human()
	g.emit(event{level: "Request", verb: "patch", uri: "/api/v1/namespaces/" + ns.name + "/configmaps/" + c.name + "?fieldManager=kubectl-edit", user: u, groups: gr, agent: a,
		code: 200, request: `{"data":{"log-level":"debug","database-password":"` + SecretValue + `"}}`,
		ref: ref{resource: "configmaps", namespace: ns.name, name: c.name, uid: c.uid, version: "v1"}})
}

func (g *generator) podCreate() {
	ns := g.pickNS()
	d, p := g.anyPod(ns)
	if p == nil {
		return
	}
	u, gr, a := controller("replicaset-controller")
	body := g.pod(ns, d, p, "", false)
	g.emit(event{level: "RequestResponse", verb: "create", uri: "/api/v1/namespaces/" + ns.name + "/pods", user: u, groups: gr, agent: a,
		code: 201, request: body, response: body, ref: ref{resource: "pods", namespace: ns.name, name: p.name, version: "v1"}})
}

func (g *generator) tokenRequest() {
	ns := g.pickNS()
	node := g.nodes[g.rnd.IntN(len(g.nodes))]
	g.emit(event{level: "RequestResponse", verb: "create", uri: "/api/v1/namespaces/" + ns.name + "/serviceaccounts/default/token", user: "system:node:" + node, groups: nodeGroups, agent: kubeletAgent,
		code: 201, request: `{"kind":"TokenRequest","apiVersion":"authentication.k8s.io/v1","metadata":{"creationTimestamp":null},"spec":{"audiences":["https://kubernetes.default.svc"],"expirationSeconds":3607}}`,
		response: `{"kind":"TokenRequest","apiVersion":"authentication.k8s.io/v1","metadata":{"name":"default","namespace":"` + ns.name + `"},"spec":{"audiences":["https://kubernetes.default.svc"],"expirationSeconds":3607},"status":{"token":"` + Token + `","expirationTimestamp":"2026-11-27T11:00:00Z"}}`,
		ref:      ref{resource: "serviceaccounts", namespace: ns.name, name: "default", version: "v1", subresource: "token"}})
}

func (g *generator) eventCreate() {
	ns := g.pickNS()
	u, gr, a := controller("deployment-controller")
	g.emit(event{level: "Metadata", verb: "create", uri: "/apis/events.k8s.io/v1/namespaces/" + ns.name + "/events", user: u, groups: gr, agent: a, code: 201,
		ref: ref{resource: "events", namespace: ns.name, group: "events.k8s.io", version: "v1"}})
}

// pod is a Pod body as the API server returns it, managedFields and all.
func (g *generator) pod(ns *namespace, d *deployment, p *object, node string, deleting bool) string {
	var del string
	if deleting {
		del = `"deletionTimestamp":"` + g.now.Format(canonicalTime) + `","deletionGracePeriodSeconds":30,`
	}
	return fmt.Sprintf(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"generateName":"%s-","namespace":%q,"uid":%q,"resourceVersion":"%d","creationTimestamp":"2026-11-20T08:00:00Z",%s"labels":{"app":%q,"pod-template-hash":"7c9d8f5b4"},"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-11-20T08:00:00Z","vault.hashicorp.com/agent-inject-secret":%q},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":%q,"uid":%q,"controller":true,"blockOwnerDeletion":true}],"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-11-20T08:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"%s\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{}}}}}}]},"spec":{"containers":[{"name":"app","image":"registry.example.com/%s:1.4.2","env":[{"name":"DB_PASSWORD","value":%q}],"resources":{"requests":{"cpu":"100m","memory":"128Mi"}}}],"nodeName":%q,"serviceAccountName":"default"},"status":{"phase":"Running","podIP":"10.244.3.17","conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-11-20T08:00:10Z"}]}}`,
		p.name, d.rs.name, ns.name, p.uid, p.rv, del, d.name, SecretValue, d.rs.name, d.rs.uid, d.rs.uid, d.name, SecretValue, node)
}

func secret(ns string, s *object) string {
	return fmt.Sprintf(`{"kind":"Secret","apiVersion":"v1","metadata":{"name":%q,"namespace":%q,"uid":%q,"resourceVersion":"%d","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"stringData\":{\"password\":\"%s\"}}"},"managedFields":[{"manager":"kubectl","operation":"Update","fieldsV1":{"f:data":{"f:password":{}}}}]},"data":{"password":%q,"token":%q},"stringData":{"password":%q},"type":"Opaque"}`,
		s.name, ns, s.uid, s.rv, SecretValue, SecretValue, Token, SecretValue)
}

func ownerRef(kind, name, uid string) string {
	group := "apps/v1"
	if kind == "Namespace" {
		group = "v1"
	}
	return fmt.Sprintf(`[{"apiVersion":%q,"kind":%q,"name":%q,"uid":%q,"controller":true,"blockOwnerDeletion":true}]`, group, kind, name, uid)
}

func deleteOptions(policy string, uid string, grace int) string {
	var sb strings.Builder
	sb.WriteString(`{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1"`)
	if grace >= 0 {
		fmt.Fprintf(&sb, `,"gracePeriodSeconds":%d`, grace)
	}
	if uid != "" {
		fmt.Fprintf(&sb, `,"preconditions":{"uid":%q}`, uid)
	}
	if policy != "" {
		fmt.Fprintf(&sb, `,"propagationPolicy":%q`, policy)
	}
	sb.WriteString("}")
	return sb.String()
}

// deploymentUpdate: a user or a CD tool updates a Deployment's image.
func (g *generator) deploymentUpdate() {
	ns := g.pickNS()
	if len(ns.deployments) == 0 {
		return
	}
	d := ns.deployments[g.rnd.IntN(len(ns.deployments))]
	d.rv++
	u, gr, a := g.human()
	body := d.body(ns.name)
	g.emit(event{level: "RequestResponse", verb: "update", uri: deployURI(ns.name, d.name), user: u, groups: gr, agent: a,
		code: 200, request: body, response: body,
		ref: ref{resource: "deployments", namespace: ns.name, name: d.name, uid: d.uid, group: "apps", version: "v1"}})
}

// podPatch: a controller patches a Pod's labels.
func (g *generator) podPatch() {
	ns := g.pickNS()
	d, p := g.anyPod(ns)
	if p == nil {
		return
	}
	p.rv++
	u, gr, a := controller("replicaset-controller")
	g.emit(event{level: "RequestResponse", verb: "patch", uri: podURI(ns.name, p.name), user: u, groups: gr, agent: a,
		code: 200, request: `{"metadata":{"labels":{"pod-template-hash":"7c9d8f5b4"}}}`, response: g.pod(ns, d, p, "node-003", false),
		ref: ref{resource: "pods", namespace: ns.name, name: p.name, uid: p.uid, version: "v1"}})
}

// replicaSetUpdate: the deployment controller scales a ReplicaSet.
func (g *generator) replicaSetUpdate() {
	ns := g.pickNS()
	if len(ns.deployments) == 0 {
		return
	}
	d := ns.deployments[g.rnd.IntN(len(ns.deployments))]
	d.rs.rv++
	u, gr, a := controller("deployment-controller")
	body := d.rsBody(ns.name, true)
	g.emit(event{level: "RequestResponse", verb: "update", uri: rsURI(ns.name, d.rs.name), user: u, groups: gr, agent: a,
		code: 200, request: body, response: body,
		ref: ref{resource: "replicasets", namespace: ns.name, name: d.rs.name, uid: d.rs.uid, group: "apps", version: "v1"}})
}
