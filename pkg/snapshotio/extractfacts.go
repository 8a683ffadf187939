package snapshotio

import (
	"encoding/json"
	"fmt"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// facts extracts the kind-specific Facts, one reader per rules.FactKind
// (the switch names every kind, which the exhaustive linter checks: a
// kind a capture lists in full is always read). Pods, Services and
// workloads are common in big dumps and are scanned by hand; the rare
// kinds go through encoding/json into small structs.
func (x *Extractor) facts(o *snapshot.Object, f topFields, ann annotated) error {
	group, _ := snapshot.SplitAPIVersion(o.APIVersion)
	var err error
	switch rules.FactKindOf(group, o.Kind) {
	case rules.FactNone:
		return nil
	case rules.FactPod:
		o.Facts, err = x.podFacts(f, o.Metadata.Name, ann)
	case rules.FactService:
		o.Facts, err = x.serviceFacts(f)
	case rules.FactNamespace:
		o.Facts, err = namespaceFacts(f)
	case rules.FactNode:
		o.Facts, err = nodeFacts(f)
	case rules.FactPVC:
		o.Facts, err = claimFacts(f)
	case rules.FactPV:
		o.Facts, err = persistentVolumeFacts(f, ann)
	case rules.FactJob:
		o.Facts, err = x.jobFacts(f)
	case rules.FactWorkload:
		o.Facts, err = x.workloadFacts(f, group, o.Kind, ann)
	case rules.FactCRD:
		o.Facts, err = crdFacts(f)
	case rules.FactAPIService:
		o.Facts, err = apiServiceFacts(f)
	case rules.FactWebhooks:
		o.Facts, err = webhookFacts(f)
	case rules.FactRBAC:
		o.Facts, err = rbacFacts(f)
	case rules.FactEndpointSlice:
		o.Facts, err = endpointSliceFacts(f)
	case rules.FactCSIDriver:
		o.Facts = &snapshot.Facts{Volume: &snapshot.VolumeFacts{CSIDriver: o.Metadata.Name}}
	case rules.FactCSINode:
		o.Facts, err = csiNodeFacts(f)
	case rules.FactVolumeAttachment:
		o.Facts, err = volumeAttachmentFacts(f)
	case rules.FactClass:
		o.Facts, err = classFacts(f, ann)
	case rules.FactAdmissionPolicy:
		o.Facts, err = admissionPolicyFacts(f, o.Kind)
	}
	if err != nil {
		return fmt.Errorf("%s facts: %w", o.Kind, err)
	}
	return nil
}

// podFacts reads a pod's spec and status; mirror pods are known by their
// annotation. The facts are shared with the pods read before with the
// same ones when the pod has no keep marker.
func (x *Extractor) podFacts(f topFields, name string, ann annotated) (*snapshot.Facts, error) {
	var p snapshot.PodFacts
	p.Mirror = ann.mirror
	err := x.podSpec(f.spec, name, &p)
	if err == nil {
		err = x.podStatus(f.status, &p)
	}
	return x.sharedPodFacts(&p, ann.keep == ""), err
}

// serviceFacts reads a Service's spec.
func (x *Extractor) serviceFacts(f topFields) (*snapshot.Facts, error) {
	var sv snapshot.ServiceFacts
	err := x.serviceSpec(f.spec, &sv)
	return &snapshot.Facts{Service: &sv}, err
}

// namespaceFacts reads a Namespace's phase, spec finalizers and
// conditions.
func namespaceFacts(f topFields) (*snapshot.Facts, error) {
	var v struct {
		Spec   struct{ Finalizers []string }
		Status struct {
			Phase      string
			Conditions []snapshot.Condition
		}
	}
	err := unmarshalParts(f, &v.Spec, &v.Status)
	return &snapshot.Facts{Namespace: &snapshot.NamespaceFacts{Phase: v.Status.Phase, SpecFinalizers: v.Spec.Finalizers, Conditions: v.Status.Conditions}}, err
}

// nodeFacts reads a Node's Ready condition and its taints.
func nodeFacts(f topFields) (*snapshot.Facts, error) {
	var v struct {
		Spec struct {
			Taints []struct{ Key, Effect string }
		}
		Status struct {
			Conditions []snapshot.Condition
		}
	}
	err := unmarshalParts(f, &v.Spec, &v.Status)
	n := &snapshot.NodeFacts{}
	for _, c := range v.Status.Conditions {
		if c.Type == "Ready" {
			n.Ready = c.Status
		}
	}
	for _, t := range v.Spec.Taints {
		n.Taints = append(n.Taints, t.Key+":"+t.Effect)
	}
	return &snapshot.Facts{Node: n}, err
}

// claimFacts reads a PersistentVolumeClaim's phase and volume.
func claimFacts(f topFields) (*snapshot.Facts, error) {
	var v struct {
		Spec struct {
			VolumeName       string
			StorageClassName string
		}
		Status struct{ Phase string }
	}
	err := unmarshalParts(f, &v.Spec, &v.Status)
	return &snapshot.Facts{PVC: &snapshot.PVCFacts{Phase: v.Status.Phase, VolumeName: v.Spec.VolumeName, StorageClass: v.Spec.StorageClassName}}, err
}

// persistentVolumeFacts reads a PersistentVolume (pvFacts) and the
// provisioner its annotation names.
func persistentVolumeFacts(f topFields, ann annotated) (*snapshot.Facts, error) {
	pv, err := pvFacts(f)
	pv.ProvisionedBy = ann.provisionedBy
	return &snapshot.Facts{PV: pv}, err
}

// jobFacts reads a Job's spec and whether it finished.
func (x *Extractor) jobFacts(f topFields) (*snapshot.Facts, error) {
	var v struct {
		Status struct {
			Conditions        []snapshot.Condition
			Succeeded, Failed int32
		}
	}
	j := &snapshot.JobFacts{Spec: f.spec != nil}
	err := x.jobSpec(f.spec, j)
	if err == nil {
		err = unmarshalParts(f, nil, &v.Status)
	}
	j.Succeeded, j.Failed = v.Status.Succeeded, v.Status.Failed
	for _, c := range v.Status.Conditions {
		if (c.Type == "Complete" || c.Type == "Failed") && c.Status == "True" {
			j.Finished = true
		}
	}
	return &snapshot.Facts{Job: j}, err
}

// workloadFacts reads a workload's spec (workloadSpec), its availability
// and revision, and for a DaemonSet the CSI node plugins it runs. Facts
// without placement are shared with the workloads read before when the
// object has no keep marker.
func (x *Extractor) workloadFacts(f topFields, group, kind string, ann annotated) (*snapshot.Facts, error) {
	if f.spec == nil {
		// Without its spec (a metadata-only input) nothing is known.
		return nil, nil
	}
	wf, err := x.workloadSpec(f.spec, kind)
	if wf == nil {
		return nil, err
	}
	wf.Workload.Available, err = workloadAvailable(f.status, group, kind)
	wf.Workload.Revision = ann.revision
	facts := x.sharedWorkloadFacts(wf, ann.keep == "")
	if err != nil || kind != "DaemonSet" {
		return facts, err
	}
	return daemonSetVolumeFacts(facts, f)
}

// crdFacts reads a CustomResourceDefinition's names, scope, versions,
// conversion webhook and conditions.
func crdFacts(f topFields) (*snapshot.Facts, error) {
	var v struct {
		Spec struct {
			Group string
			Names struct {
				Kind, Plural, Singular string
				ShortNames, Categories []string
			}
			Scope      string
			Versions   []snapshot.CRDVersion
			Conversion *struct {
				Strategy string
				Webhook  *struct{ ClientConfig clientConfig }
			}
		}
		Status struct {
			Conditions     []snapshot.Condition
			StoredVersions []string
		}
	}
	err := unmarshalParts(f, &v.Spec, &v.Status)
	c := &snapshot.CRDFacts{Group: v.Spec.Group, Kind: v.Spec.Names.Kind, Plural: v.Spec.Names.Plural, Singular: v.Spec.Names.Singular,
		ShortNames: v.Spec.Names.ShortNames, Categories: v.Spec.Names.Categories, Scope: v.Spec.Scope, Versions: v.Spec.Versions}
	if cv := v.Spec.Conversion; cv != nil && cv.Strategy == "Webhook" {
		c.Conversion = &snapshot.CRDConversion{Strategy: cv.Strategy}
		if cv.Webhook != nil {
			c.Conversion.Service, c.Conversion.URLHost = cv.Webhook.ClientConfig.reduce()
			c.Conversion.CAValidity = cv.Webhook.ClientConfig.caBundleState()
		}
	}
	c.StoredVersions = v.Status.StoredVersions
	for _, cond := range v.Status.Conditions {
		switch {
		case cond.Type == "Established" && cond.Status == "True":
			c.Established = true
		case cond.Type == "Terminating":
			c.Terminating = &snapshot.Condition{Type: cond.Type, Status: cond.Status, Reason: cond.Reason, Message: cond.Message}
		}
	}
	return &snapshot.Facts{CRD: c}, err
}

// apiServiceFacts reads an APIService's group, version, backend Service
// and Available condition.
func apiServiceFacts(f topFields) (*snapshot.Facts, error) {
	var v struct {
		Spec struct {
			Group, Version string
			Service        *struct {
				Namespace, Name string
				Port            *int32
			}
		}
		Status struct{ Conditions []snapshot.Condition }
	}
	err := unmarshalParts(f, &v.Spec, &v.Status)
	a := &snapshot.APIServiceFacts{Group: v.Spec.Group, Version: v.Spec.Version}
	if s := v.Spec.Service; s != nil {
		a.Service = &snapshot.ServiceReference{Namespace: s.Namespace, Name: s.Name, Port: s.Port}
	}
	for _, c := range v.Status.Conditions {
		if c.Type == "Available" {
			a.Available = &snapshot.Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message}
		}
	}
	return &snapshot.Facts{APIService: a}, err
}

