package rules

import (
	"path"
	"strings"
)

// Well-known projects' finalizers, by domain. A finalizer kgc does not
// know by its exact name is still the project's whose domain it carries
// (Rancher's controller.cattle.io/…, Knative's routes.serving.knative.dev):
// the diagnosis names the project and the controller that removes it even
// when that controller is absent from the input, and says in which order
// to uninstall so that nothing is left holding a finalizer. Each row names
// its source; TestProjects checks every row.

// Project is one row of the table.
type Project struct {
	// Name is the project as people call it.
	Name string
	// Domains are path.Match patterns on a finalizer's domain: the part
	// before "/", or the whole finalizer when it has none. The longest
	// matching pattern wins, so a provider's row beats its framework's.
	Domains []string
	// Example is a finalizer the project sets.
	Example string
	// Controller says who removes the project's finalizers.
	Controller string
	// Workloads are path.Match patterns of the names (or
	// app.kubernetes.io/name labels) its controller's Deployment,
	// StatefulSet or DaemonSet is published as; "NS/NAME" matches in
	// namespace NS only, for names as plain as "controller".
	Workloads []string
	// Namespace is where the controller usually runs.
	Namespace string
	// Uninstall is the order that avoids a stuck deletion.
	Uninstall string
	// Source is where the project says so.
	Source string
}

const (
	uninstallCRsFirst = "delete its custom resources first and wait until they are gone, while the controller still runs; then uninstall the controller, its webhooks and CRDs; never delete its namespace with the resources in it"
	uninstallCAPI     = "delete the Clusters first (kubectl delete clusters --all -A) and wait until every Machine and infrastructure object is gone; then clusterctl delete the providers"
)

