package snapshot

import (
	"slices"
	"strings"
)

// Namespaces returns the namespaces the snapshot shows, sorted: the names
// of its Namespace objects and the namespaces its objects live in.
func (s *Snapshot) Namespaces() []string {
	seen := map[string]bool{}
	for i := range s.Objects {
		o := &s.Objects[i]
		if o.Metadata.Namespace != "" {
			seen[o.Metadata.Namespace] = true
		} else if o.Kind == "Namespace" && GroupOf(o.APIVersion) == "" {
			seen[o.Metadata.Name] = true
		}
	}
	out := make([]string, 0, len(seen))
	for ns := range seen {
		out = append(out, ns)
	}
	slices.Sort(out)
	return out
}

// NamespaceAbsent reports whether the snapshot shows that namespace ns is
// not there: no Namespace of that name and no object in it, where the
// snapshot would show them. A dump shows what it holds, so a namespace it
// holds nothing of is absent from it. A live capture shows a namespace's
// absence only where it read the namespaces (all of them, or ns by name);
// otherwise, say for a user who may not list them, whether ns exists is
// unknown and NamespaceAbsent is false.
func (s *Snapshot) NamespaceAbsent(ns string) bool {
	if slices.Contains(s.Namespaces(), ns) {
		return false
	}
	if s.Source.Type == "files" {
		return true
	}
	r, ok := s.Catalog().ForGroupKind("", "Namespace")
	return ok && r.Covers(ns)
}

// Similar returns the candidates close to name, for "did you mean": at
// most two edits away, or starting with it (three letters at least), in
// the order given.
func Similar(name string, candidates []string) []string {
	var out []string
	for _, c := range candidates {
		if c != name && (editDistance(name, c) <= 2 || len(name) >= 3 && strings.HasPrefix(c, name)) {
			out = append(out, c)
		}
	}
	return out
}
