package main

import (
	"encoding/json"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// applied renders the last-applied-configuration annotation kubectl apply
// leaves behind: the manifest as the user wrote it, compact JSON plus a
// newline. For a Secret it holds the secret data, which is why kgc must
// never keep annotations.
func applied(manifest map[string]any) string {
	b, err := json.Marshal(manifest)
	if err != nil {
		panic(fmt.Sprintf("genexample: encoding a manifest: %v", err))
	}
	return string(b) + "\n"
}

func clusterScoped() []item {
	var items []item
	for _, n := range nodes {
		items = append(items, nodeObject(n))
	}
	for _, ns := range []struct{ name, created string }{
		{"default", "2026-09-01T08:10:01Z"},
		{"kube-node-lease", "2026-09-01T08:10:01Z"},
		{"kube-public", "2026-09-01T08:10:01Z"},
		{"kube-system", "2026-09-01T08:10:01Z"},
		{"ops", "2026-09-03T11:20:45Z"},
	} {
		items = append(items, item{resource: "namespaces", name: ns.name, obj: namespace(ns.name, ns.created)})
	}
	shopNS := namespace("shop", "2026-10-02T09:00:00Z")
	shopNS.Labels["team"] = "storefront"
	items = append(items, item{resource: "namespaces", name: "shop", obj: shopNS})

	sc := &storagev1.StorageClass{
		TypeMeta:             metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"},
		ObjectMeta:           objectMeta("StorageClass", "", "gp3", "2026-09-01T08:20:13Z"),
		Provisioner:          "ebs.csi.aws.com",
		Parameters:           map[string]string{"type": "gp3", "encrypted": "true"},
		ReclaimPolicy:        ptr(corev1.PersistentVolumeReclaimDelete),
		VolumeBindingMode:    ptr(storagev1.VolumeBindingWaitForFirstConsumer),
		AllowVolumeExpansion: ptr(true),
	}
	sc.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
	items = append(items, item{resource: "storageclasses.storage.k8s.io", name: "gp3", obj: sc})

	cr := &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
		ObjectMeta: objectMeta("ClusterRole", "", "widget-viewer", "2026-10-20T14:02:11Z"),
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"example.com"}, Resources: []string{"widgets", "backups"}, Verbs: []string{"get", "list", "watch"}},
		},
	}
	cr.Labels = labels("rbac.authorization.k8s.io/aggregate-to-view", "true")
	items = append(items, item{resource: "clusterroles.rbac.authorization.k8s.io", name: cr.Name, obj: cr})
	crb := &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
		ObjectMeta: objectMeta("ClusterRoleBinding", "", "storefront-widget-viewers", "2026-10-20T14:02:11Z"),
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "widget-viewer"},
		Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "Group", Name: "storefront-devs"}},
	}
	items = append(items, item{resource: "clusterrolebindings.rbac.authorization.k8s.io", name: crb.Name, obj: crb})

	items = append(items,
		crd("widgets.example.com", "2026-10-20T14:00:00Z", "Widget", "widgets", "widget", []string{"wdg"}, []crdVersion{{"v1", true, true}}),
		crd("backups.example.com", "2026-09-15T10:30:00Z", "Backup", "backups", "backup", nil, []crdVersion{{"v1", true, true}, {"v1beta1", true, false}}),
	)
	return items
}

type crdVersion struct {
	name            string
	served, storage bool
}

