package apply

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// TestCatalogMapping: the capture's catalog maps a plan's kinds as
// discovery would, through any served version, with the right scope, and
// says nothing of a kind or version it does not serve.
func TestCatalogMapping(t *testing.T) {
	catalog := []snapshot.Resource{
		{Group: "", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true, Versions: []string{"v1"}},
		{Group: "example.com", Resource: "widgets", Kind: "Widget", Namespaced: false, Versions: []string{"v1", "v1beta1"}},
	}
	m := catalogMapping(catalog, "example.com", "v1beta1", "Widget")
	if m == nil || m.Resource.String() != "example.com/v1beta1, Resource=widgets" || m.Scope.Name() != meta.RESTScopeNameRoot {
		t.Errorf("Widget v1beta1 maps to %+v, want widgets at cluster scope", m)
	}
	if m := catalogMapping(catalog, "", "v1", "ConfigMap"); m == nil || m.Scope.Name() != meta.RESTScopeNameNamespace {
		t.Errorf("ConfigMap maps to %+v, want configmaps in a namespace", m)
	}
	for _, c := range [][3]string{{"example.com", "v2", "Widget"}, {"", "v1", "Secret"}} {
		if m := catalogMapping(catalog, c[0], c[1], c[2]); m != nil {
			t.Errorf("%v maps to %+v, want no mapping", c, m)
		}
	}
}