// Projects is the table, sorted by name (case aside).
var Projects = []Project{
	{"Argo CD", []string{"argocd.argoproj.io", "*.argocd.argoproj.io"}, "post-delete-finalizer.argocd.argoproj.io", "the Argo CD application controller",
		[]string{"argocd-application-controller"}, "argocd", "delete (or un-finalize) the Applications first and wait, then uninstall Argo CD", "https://argo-cd.readthedocs.io/en/stable/user-guide/app_deletion/"},
	{"Argo Workflows", []string{"workflows.argoproj.io"}, "workflows.argoproj.io/artifact-gc", "the Argo Workflows workflow-controller",
		[]string{"workflow-controller", "argo-workflows-workflow-controller"}, "argo", "delete the Workflows first and wait for artifact garbage collection, then uninstall", "https://argo-workflows.readthedocs.io/en/latest/walk-through/artifacts/"},
	{"AWS Controllers for Kubernetes (ACK)", []string{"*.services.k8s.aws"}, "finalizers.s3.services.k8s.aws", "the ACK service controller of the resource's AWS service",
		[]string{"ack-*-controller", "ack-*-controller-*"}, "ack-system", uninstallCRsFirst, "https://aws-controllers-k8s.github.io/community/docs/user-docs/cleanup/"},
	{"AWS Load Balancer Controller", []string{"k8s.aws", "*.k8s.aws"}, "service.k8s.aws/resources", "the AWS Load Balancer Controller",
		[]string{"aws-load-balancer-controller"}, "kube-system", "delete the Ingresses, LoadBalancer Services and TargetGroupBindings first and wait, then uninstall the controller", "https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/deploy/installation/"},
	{"Azure Service Operator", []string{"serviceoperator.azure.com"}, "serviceoperator.azure.com/finalizer", "the Azure Service Operator",
		[]string{"azureserviceoperator-controller-manager"}, "azureserviceoperator-system", uninstallCRsFirst, "https://azure.github.io/azure-service-operator/guide/annotations/"},
	{"cert-manager", []string{"cert-manager.io", "*.cert-manager.io"}, "finalizer.acme.cert-manager.io", "the cert-manager controller",
		[]string{"cert-manager"}, "cert-manager", "delete Certificates, Issuers and ACME Orders and Challenges first, then uninstall cert-manager", "https://cert-manager.io/docs/installation/kubectl/#uninstalling"},
	{"CloudNativePG", []string{"cnpg.io", "*.cnpg.io"}, "cnpg.io/deleteDatabaseFinalizer", "the CloudNativePG operator",
		[]string{"cnpg-controller-manager", "cloudnative-pg"}, "cnpg-system", uninstallCRsFirst, "https://cloudnative-pg.io/documentation/current/installation_upgrade/"},
	{"Cluster API", []string{"cluster.x-k8s.io", "*.cluster.x-k8s.io", "*.addons.cluster.x-k8s.io"}, "cluster.cluster.x-k8s.io", "the Cluster API core controller",
		[]string{"capi-controller-manager"}, "capi-system", uninstallCAPI, "https://cluster-api.sigs.k8s.io/clusterctl/commands/delete"},
	{"Cluster API kubeadm bootstrap provider", []string{"*.bootstrap.cluster.x-k8s.io"}, "kubeadmconfig.bootstrap.cluster.x-k8s.io", "the kubeadm bootstrap provider",
		[]string{"capi-kubeadm-bootstrap-controller-manager"}, "capi-kubeadm-bootstrap-system", uninstallCAPI, "https://cluster-api.sigs.k8s.io/clusterctl/commands/delete"},
	{"Cluster API kubeadm control plane provider", []string{"*.controlplane.cluster.x-k8s.io"}, "kubeadm.controlplane.cluster.x-k8s.io", "the kubeadm control plane provider",
		[]string{"capi-kubeadm-control-plane-controller-manager"}, "capi-kubeadm-control-plane-system", uninstallCAPI, "https://cluster-api.sigs.k8s.io/clusterctl/commands/delete"},
	{"Cluster API Provider AWS (CAPA)", []string{"aws*.infrastructure.cluster.x-k8s.io", "aws*.controlplane.cluster.x-k8s.io", "eks*.controlplane.cluster.x-k8s.io"}, "awscluster.infrastructure.cluster.x-k8s.io", "the CAPA controller",
		[]string{"capa-controller-manager"}, "capa-system", uninstallCAPI, "https://cluster-api-aws.sigs.k8s.io/"},
	{"Cluster API Provider Azure (CAPZ)", []string{"azure*.infrastructure.cluster.x-k8s.io"}, "azurecluster.infrastructure.cluster.x-k8s.io", "the CAPZ controller",
		[]string{"capz-controller-manager"}, "capz-system", uninstallCAPI, "https://capz.sigs.k8s.io/"},
	{"Cluster API Provider Docker (CAPD)", []string{"docker*.infrastructure.cluster.x-k8s.io"}, "dockercluster.infrastructure.cluster.x-k8s.io", "the CAPD controller",
		[]string{"capd-controller-manager"}, "capd-system", uninstallCAPI, "https://cluster-api.sigs.k8s.io/clusterctl/developers"},
	{"Cluster API Provider GCP (CAPG)", []string{"gcp*.infrastructure.cluster.x-k8s.io"}, "gcpcluster.infrastructure.cluster.x-k8s.io", "the CAPG controller",
		[]string{"capg-controller-manager"}, "capg-system", uninstallCAPI, "https://github.com/kubernetes-sigs/cluster-api-provider-gcp"},
	{"Cluster API Provider Metal3 (CAPM3)", []string{"metal3*.infrastructure.cluster.x-k8s.io"}, "metal3cluster.infrastructure.cluster.x-k8s.io", "the CAPM3 controller",
		[]string{"capm3-controller-manager"}, "capm3-system", uninstallCAPI, "https://github.com/metal3-io/cluster-api-provider-metal3"},
	{"Cluster API Provider OpenStack (CAPO)", []string{"openstack*.infrastructure.cluster.x-k8s.io"}, "openstackcluster.infrastructure.cluster.x-k8s.io", "the CAPO controller",
		[]string{"capo-controller-manager"}, "capo-system", uninstallCAPI, "https://cluster-api-openstack.sigs.k8s.io/"},
	{"Cluster API Provider vSphere (CAPV)", []string{"vsphere*.infrastructure.cluster.x-k8s.io"}, "vspherecluster.infrastructure.cluster.x-k8s.io", "the CAPV controller",
		[]string{"capv-controller-manager"}, "capv-system", uninstallCAPI, "https://github.com/kubernetes-sigs/cluster-api-provider-vsphere"},
	{"Config Connector", []string{"cnrm.cloud.google.com"}, "cnrm.cloud.google.com/finalizer", "the Config Connector controller manager",
		[]string{"cnrm-controller-manager*"}, "cnrm-system", "delete the Config Connector resources (or set their deletion policy to abandon) first, then uninstall", "https://cloud.google.com/config-connector/docs/how-to/uninstalling"},
	{"Containerized Data Importer (CDI)", []string{"cdi.kubevirt.io", "*.cdi.kubevirt.io"}, "operator.cdi.kubevirt.io", "the CDI controller",
		[]string{"cdi-deployment", "cdi-operator"}, "cdi", "delete DataVolumes and the CDI resource first and wait, then the operator", "https://kubevirt.io/user-guide/storage/containerized_data_importer/"},
	{"Crossplane", []string{"crossplane.io", "*.crossplane.io"}, "finalizer.managedresource.crossplane.io", "Crossplane and the provider serving the resource",
		[]string{"crossplane", "provider-*"}, "crossplane-system", "delete claims, composite and managed resources first and wait until the providers deleted the external resources; then the providers; then Crossplane", "https://docs.crossplane.io/latest/software/uninstall/"},
	{"CSI external-attacher", []string{"external-attacher"}, "external-attacher/ebs-csi-aws-com", "the CSI driver's external-attacher sidecar",
		[]string{"*-csi-controller*", "csi-*-controller*"}, "kube-system", "delete the pods and claims of the driver's volumes first and wait for detach, then uninstall the driver", "https://github.com/kubernetes-csi/external-attacher"},
	{"CSI external-snapshotter", []string{"snapshot.storage.kubernetes.io"}, "snapshot.storage.kubernetes.io/volumesnapshot-bound-protection", "the snapshot-controller",
		[]string{"snapshot-controller"}, "kube-system", "delete the VolumeSnapshots (and their contents) while the snapshot-controller and the CSI driver run, then uninstall them", "https://github.com/kubernetes-csi/external-snapshotter"},
	{"Elastic Cloud on Kubernetes (ECK)", []string{"k8s.elastic.co", "*.k8s.elastic.co"}, "finalizer.elasticsearch.k8s.elastic.co/secure-settings-secret", "the ECK operator",
		[]string{"elastic-operator"}, "elastic-system", "delete the Elasticsearch, Kibana and other Elastic resources first, then the operator", "https://www.elastic.co/guide/en/cloud-on-k8s/current/k8s-uninstalling-eck.html"},
	{"external-secrets", []string{"external-secrets.io", "*.external-secrets.io"}, "externalsecrets.external-secrets.io/externalsecret-cleanup", "the external-secrets controller",
		[]string{"external-secrets"}, "external-secrets", "delete ExternalSecrets and ClusterExternalSecrets first, then uninstall", "https://external-secrets.io/latest/introduction/getting-started/#uninstalling"},
	{"Flux", []string{"fluxcd.io", "*.fluxcd.io"}, "finalizers.fluxcd.io", "the Flux controllers",
		[]string{"kustomize-controller", "helm-controller", "source-controller", "notification-controller", "image-reflector-controller", "image-automation-controller"}, "flux-system",
		"flux uninstall, which removes Flux's finalizers before it deletes the controllers", "https://fluxcd.io/flux/cmd/flux_uninstall/"},
	{"Gardener external-dns-management", []string{"dns.gardener.cloud", "*.dns.gardener.cloud"}, "dns.gardener.cloud/compound", "the Gardener DNS controller manager",
		[]string{"dns-controller-manager"}, "kube-system", uninstallCRsFirst, "https://github.com/gardener/external-dns-management"},
	{"Gatekeeper", []string{"gatekeeper.sh", "*.gatekeeper.sh"}, "finalizers.gatekeeper.sh/sync", "the Gatekeeper controller manager",
		[]string{"gatekeeper-controller-manager", "gatekeeper-audit"}, "gatekeeper-system", "delete constraints and templates and let Gatekeeper remove its webhooks, then uninstall", "https://open-policy-agent.github.io/gatekeeper/website/docs/install/#uninstallation"},
	{"Grafana Operator", []string{"operator.grafana.com"}, "operator.grafana.com/finalizer", "the Grafana Operator",
		[]string{"grafana-operator*"}, "grafana", uninstallCRsFirst, "https://grafana.github.io/grafana-operator/docs/"},
	{"Harvester", []string{"harvesterhci.io", "*.harvesterhci.io"}, "harvesterhci.io/vm-controller", "the Harvester controller",
		[]string{"harvester"}, "harvester-system", uninstallCRsFirst, "https://docs.harvesterhci.io/"},
	{"Hierarchical Namespace Controller (HNC)", []string{"hnc.x-k8s.io"}, "hnc.x-k8s.io/hasSubnamespace", "the HNC controller manager",
		[]string{"hnc-controller-manager"}, "hnc-system", "delete subnamespaces (their anchors) while HNC runs, then uninstall it", "https://github.com/kubernetes-retired/hierarchical-namespaces/blob/master/docs/user-guide/how-to.md"},
	{"Istio", []string{"istio.io", "*.istio.io"}, "istio-finalizer.install.istio.io", "the Istio operator",
		[]string{"istio-operator", "istiod"}, "istio-system", "istioctl uninstall --purge (or delete the IstioOperator while the operator runs), then the namespace", "https://istio.io/latest/docs/setup/install/istioctl/#uninstall-istio"},
	{"Karpenter", []string{"karpenter.sh", "*.karpenter.sh"}, "karpenter.sh/termination", "the Karpenter controller",
		[]string{"karpenter"}, "kube-system", "delete the NodePools and wait until Karpenter drained and terminated their NodeClaims and nodes; then uninstall Karpenter", "https://karpenter.sh/docs/getting-started/"},
	{"Karpenter AWS provider", []string{"karpenter.k8s.aws"}, "karpenter.k8s.aws/termination", "the Karpenter controller",
		[]string{"karpenter"}, "kube-system", "delete the NodePools, then the EC2NodeClasses, while Karpenter runs; then uninstall it", "https://karpenter.sh/docs/concepts/nodeclasses/"},
	{"KEDA", []string{"keda.sh", "*.keda.sh"}, "finalizer.keda.sh", "the KEDA operator",
		[]string{"keda-operator"}, "keda", "delete ScaledObjects and ScaledJobs first, then uninstall KEDA", "https://keda.sh/docs/latest/deploy/#uninstall"},
	{"Knative Eventing", []string{"eventing.knative.dev", "*.eventing.knative.dev", "messaging.knative.dev", "*.messaging.knative.dev", "sources.knative.dev", "*.sources.knative.dev"},
		"brokers.eventing.knative.dev", "the Knative Eventing controller", []string{"knative-eventing/eventing-controller", "eventing-controller"}, "knative-eventing", uninstallCRsFirst,
		"https://knative.dev/docs/install/uninstall/"},
	{"Knative Operator", []string{"operator.knative.dev", "*.operator.knative.dev"}, "knativeservings.operator.knative.dev", "the Knative Operator",
		[]string{"knative-operator"}, "knative-operator", "delete the KnativeServing and KnativeEventing resources first and wait, then the operator", "https://knative.dev/docs/install/operator/knative-with-operators/"},
	{"Knative Serving", []string{"serving.knative.dev", "*.serving.knative.dev", "networking.internal.knative.dev", "*.networking.internal.knative.dev"},
		"routes.serving.knative.dev", "the Knative Serving controller", []string{"knative-serving/controller", "knative-serving/net-*-controller"}, "knative-serving", uninstallCRsFirst,
		"https://knative.dev/docs/install/uninstall/"},
	{"KubeRay", []string{"ray.io", "*.ray.io"}, "ray.io/gcs-ft-redis-cleanup-finalizer", "the KubeRay operator",
		[]string{"kuberay-operator"}, "ray-system", uninstallCRsFirst, "https://docs.ray.io/en/latest/cluster/kubernetes/user-guides/kuberay-gcs-ft.html"},
	{"KubeVela", []string{"oam.dev", "*.oam.dev"}, "app.oam.dev/resource-tracker-finalizer", "the KubeVela core controller",
		[]string{"kubevela-vela-core", "vela-core"}, "vela-system", "delete the Applications first and wait, then uninstall KubeVela", "https://kubevela.io/docs/installation/kubernetes/#uninstall"},
	{"KubeVirt", []string{"kubevirt.io"}, "kubevirt.io/virtualMachineControllerFinalize", "KubeVirt's virt-controller",
		[]string{"virt-controller", "virt-operator"}, "kubevirt", "delete the VirtualMachines, then the KubeVirt resource and wait, then the operator", "https://kubevirt.io/user-guide/cluster_admin/updating_and_deletion/"},
	{"Kueue", []string{"kueue.x-k8s.io"}, "kueue.x-k8s.io/resource-in-use", "the Kueue controller manager",
		[]string{"kueue-controller-manager"}, "kueue-system", "delete the workloads and queues first, then the ClusterQueues and ResourceFlavors, then uninstall", "https://kueue.sigs.k8s.io/docs/installation/#uninstall"},
	{"Kyverno", []string{"kyverno.io", "*.kyverno.io"}, "kyverno.io/policies", "Kyverno's admission and cleanup controllers",
		[]string{"kyverno-admission-controller", "kyverno-cleanup-controller", "kyverno"}, "kyverno", "delete the policies and let Kyverno remove its webhooks, then uninstall; never delete the kyverno namespace first", "https://kyverno.io/docs/installation/uninstallation/"},
	{"Longhorn", []string{"longhorn.io", "*.longhorn.io"}, "longhorn.io", "the Longhorn manager",
		[]string{"longhorn-manager"}, "longhorn-system", "set the deleting-confirmation-flag setting and run Longhorn's uninstall (helm uninstall or the uninstall Job) before deleting longhorn-system", "https://longhorn.io/docs/latest/deploy/uninstall/"},
	{"Metal3 Baremetal Operator", []string{"metal3.io", "*.metal3.io"}, "baremetalhost.metal3.io", "the Baremetal Operator",
		[]string{"baremetal-operator-controller-manager"}, "baremetal-operator-system", "deprovision and delete the BareMetalHosts while the operator runs, then uninstall", "https://book.metal3.io/bmo/introduction"},
	{"Open Cluster Management", []string{"open-cluster-management.io", "*.open-cluster-management.io"}, "cluster.open-cluster-management.io/api-resource-cleanup", "the cluster manager or klusterlet",
		[]string{"cluster-manager*", "klusterlet*"}, "open-cluster-management", "detach the managed clusters first, then uninstall the hub", "https://open-cluster-management.io/docs/getting-started/installation/"},
	{"OpenEBS", []string{"openebs.io", "*.openebs.io"}, "lvm.openebs.io/finalizer", "the OpenEBS engine's controller",
		[]string{"openebs-*-controller*", "openebs-localpv-provisioner", "openebs-*-operator"}, "openebs", "delete the claims and volumes first and wait, then uninstall OpenEBS", "https://openebs.io/docs/user-guides/uninstallation"},
	{"Operator Lifecycle Manager (OLM)", []string{"operatorframework.io", "*.operatorframework.io", "operators.coreos.com", "*.operators.coreos.com"}, "olm.operatorframework.io/cleanup-unpack-cache", "OLM's operators",
		[]string{"olm-operator", "catalog-operator", "operator-controller-controller-manager", "catalogd-controller-manager"}, "olm", "delete the operators' Subscriptions, ClusterServiceVersions (or ClusterExtensions) first, then OLM", "https://olm.operatorframework.io/docs/tasks/uninstall-operator/"},
	{"Prometheus Operator", []string{"monitoring.coreos.com"}, "monitoring.coreos.com/status-cleanup", "the Prometheus Operator",
		[]string{"prometheus-operator", "*-kube-prom*-operator"}, "monitoring", uninstallCRsFirst, "https://prometheus-operator.dev/docs/getting-started/installation/"},
	{"Pulumi Kubernetes Operator", []string{"pulumi.com", "*.pulumi.com"}, "finalizer.stack.pulumi.com", "the Pulumi Kubernetes Operator",
		[]string{"pulumi-kubernetes-operator*"}, "pulumi-kubernetes-operator", "delete the Stacks (destroyOnFinalize decides whether their cloud resources go) first, then the operator", "https://github.com/pulumi/pulumi-kubernetes-operator"},
	{"RabbitMQ Cluster Operator", []string{"rabbitmq.com", "*.rabbitmq.com"}, "deletion.finalizers.rabbitmqclusters.rabbitmq.com", "the RabbitMQ cluster or messaging topology operator",
		[]string{"rabbitmq-cluster-operator", "messaging-topology-operator"}, "rabbitmq-system", uninstallCRsFirst, "https://www.rabbitmq.com/kubernetes/operator/using-operator"},
	{"Rancher", []string{"cattle.io", "*.cattle.io"}, "controller.cattle.io/namespace-auth", "the Rancher agent",
		[]string{"cattle-cluster-agent", "rancher"}, "cattle-system", "remove the cluster from Rancher, or run rancher-cleanup, before deleting cattle-* namespaces or the agent", "https://github.com/rancher/rancher-cleanup"},
	{"Rancher Fleet", []string{"fleet.cattle.io", "*.fleet.cattle.io"}, "fleet.cattle.io/bundle-finalizer", "the Fleet controller or agent",
		[]string{"fleet-controller", "fleet-agent"}, "cattle-fleet-system", "delete the GitRepos and Bundles first and wait, then uninstall Fleet", "https://fleet.rancher.io/uninstall"},
	{"Rook", []string{"ceph.rook.io", "*.ceph.rook.io"}, "cephcluster.ceph.rook.io", "the Rook Ceph operator",
		[]string{"rook-ceph-operator"}, "rook-ceph", "delete the block pools, filesystems and object stores, then the CephCluster, while the operator runs; then the operator", "https://rook.io/docs/rook/latest/Storage-Configuration/ceph-teardown/"},
	{"Strimzi", []string{"strimzi.io", "*.strimzi.io"}, "strimzi.io/topic-operator", "Strimzi's topic operator (in the Kafka cluster's entity operator)",
		[]string{"*-entity-operator", "strimzi-cluster-operator"}, "kafka", "delete the KafkaTopics while the entity operator runs, then the Kafka cluster, then the cluster operator", "https://strimzi.io/docs/operators/latest/deploying#ref-operator-topic-deletion-str"},
	{"Tekton Chains", []string{"chains.tekton.dev"}, "chains.tekton.dev", "the Tekton Chains controller",
		[]string{"tekton-chains-controller"}, "tekton-chains", "uninstall Chains before deleting the runs it signs, or delete the runs while it runs", "https://tekton.dev/docs/chains/"},
	{"Tekton Pipelines", []string{"tekton.dev", "*.tekton.dev"}, "pipelineruns.tekton.dev", "the Tekton Pipelines controller",
		[]string{"tekton-pipelines-controller"}, "tekton-pipelines", "delete the PipelineRuns and TaskRuns first, then uninstall Tekton", "https://tekton.dev/docs/pipelines/install/#uninstalling-tekton-pipelines"},
	{"Tigera operator (Calico)", []string{"tigera.io", "*.tigera.io"}, "tigera.io/operator-cleanup", "the Tigera operator",
		[]string{"tigera-operator"}, "tigera-operator", "delete the Installation resource and wait for the operator to remove Calico, then the operator", "https://docs.tigera.io/calico/latest/operations/operator-migration"},
	{"tofu-controller (Flux Terraform)", []string{"tf.contrib.fluxcd.io", "*.tf.contrib.fluxcd.io", "infra.contrib.fluxcd.io", "*.infra.contrib.fluxcd.io"}, "finalizers.tf.contrib.fluxcd.io", "the tofu-controller (formerly tf-controller)",
		[]string{"tf-controller", "tofu-controller"}, "flux-system", "delete the Terraform resources first (destroyResourcesOnDeletion decides what they destroy), then the controller", "https://flux-iac.github.io/tofu-controller/"},
	{"TopoLVM", []string{"topolvm.io", "*.topolvm.io"}, "topolvm.io/logicalvolume", "the TopoLVM controller",
		[]string{"topolvm-controller"}, "topolvm-system", "delete the claims and LogicalVolumes first and wait, then uninstall TopoLVM", "https://github.com/topolvm/topolvm"},
	{"Trident", []string{"trident.netapp.io"}, "trident.netapp.io", "the Trident controller",
		[]string{"trident-controller", "trident-csi", "trident-operator"}, "trident", "tridentctl uninstall (or delete the TridentOrchestrator) after deleting the volumes you do not keep", "https://docs.netapp.com/us-en/trident/trident-managing-k8s/uninstall-trident.html"},
	{"Vault Secrets Operator", []string{"secrets.hashicorp.com", "*.secrets.hashicorp.com"}, "vaultdynamicsecret.secrets.hashicorp.com/finalizer", "the Vault Secrets Operator",
		[]string{"vault-secrets-operator-controller-manager"}, "vault-secrets-operator-system", uninstallCRsFirst, "https://developer.hashicorp.com/vault/docs/platform/k8s/vso/installation"},
	{"Velero", []string{"velero.io", "*.velero.io"}, "restores.velero.io/external-resources-finalizer", "the Velero server",
		[]string{"velero"}, "velero", "delete restores and backups with velero delete while the server runs, then uninstall Velero", "https://velero.io/docs/main/uninstalling/"},
}

