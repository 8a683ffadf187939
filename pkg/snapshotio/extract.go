package snapshotio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kgc-dev/kgc/internal/jsonskip"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// topFields are the raw top-level values of one object that kgc reads.
// They point into the reader's buffer and are only valid during
// extraction.
type topFields struct {
	apiVersion, kind, metadata, spec, status, facts []byte
	// webhooks and endpoints are the top-level lists of webhook
	// configurations and EndpointSlices.
	webhooks, endpoints []byte
	// rules, roleRef, subjects and aggregationRule are RBAC's
	// top-level fields.
	rules, roleRef, subjects, aggregationRule []byte
	// provisioner and driver are a StorageClass's and a
	// VolumeSnapshotClass's top-level fields naming their controller.
	provisioner, driver []byte
}

// splitTop scans one object's top-level keys; the object must be all of raw.
func splitTop(raw []byte) (topFields, error) {
	f, n, err := splitTopPrefix(raw)
	if err == nil {
		if n = jsonskip.Space(raw, n); n != len(raw) {
			err = &syntaxError{Off: n, Msg: "unexpected data after the object"}
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
		case "webhooks":
			dst = &f.webhooks
		case "endpoints":
			dst = &f.endpoints
		case "rules":
			dst = &f.rules
		case "roleRef":
			dst = &f.roleRef
		case "subjects":
			dst = &f.subjects
		case "provisioner":
			dst = &f.provisioner
		case "driver":
			dst = &f.driver
		case "aggregationRule":
			dst = &f.aggregationRule
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

// revisionAnnotation is the revision the deployment controller writes on a
// Deployment and on each of its ReplicaSets; a number, kept as a fact.
const revisionAnnotation = "deployment.kubernetes.io/revision"

// provisionedByAnnotation names who provisioned a PersistentVolume and so
// deletes its storage; kept as a fact of the volume.
const provisionedByAnnotation = "pv.kubernetes.io/provisioned-by"

// annotated are the facts kgc reads from annotations, which it never keeps.
type annotated struct {
	mirror        bool
	revision      string
	keep          string // keep markers (KeepMarker)
	provisionedBy string
	// defaultClass: a class object's is-default-class annotation is
	// "true" (defaultClassAnnotations).
	defaultClass bool
}

// Extractor turns raw JSON objects into Objects, keeping only what the
// model holds. Its objects share strings, label maps and times through
// its tables, so it is not safe for concurrent use: give each goroutine
// its own.
type Extractor struct {
	in     *interner
	ar     arena
	times  timeSlab
	labels shared[string, map[string]string]
	// lastLabels are the label bytes and map of the last object with
	// labels: a workload's objects are next to each other in a snapshot
	// file, and comparing bytes costs less than hashing them.
	lastLabels struct {
		raw []byte
		m   map[string]string
	}
	// lastTime is the last timestamp read, by its bytes: objects created
	// in one second (a workload's) are often neighbours, and share it
	// (timestamps of read objects are never modified in place).
	lastTime struct {
		raw []byte
		t   *time.Time
	}
	// factSets are facts read before, by their bytes: the pods of one
	// node and phase, the ReplicaSets of one revision have the same, and
	// share one copy (facts are never modified in place).
	factSets shared[string, *snapshot.Facts]
	// podSets and workloadSets are the facts of pods and workloads read
	// from a dump, by their content.
	podSets      shared[podKey, *snapshot.Facts]
	workloadSets shared[workloadKey, *snapshot.Facts]
	// sel and tpl are reused for a workload's selector and template
	// labels, which only need comparing, never keeping.
	sel, tpl []labelPair
	// recent are the last values of the fields that mostly repeat from
	// one object to the next (interner.recent), in JSON and protobuf.
	recent struct {
		apiVersion, kind, namespace, ownerAPIVersion, ownerKind string
	}
	// protoLabels, protoLabelKey and lastProtoTime are protolist.go's
	// scratch labels, label map key and last timestamp.
	protoLabels   []labelPair
	protoLabelKey []byte
	lastProtoTime struct {
		sec int64
		t   *time.Time
	}
	// managerSec is the time of the managedFields entry whose manager
	// the object being read keeps so far (protoManager).
	managerSec int64
}

// labelPair is one label as raw bytes into the reader's buffer.
type labelPair struct{ k, v []byte }

// NewExtractor returns an Extractor with empty tables.
func NewExtractor() *Extractor { return &Extractor{in: newInterner()} }

// Intern returns s from the extractor's table, so that objects built
// outside it (a live capture's metadata-only lists) share one copy of the
// strings every object repeats: namespaces, kinds, finalizers.
func (x *Extractor) Intern(s string) string { return x.in.str(s) }

// podKey is what a pod's facts hold when it mounts no claim.
type podKey struct {
	node, phase string
	grace       int64
	hasGrace    bool
	mirror      bool
}

// sharedPodFacts returns facts holding p, shared with the pods read
// before with the same facts when share (the object gets no keep marker,
// which is written into its facts) and p names no claim.
func (x *Extractor) sharedPodFacts(p *snapshot.PodFacts, share bool) *snapshot.Facts {
	if !share || p.Claims != nil || p.EphemeralClaims != nil || p.CSIDrivers != nil {
		return &snapshot.Facts{Pod: p}
	}
	k := podKey{node: p.NodeName, phase: p.Phase, mirror: p.Mirror}
	if g := p.TerminationGracePeriodSeconds; g != nil {
		k.grace, k.hasGrace = *g, true
	}
	if f, ok := x.podSets.m[k]; ok {
		return f
	}
	f := &snapshot.Facts{Pod: p}
	x.podSets.put(k, f)
	return f
}

// workloadKey is what a workload's facts hold when it has no pod
// template placement (every kind but DaemonSet).
type workloadKey struct {
	replicas                               int32
	hasReplicas, paused, suspend, selector bool
	revision                               string
	ordinalsStart                          int32
	serviceAccount                         string
	available                              int32
	hasAvailable                           bool
}

// sharedWorkloadFacts returns f, or the same facts read before, when
// share (the object gets no keep marker) and f holds no placement.
func (x *Extractor) sharedWorkloadFacts(f *snapshot.Facts, share bool) *snapshot.Facts {
	w := f.Workload
	if !share || w.NodeSelector != nil || w.Tolerations != nil || w.NodeAffinity {
		return f
	}
	k := workloadKey{paused: w.Paused, suspend: w.Suspend, selector: w.SelectorMatchesTemplate, revision: w.Revision, ordinalsStart: w.OrdinalsStart, serviceAccount: w.ServiceAccount}
	if w.Replicas != nil {
		k.replicas, k.hasReplicas = *w.Replicas, true
	}
	if w.Available != nil {
		k.available, k.hasAvailable = *w.Available, true
	}
	if same, ok := x.workloadSets.m[k]; ok {
		return same
	}
	x.workloadSets.put(k, f)
	return f
}

// extract builds the Object from f. hintAPIVersion/hintKind fill in
// items that carry no type (kubectl cluster-info dump lists of typed
// objects). mirror reports the pod mirror annotation.
func (x *Extractor) extract(f topFields, hintAPIVersion, hintKind string) (snapshot.Object, error) {
	var o snapshot.Object
	var err error
	if f.apiVersion != nil {
		s := scanner{d: f.apiVersion}
		if o.APIVersion, err = s.internRecent(x.in, &x.recent.apiVersion); err != nil {
			return o, fmt.Errorf("apiVersion: %w", err)
		}
	}
	if f.kind != nil {
		s := scanner{d: f.kind}
		if o.Kind, err = s.internRecent(x.in, &x.recent.kind); err != nil {
			return o, fmt.Errorf("kind: %w", err)
		}
	}
	if o.Kind == "" && o.APIVersion == "" {
		o.APIVersion, o.Kind = hintAPIVersion, hintKind
	}
	var ann annotated
	if f.metadata != nil {
		if ann, err = x.meta(f.metadata, &o.Metadata); err != nil {
			return o, err
		}
	}
	if f.facts != nil && string(f.facts) != "null" {
		if facts, ok := x.factSets.m[string(f.facts)]; ok {
			o.Facts = facts
			return o, nil
		}
		if facts, ok := x.commonFacts(f.facts); ok {
			x.factSets.put(string(f.facts), facts)
			o.Facts = facts
			return o, nil
		}
		var facts snapshot.Facts
		if err := json.Unmarshal(f.facts, &facts); err != nil {
			return o, fmt.Errorf("facts: %w", err)
		}
		o.Facts = &facts
		return o, nil
	}
	if err := x.facts(&o, f, ann); err != nil {
		return o, err
	}
	if o.Facts == nil && f.spec != nil && len(o.Metadata.Finalizers) > 0 {
		refs, err := specRefs(f.spec)
		if err != nil {
			return o, fmt.Errorf("%s spec: %w", o.Kind, err)
		}
		if len(refs) > 0 {
			o.Facts = &snapshot.Facts{Refs: refs}
		}
	}
	snapshot.SetKeepMarker(&o, ann.keep)
	return o, nil
}

// meta decodes metadata into m, keeping only the fields ObjectMeta has.
func (x *Extractor) meta(raw []byte, m *snapshot.ObjectMeta) (ann annotated, err error) {
	s := scanner{d: raw}
	err = s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "name":
			m.Name, err = s.arenaStr(&x.ar)
		case "namespace":
			m.Namespace, err = s.internRecent(x.in, &x.recent.namespace)
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
		case "manager":
			m.Manager, err = s.internStr(x.in)
		case "managedFields":
			m.Manager, err = x.oldestManager(&s)
		case "annotations":
			// Annotations can carry secrets (last-applied-configuration):
			// only the mirror-pod marker, a Deployment's revision and the
			// keep markers are looked at, and kept as facts.
			err = s.object(func(k []byte) error { return x.annotation(&s, string(k), &ann) })
		default:
			return s.skip()
		}
		if err != nil {
			return fmt.Errorf("metadata.%s: %w", key, err)
		}
		return nil
	})
	return ann, err
}

