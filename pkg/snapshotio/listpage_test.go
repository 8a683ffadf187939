package snapshotio

import (
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// A list page is typed by the list it answers, keeps the facts of the
// kinds that have them, and says where the next page starts.
func TestReadListPage(t *testing.T) {
	body := `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"next-2"},"items":[
		{"metadata":{"name":"web-1","namespace":"shop","uid":"p1","annotations":{"secret":"hunter2"}},"spec":{"nodeName":"node-a"},"status":{"phase":"Running"}},
		{"apiVersion":"wrong/v9","kind":"Wrong","metadata":{"name":"web-2","namespace":"shop","uid":"p2"}}]}`
	objs, cont, err := NewExtractor().ReadListPage([]byte(body), "v1", "Pod")
	if err != nil {
		t.Fatal(err)
	}
	if cont != "next-2" {
		t.Errorf("continue = %q, want next-2", cont)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.APIVersion+" "+o.Ref().String())
	}
	if strings.Join(got, "; ") != "v1 Pod/web-1 -n shop; v1 Pod/web-2 -n shop" {
		t.Errorf("objects = %s", strings.Join(got, "; "))
	}
	if f := objs[0].Facts; f == nil || f.Pod == nil || f.Pod.NodeName != "node-a" || f.Pod.Phase != "Running" {
		t.Errorf("pod facts = %+v", objs[0].Facts)
	}

	_, _, err = NewExtractor().ReadListPage([]byte(`{"items":[{"metadata":{"name":"web-1","uid":7}}]}`), "v1", "Pod")
	if err == nil || err.Error() != "cannot parse the list response: Pod web-1: metadata.uid: expected a string" {
		t.Errorf("error = %v", err)
	}
}

// rules.HasFacts is what decides whether a live capture lists a kind in full:
// it must name exactly the kinds whose objects get Facts (from a spec:
// workloads read without one have none).
func TestHasFactsMatchesExtraction(t *testing.T) {
	for _, r := range snapshot.BuiltinResources() {
		body := `{"items":[{"metadata":{"name":"x","uid":"u"},"spec":{}}]}`
		objs, _, err := NewExtractor().ReadListPage([]byte(body), r.GroupVersion(), r.Kind)
		if err != nil {
			t.Fatalf("%s: %v", r.QualifiedName(), err)
		}
		if got, want := objs[0].Facts != nil, rules.HasFacts(r.Group, r.Kind); got != want {
			t.Errorf("%s: extraction gives facts: %v, HasFacts: %v", r.QualifiedName(), got, want)
		}
	}
}

// A workload's selector is compared with its template's labels the way
// the API server's validation does, without keeping either.
func TestWorkloadSelectorMatchesTemplate(t *testing.T) {
	tests := []struct {
		kind, spec string
		want       bool
	}{
		{"ReplicaSet", `{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web","tier":"fe"}}}}`, true},
		{"ReplicaSet", `{"selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"web"}}}}`, false},
		{"ReplicaSet", `{"selector":{"matchExpressions":[{"key":"tier","operator":"In","values":["fe","be"]}]},"template":{"metadata":{"labels":{"tier":"fe"}}}}`, true},
		{"ReplicaSet", `{"selector":{"matchExpressions":[{"key":"tier","operator":"DoesNotExist"}]},"template":{"metadata":{"labels":{"tier":"fe"}}}}`, false},
		{"ReplicaSet", `{"selector":{},"template":{"metadata":{"labels":{"app":"web"}}}}`, false},
		{"ReplicationController", `{"template":{"metadata":{"labels":{"app":"web"}}}}`, true},
		{"ReplicationController", `{"selector":{"app":"web"},"template":{"metadata":{"labels":{"app":"w\u0065b"}}}}`, true},
	}
	for _, tt := range tests {
		apiVersion := "apps/v1"
		if tt.kind == "ReplicationController" {
			apiVersion = "v1"
		}
		body := `{"items":[{"metadata":{"name":"x","uid":"u"},"spec":` + tt.spec + `}]}`
		objs, _, err := NewExtractor().ReadListPage([]byte(body), apiVersion, tt.kind)
		if err != nil {
			t.Fatalf("%s: %v", tt.spec, err)
		}
		if got := objs[0].Facts.Workload.SelectorMatchesTemplate; got != tt.want {
			t.Errorf("%s %s: selectorMatchesTemplate %v, want %v", tt.kind, tt.spec, got, tt.want)
		}
	}
}
