package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// This file is the namespaces a command asks about: which to read when
// the user may not list at cluster scope, and the error when the one
// asked about is not there.

// askedNamespaces are the namespaces a command asks about: its namespace
// (-n, or the context's) unless -A, and the NAME of a namespace given as
// TYPE/NAME (plan delete ns/team), each of several. A live capture reads these where RBAC
// forbids reading the whole cluster, as kubectl get -n does.
func askedNamespaces(namespace string, all bool, args []string) []string {
	var out []string
	if namespace != "" && !all {
		out = append(out, namespace)
	}
	// Several objects (ns/a ns/b, or ns a b) ask about each; args kgc
	// refuses later ask about none.
	groups, _ := splitObjectArgs(args)
	for _, g := range groups {
		if name := namespaceArg(g); name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// namespaceArg is NAME when args name a Namespace (ns/NAME, namespace
// NAME, …), resolved through the built-in types: the snapshot that would
// tell is what is being captured.
func namespaceArg(args []string) string {
	var typ, name string
	switch {
	case len(args) == 1:
		typ, name, _ = strings.Cut(args[0], "/")
	case len(args) == 2:
		typ, name = args[0], args[1]
	}
	if name == "" {
		return ""
	}
	r, err := snapshot.NewCatalog(snapshot.BuiltinResources()).Resolve(typ)
	if err != nil || r.Group != "" || r.Kind != "Namespace" {
		return ""
	}
	return name
}

// checkNamespace fails when the snapshot shows that namespace ns, which
// the user asked about, is not there: answering "no objects" or "no
// terminating objects" for a mistyped namespace would be a false
// all-clear. explicit says whether -n gave it (else the context did).
func checkNamespace(snap *snapshot.Snapshot, ns string, explicit bool) error {
	if ns == "" || !snap.NamespaceAbsent(ns) {
		return nil
	}
	what := fmt.Sprintf("namespace %q", ns)
	if !explicit {
		what += " (the kubeconfig context's namespace)"
	}
	msg := what + " does not exist " + where(snap)
	if snap.Source.Type == "files" {
		msg = fmt.Sprintf("%s is not in the input: no object %s lives in it", what, where(snap))
		if snap.Source.Namespace != "" && snap.Source.Namespace != ns {
			msg += fmt.Sprintf(" (it was captured with -n %s)", snap.Source.Namespace)
		}
	}
	if close := snapshot.Similar(ns, snap.Namespaces()); len(close) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", quoteAll(close))
	} else {
		msg += "; give an existing namespace with -n"
	}
	return fmt.Errorf("%s", msg)
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// elsewhere says how many objects like those a command found none of in
// namespace ns are outside it, and how to see them, as kubectl's "No
// resources found in default namespace." says where it looked: "3 in other
// namespaces (kgc why-stuck -A)", or "none elsewhere either". It says
// nothing of a snapshot captured in one namespace (-n), which cannot tell.
func elsewhere(snap *snapshot.Snapshot, ns string, like func(*snapshot.Object) bool, seeAll string) string {
	if snap.Source.Namespace != "" {
		return ""
	}
	// Where RBAC let kgc read some types in some namespaces only, what
	// was read elsewhere is a lower bound.
	partial := slices.ContainsFunc(snap.Resources, func(r snapshot.Resource) bool { return len(r.Namespaces) > 0 })
	other, global := 0, 0
	seen, namespaces := map[string]bool{}, map[string]bool{}
	for i := range snap.Objects {
		o := &snap.Objects[i]
		if seen[o.Metadata.UID] || !like(o) {
			continue
		}
		seen[o.Metadata.UID] = true
		switch o.Metadata.Namespace {
		case ns:
		case "":
			global++
		default:
			other++
			namespaces[o.Metadata.Namespace] = true
		}
	}
	var parts []string
	if other > 0 {
		parts = append(parts, fmt.Sprintf("%d in %s", other, words.Agree(len(namespaces), "another namespace", "other namespaces")))
	}
	if global > 0 {
		parts = append(parts, fmt.Sprintf("%d cluster-scoped", global))
	}
	switch {
	case len(parts) == 0 && partial:
		return ""
	case len(parts) == 0:
		return "none elsewhere either"
	case partial:
		return "at least " + strings.Join(parts, " and ") + " (" + seeAll + ")"
	}
	return strings.Join(parts, " and ") + " (" + seeAll + ")"
}
