package main

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var (
	typePod       = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	typeNamespace = metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}
	typeNode      = metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}
	typeConfigMap = metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}
	typeSecret    = metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}
	typeSA        = metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}
	typeService   = metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}
	typeEndpoints = metav1.TypeMeta{APIVersion: "v1", Kind: "Endpoints"}
	typePVC       = metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"}
	typePV        = metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"}
	typeSlice     = metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"}
)

// node describes one of the example's nodes.
type nodeInfo struct {
	name, zone, ip, podCIDR string
	ready                   bool
	created                 string
	lastHeartbeat           string // when the kubelet last posted status
}

var nodes = []nodeInfo{
	{name: "node-a", zone: "eu-west-1a", ip: "10.0.1.21", podCIDR: "10.244.1.0/24", ready: true, created: "2026-09-01T08:12:44Z", lastHeartbeat: "2026-11-20T09:58:31Z"},
	{name: "node-b", zone: "eu-west-1b", ip: "10.0.2.37", podCIDR: "10.244.2.0/24", ready: true, created: "2026-09-01T08:12:51Z", lastHeartbeat: "2026-11-20T09:58:40Z"},
	// node-c stopped posting status last night: the node lifecycle
	// controller set Ready=Unknown and tainted it unreachable.
	{name: "node-c", zone: "eu-west-1c", ip: "10.0.3.12", podCIDR: "10.244.3.0/24", ready: false, created: "2026-10-14T13:40:02Z", lastHeartbeat: "2026-11-19T22:13:19Z"},
}

// nodeUnreachableSince is when node-c's Ready condition went Unknown and
// the NoExecute taint was added.
const nodeUnreachableSince = "2026-11-19T22:14:05Z"