// webhookFacts reads the webhooks of a mutating or validating webhook
// configuration.
func webhookFacts(f topFields) (*snapshot.Facts, error) {
	var v struct {
		Webhooks []struct {
			Name                              string
			FailurePolicy                     string
			Rules                             []snapshot.WebhookRule
			ClientConfig                      clientConfig
			NamespaceSelector, ObjectSelector *snapshot.LabelSelector
			MatchConditions                   []json.RawMessage
		}
	}
	var err error
	if f.webhooks != nil {
		err = json.Unmarshal(f.webhooks, &v.Webhooks)
	}
	w := &snapshot.WebhookConfigurationFacts{}
	for _, h := range v.Webhooks {
		wh := snapshot.Webhook{Name: h.Name, FailurePolicy: h.FailurePolicy, Rules: h.Rules,
			NamespaceSelector: selectsSome(h.NamespaceSelector), ObjectSelector: selectsSome(h.ObjectSelector),
			NamespaceLabelSelector: someSelector(h.NamespaceSelector), ObjectLabelSelector: someSelector(h.ObjectSelector),
			MatchConditions: len(h.MatchConditions)}
		wh.Service, wh.URLHost = h.ClientConfig.reduce()
		wh.CAValidity = h.ClientConfig.caBundleState()
		w.Webhooks = append(w.Webhooks, wh)
	}
	return &snapshot.Facts{WebhookConfiguration: w}, err
}

// endpointSliceFacts counts an EndpointSlice's endpoints and the ready
// ones.
func endpointSliceFacts(f topFields) (*snapshot.Facts, error) {
	var v []struct {
		Conditions struct{ Ready *bool }
	}
	var err error
	if f.endpoints != nil {
		err = json.Unmarshal(f.endpoints, &v)
	}
	e := &snapshot.EndpointSliceFacts{Endpoints: len(v)}
	for _, ep := range v {
		// A nil ready condition means ready (discovery/v1 EndpointConditions).
		if ep.Conditions.Ready == nil || *ep.Conditions.Ready {
			e.Ready++
		}
	}
	return &snapshot.Facts{EndpointSlice: e}, err
}

// unmarshalParts decodes an object's spec and status, when asked for
// and present, for the readers of facts that few objects have.
func unmarshalParts(f topFields, spec, status any) error {
	if spec != nil && f.spec != nil {
		if err := json.Unmarshal(f.spec, spec); err != nil {
			return fmt.Errorf("spec: %w", err)
		}
	}
	if status != nil && f.status != nil {
		if err := json.Unmarshal(f.status, status); err != nil {
			return fmt.Errorf("status: %w", err)
		}
	}
	return nil
}