// crd is a CustomResourceDefinition as the API server returns it once the
// establishing controller has accepted its names.
func crd(name, created, kind, plural, singular string, short []string, versions []crdVersion) item {
	m := objectMeta("CustomResourceDefinition", "", name, created)
	group := name[len(plural)+1:]
	names := map[string]any{"kind": kind, "listKind": kind + "List", "plural": plural, "singular": singular}
	if len(short) > 0 {
		names["shortNames"] = short
	}
	var vs []any
	var stored []string
	for _, v := range versions {
		vs = append(vs, map[string]any{
			"name": v.name, "served": v.served, "storage": v.storage,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"spec":   map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
					"status": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
				},
			}},
			"subresources": map[string]any{"status": map[string]any{}},
		})
		if v.storage {
			stored = append(stored, v.name)
		}
	}
	obj := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata": map[string]any{
			"name": name, "uid": string(m.UID), "resourceVersion": m.ResourceVersion,
			"creationTimestamp": created, "generation": 1,
		},
		"spec": map[string]any{
			"conversion": map[string]any{"strategy": "None"},
			"group":      group,
			"names":      names,
			"scope":      "Namespaced",
			"versions":   vs,
		},
		"status": map[string]any{
			"acceptedNames": names,
			"conditions": []any{
				map[string]any{"lastTransitionTime": created, "message": "no conflicts found", "reason": "NoConflicts", "status": "True", "type": "NamesAccepted"},
				map[string]any{"lastTransitionTime": created, "message": "the initial names have been accepted", "reason": "InitialNamesAccepted", "status": "True", "type": "Established"},
			},
			"storedVersions": stored,
		},
	}
	return item{resource: "customresourcedefinitions.apiextensions.k8s.io", name: name, obj: obj}
}

// customResource is an instance of one of the example CRDs.
type customResource struct {
	apiVersion, kind, resource, namespace, name, created string
	generation                                           int64
	labels                                               map[string]string
	annotations                                          map[string]string
	finalizers                                           []string
	deleted                                              string
	spec, status                                         map[string]any
	managedFields                                        []metav1.ManagedFieldsEntry
}

func (c customResource) item() item {
	meta := map[string]any{
		"name": c.name, "namespace": c.namespace,
		"uid":               string(uid(c.kind, c.namespace, c.name)),
		"resourceVersion":   resourceVersion(c.kind, c.namespace, c.name),
		"creationTimestamp": c.created,
		"generation":        c.generation,
	}
	if c.labels != nil {
		meta["labels"] = c.labels
	}
	if c.annotations != nil {
		meta["annotations"] = c.annotations
	}
	if c.finalizers != nil {
		meta["finalizers"] = c.finalizers
	}
	if c.deleted != "" {
		// markAsDeleting: a non-graceful object with finalizers keeps a
		// deletionTimestamp of "now" and a grace period of 0.
		meta["deletionTimestamp"] = c.deleted
		meta["deletionGracePeriodSeconds"] = 0
	}
	if c.managedFields != nil {
		meta["managedFields"] = c.managedFields
	}
	obj := map[string]any{"apiVersion": c.apiVersion, "kind": c.kind, "metadata": meta, "spec": c.spec}
	if c.status != nil {
		obj["status"] = c.status
	}
	return item{resource: c.resource, namespace: c.namespace, name: c.name, obj: obj}
}

