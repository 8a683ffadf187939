package snapshotio

import (
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// This file reads a pod's and a service's spec and status down to their
// facts, by hand: a big dump is mostly pods.

func (x *Extractor) podSpec(raw []byte, podName string, p *snapshot.PodFacts) error {
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
					case "csi":
						if s.isNull() {
							break
						}
						err = s.object(func(k2 []byte) error {
							if string(k2) != "driver" {
								return s.skip()
							}
							d, err := s.internStr(x.in)
							if d != "" {
								p.CSIDrivers = append(p.CSIDrivers, d)
							}
							return err
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

func (x *Extractor) podStatus(raw []byte, p *snapshot.PodFacts) error {
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

func (x *Extractor) serviceSpec(raw []byte, sv *snapshot.ServiceFacts) error {
	if raw == nil {
		return nil
	}
	s := scanner{d: raw}
	return s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "type":
			sv.Type, err = s.internStr(x.in)
		case "selector":
			has := !s.isNull()
			sv.Selector = &has
			if has {
				err = s.skip()
			}
		case "loadBalancerClass":
			sv.LoadBalancerClass, err = s.internStr(x.in)
		default:
			err = s.skip()
		}
		return err
	})
}