// FinalizerDomainOf is what the table's patterns match of finalizer f: the
// part before "/", or f itself.
func FinalizerDomainOf(f string) string {
	if d := FinalizerDomain(f); d != "" {
		return d
	}
	return f
}

// ProjectOf returns the project whose domain pattern matches f, the
// longest pattern winning.
func ProjectOf(f string) (Project, bool) {
	d := FinalizerDomainOf(f)
	best, bestLen := -1, 0
	for i, p := range Projects {
		for _, pat := range p.Domains {
			if ok, _ := path.Match(pat, d); ok && len(pat) > bestLen {
				best, bestLen = i, len(pat)
			}
		}
	}
	if best < 0 {
		return Project{}, false
	}
	return Projects[best], true
}

// PublishedAs reports whether a workload named name in namespace ns (its
// app.kubernetes.io/name label in appName) is the project's controller.
func (p Project) PublishedAs(ns, name, appName string) bool {
	for _, w := range p.Workloads {
		pat := w
		if wantNS, n, ok := strings.Cut(w, "/"); ok {
			if wantNS != ns {
				continue
			}
			pat = n
		}
		for _, have := range []string{name, appName} {
			if ok, _ := path.Match(pat, have); ok && have != "" {
				return true
			}
		}
	}
	return false
}
