package main

import (
	"encoding/base64"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// shop is the busy namespace: a Deployment mid-rollout, a StatefulSet with
// volumes, a finished Job, a Widget stuck terminating on a finalizer no
// controller serves, and a ConfigMap whose owner lives in another namespace.
func shop() []item {
	const ns = "shop"
	var items []item
	items = append(items,
		rootCAConfigMap(ns, "2026-10-02T09:00:01Z"),
		serviceAccount(ns, "default", "2026-10-02T09:00:01Z"),
		serviceAccount(ns, "web", "2026-10-02T09:05:12Z"),
		serviceAccount(ns, "db", "2026-10-02T09:05:12Z"),
	)

	// A Secret created with kubectl apply: its data is in the dump twice,
	// base64 in data and again inside last-applied-configuration.
	secret := &corev1.Secret{
		TypeMeta:   typeSecret,
		ObjectMeta: objectMeta("Secret", ns, "db-credentials", "2026-10-02T09:05:12Z"),
		Type:       corev1.SecretTypeOpaque,
		Data: map[string][]byte{
			"password": []byte("example-not-a-real-password"),
			"username": []byte("shop"),
		},
	}
	secret.Annotations = map[string]string{lastApplied: applied(map[string]any{
		"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
		"metadata": map[string]any{"annotations": map[string]any{}, "name": "db-credentials", "namespace": ns},
		"data": map[string]any{
			"password": base64.StdEncoding.EncodeToString([]byte("example-not-a-real-password")),
			"username": base64.StdEncoding.EncodeToString([]byte("shop")),
		},
	})}
	secret.ManagedFields = []metav1.ManagedFieldsEntry{managedFieldsEntry("kubectl-client-side-apply", "v1", "2026-10-02T09:05:12Z", "", &secret.ObjectMeta,
		map[string][]string{"data": {"password", "username"}, "type": nil})}
	items = append(items, item{resource: "secrets", namespace: ns, name: secret.Name, obj: secret})

	items = append(items, web(ns)...)
	items = append(items, db(ns)...)
	items = append(items, migrate(ns)...)
	items = append(items, gizmo(ns)...)

	// shared-config names ops/owner-config as its owner. Owner references
	// cannot cross namespaces: the GC looks the owner up by name in shop,
	// finds nothing, calls it dangling, and deletes shared-config.
	shared := configMap(ns, "shared-config", "2026-11-20T09:55:31Z", map[string]string{"feature-flags": "checkout-v2=true\nsearch-v3=false\n"})
	shared.Labels = labels("app.kubernetes.io/part-of", "shop")
	shared.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner-config", UID: uid("ConfigMap", "ops", "owner-config")}}
	shared.Annotations = map[string]string{lastApplied: applied(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"data": map[string]any{"feature-flags": "checkout-v2=true\nsearch-v3=false\n"},
		"metadata": map[string]any{"annotations": map[string]any{}, "labels": map[string]any{"app.kubernetes.io/part-of": "shop"}, "name": "shared-config", "namespace": ns,
			"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner-config", "uid": string(uid("ConfigMap", "ops", "owner-config"))}}},
	})}
	shared.ManagedFields = []metav1.ManagedFieldsEntry{managedFieldsEntry("kubectl-client-side-apply", "v1", "2026-11-20T09:55:31Z", "", &shared.ObjectMeta,
		map[string][]string{"data": {"feature-flags"}})}
	items = append(items, item{resource: "configmaps", namespace: ns, name: shared.Name, obj: shared})
	return items
}

