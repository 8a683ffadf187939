package snapshot

import (
	"strings"
	"testing"
)

func testCatalog() *Catalog {
	res := BuiltinResources()
	widgets, _ := CRDResource(&CRDFacts{Group: "example.com", Kind: "Widget", Plural: "widgets", Singular: "widget", ShortNames: []string{"wd"}, Scope: "Namespaced",
		Versions: []CRDVersion{{Name: "v1beta1", Served: true}, {Name: "v1", Served: true, Storage: true}}})
	gizmos, _ := CRDResource(&CRDFacts{Group: "other.io", Kind: "Widget", Plural: "widgets", Scope: "Cluster", Versions: []CRDVersion{{Name: "v2", Served: true, Storage: true}}})
	cronTabs, _ := CRDResource(&CRDFacts{Group: "stable.example.com", Kind: "CronTab", Plural: "crontabs", Scope: "Namespaced", Versions: []CRDVersion{{Name: "v1", Served: true, Storage: true}}})
	return NewCatalog(append(res, widgets, gizmos, cronTabs))
}

func TestResolve(t *testing.T) {
	cat := testCatalog()
	tests := []struct {
		arg, want string
	}{
		{"deploy", "deployments.apps"},
		{"deployment", "deployments.apps"},
		{"deployments", "deployments.apps"},
		{"Deployment", "deployments.apps"},
		{"deployment.apps", "deployments.apps"},
		{"deployments.apps", "deployments.apps"},
		{"deployments.v1.apps", "deployments.apps"},
		{"ns", "namespaces"},
		{"po", "pods"},
		{"svc", "services"},
		{"pvc", "persistentvolumeclaims"},
		{"crd", "customresourcedefinitions.apiextensions.k8s.io"},
		{"crds", "customresourcedefinitions.apiextensions.k8s.io"},
		{"hpa", "horizontalpodautoscalers.autoscaling"},
		{"horizontalpodautoscalers.v1.autoscaling", "horizontalpodautoscalers.autoscaling"},
		{"pc", "priorityclasses.scheduling.k8s.io"},
		{"cj", "cronjobs.batch"},
		// core wins over events.k8s.io, as kubectl's priority mapper decides.
		{"events", "events"},
		{"ev", "events"},
		{"events.events.k8s.io", "events.events.k8s.io"},
		{"widgets.example.com", "widgets.example.com"},
		{"widget.example.com", "widgets.example.com"},
		{"widgets.v1beta1.example.com", "widgets.example.com"},
		{"wd", "widgets.example.com"},
		{"crontab", "crontabs.stable.example.com"},
		{"CronTab", "crontabs.stable.example.com"},
	}
	for _, tt := range tests {
		r, err := cat.Resolve(tt.arg)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.arg, err)
			continue
		}
		if r.QualifiedName() != tt.want {
			t.Errorf("Resolve(%q) = %s, want %s", tt.arg, r.QualifiedName(), tt.want)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	cat := testCatalog()
	tests := []struct{ arg, want string }{
		{"widgets", `resource type "widgets" is ambiguous: it matches widgets.example.com, widgets.other.io; qualify it with the group`},
		{"deplyoments", `unknown resource type "deplyoments": did you mean deployments.apps?`},
		{"widgets.v3.example.com", `unknown resource type "widgets.v3.example.com": did you mean widgets.example.com, widgets.other.io?`},
		{"", "empty resource type: give one such as deployments or pods"},
	}
	for _, tt := range tests {
		_, err := cat.Resolve(tt.arg)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Resolve(%q) error = %v\nwant %s", tt.arg, err, tt.want)
		}
	}
	_, err := cat.Resolve("zzzzzzzzzz")
	if err == nil || !strings.Contains(err.Error(), "the known types are ") || !strings.Contains(err.Error(), "deployments.apps") {
		t.Errorf("unknown type without suggestion should list the known types: %v", err)
	}
}

