package main

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// splitObjectArgs splits a command line's objects as kubectl delete and get
// take them: TYPE/NAME..., or TYPE NAME..., each group in the form Resolve
// takes. Mixing the two forms is refused, as kubectl refuses it.
func splitObjectArgs(args []string) ([][]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	slashed := 0
	for _, a := range args {
		if strings.Contains(a, "/") {
			slashed++
		}
	}
	var out [][]string
	switch {
	case slashed == len(args):
		for _, a := range args {
			out = append(out, []string{a})
		}
	case slashed == 0 && len(args) >= 2:
		for _, name := range args[1:] {
			out = append(out, []string{args[0], name})
		}
	default:
		return nil, usageErrorf("give objects as TYPE/NAME ... or TYPE NAME ..., not both, got %q", strings.Join(args, " "))
	}
	return out, nil
}

// selectObjects returns the UIDs of the objects whose labels match
// selector (kubectl's -l syntax), in namespace unless all, in snapshot
// order.
func selectObjects(snap *snapshot.Snapshot, selector, namespace string, all bool) ([]string, error) {
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, usageErrorf("-l %q: %v", selector, err)
	}
	var uids []string
	for i := range snap.Objects {
		o := &snap.Objects[i]
		if !all && namespace != "" && o.Metadata.Namespace != namespace {
			continue
		}
		if sel.Matches(labels.Set(o.Metadata.Labels)) && !slices.Contains(uids, o.Metadata.UID) {
			uids = append(uids, o.Metadata.UID)
		}
	}
	return uids, nil
}

// selectorScope words where -l looked, for "nothing found" lines.
func selectorScope(selector, namespace string, all bool) string {
	s := fmt.Sprintf("matching -l %s", selector)
	if !all && namespace != "" {
		s += " in namespace " + namespace
	}
	return s
}

// countTrue counts the conditions that hold, for flags that exclude each
// other.
func countTrue(conds ...bool) int {
	n := 0
	for _, c := range conds {
		if c {
			n++
		}
	}
	return n
}
