// Command genexample writes examples/cluster.yaml, the dump kgc's examples,
// documentation and tests use: a small cluster as `kubectl get -A -o yaml`
// prints it, seeded with the garbage-collection hazards kgc exists to find.
//
//	go run ./hack/genexample > examples/cluster.yaml
//
// Everything is derived from names and fixed timestamps, so the output is
// the same byte for byte on every run; TestCommittedExampleIsUpToDate fails
// when the committed file and the generator drift apart.
package main

import (
	"fmt"
	"os"
	"sort"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kgc-dev/kgc/pkg/snapshotio"
)

func main() {
	out, err := generate()
	if err != nil {
		fmt.Fprintf(os.Stderr, "genexample: %v\n", err)
		os.Exit(1)
	}
	if _, err := os.Stdout.Write(out); err != nil {
		fmt.Fprintf(os.Stderr, "genexample: writing the dump: %v\n", err)
		os.Exit(1)
	}
}

// item is one object of the dump with what kubectl sorts it by.
type item struct {
	resource  string // plural resource name with group, e.g. "deployments.apps"
	namespace string
	name      string
	obj       any
}

// resourceOrder is the order kubectl prints types in when asked for
// `kubectl get $(kubectl api-resources --verbs=list -o name | paste -sd,)`:
// the order api-resources lists them, core group first.
var resourceOrder = []string{
	"configmaps",
	"endpoints",
	"namespaces",
	"nodes",
	"persistentvolumeclaims",
	"persistentvolumes",
	"pods",
	"secrets",
	"serviceaccounts",
	"services",
	"customresourcedefinitions.apiextensions.k8s.io",
	"controllerrevisions.apps",
	"daemonsets.apps",
	"deployments.apps",
	"replicasets.apps",
	"statefulsets.apps",
	"jobs.batch",
	"endpointslices.discovery.k8s.io",
	"backups.example.com",
	"widgets.example.com",
	"clusterrolebindings.rbac.authorization.k8s.io",
	"clusterroles.rbac.authorization.k8s.io",
	"storageclasses.storage.k8s.io",
}

// generate renders the whole dump.
func generate() ([]byte, error) {
	items := clusterObjects()
	rank := make(map[string]int, len(resourceOrder))
	for i, r := range resourceOrder {
		rank[r] = i
	}
	for _, it := range items {
		if _, ok := rank[it.resource]; !ok {
			return nil, fmt.Errorf("resource %q of %s/%s is missing from resourceOrder", it.resource, it.namespace, it.name)
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.resource != b.resource {
			return rank[a.resource] < rank[b.resource]
		}
		if a.namespace != b.namespace {
			return a.namespace < b.namespace
		}
		return a.name < b.name
	})
	objs := make([]any, len(items))
	for i, it := range items {
		objs[i] = it.obj
	}
	// The same shape kubectl prints for several types at once: a v1 List
	// with an empty list resourceVersion. sigs.k8s.io/yaml goes through
	// JSON exactly as kubectl's YAML printer does, so keys are sorted the
	// same way. capturedAt is kgc's addition (kubectl does not write it):
	// it pins the dump's ages, which would otherwise count from the file's
	// modification time, to the moment the objects are dated from, so every
	// clone reproduces the documented output.
	list := map[string]any{
		"apiVersion":               "v1",
		"kind":                     "List",
		snapshotio.CapturedAtField: dumpTime.Format(time.RFC3339),
		"items":                    objs,
		"metadata":                 map[string]any{"resourceVersion": ""},
	}
	return yaml.Marshal(list)
}

// clusterObjects is the content of the example cluster.
func clusterObjects() []item {
	var items []item
	items = append(items, clusterScoped()...)
	items = append(items, kubeSystem()...)
	items = append(items, defaultNamespace()...)
	items = append(items, shop()...)
	items = append(items, ops()...)
	items = append(items, legacy()...)
	items = append(items, archive()...)
	return items
}
