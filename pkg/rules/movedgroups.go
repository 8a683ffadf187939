package rules

// MovedGroup is the API group that serves today the resource an older
// cluster served in group: the extensions group's workloads and network
// types moved to apps, networking.k8s.io and policy, and no version of
// extensions is served any more (Kubernetes 1.22). An audit log of an
// older cluster names them by the old group; a snapshot by the new one.
func MovedGroup(group, resource string) string {
	if group != "extensions" {
		return group
	}
	switch resource {
	case "deployments", "daemonsets", "replicasets":
		return "apps"
	case "ingresses", "networkpolicies":
		return "networking.k8s.io"
	case "podsecuritypolicies":
		return "policy"
	}
	return group
}
