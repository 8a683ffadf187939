package snapshot

import (
	"encoding/json"
	"fmt"
	"time"
)

// topFields are the raw top-level values of one object that kgc reads.
// They point into the reader's buffer and are only valid during
// extraction.
type topFields struct {
	apiVersion, kind, metadata, spec, status, facts []byte
}

// splitTop scans one object's top-level keys; the object must be all of raw.
func splitTop(raw []byte) (topFields, error) {
	f, n, err := splitTopPrefix(raw)
	if err == nil {
		if n = skipSpace(raw, n); n != len(raw) {
			err = &syntaxError{n, "unexpected data after the object"}
		}
	}
	return f, err
}

// splitTopPrefix scans the object at the start of raw and returns where it
// ends. errIncomplete means raw ends inside it.
func splitTopPrefix(raw []byte) (topFields, int, error) {
	var f topFields
	s := scanner{d: raw}
	s.ws()
	err := s.object(func(key []byte) error {
		var dst *[]byte
		switch string(key) {
		case "apiVersion":
			dst = &f.apiVersion
		case "kind":
			dst = &f.kind
		case "metadata":
			dst = &f.metadata
		case "spec":
			dst = &f.spec
		case "status":
			dst = &f.status
		case "facts":
			dst = &f.facts
		default:
			return s.skip()
		}
		v, err := s.raw()
		*dst = v
		return err
	})
	return f, s.i, err
}

// mirrorAnnotation marks a static pod's mirror in the API server; kgc keeps
// only the fact, never the annotations themselves.
const mirrorAnnotation = "kubernetes.io/config.mirror"

// Extractor turns raw JSON objects into Objects, keeping only what the
// model holds. Its objects share strings, label maps and times through
// its tables, so it is not safe for concurrent use: give each goroutine
// its own.
type Extractor struct {
	in     *interner
	ar     arena
	times  timeSlab
	labels map[string]map[string]string
}

// NewExtractor returns an Extractor with empty tables.
func NewExtractor() *Extractor { return &Extractor{in: newInterner()} }

// Intern returns s from the extractor's table, so that objects built
// outside it (a live capture's metadata-only lists) share one copy of the
// strings every object repeats: namespaces, kinds, finalizers.
func (x *Extractor) Intern(s string) string { return x.in.str(s) }

// maxLabelSets bounds the cache of label maps shared between objects.
const maxLabelSets = 1 << 16

// extract builds the Object from f. hintAPIVersion/hintKind fill in
// items that carry no type (kubectl cluster-info dump lists of typed
// objects). mirror reports the pod mirror annotation.
func (x *Extractor) extract(f topFields, hintAPIVersion, hintKind string) (Object, error) {
	var o Object
	var err error
	if f.apiVersion != nil {
		s := scanner{d: f.apiVersion}
		if o.APIVersion, err = s.internStr(x.in); err != nil {
			return o, fmt.Errorf("apiVersion: %w", err)
		}
	}
	if f.kind != nil {
		s := scanner{d: f.kind}
		if o.Kind, err = s.internStr(x.in); err != nil {
			return o, fmt.Errorf("kind: %w", err)
		}
	}
	if o.Kind == "" && o.APIVersion == "" {
		o.APIVersion, o.Kind = hintAPIVersion, hintKind
	}
	mirror := false
	if f.metadata != nil {
		if mirror, err = x.meta(f.metadata, &o.Metadata); err != nil {
			return o, err
		}
	}
	if f.facts != nil && string(f.facts) != "null" {
		if facts, ok := x.commonFacts(f.facts); ok {
			o.Facts = facts
			return o, nil
		}
		var facts Facts
		if err := json.Unmarshal(f.facts, &facts); err != nil {
			return o, fmt.Errorf("facts: %w", err)
		}
		o.Facts = &facts
		return o, nil
	}
	if err := x.facts(&o, f, mirror); err != nil {
		return o, err
	}
	return o, nil
}

// meta decodes metadata into m, keeping only the fields ObjectMeta has.
func (x *Extractor) meta(raw []byte, m *ObjectMeta) (mirror bool, err error) {
	s := scanner{d: raw}
	err = s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "name":
			m.Name, err = s.arenaStr(&x.ar)
		case "namespace":
			m.Namespace, err = s.internStr(x.in)
		case "uid":
			m.UID, err = s.arenaStr(&x.ar)
		case "resourceVersion":
			m.ResourceVersion, err = s.arenaStr(&x.ar)
		case "generation":
			m.Generation, _, err = s.int64v()
		case "creationTimestamp":
			m.CreationTimestamp, err = x.timep(&s)
		case "deletionTimestamp":
			m.DeletionTimestamp, err = x.timep(&s)
		case "deletionGracePeriodSeconds":
			m.DeletionGracePeriodSeconds, err = s.int64p()
		case "finalizers":
			m.Finalizers, err = s.stringList(x.in)
		case "ownerReferences":
			err = s.array(func(int) error {
				r, err := x.ownerRef(&s)
				m.OwnerReferences = append(m.OwnerReferences, r)
				return err
			})
		case "labels":
			m.Labels, err = x.labelMap(&s)
		case "annotations":
			// Annotations can carry secrets (last-applied-configuration):
			// only the mirror-pod marker is looked at, and not kept.
			err = s.object(func(k []byte) error {
				if string(k) == mirrorAnnotation {
					mirror = true
				}
				return s.skip()
			})
		default:
			return s.skip()
		}
		if err != nil {
			return fmt.Errorf("metadata.%s: %w", key, err)
		}
		return nil
	})
	return mirror, err
}