func nodeObject(n nodeInfo) item {
	m := objectMeta("Node", "", n.name, n.created)
	m.Labels = labels(
		"beta.kubernetes.io/arch", "amd64",
		"beta.kubernetes.io/os", "linux",
		"kubernetes.io/arch", "amd64",
		"kubernetes.io/hostname", n.name,
		"kubernetes.io/os", "linux",
		"node.kubernetes.io/instance-type", "m6i.xlarge",
		"topology.ebs.csi.aws.com/zone", n.zone,
		"topology.kubernetes.io/region", "eu-west-1",
		"topology.kubernetes.io/zone", n.zone,
	)
	m.Annotations = map[string]string{
		"csi.volume.kubernetes.io/nodeid":                        fmt.Sprintf(`{"ebs.csi.aws.com":"i-0%s"}`, hexOf("instance:"+n.name, 16)),
		"node.alpha.kubernetes.io/ttl":                           "0",
		"volumes.kubernetes.io/controller-managed-attach-detach": "true",
	}
	ready := corev1.NodeCondition{
		Type: corev1.NodeReady, Status: corev1.ConditionTrue,
		LastHeartbeatTime: at(n.lastHeartbeat), LastTransitionTime: at(n.created),
		Reason: "KubeletReady", Message: "kubelet is posting ready status",
	}
	pressure := func(t corev1.NodeConditionType, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: corev1.ConditionFalse,
			LastHeartbeatTime: at(n.lastHeartbeat), LastTransitionTime: at(n.created), Reason: reason, Message: msg}
	}
	conds := []corev1.NodeCondition{
		pressure(corev1.NodeMemoryPressure, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
		pressure(corev1.NodeDiskPressure, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
		pressure(corev1.NodePIDPressure, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
		ready,
	}
	spec := corev1.NodeSpec{
		PodCIDR:    n.podCIDR,
		PodCIDRs:   []string{n.podCIDR},
		ProviderID: fmt.Sprintf("aws:///%s/i-0%s", n.zone, hexOf("instance:"+n.name, 16)),
	}
	if !n.ready {
		// What the node lifecycle controller writes when the kubelet goes
		// silent (pkg/controller/nodelifecycle): every condition Unknown.
		for i := range conds {
			conds[i].Status = corev1.ConditionUnknown
			conds[i].LastTransitionTime = at(nodeUnreachableSince)
			conds[i].Reason = "NodeStatusUnknown"
			conds[i].Message = "Kubelet stopped posting node status."
		}
		spec.Taints = []corev1.Taint{
			{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoSchedule, TimeAdded: atp(nodeUnreachableSince)},
			{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoExecute, TimeAdded: atp("2026-11-19T22:14:10Z")},
		}
		spec.Unschedulable = false
		m.ManagedFields = []metav1.ManagedFieldsEntry{
			managedFieldsEntry("kube-controller-manager", "v1", "2026-11-19T22:14:10Z", "", nil,
				map[string][]string{"spec": {"taints"}}),
			managedFieldsEntry("kube-controller-manager", "v1", nodeUnreachableSince, "status", nil,
				map[string][]string{"status": {"conditions"}}),
			managedFieldsEntry("kubelet", "v1", n.lastHeartbeat, "status", nil,
				map[string][]string{"status": {"addresses", "allocatable", "capacity", "daemonEndpoints", "nodeInfo"}}),
		}
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("4"),
		corev1.ResourceEphemeralStorage: resource.MustParse("83873772Ki"),
		corev1.ResourceMemory:           resource.MustParse("15896996Ki"),
		corev1.ResourcePods:             resource.MustParse("110"),
		"hugepages-1Gi":                 resource.MustParse("0"),
		"hugepages-2Mi":                 resource.MustParse("0"),
	}
	allocatable := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("3920m"),
		corev1.ResourceEphemeralStorage: resource.MustParse("76224326324"),
		corev1.ResourceMemory:           resource.MustParse("14880164Ki"),
		corev1.ResourcePods:             resource.MustParse("110"),
		"hugepages-1Gi":                 resource.MustParse("0"),
		"hugepages-2Mi":                 resource.MustParse("0"),
	}
	host := "ip-" + dashed(n.ip) + ".eu-west-1.compute.internal"
	node := &corev1.Node{
		TypeMeta:   typeNode,
		ObjectMeta: m,
		Spec:       spec,
		Status: corev1.NodeStatus{
			Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: n.ip}, {Type: corev1.NodeHostName, Address: host}, {Type: corev1.NodeInternalDNS, Address: host}},
			Allocatable:     allocatable,
			Capacity:        capacity,
			Conditions:      conds,
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			NodeInfo: corev1.NodeSystemInfo{
				Architecture:            "amd64",
				BootID:                  uuidish("boot:" + n.name),
				ContainerRuntimeVersion: "containerd://2.1.4",
				KernelVersion:           "6.12.48-68.118.amzn2023.x86_64",
				KubeletVersion:          "v1.36.3",
				MachineID:               hexOf("machine:"+n.name, 32),
				OperatingSystem:         "linux",
				OSImage:                 "Amazon Linux 2023.9.20251110",
				SystemUUID:              "ec2" + hexOf("sysuuid:"+n.name, 5) + "-" + hexOf("sysuuid2:"+n.name, 4) + "-" + hexOf("sysuuid3:"+n.name, 4) + "-" + hexOf("sysuuid4:"+n.name, 4) + "-" + hexOf("sysuuid5:"+n.name, 12),
			},
		},
	}
	return item{resource: "nodes", name: n.name, obj: node}
}

func dashed(ip string) string {
	b := []byte(ip)
	for i := range b {
		if b[i] == '.' {
			b[i] = '-'
		}
	}
	return string(b)
}