// web is a Deployment in the middle of a rollout from 1.7.2 to 1.8.0: the
// new ReplicaSet has 3 pods (one not ready yet), the old one still 2.
func web(ns string) []item {
	appLabels := labels("app", "web")
	ports := []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
	newTpl := template(appLabels, "web", "registry.example.com/shop/web:1.8.0", ports, nil, "")
	newTpl.Spec.ServiceAccountName, newTpl.Spec.DeprecatedServiceAccount = "web", "web"
	oldTpl := template(appLabels, "web", "registry.example.com/shop/web:1.7.2", ports, nil, "")
	oldTpl.Spec.ServiceAccountName, oldTpl.Spec.DeprecatedServiceAccount = "web", "web"
	newHash, oldHash := templateHash("web:1.8.0"), templateHash("web:1.7.2")
	newRS, oldRS := "web-"+newHash, "web-"+oldHash

	const created = "2026-10-02T09:05:12Z"
	d := deployment(ns, "web", created, 3, 4, appLabels, newTpl, "3", appsv1.DeploymentStatus{
		Replicas: 5, UpdatedReplicas: 3, ReadyReplicas: 4, AvailableReplicas: 4, UnavailableReplicas: 1,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, LastUpdateTime: at("2026-10-02T09:05:40Z"), LastTransitionTime: at("2026-10-02T09:05:40Z"),
				Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability."},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, LastUpdateTime: at("2026-11-20T09:41:18Z"), LastTransitionTime: at(created),
				Reason: "ReplicaSetUpdated", Message: fmt.Sprintf("ReplicaSet %q is progressing.", newRS)},
		},
	})
	d.Annotations[lastApplied] = applied(map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"annotations": map[string]any{}, "name": "web", "namespace": ns, "labels": map[string]any{"app": "web"}},
		"spec": map[string]any{"replicas": 4, "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{"serviceAccountName": "web", "containers": []any{map[string]any{"name": "web", "image": "registry.example.com/shop/web:1.8.0",
					"ports": []any{map[string]any{"name": "http", "containerPort": 8080}}}}}}},
	})
	d.ManagedFields = []metav1.ManagedFieldsEntry{
		managedFieldsEntry("kubectl-client-side-apply", "apps/v1", "2026-11-20T09:40:02Z", "", &metav1.ObjectMeta{Annotations: map[string]string{lastApplied: ""}, Labels: appLabels},
			map[string][]string{"spec": {"progressDeadlineSeconds", "replicas", "revisionHistoryLimit", "selector", "strategy", "template"}}),
		managedFieldsEntry("kube-controller-manager", "apps/v1", "2026-11-20T09:41:18Z", "status", &metav1.ObjectMeta{Annotations: map[string]string{"deployment.kubernetes.io/revision": ""}},
			map[string][]string{"status": {"availableReplicas", "conditions", "observedGeneration", "readyReplicas", "replicas", "unavailableReplicas", "updatedReplicas"}}),
	}
	items := []item{{resource: "deployments.apps", namespace: ns, name: "web", obj: d}}

	nrs := replicaSet(ns, "web", newHash, "2026-11-20T09:40:02Z", 2, 3, 2, 5, 4, "3", newTpl)
	nrs.ManagedFields = []metav1.ManagedFieldsEntry{
		managedFieldsEntry("kube-controller-manager", "apps/v1", "2026-11-20T09:41:18Z", "", &nrs.ObjectMeta, map[string][]string{"spec": {"replicas", "selector", "template"}}),
		managedFieldsEntry("kube-controller-manager", "apps/v1", "2026-11-20T09:41:18Z", "status", nil,
			map[string][]string{"status": {"availableReplicas", "fullyLabeledReplicas", "observedGeneration", "readyReplicas", "replicas"}}),
	}
	ors := replicaSet(ns, "web", oldHash, "2026-11-05T14:22:37Z", 4, 2, 2, 5, 4, "2", oldTpl)
	ors.ManagedFields = []metav1.ManagedFieldsEntry{
		managedFieldsEntry("kube-controller-manager", "apps/v1", "2026-11-20T09:41:18Z", "", &ors.ObjectMeta, map[string][]string{"spec": {"replicas", "selector", "template"}}),
	}
	items = append(items,
		item{resource: "replicasets.apps", namespace: ns, name: newRS, obj: nrs},
		item{resource: "replicasets.apps", namespace: ns, name: oldRS, obj: ors})

	type webPod struct {
		rs, hash, image, node, ip, created, started string
		ready                                       bool
	}
	pods := []webPod{
		{newRS, newHash, "registry.example.com/shop/web:1.8.0", "node-a", "10.244.1.31", "2026-11-20T09:40:02Z", "2026-11-20T09:40:09Z", true},
		{newRS, newHash, "registry.example.com/shop/web:1.8.0", "node-b", "10.244.2.44", "2026-11-20T09:40:41Z", "2026-11-20T09:40:47Z", true},
		{newRS, newHash, "registry.example.com/shop/web:1.8.0", "node-a", "10.244.1.32", "2026-11-20T09:41:18Z", "2026-11-20T09:41:24Z", false},
		{oldRS, oldHash, "registry.example.com/shop/web:1.7.2", "node-b", "10.244.2.17", "2026-11-05T14:22:37Z", "2026-11-05T14:22:44Z", true},
		{oldRS, oldHash, "registry.example.com/shop/web:1.7.2", "node-a", "10.244.1.12", "2026-11-05T14:22:37Z", "2026-11-05T14:22:45Z", true},
	}
	var backends []backend
	for i, p := range pods {
		name := p.rs + "-" + safeString(fmt.Sprintf("web-pod-%d", i), 5)
		it := pod(podArgs{namespace: ns, name: name, generateName: p.rs + "-", created: p.created,
			labels: labels("app", "web", "pod-template-hash", p.hash), owner: ptr(controllerRef("apps/v1", "ReplicaSet", ns, p.rs)),
			node: p.node, image: p.image, container: "web", ports: ports, serviceAccount: "web",
			phase: corev1.PodRunning, ready: p.ready, started: p.started, ip: p.ip})
		if i == 0 {
			po := it.obj.(*corev1.Pod)
			po.ManagedFields = []metav1.ManagedFieldsEntry{
				managedFieldsEntry("kube-controller-manager", "v1", p.created, "", &po.ObjectMeta, map[string][]string{"spec": {"containers", "dnsPolicy", "enableServiceLinks", "restartPolicy", "schedulerName", "securityContext", "serviceAccount", "serviceAccountName", "terminationGracePeriodSeconds"}}),
				managedFieldsEntry("kubelet", "v1", p.started, "status", nil, map[string][]string{"status": {"conditions", "containerStatuses", "hostIP", "hostIPs", "phase", "podIP", "podIPs", "startTime"}}),
			}
		}
		items = append(items, it)
		backends = append(backends, backend{pod: name, ip: p.ip, node: p.node, zone: zoneOf(p.node), ready: p.ready})
	}

	svc := service(ns, "web", created, "10.96.142.17", appLabels, appLabels, 80, "http")
	svc.Annotations = map[string]string{lastApplied: applied(map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"annotations": map[string]any{}, "labels": map[string]any{"app": "web"}, "name": "web", "namespace": ns},
		"spec":     map[string]any{"ports": []any{map[string]any{"name": "http", "port": 80, "targetPort": "http"}}, "selector": map[string]any{"app": "web"}},
	})}
	items = append(items, item{resource: "services", namespace: ns, name: "web", obj: svc},
		endpoints(ns, "web", created, "2026-11-20T09:41:24Z", appLabels, 8080, "http", backends),
		endpointSlice(ns, "web", created, "2026-11-20T09:41:24Z", appLabels, 8080, "http", backends))
	return items
}

