package snapshot

import "errors"

// errSlowPath says the facts of a snapshot file are not in the one shape
// kgc writes them in for pods and services, so encoding/json reads them.
var errSlowPath = errors.New("not the common facts shape")

// commonFacts reads the facts kgc writes most often, a pod's or a
// service's, with the scanner instead of encoding/json (a third of a big
// snapshot's objects are pods). It reads only the exact shape kgc writes:
// known keys, non-null values, non-empty lists. Anything else (a field
// added since, null, another kind) reports false, and encoding/json reads
// it as before, so both paths give the same Facts.
func (x *Extractor) commonFacts(raw []byte) (*Facts, bool) {
	var f Facts
	s := scanner{d: raw}
	err := s.object(func(key []byte) error {
		if s.isNull() || f.Pod != nil || f.Service != nil {
			return errSlowPath
		}
		switch string(key) {
		case "pod":
			f.Pod = &PodFacts{}
			return x.podFacts(&s, f.Pod)
		case "service":
			f.Service = &ServiceFacts{}
			return x.serviceFacts(&s, f.Service)
		}
		return errSlowPath
	})
	return &f, err == nil && s.i == len(raw)
}

func (x *Extractor) podFacts(s *scanner, p *PodFacts) error {
	return s.object(func(key []byte) error {
		if s.isNull() {
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

func (x *Extractor) serviceFacts(s *scanner, sv *ServiceFacts) error {
	return s.object(func(key []byte) error {
		if s.isNull() {
			return errSlowPath
		}
		var err error
		switch string(key) {
		case "type":
			sv.Type, err = s.internStr(x.in)
		case "loadBalancerClass":
			sv.LoadBalancerClass, err = s.internStr(x.in)
		default:
			err = errSlowPath
		}
		return err
	})
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
