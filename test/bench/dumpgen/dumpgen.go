// Package dumpgen writes synthetic `kubectl get -A -o json` dumps for
// benchmarks: realistic objects (managedFields, last-applied annotations,
// full pod specs and statuses) of the kinds a big cluster is made of, with
// the owner chains Deployment → ReplicaSet → Pod and StatefulSet → Pod.
// Output is deterministic for a given object count.
package dumpgen

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// Write writes a List of about n objects to w and returns the exact count.
func Write(w io.Writer, n int) (int, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	g := &gen{w: bw}
	bw.WriteString("{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n")
	for app := 0; g.count < n; app++ {
		g.app(app)
	}
	bw.WriteString("\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n")
	return g.count, bw.Flush()
}

type gen struct {
	w     *bufio.Writer
	count int
	uid   int
}

func (g *gen) nextUID() string {
	g.uid++
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", g.uid*2654435761&0xffffffff, g.uid&0xffff, g.uid%4096, (g.uid/7)%4096, g.uid)
}

func (g *gen) begin() {
	if g.count > 0 {
		g.w.WriteString(",\n")
	}
	g.count++
}

const ts = "2025-03-14T09:26:53Z"

func meta(name, ns, uid, labels, owner, extra string, rv int) string {
	s := `"metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\"apiVersion\":\"v1\",\"kind\":\"Thing\",\"metadata\":{\"annotations\":{},\"name\":\"` + name + `\"}}\n"},` +
		`"creationTimestamp": "` + ts + `", "generation": 1, "labels": {` + labels + `},` +
		`"managedFields": [{"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}, "f:spec": {"f:replicas": {}, "f:template": {"f:spec": {"f:containers": {}}}}}, "manager": "kubectl-client-side-apply", "operation": "Update", "time": "` + ts + `"}],` +
		`"name": "` + name + `", "namespace": "` + ns + `",`
	if owner != "" {
		s += `"ownerReferences": [` + owner + `],`
	}
	return s + extra + `"resourceVersion": "` + strconv.Itoa(rv) + `", "uid": "` + uid + `"}`
}

func ownerRef(apiVersion, kind, name, uid string) string {
	return `{"apiVersion": "` + apiVersion + `", "blockOwnerDeletion": true, "controller": true, "kind": "` + kind + `", "name": "` + name + `", "uid": "` + uid + `"}`
}

const podSpecTail = `"containers": [{"image": "registry.example.com/team/app:1.2.3", "imagePullPolicy": "IfNotPresent", "name": "app", "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}], "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}}, "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File", "volumeMounts": [{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access", "readOnly": true}]}], "dnsPolicy": "ClusterFirst", "enableServiceLinks": true, "preemptionPolicy": "PreemptLowerPriority", "priority": 0, "restartPolicy": "Always", "schedulerName": "default-scheduler", "securityContext": {}, "serviceAccount": "default", "serviceAccountName": "default", "terminationGracePeriodSeconds": 30, "tolerations": [{"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300}]`

func (g *gen) pod(ns, name, labels, owner string, rv int, claim string) {
	g.begin()
	uid := g.nextUID()
	vols := `{"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}`
	if claim != "" {
		vols += `, {"name": "data", "persistentVolumeClaim": {"claimName": "` + claim + `"}}`
	}
	fmt.Fprintf(g.w, `{"apiVersion": "v1", "kind": "Pod", %s, "spec": {"nodeName": "node-%d", "volumes": [%s], %s}, "status": {"conditions": [{"lastProbeTime": null, "lastTransitionTime": "%s", "status": "True", "type": "Ready"}], "containerStatuses": [{"containerID": "containerd://0123456789abcdef", "image": "registry.example.com/team/app:1.2.3", "name": "app", "ready": true, "restartCount": 0, "started": true, "state": {"running": {"startedAt": "%s"}}}], "hostIP": "10.0.0.1", "phase": "Running", "podIP": "10.1.2.3", "qosClass": "Burstable", "startTime": "%s"}}`,
		meta(name, ns, uid, labels, owner, `"generateName": "x-",`, rv), rv%50, vols, podSpecTail, ts, ts, ts)
}