// db is a StatefulSet with two pods, a claim each from its
// volumeClaimTemplate (retained on delete: no owner references on the
// claims), and two ControllerRevisions owned by the StatefulSet.
func db(ns string) []item {
	appLabels := labels("app", "db")
	ports := []corev1.ContainerPort{{Name: "postgres", ContainerPort: 5432, Protocol: corev1.ProtocolTCP}}
	mounts := []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/postgresql/data"}}
	tpl := func(image string) corev1.PodTemplateSpec {
		t := template(appLabels, "postgres", image, ports, mounts, "")
		t.Spec.ServiceAccountName, t.Spec.DeprecatedServiceAccount = "db", "db"
		return t
	}
	curTpl, oldTpl := tpl("docker.io/library/postgres:17.6"), tpl("docker.io/library/postgres:17.5")
	curHash, oldHash := templateHash("db:17.6"), templateHash("db:17.5")
	const created = "2026-10-02T09:05:13Z"
	ss := &appsv1.StatefulSet{
		TypeMeta:   typeStatefulSet,
		ObjectMeta: objectMeta("StatefulSet", ns, "db", created),
		Spec: appsv1.StatefulSetSpec{
			PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
				WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType},
			PodManagementPolicy:  appsv1.OrderedReadyPodManagement,
			Replicas:             ptr(int32(2)),
			RevisionHistoryLimit: ptr(int32(10)),
			Selector:             &metav1.LabelSelector{MatchLabels: appLabels},
			ServiceName:          "db",
			Template:             curTpl,
			UpdateStrategy:       appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType, RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(0))}},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				TypeMeta:   typePVC,
				ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
					StorageClassName: ptr("gp3"),
					VolumeMode:       ptr(corev1.PersistentVolumeFilesystem),
				},
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
			}},
		},
		Status: appsv1.StatefulSetStatus{AvailableReplicas: 2, CollisionCount: ptr(int32(0)), CurrentReplicas: 2, CurrentRevision: "db-" + curHash,
			ObservedGeneration: 2, ReadyReplicas: 2, Replicas: 2, UpdateRevision: "db-" + curHash, UpdatedReplicas: 2},
	}
	ss.Generation = 2
	ss.Labels = appLabels
	items := []item{
		{resource: "statefulsets.apps", namespace: ns, name: "db", obj: ss},
		controllerRevision(ns, "db", "StatefulSet", oldHash, created, 1, withLabels(appLabels, "controller.kubernetes.io/hash", oldHash), oldTpl),
		controllerRevision(ns, "db", "StatefulSet", curHash, "2026-11-12T07:30:00Z", 2, withLabels(appLabels, "controller.kubernetes.io/hash", curHash), curTpl),
	}
	var backends []backend
	for i, node := range []string{"node-a", "node-b"} {
		name := fmt.Sprintf("db-%d", i)
		claim := "data-" + name
		ip := fmt.Sprintf("10.244.%d.%d", i+1, 20+i)
		items = append(items, pod(podArgs{namespace: ns, name: name, created: addSeconds("2026-11-12T07:30:00Z", 40*(1-i)),
			labels: withLabels(appLabels, "apps.kubernetes.io/pod-index", fmt.Sprint(i), "controller-revision-hash", "db-"+curHash, "statefulset.kubernetes.io/pod-name", name),
			owner:  ptr(controllerRef("apps/v1", "StatefulSet", ns, "db")), node: node,
			image: "docker.io/library/postgres:17.6", container: "postgres", ports: ports, serviceAccount: "db",
			claims: map[string]string{"data": claim}, hostname: name, subdomain: "db",
			phase: corev1.PodRunning, ready: true, started: addSeconds("2026-11-12T07:30:00Z", 40*(1-i)+9), ip: ip}))
		items = append(items, pvcAndPV(ns, claim, node, addSeconds(created, 20*i), appLabels, "10Gi")...)
		backends = append(backends, backend{pod: name, ip: ip, node: node, zone: zoneOf(node), hostname: name, ready: true})
	}
	svc := service(ns, "db", created, "None", appLabels, appLabels, 5432, "postgres")
	svc.Labels = withLabels(appLabels)
	items = append(items, item{resource: "services", namespace: ns, name: "db", obj: svc},
		endpoints(ns, "db", created, "2026-11-12T07:30:49Z", withLabels(appLabels, "service.kubernetes.io/headless", ""), 5432, "postgres", backends),
		endpointSlice(ns, "db", created, "2026-11-12T07:30:49Z", withLabels(appLabels, "service.kubernetes.io/headless", ""), 5432, "postgres", backends))
	return items
}

