package capture

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// checkReadable fails a capture that read nothing of what was asked. A
// snapshot of nothing would answer "no objects", "no terminating objects"
// or "not found" about a namespace kgc was never allowed to see: a false
// all-clear. What was asked is the namespaces given, or, when none is,
// the namespaced types at cluster scope; either way a capture that read
// no object at all fails too.
func checkReadable(res []snapshot.Resource, results []listResult, asked []string, host string) error {
	covered, cluster, refusal := coverage(res, results)
	switch {
	case len(asked) > 0 && !cluster && !coversAny(covered, asked):
		return fmt.Errorf("cannot read %s: %w; use credentials allowed to list there (kubectl auth can-i list pods -n %s), or read a dump with -f",
			namespaceList(asked), refusal, asked[0])
	case len(asked) == 0 && !cluster:
		return fmt.Errorf("cannot list objects at cluster scope: %w; name a namespace you can read with -n, or read a dump with -f", refusal)
	}
	for _, r := range results {
		if len(r.objs) > 0 {
			return nil
		}
	}
	return fmt.Errorf("the capture of the cluster at %s read no objects (%w): an empty answer would not be the cluster's; check the credentials, or read a dump with -f", host, refusal)
}

// coverage tells where namespaced objects could be read: the namespaces
// some namespaced type was listed in, whether one was listed at cluster
// scope, and the refusal to quote when none was (the pods', which users
// know best, else the first).
func coverage(res []snapshot.Resource, results []listResult) (covered map[string]bool, cluster bool, refusal error) {
	covered = map[string]bool{}
	for i, r := range results {
		if !res[i].Namespaced || !res[i].HasVerb("list") {
			continue
		}
		if r.listed && len(r.namespaces) == 0 {
			cluster = true
		}
		for _, ns := range r.namespaces {
			covered[ns] = true
		}
		if !r.listed && r.err != nil && (refusal == nil || res[i].Group == "" && res[i].Resource == "pods") {
			refusal = r.err
		}
	}
	if refusal == nil {
		// Every list succeeded: what there is to say is that they were empty.
		refusal = errors.New("every list came back empty")
	}
	return covered, cluster, refusal
}

func coversAny(covered map[string]bool, namespaces []string) bool {
	for _, ns := range namespaces {
		if covered[ns] {
			return true
		}
	}
	return false
}

// namespaceList names namespaces in messages: namespace "a", namespaces "a", "b".
func namespaceList(ns []string) string {
	quoted := make([]string, len(ns))
	for i, n := range ns {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	if len(ns) == 1 {
		return "namespace " + quoted[0]
	}
	return "namespaces " + strings.Join(quoted, ", ")
}