func uuidish(key string) string {
	h := hexOf(key, 32)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// namespace is an Active namespace as the API server creates it.
func namespace(name, created string) *corev1.Namespace {
	m := objectMeta("Namespace", "", name, created)
	m.Labels = labels("kubernetes.io/metadata.name", name)
	return &corev1.Namespace{
		TypeMeta:   typeNamespace,
		ObjectMeta: m,
		Spec:       corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}
}

// Namespace deletion conditions exactly as the namespace controller
// writes them (pkg/controller/namespace/deletion/status_condition_utils.go):
// all five on every pass, "ok" ones False with fixed reasons and messages.
func nsCondition(t corev1.NamespaceConditionType, failing bool, reason, message, since string) corev1.NamespaceCondition {
	s := corev1.ConditionFalse
	if failing {
		s = corev1.ConditionTrue
	}
	return corev1.NamespaceCondition{Type: t, Status: s, LastTransitionTime: at(since), Reason: reason, Message: message}
}

func okNamespaceConditions(since string) map[corev1.NamespaceConditionType]corev1.NamespaceCondition {
	return map[corev1.NamespaceConditionType]corev1.NamespaceCondition{
		corev1.NamespaceDeletionDiscoveryFailure: nsCondition(corev1.NamespaceDeletionDiscoveryFailure, false, "ResourcesDiscovered", "All resources successfully discovered", since),
		corev1.NamespaceDeletionGVParsingFailure: nsCondition(corev1.NamespaceDeletionGVParsingFailure, false, "ParsedGroupVersions", "All legacy kube types successfully parsed", since),
		corev1.NamespaceDeletionContentFailure:   nsCondition(corev1.NamespaceDeletionContentFailure, false, "ContentDeleted", "All content successfully deleted, may be waiting on finalization", since),
		corev1.NamespaceContentRemaining:         nsCondition(corev1.NamespaceContentRemaining, false, "ContentRemoved", "All content successfully removed", since),
		corev1.NamespaceFinalizersRemaining:      nsCondition(corev1.NamespaceFinalizersRemaining, false, "ContentHasNoFinalizers", "All content-preserving finalizers finished", since),
	}
}

// conditionOrder is the order updateConditions appends them in.
var conditionOrder = []corev1.NamespaceConditionType{
	corev1.NamespaceDeletionDiscoveryFailure,
	corev1.NamespaceDeletionGVParsingFailure,
	corev1.NamespaceDeletionContentFailure,
	corev1.NamespaceContentRemaining,
	corev1.NamespaceFinalizersRemaining,
}

// terminatingNamespace is a namespace the controller is still working on:
// phase Terminating and the five conditions, "ok" since the controller's
// first pass unless overridden. The caller sets the deletionTimestamp
// (deletionGracePeriodSeconds stays nil for namespaces).
func terminatingNamespace(name, created, since string, failing ...corev1.NamespaceCondition) *corev1.Namespace {
	ns := namespace(name, created)
	ns.Status.Phase = corev1.NamespaceTerminating
	conds := okNamespaceConditions(since)
	for _, c := range failing {
		conds[c.Type] = c
	}
	for _, t := range conditionOrder {
		ns.Status.Conditions = append(ns.Status.Conditions, conds[t])
	}
	return ns
}

// The cluster's CA, as the root-ca-cert-publisher copies it into every
// namespace. It is a made-up certificate body.
const caBundle = `-----BEGIN CERTIFICATE-----
MIIDBTCCAe2gAwIBAgIIV3h0a2djZXhhbXBsZTANBgkqhkiG9w0BAQsFADAVMRMw
EQYDVQQDEwprdWJlcm5ldGVzMB4XDTI2MDkwMTA4MDU0NFoXDTM2MDgzMDA4MTA0
NFowFTETMBEGA1UEAxMKa3ViZXJuZXRlczCCASIwDQYJKoZIhvcNAQEBBQADggEP
ADCCAQoCggEBAKGCWEXAMPLEONLYNOTAREALKEYkgcexampleclusterCAbundle0
-----END CERTIFICATE-----
`

func rootCAConfigMap(ns, created string) item {
	m := objectMeta("ConfigMap", ns, "kube-root-ca.crt", created)
	m.Annotations = map[string]string{"kubernetes.io/description": "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."}
	return item{resource: "configmaps", namespace: ns, name: m.Name, obj: &corev1.ConfigMap{TypeMeta: typeConfigMap, ObjectMeta: m, Data: map[string]string{"ca.crt": caBundle}}}
}

func configMap(ns, name, created string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{TypeMeta: typeConfigMap, ObjectMeta: objectMeta("ConfigMap", ns, name, created), Data: data}
}

func serviceAccount(ns, name, created string) item {
	return item{resource: "serviceaccounts", namespace: ns, name: name,
		obj: &corev1.ServiceAccount{TypeMeta: typeSA, ObjectMeta: objectMeta("ServiceAccount", ns, name, created)}}
}

// podArgs describes one pod; pod() fills in what the API server, the
// scheduler and the kubelet would have added.
type podArgs struct {
	namespace, name, generateName string
	created                       string
	labels                        map[string]string
	annotations                   map[string]string
	owner                         *metav1.OwnerReference
	finalizers                    []string
	node                          string
	image                         string
	container                     string
	ports                         []corev1.ContainerPort
	claims                        map[string]string // volume name -> claimName
	restartPolicy                 corev1.RestartPolicy
	serviceAccount                string
	grace                         int64
	hostname, subdomain           string
	tolerateForever               bool // DaemonSet pods tolerate unreachable with no limit
	affinityNode                  bool // DaemonSet pods pin their node with nodeAffinity
	priorityClass                 string
	hostNetwork                   bool
	// state
	phase         corev1.PodPhase
	ready         bool
	started       string // when the container started
	finished      string // for Succeeded pods
	ip            string
	restarts      int32
	deletedAt     string // deletionTimestamp
	evicted       string // when the taint-eviction controller deleted it
	nodeLostSince string // when the node went silent: Ready flips False
}

func pod(a podArgs) item {
	m := objectMeta("Pod", a.namespace, a.name, a.created)
	m.GenerateName = a.generateName
	m.Labels = a.labels
	m.Annotations = a.annotations
	m.Finalizers = a.finalizers
	m.Generation = 1
	if a.owner != nil {
		m.OwnerReferences = []metav1.OwnerReference{*a.owner}
	}
	if a.grace == 0 {
		a.grace = 30
	}
	if a.restartPolicy == "" {
		a.restartPolicy = corev1.RestartPolicyAlways
	}
	if a.serviceAccount == "" {
		a.serviceAccount = "default"
	}
	if a.container == "" {
		a.container = "main"
	}
	tokenVolume := "kube-api-access-" + safeString("token:"+a.namespace+"/"+a.name, 5)
	mounts := []corev1.VolumeMount{}
	volumes := []corev1.Volume{}
	for _, v := range sortedKeys(a.claims) {
		mounts = append(mounts, corev1.VolumeMount{Name: v, MountPath: "/var/lib/" + v})
		volumes = append(volumes, corev1.Volume{Name: v, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: a.claims[v]}}})
	}
	mounts = append(mounts, corev1.VolumeMount{Name: tokenVolume, ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"})
	volumes = append(volumes, corev1.Volume{Name: tokenVolume, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: ptr(int32(420)),
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: ptr(int64(3607)), Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
				FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		},
	}}})
	tolerations := []corev1.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
		{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
	}
	if a.tolerateForever {
		tolerations = []corev1.Toleration{
			{Operator: corev1.TolerationOpExists},
			{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
			{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
			{Key: "node.kubernetes.io/disk-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
			{Key: "node.kubernetes.io/memory-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
			{Key: "node.kubernetes.io/pid-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
			{Key: "node.kubernetes.io/unschedulable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
			{Key: "node.kubernetes.io/network-unavailable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		}
	}
	spec := corev1.PodSpec{
		Containers: []corev1.Container{{
			Name:                     a.container,
			Image:                    a.image,
			ImagePullPolicy:          corev1.PullIfNotPresent,
			Ports:                    a.ports,
			TerminationMessagePath:   "/dev/termination-log",
			TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			VolumeMounts:             mounts,
		}},
		DNSPolicy:                     corev1.DNSClusterFirst,
		EnableServiceLinks:            ptr(true),
		NodeName:                      a.node,
		PreemptionPolicy:              ptr(corev1.PreemptLowerPriority),
		Priority:                      ptr(int32(0)),
		RestartPolicy:                 a.restartPolicy,
		SchedulerName:                 "default-scheduler",
		SecurityContext:               &corev1.PodSecurityContext{},
		ServiceAccountName:            a.serviceAccount,
		DeprecatedServiceAccount:      a.serviceAccount,
		TerminationGracePeriodSeconds: ptr(a.grace),
		Tolerations:                   tolerations,
		Volumes:                       volumes,
		Hostname:                      a.hostname,
		Subdomain:                     a.subdomain,
	}
	switch a.priorityClass {
	case "system-node-critical":
		spec.PriorityClassName = a.priorityClass
		spec.Priority = ptr(int32(2000001000))
	case "system-cluster-critical":
		spec.PriorityClassName = a.priorityClass
		spec.Priority = ptr(int32(2000000000))
	}
	if a.hostNetwork {
		spec.HostNetwork = true
	}
	if a.affinityNode {
		spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{a.node}}},
			}}},
		}}
	}

	nodeIP := ""
	for _, n := range nodes {
		if n.name == a.node {
			nodeIP = n.ip
		}
	}
	image := a.image
	if len(image) > 0 && !containsSlash(image) {
		image = "docker.io/library/" + image
	}
	cs := corev1.ContainerStatus{
		Name:         a.container,
		Image:        image,
		ImageID:      imageRepo(image) + "@sha256:" + hexOf("image:"+a.image, 64),
		ContainerID:  "containerd://" + hexOf("container:"+a.namespace+"/"+a.name, 64),
		Ready:        a.ready,
		RestartCount: a.restarts,
		Started:      ptr(a.phase == corev1.PodRunning),
	}
	cond := func(t corev1.PodConditionType, ok bool, when string) corev1.PodCondition {
		s := corev1.ConditionTrue
		if !ok {
			s = corev1.ConditionFalse
		}
		return corev1.PodCondition{Type: t, Status: s, LastTransitionTime: at(when), ObservedGeneration: 1}
	}
	scheduled := a.created
	conds := []corev1.PodCondition{}
	switch a.phase {
	case corev1.PodSucceeded:
		cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
			StartedAt: at(a.started), FinishedAt: at(a.finished), ContainerID: cs.ContainerID}}
		notReady := cond(corev1.PodReady, false, a.finished)
		notReady.Reason = "PodCompleted"
		cNotReady := cond(corev1.ContainersReady, false, a.finished)
		cNotReady.Reason = "PodCompleted"
		conds = append(conds,
			cond(corev1.PodReadyToStartContainers, false, a.finished),
			func() corev1.PodCondition {
				c := cond(corev1.PodInitialized, true, scheduled)
				c.Reason = "PodCompleted"
				return c
			}(),
			notReady, cNotReady,
			cond(corev1.PodScheduled, true, scheduled))
	default:
		cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: at(a.started)}}
		readyCond := cond(corev1.PodReady, a.ready, a.started)
		cReadyCond := cond(corev1.ContainersReady, a.ready, a.started)
		if !a.ready {
			readyCond.Reason = "ContainersNotReady"
			readyCond.Message = fmt.Sprintf("containers with unready status: [%s]", a.container)
			cReadyCond.Reason = "ContainersNotReady"
			cReadyCond.Message = readyCond.Message
		}
		conds = append(conds,
			cond(corev1.PodReadyToStartContainers, true, a.started),
			cond(corev1.PodInitialized, true, scheduled),
			readyCond, cReadyCond,
			cond(corev1.PodScheduled, true, scheduled))
	}
	if a.nodeLostSince != "" {
		// The node lifecycle controller marks pods on a silent node not
		// ready (MarkPodsNotReady); the kubelet never saw it.
		for i := range conds {
			if conds[i].Type == corev1.PodReady {
				conds[i].Status = corev1.ConditionFalse
				conds[i].LastTransitionTime = at(a.nodeLostSince)
				conds[i].ObservedGeneration = 0
			}
		}
	}
	if a.evicted != "" {
		// tainteviction.addConditionAndDeletePod
		conds = append([]corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			LastTransitionTime: at(a.evicted), Reason: "DeletionByTaintManager", Message: "Taint manager: deleting due to NoExecute taint"}}, conds...)
	}
	status := corev1.PodStatus{
		Conditions:         conds,
		ContainerStatuses:  []corev1.ContainerStatus{cs},
		HostIP:             nodeIP,
		HostIPs:            []corev1.HostIP{{IP: nodeIP}},
		Phase:              a.phase,
		QOSClass:           corev1.PodQOSBestEffort,
		StartTime:          atp(scheduled),
		ObservedGeneration: 1,
	}
	if a.ip != "" {
		status.PodIP = a.ip
		status.PodIPs = []corev1.PodIP{{IP: a.ip}}
	}
	if a.deletedAt != "" {
		// CheckGracefulDelete: the deletionTimestamp lies the grace period
		// in the future of the DELETE, and generation is bumped.
		m.DeletionTimestamp = atp(a.deletedAt)
		m.DeletionGracePeriodSeconds = ptr(a.grace)
		m.Generation = 2
	}
	return item{resource: "pods", namespace: a.namespace, name: a.name, obj: &corev1.Pod{TypeMeta: typePod, ObjectMeta: m, Spec: spec, Status: status}}
}

