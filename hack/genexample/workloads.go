package main

import (
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var (
	typeDeployment  = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}
	typeReplicaSet  = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"}
	typeStatefulSet = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"}
	typeDaemonSet   = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"}
	typeRevision    = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"}
	typeJob         = metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}
)

// template is the pod template shared by a workload and what it creates.
func template(lbls map[string]string, container, image string, ports []corev1.ContainerPort, mounts []corev1.VolumeMount, restart corev1.RestartPolicy) corev1.PodTemplateSpec {
	if restart == "" {
		restart = corev1.RestartPolicyAlways
	}
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: lbls},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: container, Image: image, ImagePullPolicy: corev1.PullIfNotPresent, Ports: ports,
				TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				VolumeMounts: mounts,
			}},
			DNSPolicy:                     corev1.DNSClusterFirst,
			RestartPolicy:                 restart,
			SchedulerName:                 "default-scheduler",
			SecurityContext:               &corev1.PodSecurityContext{},
			TerminationGracePeriodSeconds: ptr(int64(30)),
		},
	}
}

func withLabels(base map[string]string, kv ...string) map[string]string {
	m := make(map[string]string, len(base)+len(kv)/2)
	for k, v := range base {
		m[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// deployment builds a Deployment with a RollingUpdate strategy and the
// status the deployment controller reports.
func deployment(ns, name, created string, generation int64, replicas int32, lbls map[string]string, tpl corev1.PodTemplateSpec, revision string, st appsv1.DeploymentStatus) *appsv1.Deployment {
	m := objectMeta("Deployment", ns, name, created)
	m.Generation = generation
	m.Labels = lbls
	m.Annotations = map[string]string{"deployment.kubernetes.io/revision": revision}
	st.ObservedGeneration = generation
	return &appsv1.Deployment{
		TypeMeta:   typeDeployment,
		ObjectMeta: m,
		Spec: appsv1.DeploymentSpec{
			ProgressDeadlineSeconds: ptr(int32(600)),
			Replicas:                ptr(replicas),
			RevisionHistoryLimit:    ptr(int32(10)),
			Selector:                &metav1.LabelSelector{MatchLabels: lbls},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxSurge: ptr(intstr.FromString("25%")), MaxUnavailable: ptr(intstr.FromString("25%"))}},
			Template: tpl,
		},
		Status: st,
	}
}

// replicaSet builds a ReplicaSet the deployment controller created: named
// and labelled with the pod-template-hash, owned by the Deployment.
func replicaSet(ns, deploy, hash, created string, generation int64, replicas, ready int32, maxReplicas int32, desired int32, revision string, tpl corev1.PodTemplateSpec) *appsv1.ReplicaSet {
	name := deploy + "-" + hash
	m := objectMeta("ReplicaSet", ns, name, created)
	m.Generation = generation
	m.Labels = withLabels(tpl.Labels, "pod-template-hash", hash)
	m.Annotations = map[string]string{
		"deployment.kubernetes.io/desired-replicas": fmt.Sprint(desired),
		"deployment.kubernetes.io/max-replicas":     fmt.Sprint(maxReplicas),
		"deployment.kubernetes.io/revision":         revision,
	}
	m.OwnerReferences = []metav1.OwnerReference{controllerRef("apps/v1", "Deployment", ns, deploy)}
	tpl.Labels = m.Labels
	st := appsv1.ReplicaSetStatus{Replicas: replicas, FullyLabeledReplicas: replicas, ReadyReplicas: ready, AvailableReplicas: ready,
		ObservedGeneration: generation}
	return &appsv1.ReplicaSet{
		TypeMeta:   typeReplicaSet,
		ObjectMeta: m,
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: m.Labels},
			Template: tpl,
		},
		Status: st,
	}
}

// controllerRevision snapshots a pod template for a StatefulSet or
// DaemonSet; its data is the strategic-merge "replace" patch upstream stores.
func controllerRevision(ns, owner, ownerKind, hash, created string, revision int64, lbls map[string]string, tpl corev1.PodTemplateSpec) item {
	name := owner + "-" + hash
	m := objectMeta("ControllerRevision", ns, name, created)
	m.Labels = lbls
	m.OwnerReferences = []metav1.OwnerReference{controllerRef("apps/v1", ownerKind, ns, owner)}
	tplJSON, err := json.Marshal(tpl)
	if err != nil {
		panic(fmt.Sprintf("genexample: encoding a pod template: %v", err))
	}
	var tplMap map[string]any
	if err := json.Unmarshal(tplJSON, &tplMap); err != nil {
		panic(fmt.Sprintf("genexample: decoding a pod template: %v", err))
	}
	tplMap["$patch"] = "replace"
	raw, err := json.Marshal(map[string]any{"spec": map[string]any{"template": tplMap}})
	if err != nil {
		panic(fmt.Sprintf("genexample: encoding revision data: %v", err))
	}
	return item{resource: "controllerrevisions.apps", namespace: ns, name: name, obj: &appsv1.ControllerRevision{
		TypeMeta: typeRevision, ObjectMeta: m, Data: runtime.RawExtension{Raw: raw}, Revision: revision}}
}

// job builds a finished, NonIndexed Job with the status the job controller
// reports (SuccessCriteriaMet and Complete since v1.31).
func job(ns, name, created, started, completed string, tpl corev1.PodTemplateSpec) *batchv1.Job {
	m := objectMeta("Job", ns, name, created)
	m.Generation = 1
	id := string(uid("Job", ns, name))
	m.Labels = labels("batch.kubernetes.io/controller-uid", id, "batch.kubernetes.io/job-name", name, "controller-uid", id, "job-name", name)
	tpl.Labels = withLabels(tpl.Labels, "batch.kubernetes.io/controller-uid", id, "batch.kubernetes.io/job-name", name, "controller-uid", id, "job-name", name)
	return &batchv1.Job{
		TypeMeta:   typeJob,
		ObjectMeta: m,
		Spec: batchv1.JobSpec{
			BackoffLimit:         ptr(int32(6)),
			CompletionMode:       ptr(batchv1.NonIndexedCompletion),
			Completions:          ptr(int32(1)),
			ManualSelector:       ptr(false),
			Parallelism:          ptr(int32(1)),
			PodReplacementPolicy: ptr(batchv1.TerminatingOrFailed),
			Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": id}},
			Suspend:              ptr(false),
			Template:             tpl,
		},
		Status: batchv1.JobStatus{
			CompletionTime: atp(completed),
			Conditions: []batchv1.JobCondition{
				{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastProbeTime: at(completed), LastTransitionTime: at(completed),
					Reason: "CompletionsReached", Message: "Reached expected number of succeeded pods"},
				{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastProbeTime: at(completed), LastTransitionTime: at(completed),
					Reason: "CompletionsReached", Message: "Reached expected number of succeeded pods"},
			},
			Ready:                   ptr(int32(0)),
			StartTime:               atp(started),
			Succeeded:               1,
			Terminating:             ptr(int32(0)),
			UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{},
		},
	}
}
