package main

import (
	"fmt"
	"strings"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// assumeNamespace lets `kgc plan delete namespace/X` plan on a dump that
// holds X's objects but not the Namespace itself, as users often dump
// `kubectl get all,cm,secret -n X -o yaml`: it adds an active Namespace X
// to the snapshot and returns the warning that says so. It does nothing
// (and returns "") when the arguments do not name a Namespace, the input is
// live, the Namespace is there, or no object of the input lives in X.
func assumeNamespace(snap *snapshot.Snapshot, args []string) string {
	typ, name, ok := strings.Cut(strings.Join(args, "/"), "/")
	if !ok || snap.Source.Type == "live" {
		return ""
	}
	r, err := snap.Catalog().Resolve(typ)
	if err != nil || r.Group != "" || r.Kind != "Namespace" {
		return ""
	}
	held := 0
	for i := range snap.Objects {
		o := &snap.Objects[i]
		if o.Kind == "Namespace" && snapshot.GroupOf(o.APIVersion) == "" && o.Metadata.Name == name {
			return ""
		}
		if o.Metadata.Namespace == name {
			held++
		}
	}
	if held == 0 {
		return ""
	}
	snap.Objects = append(snap.Objects, snapshot.Object{APIVersion: "v1", Kind: "Namespace",
		Metadata: snapshot.ObjectMeta{Name: name, UID: "kgc-assumed-namespace-" + name},
		Facts:    &snapshot.Facts{Namespace: &snapshot.NamespaceFacts{Phase: "Active", SpecFinalizers: []string{rules.FinalizerNamespace}}}})
	return fmt.Sprintf("the input holds %d object(s) of namespace %s but not the Namespace itself: planning on an assumed active %s, whose own finalizers and conditions are unknown", held, name, snapshot.KubectlName("Namespace", "", name))
}