func containsSlash(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return true
		}
	}
	return false
}

// imageRepo strips the tag of an image reference.
func imageRepo(image string) string {
	for i := len(image) - 1; i >= 0; i-- {
		switch image[i] {
		case ':':
			return image[:i]
		case '/':
			return image
		}
	}
	return image
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}

// service is a ClusterIP service (clusterIP "None" makes it headless).
func service(ns, name, created, clusterIP string, lbls, selector map[string]string, port int32, target string) *corev1.Service {
	m := objectMeta("Service", ns, name, created)
	m.Labels = lbls
	ips := []string{clusterIP}
	return &corev1.Service{
		TypeMeta:   typeService,
		ObjectMeta: m,
		Spec: corev1.ServiceSpec{
			ClusterIP:             clusterIP,
			ClusterIPs:            ips,
			InternalTrafficPolicy: ptr(corev1.ServiceInternalTrafficPolicyCluster),
			IPFamilies:            []corev1.IPFamily{corev1.IPv4Protocol},
			IPFamilyPolicy:        ptr(corev1.IPFamilyPolicySingleStack),
			Ports:                 []corev1.ServicePort{{Name: target, Port: port, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString(target)}},
			Selector:              selector,
			SessionAffinity:       corev1.ServiceAffinityNone,
			Type:                  corev1.ServiceTypeClusterIP,
		},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{}},
	}
}