func (x *Extractor) timep(s *scanner) (*time.Time, error) {
	t, ok, err := s.timev()
	if !ok || err != nil {
		return nil, err
	}
	return x.times.put(t), nil
}

// labelMap decodes labels. Objects of one workload carry identical label
// sets, so maps are shared between objects with byte-identical labels:
// a map per object would be the largest part of a big snapshot. Label maps
// of read objects are therefore read-only.
func (x *Extractor) labelMap(outer *scanner) (map[string]string, error) {
	raw, err := outer.raw()
	if err != nil {
		return nil, err
	}
	if shared, ok := x.labels[string(raw)]; ok {
		return shared, nil
	}
	var m map[string]string
	s := scanner{d: raw}
	err = s.object(func(k []byte) error {
		v, err := s.internStr(x.in)
		if err != nil {
			return err
		}
		if m == nil {
			m = make(map[string]string, 4)
		}
		m[x.in.bytes(k)] = v
		return nil
	})
	if err != nil || m == nil {
		return m, err
	}
	if x.labels == nil || len(x.labels) >= maxLabelSets {
		x.labels = make(map[string]map[string]string, 1024)
	}
	x.labels[string(raw)] = m
	return m, nil
}

func (x *Extractor) ownerRef(s *scanner) (OwnerReference, error) {
	var r OwnerReference
	err := s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "apiVersion":
			r.APIVersion, err = s.internStr(x.in)
		case "kind":
			r.Kind, err = s.internStr(x.in)
		case "name":
			r.Name, err = s.arenaStr(&x.ar)
		case "uid":
			r.UID, err = s.arenaStr(&x.ar)
		case "controller":
			r.Controller, err = s.boolp()
		case "blockOwnerDeletion":
			r.BlockOwnerDeletion, err = s.boolp()
		default:
			return s.skip()
		}
		if err != nil {
			return fmt.Errorf("ownerReferences.%s: %w", key, err)
		}
		return nil
	})
	return r, err
}

// factKinds are the kinds whose Facts come from spec or status; facts
// below reads exactly these.
var factKinds = map[groupKind]bool{
	{"", "Pod"}: true, {"", "Namespace"}: true, {"", "Node"}: true, {"", "PersistentVolumeClaim"}: true,
	{"", "PersistentVolume"}: true, {"", "Service"}: true, {"batch", "Job"}: true,
	{"apiextensions.k8s.io", "CustomResourceDefinition"}: true,
}

// HasFacts reports whether objects of group and kind carry Facts read
// from their spec or status: a live capture lists those kinds in full,
// and metadata alone is enough for every other kind.
func HasFacts(group, kind string) bool { return factKinds[groupKind{group, kind}] }