func kubeSystem() []item {
	const ns = "kube-system"
	const created = "2026-09-01T08:10:15Z"
	var items []item
	items = append(items,
		rootCAConfigMap(ns, "2026-09-01T08:10:16Z"),
		serviceAccount(ns, "default", "2026-09-01T08:10:16Z"),
		serviceAccount(ns, "coredns", created),
		serviceAccount(ns, "kube-proxy", created),
		item{resource: "configmaps", namespace: ns, name: "coredns", obj: configMap(ns, "coredns", created, map[string]string{"Corefile": `.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes cluster.local in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30
    loop
    reload
    loadbalance
}
`})},
		item{resource: "configmaps", namespace: ns, name: "kube-proxy", obj: configMap(ns, "kube-proxy", created, map[string]string{"config.conf": `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clusterCIDR: 10.244.0.0/16
mode: nftables
`})},
	)

	// CoreDNS: a Deployment and its ReplicaSet, two pods.
	dnsLabels := labels("k8s-app", "kube-dns")
	dnsPorts := []corev1.ContainerPort{{Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP}, {Name: "dns-tcp", ContainerPort: 53, Protocol: corev1.ProtocolTCP}, {Name: "metrics", ContainerPort: 9153, Protocol: corev1.ProtocolTCP}}
	dnsTpl := template(dnsLabels, "coredns", "registry.k8s.io/coredns/coredns:v1.12.3", dnsPorts, nil, "")
	dnsTpl.Spec.ServiceAccountName = "coredns"
	dnsTpl.Spec.DeprecatedServiceAccount = "coredns"
	dnsTpl.Spec.PriorityClassName = "system-cluster-critical"
	dnsHash := templateHash("coredns:v1.12.3")
	items = append(items, item{resource: "deployments.apps", namespace: ns, name: "coredns", obj: deployment(ns, "coredns", created, 1, 2, dnsLabels, dnsTpl, "1",
		appsv1.DeploymentStatus{Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2, Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, LastUpdateTime: at("2026-09-01T08:11:02Z"), LastTransitionTime: at("2026-09-01T08:11:02Z"), Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability."},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, LastUpdateTime: at("2026-09-01T08:11:02Z"), LastTransitionTime: at(created), Reason: "NewReplicaSetAvailable", Message: fmt.Sprintf("ReplicaSet \"coredns-%s\" has successfully progressed.", dnsHash)},
		}})})
	items = append(items, item{resource: "replicasets.apps", namespace: ns, name: "coredns-" + dnsHash,
		obj: replicaSet(ns, "coredns", dnsHash, created, 1, 2, 2, 3, 2, "1", dnsTpl)})
	var dnsBackends []backend
	for i, node := range []string{"node-a", "node-b"} {
		name := "coredns-" + dnsHash + "-" + safeString(fmt.Sprintf("coredns-pod-%d", i), 5)
		ip := fmt.Sprintf("10.244.%d.2", i+1)
		items = append(items, pod(podArgs{namespace: ns, name: name, generateName: "coredns-" + dnsHash + "-", created: "2026-09-01T08:10:31Z",
			labels: withLabels(dnsLabels, "pod-template-hash", dnsHash), owner: ptr(controllerRef("apps/v1", "ReplicaSet", ns, "coredns-"+dnsHash)),
			node: node, image: "registry.k8s.io/coredns/coredns:v1.12.3", container: "coredns", ports: dnsPorts, serviceAccount: "coredns",
			priorityClass: "system-cluster-critical", phase: corev1.PodRunning, ready: true, started: "2026-09-01T08:10:48Z", ip: ip}))
		dnsBackends = append(dnsBackends, backend{pod: name, ip: ip, node: node, zone: zoneOf(node), ready: true})
	}
	svcLabels := labels("k8s-app", "kube-dns", "kubernetes.io/cluster-service", "true", "kubernetes.io/name", "CoreDNS")
	dns := service(ns, "kube-dns", created, "10.96.0.10", svcLabels, dnsLabels, 53, "dns")
	dns.Annotations = map[string]string{"prometheus.io/port": "9153", "prometheus.io/scrape": "true"}
	dns.Spec.Ports = []corev1.ServicePort{
		{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP, TargetPort: intstr.FromInt32(53)},
		{Name: "dns-tcp", Port: 53, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(53)},
		{Name: "metrics", Port: 9153, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(9153)},
	}
	items = append(items, item{resource: "services", namespace: ns, name: "kube-dns", obj: dns},
		endpoints(ns, "kube-dns", created, "2026-09-01T08:10:48Z", svcLabels, 53, "dns", dnsBackends),
		endpointSlice(ns, "kube-dns", created, "2026-09-01T08:10:48Z", svcLabels, 53, "dns", dnsBackends))

	// kube-proxy: a DaemonSet, its ControllerRevision, one pod per node.
	// The pod on node-c tolerates the unreachable taint for ever, as every
	// DaemonSet pod does, so it is never evicted: it just stops being ready.
	proxyLabels := labels("k8s-app", "kube-proxy")
	proxyTpl := template(proxyLabels, "kube-proxy", "registry.k8s.io/kube-proxy:v1.36.3", nil, nil, "")
	proxyTpl.Spec.HostNetwork = true
	proxyTpl.Spec.PriorityClassName = "system-node-critical"
	proxyTpl.Spec.ServiceAccountName = "kube-proxy"
	proxyTpl.Spec.DeprecatedServiceAccount = "kube-proxy"
	proxyTpl.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	proxyHash := templateHash("kube-proxy:v1.36.3")[:9]
	ds := &appsv1.DaemonSet{
		TypeMeta:   typeDaemonSet,
		ObjectMeta: objectMeta("DaemonSet", ns, "kube-proxy", created),
		Spec: appsv1.DaemonSetSpec{
			RevisionHistoryLimit: ptr(int32(10)),
			Selector:             &metav1.LabelSelector{MatchLabels: proxyLabels},
			Template:             proxyTpl,
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{
				MaxSurge: ptr(intstr.FromInt32(0)), MaxUnavailable: ptr(intstr.FromInt32(1))}},
		},
		Status: appsv1.DaemonSetStatus{CurrentNumberScheduled: 3, DesiredNumberScheduled: 3, NumberAvailable: 2, NumberReady: 2, NumberUnavailable: 1,
			ObservedGeneration: 1, UpdatedNumberScheduled: 3},
	}
	ds.Generation = 1
	ds.Labels = proxyLabels
	ds.Annotations = map[string]string{"deprecated.daemonset.template.generation": "1"}
	items = append(items, item{resource: "daemonsets.apps", namespace: ns, name: "kube-proxy", obj: ds},
		controllerRevision(ns, "kube-proxy", "DaemonSet", proxyHash, created, 1, withLabels(proxyLabels, "controller-revision-hash", proxyHash), proxyTpl))
	for _, n := range nodes {
		name := "kube-proxy-" + safeString("kube-proxy-pod-"+n.name, 5)
		a := podArgs{namespace: ns, name: name, generateName: "kube-proxy-", created: n.created,
			labels: withLabels(proxyLabels, "controller-revision-hash", proxyHash, "pod-template-generation", "1"),
			owner:  ptr(controllerRef("apps/v1", "DaemonSet", ns, "kube-proxy")), node: n.name,
			image: "registry.k8s.io/kube-proxy:v1.36.3", container: "kube-proxy", serviceAccount: "kube-proxy",
			tolerateForever: true, affinityNode: true, priorityClass: "system-node-critical", hostNetwork: true,
			phase: corev1.PodRunning, ready: true, started: addSeconds(n.created, 21), ip: n.ip}
		if !n.ready {
			a.nodeLostSince = nodeUnreachableSince
		}
		items = append(items, pod(a))
	}
	return items
}

