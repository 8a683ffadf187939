package snapshotio

import (
	"errors"
	"math"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// errSlowPath says the facts of a snapshot file are not in the one shape
// kgc writes them in for pods, services and workloads, so encoding/json
// reads them.
var errSlowPath = errors.New("not the common facts shape")

// commonFacts reads the facts kgc writes most often, a pod's, a service's
// or a workload's, with the scanner instead of encoding/json (a third of
// a big snapshot's objects are pods, another third ReplicaSets). It reads only the exact shape kgc writes:
// known keys, non-null values, non-empty lists. Anything else (a field
// added since, null, another kind) reports false, and encoding/json reads
// it as before, so both paths give the same Facts.
func (x *Extractor) commonFacts(raw []byte) (*snapshot.Facts, bool) {
	var f snapshot.Facts
	s := newScanner(raw)
	err := s.object(func(key []byte) error {
		if s.Null() || f.Pod != nil || f.Service != nil || f.Workload != nil {
			return errSlowPath
		}
		switch string(key) {
		case "pod":
			f.Pod = &snapshot.PodFacts{}
			return x.savedPodFacts(&s, f.Pod)
		case "service":
			f.Service = &snapshot.ServiceFacts{}
			return x.savedServiceFacts(&s, f.Service)
		case "workload":
			f.Workload = &snapshot.WorkloadFacts{}
			return x.savedWorkloadFacts(&s, f.Workload)
		}
		return errSlowPath
	})
	return &f, err == nil && s.Pos == len(raw)
}

func (x *Extractor) savedPodFacts(s *scanner, p *snapshot.PodFacts) error {
	return s.object(func(key []byte) error {
		if s.Null() {
			return errSlowPath
		}
		var err error
		switch string(key) {
		case "nodeName":
			p.NodeName, err = s.internStr(x.in)
		case "phase":
			p.Phase, err = s.internStr(x.in)
		case "terminationGracePeriodSeconds":
			p.TerminationGracePeriodSeconds, err = s.int64p()
		case "claims":
			p.Claims, err = nonEmptyList(s, x)
		case "ephemeralClaims":
			p.EphemeralClaims, err = nonEmptyList(s, x)
		case "csiDrivers":
			p.CSIDrivers, err = nonEmptyList(s, x)
		case "mirror":
			var b *bool
			b, err = s.boolp()
			p.Mirror = b != nil && *b
		default:
			err = errSlowPath
		}
		return err
	})
}

func (x *Extractor) savedServiceFacts(s *scanner, sv *snapshot.ServiceFacts) error {
	return s.object(func(key []byte) error {
		if s.Null() {
			return errSlowPath
		}
		var err error
		switch string(key) {
		case "type":
			sv.Type, err = s.internStr(x.in)
		case "loadBalancerClass":
			sv.LoadBalancerClass, err = s.internStr(x.in)
		case "selector":
			sv.Selector, err = s.boolp()
		default:
			err = errSlowPath
		}
		return err
	})
}

// savedWorkloadFacts reads the common fields of a workload's facts as kgc
// writes them; a DaemonSet's scheduling fields, rare, go the slow path.
func (x *Extractor) savedWorkloadFacts(s *scanner, w *snapshot.WorkloadFacts) error {
	return s.object(func(key []byte) error {
		if s.Null() {
			return errSlowPath
		}
		var err error
		switch string(key) {
		case "replicas":
			w.Replicas, err = int32p(s)
		case "ordinalsStart":
			var v *int32
			if v, err = int32p(s); err == nil {
				w.OrdinalsStart = *v
			}
		case "paused":
			err = boolInto(s, &w.Paused)
		case "suspend":
			err = boolInto(s, &w.Suspend)
		case "selectorMatchesTemplate":
			err = boolInto(s, &w.SelectorMatchesTemplate)
		case "nodeAffinity":
			err = boolInto(s, &w.NodeAffinity)
		case "revision":
			w.Revision, err = s.internStr(x.in)
		case "serviceAccount":
			w.ServiceAccount, err = s.internStr(x.in)
		case "available":
			w.Available, err = int32p(s)
		default:
			err = errSlowPath
		}
		return err
	})
}

// int32p reads an int32; a value out of its range is left to
// encoding/json, whose error the slow path reports.
func int32p(s *scanner) (*int32, error) {
	v, err := s.int64p()
	if err != nil {
		return nil, err
	}
	if *v < math.MinInt32 || *v > math.MaxInt32 {
		return nil, errSlowPath
	}
	n := int32(*v)
	return &n, nil
}

func boolInto(s *scanner, dst *bool) error {
	b, err := s.boolp()
	if err == nil {
		*dst = *b
	}
	return err
}

// nonEmptyList reads a list of strings; an empty one, which
// encoding/json would make an empty slice rather than nil, is left to it.
func nonEmptyList(s *scanner, x *Extractor) ([]string, error) {
	l, err := s.stringList(x.in)
	if err == nil && len(l) == 0 {
		err = errSlowPath
	}
	return l, err
}
