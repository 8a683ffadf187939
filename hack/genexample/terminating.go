package main

import (
	corev1 "k8s.io/api/core/v1"
)

// legacy was deleted this morning and is stuck. Its only pod runs on
// node-c, which went silent last night: the taint-eviction controller
// deleted the pod, but no kubelet can confirm it stopped, so it stays
// Terminating for ever. With OrderedNamespaceDeletion the namespace
// controller deletes pods first and stops while any remain, so it has not
// touched the rest yet (the Backup, the claim, the ConfigMap): it reports
// the leftover pod as a content failure and, because it never counted the
// other resources on that early return, writes the "ok" variants of
// NamespaceContentRemaining and NamespaceFinalizersRemaining.
func legacy() []item {
	const (
		ns       = "legacy"
		created  = "2026-09-15T10:00:00Z"
		deleted  = "2026-11-20T08:05:00Z"
		firstRun = "2026-11-20T08:05:05Z" // the controller queues a namespace 5 s after its deletion
		failing  = "2026-11-20T08:05:41Z" // the pod outlived its 30 s grace estimate
	)
	nsObj := terminatingNamespace(ns, created, firstRun,
		nsCondition(corev1.NamespaceDeletionContentFailure, true, "ContentDeletionFailed",
			"Failed to delete all resource types, 1 remaining: unexpected items still remain in namespace: legacy for gvr: /v1, Resource=pods", failing))
	nsObj.DeletionTimestamp = atp(deleted)
	items := []item{
		{resource: "namespaces", name: ns, obj: nsObj},
		rootCAConfigMap(ns, "2026-09-15T10:00:01Z"),
		serviceAccount(ns, "default", "2026-09-15T10:00:01Z"),
		pod(podArgs{namespace: ns, name: "report-runner", created: "2026-11-02T06:00:12Z", labels: labels("app", "reports"),
			node: "node-c", image: "registry.example.com/legacy/reports:3.4.1", container: "reports",
			claims: map[string]string{"reports": "reports"},
			phase:  corev1.PodRunning, ready: true, started: "2026-11-02T06:00:31Z", ip: "10.244.3.14",
			nodeLostSince: nodeUnreachableSince,
			evicted:       "2026-11-19T22:19:10Z", // 300 s toleration after the NoExecute taint
			deletedAt:     "2026-11-19T22:19:40Z", // + the pod's 30 s grace period
		}),
		customResource{apiVersion: "example.com/v1", kind: "Backup", resource: "backups.example.com", namespace: ns, name: "nightly",
			created: "2026-10-01T02:00:00Z", generation: 1, labels: labels("schedule", "nightly"),
			finalizers: []string{"backups.example.com/protect"},
			spec:       map[string]any{"schedule": "0 2 * * *", "retentionDays": 14, "source": map[string]any{"persistentVolumeClaim": "reports"}},
			status:     map[string]any{"lastBackupTime": "2026-11-19T02:00:41Z", "phase": "Completed"}}.item(),
	}
	items = append(items, pvcAndPV(ns, "reports", "node-c", "2026-11-02T06:00:12Z", labels("app", "reports"), "20Gi")...)
	return items
}

// archive was deleted and the namespace controller got past the pods: it
// deleted everything, and one Backup remains, held by its finalizer. The
// conditions say so in the controller's own words.
func archive() []item {
	const (
		ns       = "archive"
		deleted  = "2026-11-20T09:12:00Z"
		firstRun = "2026-11-20T09:12:05Z"
	)
	nsObj := terminatingNamespace(ns, "2026-09-20T16:45:10Z", firstRun,
		nsCondition(corev1.NamespaceContentRemaining, true, "SomeResourcesRemain",
			"Some resources are remaining: backups.example.com has 1 resource instances", firstRun),
		nsCondition(corev1.NamespaceFinalizersRemaining, true, "SomeFinalizersRemain",
			"Some content in the namespace has finalizers remaining: backups.example.com/protect in 1 resource instances", firstRun))
	nsObj.DeletionTimestamp = atp(deleted)
	return []item{
		{resource: "namespaces", name: ns, obj: nsObj},
		customResource{apiVersion: "example.com/v1", kind: "Backup", resource: "backups.example.com", namespace: ns, name: "weekly",
			created: "2026-09-20T17:00:00Z", generation: 2, labels: labels("schedule", "weekly"),
			finalizers: []string{"backups.example.com/protect"}, deleted: firstRun,
			spec:   map[string]any{"schedule": "0 3 * * 0", "retentionDays": 90},
			status: map[string]any{"lastBackupTime": "2026-11-15T03:01:12Z", "phase": "Completed"}}.item(),
	}
}