// backend is one ready pod behind a service.
type backend struct {
	pod, ip, node, zone, hostname string
	ready                         bool
}

// endpoints is the legacy Endpoints object: the endpoints controller
// writes it with no owner reference and deletes it itself when the
// service goes, so the garbage collector has no part in it.
func endpoints(ns, name, created, changed string, svcLabels map[string]string, port int32, portName string, backends []backend) item {
	m := objectMeta("Endpoints", ns, name, created)
	m.Labels = map[string]string{"endpoints.kubernetes.io/managed-by": "endpoint-controller"}
	for k, v := range svcLabels {
		m.Labels[k] = v
	}
	m.Annotations = map[string]string{"endpoints.kubernetes.io/last-change-trigger-time": changed}
	var ready, notReady []corev1.EndpointAddress
	for _, b := range backends {
		a := corev1.EndpointAddress{IP: b.ip, Hostname: b.hostname, NodeName: ptr(b.node),
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: b.pod, UID: uid("Pod", ns, b.pod)}}
		if b.ready {
			ready = append(ready, a)
		} else {
			notReady = append(notReady, a)
		}
	}
	// Deprecated in v1.33, yet every cluster still serves and dumps them.
	return item{resource: "endpoints", namespace: ns, name: name, obj: &corev1.Endpoints{TypeMeta: typeEndpoints, ObjectMeta: m, //nolint:staticcheck // see above
		Subsets: []corev1.EndpointSubset{{Addresses: ready, NotReadyAddresses: notReady, //nolint:staticcheck // see above
			Ports: []corev1.EndpointPort{{Name: portName, Port: port, Protocol: corev1.ProtocolTCP}}}}}}
}