// facts extracts the kind-specific Facts. Pods and Services are common in
// big dumps and are scanned by hand; the rare kinds go through
// encoding/json into small structs.
func (x *Extractor) facts(o *Object, f topFields, mirror bool) error {
	group, _ := SplitAPIVersion(o.APIVersion)
	var err error
	switch {
	case group == "" && o.Kind == "Pod":
		var p PodFacts
		p.Mirror = mirror
		if err = x.podSpec(f.spec, o.Metadata.Name, &p); err == nil {
			err = x.podStatus(f.status, &p)
		}
		o.Facts = &Facts{Pod: &p}
	case group == "" && o.Kind == "Service":
		var sv ServiceFacts
		err = x.serviceSpec(f.spec, &sv)
		o.Facts = &Facts{Service: &sv}
	case group == "" && o.Kind == "Namespace":
		var v struct {
			Spec   struct{ Finalizers []string }
			Status struct {
				Phase      string
				Conditions []Condition
			}
		}
		err = unmarshalParts(f, &v.Spec, &v.Status)
		o.Facts = &Facts{Namespace: &NamespaceFacts{Phase: v.Status.Phase, SpecFinalizers: v.Spec.Finalizers, Conditions: v.Status.Conditions}}
	case group == "" && o.Kind == "Node":
		var v struct {
			Spec struct {
				Taints []struct{ Key, Effect string }
			}
			Status struct {
				Conditions []Condition
			}
		}
		err = unmarshalParts(f, &v.Spec, &v.Status)
		n := &NodeFacts{}
		for _, c := range v.Status.Conditions {
			if c.Type == "Ready" {
				n.Ready = c.Status
			}
		}
		for _, t := range v.Spec.Taints {
			n.Taints = append(n.Taints, t.Key+":"+t.Effect)
		}
		o.Facts = &Facts{Node: n}
	case group == "" && o.Kind == "PersistentVolumeClaim":
		var v struct {
			Spec   struct{ VolumeName string }
			Status struct{ Phase string }
		}
		err = unmarshalParts(f, &v.Spec, &v.Status)
		o.Facts = &Facts{PVC: &PVCFacts{Phase: v.Status.Phase, VolumeName: v.Spec.VolumeName}}
	case group == "" && o.Kind == "PersistentVolume":
		var v struct {
			Spec struct {
				PersistentVolumeReclaimPolicy string
				ClaimRef                      *ObjectRef
			}
			Status struct{ Phase string }
		}
		err = unmarshalParts(f, &v.Spec, &v.Status)
		o.Facts = &Facts{PV: &PVFacts{Phase: v.Status.Phase, ReclaimPolicy: v.Spec.PersistentVolumeReclaimPolicy, ClaimRef: v.Spec.ClaimRef}}
	case group == "batch" && o.Kind == "Job":
		var v struct {
			Status struct{ Conditions []Condition }
		}
		err = unmarshalParts(f, nil, &v.Status)
		j := &JobFacts{}
		for _, c := range v.Status.Conditions {
			if (c.Type == "Complete" || c.Type == "Failed") && c.Status == "True" {
				j.Finished = true
			}
		}
		o.Facts = &Facts{Job: j}
	case group == "apiextensions.k8s.io" && o.Kind == "CustomResourceDefinition":
		var v struct {
			Spec struct {
				Group string
				Names struct {
					Kind, Plural, Singular string
					ShortNames, Categories []string
				}
				Scope    string
				Versions []CRDVersion
			}
			Status struct{ Conditions []Condition }
		}
		err = unmarshalParts(f, &v.Spec, &v.Status)
		c := &CRDFacts{Group: v.Spec.Group, Kind: v.Spec.Names.Kind, Plural: v.Spec.Names.Plural, Singular: v.Spec.Names.Singular,
			ShortNames: v.Spec.Names.ShortNames, Categories: v.Spec.Names.Categories, Scope: v.Spec.Scope, Versions: v.Spec.Versions}
		for _, cond := range v.Status.Conditions {
			if cond.Type == "Established" && cond.Status == "True" {
				c.Established = true
			}
		}
		o.Facts = &Facts{CRD: c}
	}
	if err != nil {
		return fmt.Errorf("%s facts: %w", o.Kind, err)
	}
	return nil
}

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

func (x *Extractor) podSpec(raw []byte, podName string, p *PodFacts) error {
	if raw == nil {
		return nil
	}
	s := scanner{d: raw}
	return s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "nodeName":
			p.NodeName, err = s.internStr(x.in)
		case "terminationGracePeriodSeconds":
			p.TerminationGracePeriodSeconds, err = s.int64p()
		case "volumes":
			err = s.array(func(int) error {
				var name, claim string
				ephemeral := false
				err := s.object(func(k []byte) error {
					var err error
					switch string(k) {
					case "name":
						name, err = s.str()
					case "persistentVolumeClaim":
						err = s.object(func(k2 []byte) error {
							if string(k2) == "claimName" {
								var err error
								claim, err = s.str()
								return err
							}
							return s.skip()
						})
					case "ephemeral":
						ephemeral = !s.isNull()
						if ephemeral {
							err = s.skip()
						}
					default:
						err = s.skip()
					}
					return err
				})
				if claim != "" {
					p.Claims = append(p.Claims, claim)
				}
				if ephemeral {
					// The ephemeral volume controller names the claim <pod>-<volume>.
					p.EphemeralClaims = append(p.EphemeralClaims, podName+"-"+name)
				}
				return err
			})
		default:
			return s.skip()
		}
		return err
	})
}

func (x *Extractor) podStatus(raw []byte, p *PodFacts) error {
	if raw == nil {
		return nil
	}
	s := scanner{d: raw}
	return s.object(func(key []byte) error {
		if string(key) == "phase" {
			var err error
			p.Phase, err = s.internStr(x.in)
			return err
		}
		return s.skip()
	})
}

func (x *Extractor) serviceSpec(raw []byte, sv *ServiceFacts) error {
	if raw == nil {
		return nil
	}
	s := scanner{d: raw}
	return s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "type":
			sv.Type, err = s.internStr(x.in)
		case "loadBalancerClass":
			sv.LoadBalancerClass, err = s.internStr(x.in)
		default:
			err = s.skip()
		}
		return err
	})
}