func addSeconds(ts string, s int) string {
	t := at(ts).Add(time.Duration(s) * time.Second)
	return t.UTC().Format(time.RFC3339)
}

func defaultNamespace() []item {
	const ns = "default"
	k := &corev1.Service{
		TypeMeta:   typeService,
		ObjectMeta: objectMeta("Service", ns, "kubernetes", "2026-09-01T08:10:01Z"),
		Spec: corev1.ServiceSpec{
			ClusterIP: "10.96.0.1", ClusterIPs: []string{"10.96.0.1"},
			InternalTrafficPolicy: ptr(corev1.ServiceInternalTrafficPolicyCluster),
			IPFamilies:            []corev1.IPFamily{corev1.IPv4Protocol},
			IPFamilyPolicy:        ptr(corev1.IPFamilyPolicySingleStack),
			Ports:                 []corev1.ServicePort{{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(6443)}},
			SessionAffinity:       corev1.ServiceAffinityNone,
			Type:                  corev1.ServiceTypeClusterIP,
		},
	}
	k.Labels = labels("component", "apiserver", "provider", "kubernetes")
	return []item{
		{resource: "services", namespace: ns, name: "kubernetes", obj: k},
		rootCAConfigMap(ns, "2026-09-01T08:10:16Z"),
		serviceAccount(ns, "default", "2026-09-01T08:10:16Z"),
	}
}