// endpointSlice is what the EndpointSlice controller writes: owned by the
// service with a controller reference, so the GC deletes it with it.
func endpointSlice(ns, svc, created, changed string, svcLabels map[string]string, port int32, portName string, backends []backend) item {
	name := svc + "-" + safeString("slice:"+ns+"/"+svc, 5)
	m := objectMeta("EndpointSlice", ns, name, created)
	m.GenerateName = svc + "-"
	m.Generation = int64(len(backends) + 1)
	m.Labels = map[string]string{
		"endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
		"kubernetes.io/service-name":             svc,
	}
	for k, v := range svcLabels {
		m.Labels[k] = v
	}
	m.Annotations = map[string]string{"endpoints.kubernetes.io/last-change-trigger-time": changed}
	m.OwnerReferences = []metav1.OwnerReference{controllerRef("v1", "Service", ns, svc)}
	eps := make([]discoveryv1.Endpoint, 0, len(backends))
	for _, b := range backends {
		e := discoveryv1.Endpoint{
			Addresses:  []string{b.ip},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr(b.ready), Serving: ptr(b.ready), Terminating: ptr(false)},
			NodeName:   ptr(b.node),
			TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: b.pod, UID: uid("Pod", ns, b.pod)},
			Zone:       ptr(b.zone),
		}
		if b.hostname != "" {
			e.Hostname = ptr(b.hostname)
		}
		eps = append(eps, e)
	}
	return item{resource: "endpointslices.discovery.k8s.io", namespace: ns, name: name, obj: &discoveryv1.EndpointSlice{
		TypeMeta: typeSlice, ObjectMeta: m, AddressType: discoveryv1.AddressTypeIPv4, Endpoints: eps,
		Ports: []discoveryv1.EndpointPort{{Name: ptr(portName), Port: ptr(port), Protocol: ptr(corev1.ProtocolTCP)}}}}
}

func zoneOf(node string) string {
	for _, n := range nodes {
		if n.name == node {
			return n.zone
		}
	}
	return ""
}