// oldestManager reads a managedFields list and returns the manager of its
// oldest entry of the object itself (RFC 3339 times in one format compare
// as strings; an entry without a time counts as oldest): the API server
// sorts the entries by operation before time, so the oldest is not always
// the first, and an entry of a subresource (a controller's status writes)
// never created the object. Nothing else of the entries is kept.
func (x *Extractor) oldestManager(s *scanner) (string, error) {
	var manager, oldest string
	found := false
	err := s.array(func(int) error {
		var m, t, sub string
		err := s.object(func(key []byte) error {
			var err error
			switch string(key) {
			case "manager":
				m, err = s.str()
			case "time":
				t, err = s.str()
			case "subresource":
				sub, err = s.str()
			default:
				return s.skip()
			}
			return err
		})
		if err == nil && m != "" && sub == "" && (!found || t < oldest) {
			manager, oldest, found = m, t, true
		}
		return err
	})
	if !found {
		return "", err
	}
	return x.in.str(manager), err
}

// annotation reads the annotation key's value into ann if it is one kgc
// looks at, and skips it otherwise.
func (x *Extractor) annotation(s *scanner, key string, ann *annotated) error {
	switch {
	case key == mirrorAnnotation:
		ann.mirror = true
	case key == provisionedByAnnotation:
		v, err := s.internStr(x.in)
		ann.provisionedBy = v
		return err
	case key == revisionAnnotation:
		// Interned: a handful of values ("1", "2", …) repeat.
		v, err := s.internStr(x.in)
		ann.revision = v
		return err
	case defaultClassAnnotations[key]:
		v, err := s.str()
		ann.defaultClass = ann.defaultClass || v == "true"
		return err
	case snapshot.IsKeepAnnotation(key):
		v, err := s.str()
		if m := snapshot.KeepMarker(key, v); m != "" && err == nil {
			ann.keep = joinMarks(ann.keep, m)
		}
		return err
	}
	return s.skip()
}