// migrate is a Job that ran to completion before the rollout; the job
// controller removed batch.kubernetes.io/job-tracking from its pod once it
// counted it as succeeded.
func migrate(ns string) []item {
	const created, finished = "2026-11-20T09:38:00Z", "2026-11-20T09:39:07Z"
	tpl := template(labels(), "migrate", "registry.example.com/shop/migrate:1.8.0", nil, nil, corev1.RestartPolicyNever)
	tpl.Spec.ServiceAccountName, tpl.Spec.DeprecatedServiceAccount = "db", "db"
	j := job(ns, "migrate", created, created, finished, tpl)
	podName := "migrate-" + safeString("migrate-pod", 5)
	return []item{
		{resource: "jobs.batch", namespace: ns, name: "migrate", obj: j},
		pod(podArgs{namespace: ns, name: podName, generateName: "migrate-", created: created,
			labels: j.Spec.Template.Labels, owner: ptr(controllerRef("batch/v1", "Job", ns, "migrate")),
			node: "node-b", image: "registry.example.com/shop/migrate:1.8.0", container: "migrate", serviceAccount: "db",
			restartPolicy: corev1.RestartPolicyNever, phase: corev1.PodSucceeded, started: "2026-11-20T09:38:04Z", finished: "2026-11-20T09:39:05Z",
			ip: "10.244.2.51"}),
	}
}

