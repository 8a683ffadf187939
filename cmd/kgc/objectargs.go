package main

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kgc-dev/kgc/internal/words"
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

// checkSelection checks how a command's objects are chosen, as kubectl
// takes them: TYPE/NAME..., TYPE NAME..., --uid (uid says it was given), or
// -l SELECTOR, optionally after TYPE or TYPE1,TYPE2 to select among those
// types only.
func checkSelection(args []string, uid bool, selector string) error {
	if countTrue(len(args) > 0 && selector == "", uid, selector != "") > 1 ||
		(uid && len(args) > 0) {
		return usageErrorf("give the objects as TYPE/NAME, with --uid or with -l, one of them")
	}
	if selector != "" {
		_, err := selectorTypes(args, selector)
		return err
	}
	_, err := splitObjectArgs(args)
	return err
}

// selectorTypes are the types -l selects among: kubectl's TYPE -l SELECTOR
// and TYPE1,TYPE2 -l SELECTOR; none given means every type.
func selectorTypes(args []string, selector string) ([]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	if len(args) > 1 || strings.Contains(args[0], "/") {
		return nil, usageErrorf("names cannot be given with -l, which selects the objects: give TYPE or TYPE1,TYPE2 before it (as in kubectl get configmaps,secrets -l %s), or the objects by name without -l; got %q", selector, strings.Join(args, " "))
	}
	types := strings.Split(args[0], ",")
	if slices.Contains(types, "") {
		return nil, usageErrorf("%q names an empty type: give TYPE or TYPE1,TYPE2 with -l", args[0])
	}
	return types, nil
}

// selectObjects returns the UIDs of the objects whose labels match
// selector (kubectl's -l syntax), of the types args name (TYPE or
// TYPE1,TYPE2; none: every type), in namespace unless all, in snapshot
// order.
func selectObjects(snap *snapshot.Snapshot, selector string, args []string, namespace string, all bool) ([]string, error) {
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, usageErrorf("-l %q: %v", selector, err)
	}
	types, err := selectorTypes(args, selector)
	if err != nil {
		return nil, err
	}
	kinds := map[schema.GroupKind]bool{}
	for _, t := range types {
		r, err := snap.Catalog().Resolve(t)
		if err != nil {
			return nil, err
		}
		kinds[schema.GroupKind{Group: r.Group, Kind: r.Kind}] = true
	}
	var uids []string
	for i := range snap.Objects {
		o := &snap.Objects[i]
		if !all && namespace != "" && o.Metadata.Namespace != namespace {
			continue
		}
		if len(kinds) > 0 && !kinds[schema.GroupKind{Group: apiGroup(o.APIVersion), Kind: o.Kind}] {
			continue
		}
		if sel.Matches(labels.Set(o.Metadata.Labels)) && !slices.Contains(uids, o.Metadata.UID) {
			uids = append(uids, o.Metadata.UID)
		}
	}
	return uids, nil
}

// selectorScope words where -l looked, for "nothing found" lines: the
// types given (args) and the namespace.
func selectorScope(selector string, args []string, namespace string, all bool) string {
	s := fmt.Sprintf("matching -l %s", selector)
	if len(args) > 0 {
		s = fmt.Sprintf("of %s %s %s", words.Agree(strings.Count(args[0], ",")+1, "type", "types"), args[0], s)
	}
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
