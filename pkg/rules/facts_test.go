package rules

import "testing"

// TestFactKinds pins which kinds a capture lists in full (HasFacts) and
// which of them a plan reads (PlanFacts): a kind dropped here is listed
// as metadata only, and its facts silently vanish from every command.
func TestFactKinds(t *testing.T) {
	for _, c := range []struct {
		group, kind string
		want        FactKind
		plan        bool
	}{
		{"", "Pod", FactPod, true},
		{"", "Service", FactService, true},
		{"", "Namespace", FactNamespace, true},
		{"", "Node", FactNode, true},
		{"", "PersistentVolumeClaim", FactPVC, true},
		{"", "PersistentVolume", FactPV, true},
		{"", "ReplicationController", FactWorkload, true},
		{"batch", "Job", FactJob, true},
		{"batch", "CronJob", FactWorkload, true},
		{"apps", "Deployment", FactWorkload, true},
		{"apps", "ReplicaSet", FactWorkload, true},
		{"apps", "StatefulSet", FactWorkload, true},
		{"apps", "DaemonSet", FactWorkload, true},
		{"apiextensions.k8s.io", "CustomResourceDefinition", FactCRD, true},
		{"apiregistration.k8s.io", "APIService", FactAPIService, true},
		{"admissionregistration.k8s.io", "MutatingWebhookConfiguration", FactWebhooks, true},
		{"admissionregistration.k8s.io", "ValidatingWebhookConfiguration", FactWebhooks, true},
		{"discovery.k8s.io", "EndpointSlice", FactEndpointSlice, true},
		{"rbac.authorization.k8s.io", "Role", FactRBAC, true},
		{"rbac.authorization.k8s.io", "RoleBinding", FactRBAC, true},
		{"rbac.authorization.k8s.io", "ClusterRole", FactRBAC, false},
		{"rbac.authorization.k8s.io", "ClusterRoleBinding", FactRBAC, false},
		{"storage.k8s.io", "CSIDriver", FactCSIDriver, false},
		{"storage.k8s.io", "CSINode", FactCSINode, false},
		{"storage.k8s.io", "VolumeAttachment", FactVolumeAttachment, false},
		// Same kind, other group; same group, other kind.
		{"extensions", "Deployment", FactNone, false},
		{"example.com", "Pod", FactNone, false},
		{"", "ConfigMap", FactNone, false},
		{"apps", "ControllerRevision", FactNone, false},
		{"storage.k8s.io", "StorageClass", FactClass, false},
		{"networking.k8s.io", "IngressClass", FactClass, false},
		{"networking.k8s.io", "Ingress", FactClass, false},
		{"gateway.networking.k8s.io", "GatewayClass", FactClass, false},
		{"gateway.networking.k8s.io", "Gateway", FactClass, false},
		{"gateway.networking.k8s.io", "HTTPRoute", FactNone, false},
		{"snapshot.storage.k8s.io", "VolumeSnapshotClass", FactClass, false},
		{"snapshot.storage.k8s.io", "VolumeSnapshot", FactClass, false},
		{"snapshot.storage.k8s.io", "VolumeSnapshotContent", FactClass, false},
		{"networking.k8s.io", "NetworkPolicy", FactNone, false},
		{"storage.k8s.io", "StorageVersionMigration", FactNone, false},
		{"batch", "Pod", FactNone, false},
	} {
		if got := FactKindOf(c.group, c.kind); got != c.want {
			t.Errorf("FactKindOf(%q, %q) = %d, want %d", c.group, c.kind, got, c.want)
		}
		if got, want := HasFacts(c.group, c.kind), c.want != FactNone; got != want {
			t.Errorf("HasFacts(%q, %q) = %v, want %v", c.group, c.kind, got, want)
		}
		if got := PlanFacts(c.group, c.kind); got != c.plan {
			t.Errorf("PlanFacts(%q, %q) = %v, want %v", c.group, c.kind, got, c.plan)
		}
	}
}