func (g *gen) app(i int) {
	ns := fmt.Sprintf("team-%04d", i/40)
	name := fmt.Sprintf("app-%d", i)
	labels := `"app": "` + name + `", "tier": "backend"`
	rv := 1000 + i

	g.begin()
	dUID := g.nextUID()
	fmt.Fprintf(g.w, `{"apiVersion": "apps/v1", "kind": "Deployment", %s, "spec": {"progressDeadlineSeconds": 600, "replicas": 3, "revisionHistoryLimit": 10, "selector": {"matchLabels": {"app": "%s"}}, "strategy": {"rollingUpdate": {"maxSurge": "25%%", "maxUnavailable": "25%%"}, "type": "RollingUpdate"}, "template": {"metadata": {"labels": {%s}}, "spec": {%s}}}, "status": {"availableReplicas": 3, "observedGeneration": 1, "readyReplicas": 3, "replicas": 3, "updatedReplicas": 3}}`,
		meta(name, ns, dUID, labels, "", "", rv), name, labels, podSpecTail)

	var rsName, rsUID string
	for r := 0; r < 2; r++ {
		g.begin()
		rsName = fmt.Sprintf("%s-%x", name, 0x5f7c9d00+r)
		rsUID = g.nextUID()
		fmt.Fprintf(g.w, `{"apiVersion": "apps/v1", "kind": "ReplicaSet", %s, "spec": {"replicas": %d, "selector": {"matchLabels": {"app": "%s"}}, "template": {"metadata": {"labels": {%s}}, "spec": {%s}}}, "status": {"observedGeneration": 1, "replicas": %d}}`,
			meta(rsName, ns, rsUID, labels, ownerRef("apps/v1", "Deployment", name, dUID), "", rv), 3*r, name, labels, podSpecTail, 3*r)
	}
	for p := 0; p < 3; p++ {
		g.pod(ns, fmt.Sprintf("%s-%c%c%c", rsName, 'a'+p, 'k'+p, 'x'), labels, ownerRef("apps/v1", "ReplicaSet", rsName, rsUID), rv, "")
	}
	g.begin()
	fmt.Fprintf(g.w, `{"apiVersion": "v1", "data": {"config.yaml": "listen: :8080\nlog: info\n"}, "kind": "ConfigMap", %s}`, meta(name+"-config", ns, g.nextUID(), labels, "", "", rv))
	g.begin()
	fmt.Fprintf(g.w, `{"apiVersion": "v1", "data": {"password": "c2VjcmV0LXBhc3N3b3Jk"}, "kind": "Secret", %s, "type": "Opaque"}`, meta(name+"-secret", ns, g.nextUID(), labels, "", "", rv))
	g.begin()
	fmt.Fprintf(g.w, `{"apiVersion": "v1", "kind": "Service", %s, "spec": {"clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.10"], "internalTrafficPolicy": "Cluster", "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack", "ports": [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080}], "selector": {"app": "%s"}, "sessionAffinity": "None", "type": "ClusterIP"}, "status": {"loadBalancer": {}}}`,
		meta(name, ns, g.nextUID(), labels, "", "", rv), name)
	if i%4 == 0 {
		g.begin()
		sName, sUID := name+"-db", g.nextUID()
		fmt.Fprintf(g.w, `{"apiVersion": "apps/v1", "kind": "StatefulSet", %s, "spec": {"replicas": 2, "serviceName": "%s", "selector": {"matchLabels": {"app": "%s"}}, "template": {"metadata": {"labels": {%s}}, "spec": {%s}}}, "status": {"replicas": 2}}`,
			meta(sName, ns, sUID, labels, "", "", rv), sName, name, labels, podSpecTail)
		for p := 0; p < 2; p++ {
			g.pod(ns, fmt.Sprintf("%s-%d", sName, p), labels, ownerRef("apps/v1", "StatefulSet", sName, sUID), rv, fmt.Sprintf("data-%s-%d", sName, p))
		}
	}
}
