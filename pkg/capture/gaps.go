package capture

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// This file sums up what RBAC kept a live capture from reading. A user
// bound in one namespace may not list some 60 types at cluster scope: a
// line each would bury the answer, and most of them do not matter to it.

// rbacGaps is what RBAC refused a capture.
type rbacGaps struct {
	user string
	// unread are the types not read at all; partial, those read in some
	// namespaces only (snapshot.Resource.Namespaces).
	unread, partial []snapshot.Resource
	namespaces      []string // where the partial types were read
}

func findRBACGaps(snap *snapshot.Snapshot) rbacGaps {
	var g rbacGaps
	for _, r := range snap.Resources {
		if !r.Forbidden() {
			continue
		}
		if g.user == "" {
			g.user = refusedUser(r.Error)
		}
		if r.Listed {
			g.partial = append(g.partial, r)
			for _, ns := range r.Namespaces {
				if !slices.Contains(g.namespaces, ns) {
					g.namespaces = append(g.namespaces, ns)
				}
			}
		} else {
			g.unread = append(g.unread, r)
		}
	}
	slices.Sort(g.namespaces)
	byName := func(a, b snapshot.Resource) int { return strings.Compare(a.QualifiedName(), b.QualifiedName()) }
	slices.SortFunc(g.unread, byName)
	slices.SortFunc(g.partial, byName)
	return g
}

// refusedUser finds the user a 403 names ("User \"bob\" cannot list …").
func refusedUser(msg string) string {
	m := regexp.MustCompile(`User "([^"]*)"`).FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	return m[1]
}

// RBACWarnings words what RBAC kept a live capture from reading: one
// line, or with verbosity 1 and up (-v), the line and then every type with
// the API server's refusal. nil when nothing was refused.
func RBACWarnings(snap *snapshot.Snapshot, verbosity int) []string {
	g := findRBACGaps(snap)
	n := len(g.unread) + len(g.partial)
	if n == 0 {
		return nil
	}
	who := "kgc"
	if g.user != "" {
		who = fmt.Sprintf("User %q", g.user)
	}
	line := fmt.Sprintf("RBAC kept %s from listing %s at cluster scope%s", who, words.Count(n, "type"), g.readWhere())
	if len(g.unread) > 0 {
		line += "; " + g.mattering(snap)
	}
	if verbosity < 1 {
		if n > 3 {
			line += "; -v=1 lists them"
		}
		return []string{line}
	}
	out := []string{line}
	for _, r := range g.unread {
		out = append(out, fmt.Sprintf("  not read: %s: %s", r.QualifiedName(), r.Error))
	}
	for _, r := range g.partial {
		out = append(out, fmt.Sprintf("  read in %s only: %s: %s", strings.Join(r.Namespaces, ", "), r.QualifiedName(), r.Error))
	}
	return out
}

// readWhere says what became of the types refused: ": secrets" when
// there are few, else how many were read in the namespaces asked about
// and how many not at all.
func (g rbacGaps) readWhere() string {
	if len(g.partial) == 0 {
		if len(g.unread) > 3 {
			return ""
		}
		var names []string
		for _, r := range g.unread {
			names = append(names, r.QualifiedName())
		}
		return ": " + strings.Join(names, ", ")
	}
	s := fmt.Sprintf(": %d read in %s only", len(g.partial), namespaceList(g.namespaces))
	if len(g.unread) > 0 {
		s += fmt.Sprintf(", %d not at all", len(g.unread))
	}
	return s
}

// mattering names the unread types the objects read depend on: owner
// kinds they reference, the nodes their pods run on, the volumes their
// claims are bound to. What those objects do depends on what kgc could
// not see; the other gaps do not touch the answer.
func (g rbacGaps) mattering(snap *snapshot.Snapshot) string {
	uses := dependencies(snap)
	var named []string
	for _, r := range g.unread {
		if u := uses[r.Group+"/"+r.Kind]; u != nil {
			named = append(named, r.QualifiedName()+" ("+u.word(u.n)+")")
		}
	}
	if len(named) > 0 {
		return "what depends on these is unknown: " + strings.Join(named, ", ")
	}
	if len(g.unread) == 1 {
		return "no object read depends on it"
	}
	return "no object read depends on those not read"
}

// dependency is how often, and how, the objects read depend on a type.
type dependency struct {
	n    int
	word func(n int) string
}

// dependencies maps group/kind to how the objects read depend on it.
func dependencies(snap *snapshot.Snapshot) map[string]*dependency {
	out := map[string]*dependency{}
	note := func(group, kind string, word func(int) string) {
		k := group + "/" + kind
		if out[k] == nil {
			out[k] = &dependency{word: word}
		}
		out[k].n++
	}
	owners := func(n int) string { return "owner in " + words.Count(n, "reference") }
	nodes := func(n int) string { return words.Count(n, "pod") + " read run on them" }
	volumes := func(n int) string { return words.Count(n, "claim") + " read bound to them" }
	for i := range snap.Objects {
		o := &snap.Objects[i]
		for _, ref := range o.Metadata.OwnerReferences {
			note(snapshot.GroupOf(ref.APIVersion), ref.Kind, owners)
		}
		if f := o.Facts; f != nil && f.Pod != nil && f.Pod.NodeName != "" {
			note("", "Node", nodes)
		}
		if f := o.Facts; f != nil && f.PVC != nil && f.PVC.VolumeName != "" {
			note("", "PersistentVolume", volumes)
		}
	}
	return out
}