// gizmo is a Widget deleted this morning. Its finalizer belongs to a
// controller that is not installed, so it stays Terminating; the ConfigMap
// it owns waits for it (background deletion: the GC acts on dependents
// only once the owner is gone).
func gizmo(ns string) []item {
	spec := map[string]any{"color": "teal", "size": "large"}
	w := customResource{apiVersion: "example.com/v1", kind: "Widget", resource: "widgets.example.com", namespace: ns, name: "gizmo",
		created: "2026-10-20T14:05:33Z", generation: 2, labels: labels("app.kubernetes.io/part-of", "shop"),
		finalizers: []string{"widgets.example.com/cleanup"}, deleted: "2026-11-20T07:41:12Z",
		annotations: map[string]string{lastApplied: applied(map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"annotations": map[string]any{}, "labels": map[string]any{"app.kubernetes.io/part-of": "shop"}, "name": "gizmo", "namespace": ns},
			"spec":     spec})},
		spec: spec, status: map[string]any{"phase": "Ready", "observedGeneration": 1}}
	wm := metav1.ObjectMeta{Labels: w.labels, Annotations: map[string]string{lastApplied: ""}}
	w.managedFields = []metav1.ManagedFieldsEntry{
		managedFieldsEntry("kubectl-client-side-apply", "example.com/v1", "2026-10-20T14:05:33Z", "", &wm, map[string][]string{"spec": {"color", "size"}}),
		managedFieldsEntry("widget-operator", "example.com/v1", "2026-10-20T14:05:34Z", "", &metav1.ObjectMeta{Finalizers: w.finalizers}, nil),
	}
	settings := configMap(ns, "gizmo-settings", "2026-10-20T14:05:34Z", map[string]string{"widget.properties": "color=teal\nsize=large\n"})
	settings.Labels = labels("example.com/widget", "gizmo")
	settings.OwnerReferences = []metav1.OwnerReference{controllerRef("example.com/v1", "Widget", ns, "gizmo")}
	return []item{w.item(), {resource: "configmaps", namespace: ns, name: settings.Name, obj: settings}}
}
