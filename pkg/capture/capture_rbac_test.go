package capture

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/kgc-dev/kgc/pkg/capture/capturetest"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// A user bound in one namespace (admin in shop, nothing at cluster scope)
// asking about that namespace gets what kubectl get -n shop would show:
// every cluster-scope list is forbidden, so each namespaced type is listed
// in shop and the Namespace is read by name. The catalog says which types
// were read where, and the refusals are not one warning each.
func TestCaptureNamespaceUserFallsBackToTheNamespace(t *testing.T) {
	fake := &capturetest.FakeAPIServer{NamespaceUser: "bob", UserNamespace: "shop"}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	s, err := Capture(context.Background(), &rest.Config{Host: srv.URL}, Options{Namespaces: []string{"shop"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "v1 Namespace/shop; v1 ConfigMap/a -n shop; v1 ConfigMap/b -n shop; apps/v1 Deployment/web -n shop; v1 Pod/web-1 -n shop; apps/v1 ReplicaSet/web-1 -n shop; example.com/v1 Widget/w -n shop"
	if got := strings.Join(refs(s), "; "); got != want {
		t.Errorf("objects = %s\nwant %s", got, want)
	}
	cat := s.Catalog()
	for _, kind := range []string{"ConfigMap", "Pod", "Namespace"} {
		r, _ := cat.ForGroupKind("", kind)
		if !r.Listed || !slices.Equal(r.Namespaces, []string{"shop"}) || !r.Forbidden() || !strings.Contains(r.Error, `User "bob" cannot list resource "`+r.Resource+`" in API group "" at the cluster scope`) {
			t.Errorf("%s = %+v, want listed in shop only, with the cluster-scope refusal", kind, r)
		}
		if !r.Covers("shop") || r.Covers("other") {
			t.Errorf("%s covers shop %v, other %v; want shop only", kind, r.Covers("shop"), r.Covers("other"))
		}
	}
	sec, _ := cat.ForGroupKind("", "Secret")
	if sec.Listed || !sec.Forbidden() {
		t.Errorf("secrets = %+v, want not listed, forbidden", sec)
	}
	cs, _ := cat.ForGroupKind("", "ComponentStatus")
	if cs.Listed || !cs.Forbidden() {
		t.Errorf("componentstatuses (cluster-scoped) = %+v, want not listed, forbidden", cs)
	}
	if got := strings.Join(warnings(s), "\n"); strings.Contains(got, "forbidden") {
		t.Errorf("warnings = %s\nwant none for RBAC refusals: the caller sums them up", got)
	}
}

// When nothing of what was asked can be read, the capture fails as
// kubectl's Forbidden does, quoting the refusal that names the user,
// instead of returning an empty snapshot that reads as an empty cluster.
func TestCaptureRefusedScopeFails(t *testing.T) {
	for _, tc := range []struct {
		name       string
		namespaces []string
		want       string
	}{
		{"a namespace the user has no rights in", []string{"other"},
			`cannot read namespace "other": pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "other" (HTTP 403); use credentials allowed to list there (kubectl auth can-i list pods -n other), or read a dump with -f`},
		{"the whole cluster", nil,
			`cannot list objects at cluster scope: pods is forbidden: User "bob" cannot list resource "pods" in API group "" at the cluster scope (HTTP 403); name a namespace you can read with -n, or read a dump with -f`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(&capturetest.FakeAPIServer{NamespaceUser: "bob", UserNamespace: "shop"})
			defer srv.Close()
			s, err := Capture(context.Background(), &rest.Config{Host: srv.URL}, Options{Namespaces: tc.namespaces})
			if err == nil || err.Error() != tc.want {
				t.Errorf("error = %v\nwant    %s", err, tc.want)
			}
			if s != nil {
				t.Errorf("a snapshot of %d objects was returned with the error", len(s.Objects))
			}
		})
	}
}

// An admin asking about a namespace is served at cluster scope as before:
// the fallback is for refusals only.
func TestCaptureNamespacesNeedNoFallbackForAnAdmin(t *testing.T) {
	fake := &capturetest.FakeAPIServer{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	s, err := Capture(context.Background(), &rest.Config{Host: srv.URL}, Options{Namespaces: []string{"shop"}})
	if err != nil {
		t.Fatal(err)
	}
	if cm, _ := s.Catalog().ForGroupKind("", "ConfigMap"); !cm.Listed || cm.Namespaces != nil || cm.Count != 4 {
		t.Errorf("configmaps = %+v, want listed at cluster scope, 4 objects", cm)
	}
	for _, l := range fake.Lists {
		if strings.Contains(l.Path, "/namespaces/shop/") {
			t.Errorf("listed %s: nothing was refused, so nothing should be listed per namespace", l.Path)
		}
	}
}

// A 401 means the server was reached and refused the credentials: the
// error says so, not that the cluster cannot be reached.
func TestCaptureUnauthorized(t *testing.T) {
	srv := httptest.NewServer(&capturetest.FakeAPIServer{Unauthorized: true})
	defer srv.Close()
	_, err := Capture(context.Background(), &rest.Config{Host: srv.URL}, Options{})
	want := "the cluster at " + srv.URL + " rejected the credentials (401 Unauthorized)"
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "cannot reach") {
		t.Errorf("error = %v\nwant it to start %q", err, want)
	}
}

// A capture that listed without error but read no object at all is not
// an empty cluster (every cluster has namespaces): it fails.
func TestCheckReadableNoObjects(t *testing.T) {
	res := []snapshot.Resource{{Resource: "pods", Kind: "Pod", Namespaced: true, Verbs: []string{"list"}}}
	err := checkReadable(res, []listResult{{listed: true}}, nil, "https://k")
	if err == nil || !strings.HasPrefix(err.Error(), "the capture of the cluster at https://k read no objects") {
		t.Errorf("error = %v", err)
	}
	if err := checkReadable(res, []listResult{{listed: true, objs: make([]snapshot.Object, 1)}}, nil, "https://k"); err != nil {
		t.Errorf("one object read: error = %v", err)
	}
}

// A narrow capture serves apply's re-plan: it reads the cluster-scoped
// kinds whose facts a plan reads (nodes), not those only why-stuck reads
// (cluster RBAC, CSI drivers), which would cost requests outside the
// namespace on every apply.
func TestNarrowFirstRoundReadsWhatAPlanReads(t *testing.T) {
	res := []snapshot.Resource{
		{Group: "", Resource: "nodes", Kind: "Node", Verbs: []string{"list"}},
		{Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Kind: "ClusterRole", Verbs: []string{"list"}},
		{Group: "storage.k8s.io", Resource: "csidrivers", Kind: "CSIDriver", Verbs: []string{"list"}},
		{Group: "", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: []string{"list"}},
		{Group: "rbac.authorization.k8s.io", Resource: "roles", Kind: "Role", Namespaced: true, Verbs: []string{"list"}},
	}
	var got []string
	for _, i := range firstRound(res, true) {
		got = append(got, res[i].Resource)
	}
	if want := "nodes configmaps roles"; strings.Join(got, " ") != want {
		t.Errorf("narrow first round lists %v, want %s", got, want)
	}
	if n := len(firstRound(res, false)); n != len(res) {
		t.Errorf("a whole capture's first round lists %d types, want all %d", n, len(res))
	}
}