func joinMarks(a, b string) string {
	if a == "" {
		return b
	}
	return a + ", " + b
}

func (x *Extractor) timep(s *scanner) (*time.Time, error) {
	b, esc, err := s.strBytes()
	if err != nil || b == nil {
		return nil, err
	}
	if last := &x.lastTime; last.t != nil && !esc && bytes.Equal(b, last.raw) {
		return last.t, nil
	}
	t, ok, err := parseTime(b, esc)
	if !ok || err != nil {
		return nil, err
	}
	p := x.times.put(t)
	if !esc {
		x.lastTime.raw, x.lastTime.t = append(x.lastTime.raw[:0], b...), p
	}
	return p, nil
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
	if x.lastLabels.m != nil && bytes.Equal(raw, x.lastLabels.raw) {
		return x.lastLabels.m, nil
	}
	if same, ok := x.labels.m[string(raw)]; ok {
		x.rememberLabels(raw, same)
		return same, nil
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
	x.labels.put(string(raw), m)
	x.rememberLabels(raw, m)
	return m, nil
}

func (x *Extractor) rememberLabels(raw []byte, m map[string]string) {
	x.lastLabels.raw, x.lastLabels.m = append(x.lastLabels.raw[:0], raw...), m
}

func (x *Extractor) ownerRef(s *scanner) (snapshot.OwnerReference, error) {
	var r snapshot.OwnerReference
	err := s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "apiVersion":
			r.APIVersion, err = s.internRecent(x.in, &x.recent.ownerAPIVersion)
		case "kind":
			r.Kind, err = s.internRecent(x.in, &x.recent.ownerKind)
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
