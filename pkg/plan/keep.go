package plan

// markKept copies each listed object's keep markers into the plan: the
// garbage collector deletes an object that Helm, Argo CD or Flux were
// asked to keep, and whoever reviews the plan should see that.
func markKept(p *Plan, s *sim) {
	for k := range p.Objects {
		of := &p.Objects[k]
		i, ok := s.st.index(of.Object.UID)
		if !ok {
			continue
		}
		if f := s.st.orig[i].Facts; f != nil {
			of.Keep = f.Keep
		}
	}
}

// KeptAndDeleted lists the objects the plan may delete (an alternative
// outcome included) although they carry a keep marker.
func (p *Plan) KeptAndDeleted() []ObjectFate {
	var out []ObjectFate
	for _, of := range p.Objects {
		if of.Keep != "" && of.MayBeDeleted() {
			out = append(out, of)
		}
	}
	return out
}

// MayBe reports whether the object's fate, or one of its alternatives',
// is fate.
func (of ObjectFate) MayBe(fate string) bool {
	if of.Fate == fate {
		return true
	}
	for _, a := range of.Alternatives {
		if a.Fate == fate {
			return true
		}
	}
	return false
}

// MayBeDeleted reports whether the object may be deleted, in any outcome:
// deleted, or deleted and recreated by its controller (the replacement is
// a new object).
func (of ObjectFate) MayBeDeleted() bool { return of.MayBe(FateDeleted) || of.MayBe(FateRecreated) }