func TestForAPIVersionKind(t *testing.T) {
	cat := testCatalog()
	tests := []struct {
		apiVersion, kind string
		ok               bool
	}{
		{"apps/v1", "Deployment", true},
		{"apps/v1beta1", "Deployment", false}, // no longer served: the GC's RESTMapping fails
		{"extensions/v1beta1", "Deployment", false},
		{"v1", "Pod", true},
		{"v1", "Deployment", false},
		{"autoscaling/v1", "HorizontalPodAutoscaler", true},
		{"autoscaling/v2", "HorizontalPodAutoscaler", true},
		{"example.com/v1beta1", "Widget", true},
		{"example.com/v1", "Widget", true},
		{"example.com/v2", "Widget", false},
		{"a/b/c", "Widget", false},
		{"", "Pod", false},
	}
	for _, tt := range tests {
		if _, ok := cat.ForAPIVersionKind(tt.apiVersion, tt.kind); ok != tt.ok {
			t.Errorf("ForAPIVersionKind(%q, %q) ok = %v, want %v", tt.apiVersion, tt.kind, ok, tt.ok)
		}
	}
	if r, ok := cat.ForGroupKind("example.com", "Widget"); !ok || r.Version != "v1" || !r.Namespaced {
		t.Errorf("CRD preferred version = %+v, want v1 (kube-aware order beats listing order)", r)
	}
}

func TestBuiltinTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range BuiltinResources() {
		q := r.QualifiedName()
		if seen[q] {
			t.Errorf("%s listed twice", q)
		}
		seen[q] = true
		if r.Kind == "" || r.Version == "" || len(r.Verbs) == 0 {
			t.Errorf("%s incomplete: %+v", q, r)
		}
	}
	// The garbage collector monitors types with delete, list and watch.
	for _, q := range []string{"pods", "events", "deployments.apps", "customresourcedefinitions.apiextensions.k8s.io", "leases.coordination.k8s.io", "resourceclaims.resource.k8s.io"} {
		r, err := NewCatalog(BuiltinResources()).Resolve(q)
		if err != nil || !r.HasVerb("delete") || !r.HasVerb("list") || !r.HasVerb("watch") {
			t.Errorf("%s: %v %+v", q, err, r.Verbs)
		}
	}
	ns, _ := NewCatalog(BuiltinResources()).Resolve("ns")
	if ns.Namespaced || ns.HasVerb("deletecollection") {
		t.Errorf("namespaces: %+v", ns)
	}
}

// TestForGroupResourceAndAdd: a type is found by how an audit event names
// it, and one added later (a custom resource the log shows) is found by
// resource and names its kind, without writing into the list the catalog
// was made from.
func TestForGroupResourceAndAdd(t *testing.T) {
	res := BuiltinResources()
	cat := NewCatalog(res[: len(res)-1 : len(res)])
	if r, ok := cat.ForGroupResource("apps", "deployments"); !ok || r.Kind != "Deployment" {
		t.Fatalf("ForGroupResource(apps, deployments) = %+v, %v; want Deployment", r, ok)
	}
	if _, ok := cat.ForGroupResource("example.com", "widgets"); ok {
		t.Fatal("ForGroupResource found a type no entry lists")
	}
	last := res[len(res)-1]
	cat.Add(Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget"})
	if r, ok := cat.ForGroupResource("example.com", "widgets"); !ok || r.Kind != "Widget" || r.Version != "v1" {
		t.Errorf("after Add, ForGroupResource(example.com, widgets) = %+v, %v; want Widget v1", r, ok)
	}
	if r, ok := cat.ForGroupKind("example.com", "Widget"); !ok || r.Resource != "widgets" {
		t.Errorf("after Add, ForGroupKind(example.com, Widget) = %+v, %v; want widgets", r, ok)
	}
	if res[len(res)-1].Resource != last.Resource {
		t.Errorf("Add wrote into the caller's list: its last entry is now %s, was %s", res[len(res)-1].Resource, last.Resource)
	}
}