func ops() []item {
	const ns = "ops"
	owner := configMap(ns, "owner-config", "2026-11-18T16:42:09Z", map[string]string{"owner": "platform-team", "purpose": "anchors shared configuration"})
	owner.Labels = labels("app.kubernetes.io/managed-by", "platform-tools")
	return []item{
		rootCAConfigMap(ns, "2026-09-03T11:20:46Z"),
		serviceAccount(ns, "default", "2026-09-03T11:20:46Z"),
		{resource: "configmaps", namespace: ns, name: "owner-config", obj: owner},
	}
}

// pvcAndPV is a dynamically provisioned claim and its bound volume, with
// the protection finalizers, annotations and claimRef the PV controller,
// the external provisioner and admission leave on them.
func pvcAndPV(ns, claim, node, created string, lbls map[string]string, size string) []item {
	pvName := "pvc-" + string(uid("PersistentVolumeClaim", ns, claim))
	m := objectMeta("PersistentVolumeClaim", ns, claim, created)
	m.Labels = lbls
	m.Finalizers = []string{"kubernetes.io/pvc-protection"}
	m.Annotations = map[string]string{
		"pv.kubernetes.io/bind-completed":               "yes",
		"pv.kubernetes.io/bound-by-controller":          "yes",
		"volume.beta.kubernetes.io/storage-provisioner": "ebs.csi.aws.com",
		"volume.kubernetes.io/selected-node":            node,
		"volume.kubernetes.io/storage-provisioner":      "ebs.csi.aws.com",
	}
	q := resource.MustParse(size)
	modes := []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
	pvc := &corev1.PersistentVolumeClaim{
		TypeMeta:   typePVC,
		ObjectMeta: m,
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      modes,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: q}},
			StorageClassName: ptr("gp3"),
			VolumeMode:       ptr(corev1.PersistentVolumeFilesystem),
			VolumeName:       pvName,
		},
		Status: corev1.PersistentVolumeClaimStatus{AccessModes: modes, Capacity: corev1.ResourceList{corev1.ResourceStorage: q}, Phase: corev1.ClaimBound},
	}
	bound := addSeconds(created, 4)
	pm := objectMeta("PersistentVolume", "", pvName, bound)
	pm.Finalizers = []string{"external-provisioner.volume.kubernetes.io/finalizer", "kubernetes.io/pv-protection"}
	pm.Annotations = map[string]string{
		"pv.kubernetes.io/provisioned-by":                            "ebs.csi.aws.com",
		"volume.kubernetes.io/provisioner-deletion-secret-name":      "",
		"volume.kubernetes.io/provisioner-deletion-secret-namespace": "",
	}
	pv := &corev1.PersistentVolume{
		TypeMeta:   typePV,
		ObjectMeta: pm,
		Spec: corev1.PersistentVolumeSpec{
			AccessModes: modes,
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: q},
			ClaimRef: &corev1.ObjectReference{APIVersion: "v1", Kind: "PersistentVolumeClaim", Namespace: ns, Name: claim,
				UID: uid("PersistentVolumeClaim", ns, claim), ResourceVersion: resourceVersion("PersistentVolumeClaim-bind", ns, claim)},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: "ebs.csi.aws.com", FSType: "ext4", VolumeHandle: "vol-0" + hexOf("volume:"+ns+"/"+claim, 16),
				VolumeAttributes: map[string]string{"storage.kubernetes.io/csiProvisionerIdentity": "1756714213052-6912-ebs.csi.aws.com"},
			}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{zoneOf(node)}}},
			}}}},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			StorageClassName:              "gp3",
			VolumeMode:                    ptr(corev1.PersistentVolumeFilesystem),
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound, LastPhaseTransitionTime: atp(bound)},
	}
	return []item{
		{resource: "persistentvolumeclaims", namespace: ns, name: claim, obj: pvc},
		{resource: "persistentvolumes", name: pvName, obj: pv},
	}
}
