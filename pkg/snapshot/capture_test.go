package snapshot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
)

// fakeAPIServer serves discovery and lists the way kube-apiserver does,
// with the failures a real cluster shows: a broken aggregated API, a type
// RBAC forbids, an expired continue token and a throttled request.
type fakeAPIServer struct {
	mu       sync.Mutex
	requests []string
	expired  bool // the 410 was served once
	throttle bool // the 429 was served once
}

func (f *fakeAPIServer) log(r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.URL.Path+"?"+r.URL.RawQuery)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func status(w http.ResponseWriter, code int, reason, msg string) {
	writeJSON(w, code, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code, "reason": reason, "message": msg})
}

func apiResource(name, kind string, namespaced bool, short ...string) map[string]any {
	return map[string]any{"name": name, "singularName": strings.ToLower(kind), "kind": kind, "namespaced": namespaced, "shortNames": short,
		"verbs": []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}}
}

func meta(ns, name, uid string, extra map[string]any) map[string]any {
	m := map[string]any{"name": name, "uid": uid, "resourceVersion": "7", "creationTimestamp": "2025-01-01T00:00:00Z",
		"annotations":   map[string]any{"kubectl.kubernetes.io/last-applied-configuration": "{\"secret\":\"hunter2\"}"},
		"managedFields": []any{map[string]any{"manager": "kubectl"}}}
	if ns != "" {
		m["namespace"] = ns
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func owner(kind, name, uid string) map[string]any {
	return map[string]any{"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid, "controller": true, "blockOwnerDeletion": true}}}
}

func (f *fakeAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.log(r)
	q := r.URL.Query()
	// pageOf serves items two per page with "<prefix>-<n>" continue tokens.
	page := func(prefix string, items []any, metadataOnly bool) {
		start := 0
		if c := q.Get("continue"); c != "" {
			start, _ = strconv.Atoi(strings.TrimPrefix(c, prefix+"-"))
		}
		limit, _ := strconv.Atoi(q.Get("limit"))
		if limit <= 0 || limit > 2 {
			limit = 2
		}
		end := min(start+limit, len(items))
		listMeta := map[string]any{"resourceVersion": "99"}
		if end < len(items) {
			listMeta["continue"] = fmt.Sprintf("%s-%d", prefix, end)
		}
		list := map[string]any{"kind": "List", "apiVersion": "v1", "metadata": listMeta, "items": items[start:end]}
		if metadataOnly {
			list["kind"], list["apiVersion"] = "PartialObjectMetadataList", "meta.k8s.io/v1"
			for i, it := range items[start:end] {
				m := it.(map[string]any)
				items[start+i] = map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": m["metadata"]}
			}
			list["items"] = items[start:end]
		}
		writeJSON(w, 200, list)
	}
	obj := func(m map[string]any) any { return map[string]any{"metadata": m} }
	switch r.URL.Path {
	case "/version":
		writeJSON(w, 200, map[string]any{"major": "1", "minor": "36", "gitVersion": "v1.36.3"})
	case "/api":
		writeJSON(w, 200, map[string]any{"kind": "APIVersions", "versions": []string{"v1"}})
	case "/apis":
		gv := func(g string, vs ...string) map[string]any {
			var versions []any
			for _, v := range vs {
				versions = append(versions, map[string]any{"groupVersion": g + "/" + v, "version": v})
			}
			return map[string]any{"name": g, "versions": versions, "preferredVersion": versions[0]}
		}
		writeJSON(w, 200, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": []any{
			gv("apps", "v1"), gv("example.com", "v1", "v1beta1"), gv("metrics.k8s.io", "v1beta1")}})
	case "/api/v1":
		writeJSON(w, 200, map[string]any{"kind": "APIResourceList", "groupVersion": "v1", "resources": []any{
			apiResource("configmaps", "ConfigMap", true, "cm"), apiResource("namespaces", "Namespace", false, "ns"),
			apiResource("pods", "Pod", true, "po"), apiResource("pods/status", "Pod", true), apiResource("secrets", "Secret", true),
			map[string]any{"name": "bindings", "kind": "Binding", "namespaced": true, "verbs": []string{"create"}}}})
	case "/apis/apps/v1":
		writeJSON(w, 200, map[string]any{"kind": "APIResourceList", "groupVersion": "apps/v1", "resources": []any{
			apiResource("deployments", "Deployment", true, "deploy"), apiResource("replicasets", "ReplicaSet", true, "rs")}})
	case "/apis/example.com/v1", "/apis/example.com/v1beta1":
		gv := strings.TrimPrefix(r.URL.Path, "/apis/")
		writeJSON(w, 200, map[string]any{"kind": "APIResourceList", "groupVersion": gv, "resources": []any{apiResource("widgets", "Widget", true, "wd")}})
	case "/apis/metrics.k8s.io/v1beta1":
		status(w, 503, "ServiceUnavailable", "the server is currently unable to handle the request")
	case "/api/v1/namespaces":
		page("ns", []any{
			map[string]any{"metadata": meta("", "shop", "ns-shop", nil), "spec": map[string]any{"finalizers": []string{"kubernetes"}}, "status": map[string]any{"phase": "Active"}},
			map[string]any{"metadata": meta("", "kube-system", "ns-ks", nil), "status": map[string]any{"phase": "Active"}},
		}, false)
	case "/api/v1/pods", "/api/v1/namespaces/shop/pods":
		page("po", []any{
			map[string]any{"metadata": meta("shop", "web-1", "pod-1", owner("ReplicaSet", "web-1", "rs-1")), "spec": map[string]any{"nodeName": "node-a", "volumes": []any{map[string]any{"name": "d", "persistentVolumeClaim": map[string]any{"claimName": "data"}}}}, "status": map[string]any{"phase": "Running"}},
		}, false)
	case "/api/v1/configmaps":
		// Three pages; the second request is throttled once, and the first
		// attempt at the third page finds its continue token expired.
		if q.Get("continue") == "cm-2" && !f.expired {
			f.expired = true
			status(w, 410, "Expired", "The provided continue parameter is too old to display a consistent list result.")
			return
		}
		if q.Get("continue") == "cm-2" && !f.throttle {
			f.throttle = true
			status(w, 429, "TooManyRequests", "too many requests")
			return
		}
		page("cm", []any{obj(meta("shop", "a", "cm-a", nil)), obj(meta("shop", "b", "cm-b", nil)), obj(meta("other", "c", "cm-c", nil)),
			obj(meta("other", "d", "cm-d", map[string]any{"finalizers": []string{"example.com/keep"}, "deletionTimestamp": "2025-02-01T00:00:00Z"}))}, true)
	case "/api/v1/namespaces/shop/configmaps":
		page("cm", []any{obj(meta("shop", "a", "cm-a", nil)), obj(meta("shop", "b", "cm-b", nil))}, true)
	case "/api/v1/secrets", "/api/v1/namespaces/shop/secrets":
		status(w, 403, "Forbidden", `secrets is forbidden: User "viewer" cannot list resource "secrets" in API group "" at the cluster scope`)
	case "/apis/apps/v1/deployments", "/apis/apps/v1/namespaces/shop/deployments":
		page("dep", []any{obj(meta("shop", "web", "dep-1", nil))}, true)
	case "/apis/apps/v1/replicasets", "/apis/apps/v1/namespaces/shop/replicasets":
		page("rs", []any{obj(meta("shop", "web-1", "rs-1", owner("Deployment", "web", "dep-1")))}, true)
	case "/apis/example.com/v1/widgets", "/apis/example.com/v1/namespaces/shop/widgets":
		page("wd", []any{obj(meta("shop", "w", "wd-1", nil))}, true)
	default:
		status(w, 404, "NotFound", "the server could not find the requested resource "+r.URL.Path)
	}
}

func TestCapture(t *testing.T) {
	fake := &fakeAPIServer{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	var progress bytes.Buffer
	s, err := Capture(context.Background(), &rest.Config{Host: srv.URL}, CaptureOptions{Workers: 3, PageSize: 2, Context: "test", Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}

	want := []string{
		"v1 Namespace/kube-system", "v1 Namespace/shop",
		"v1 ConfigMap/other/c", "v1 ConfigMap/other/d",
		"v1 ConfigMap/shop/a", "v1 ConfigMap/shop/b", "apps/v1 Deployment/shop/web", "v1 Pod/shop/web-1",
		"apps/v1 ReplicaSet/shop/web-1", "example.com/v1 Widget/shop/w",
	}
	if got := strings.Join(refs(s), "\n"); got != strings.Join(want, "\n") {
		t.Errorf("objects:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	wantW := []string{
		"metrics.k8s.io/v1beta1: discovery failed, its types are not listed (owners of those types are unknown): the server is currently unable to handle the request",
		`secrets: not listed (owners of this type are unknown): secrets is forbidden: User "viewer" cannot list resource "secrets" in API group "" at the cluster scope (HTTP 403)`,
	}
	if got := strings.Join(warnings(s), "\n"); got != strings.Join(wantW, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", got, strings.Join(wantW, "\n"))
	}
	if len(s.DiscoveryErrors) != 1 || s.DiscoveryErrors[0].GroupVersion != "metrics.k8s.io/v1beta1" {
		t.Errorf("discovery errors = %+v", s.DiscoveryErrors)
	}
	if s.Source.Type != "live" || s.Source.Server != srv.URL || s.Source.ServerVersion != "v1.36.3" || s.Source.Context != "test" {
		t.Errorf("source = %+v", s.Source)
	}

	cat := s.Catalog()
	sec, _ := cat.ForGroupKind("", "Secret")
	if sec.Listed || !strings.Contains(sec.Error, "forbidden") {
		t.Errorf("secrets = %+v, want listed:false with the 403", sec)
	}
	cm, _ := cat.ForGroupKind("", "ConfigMap")
	if !cm.Listed || cm.Count != 4 || cm.Error != "" {
		t.Errorf("configmaps = %+v, want listed, 4 objects after the 410 relist", cm)
	}
	if b, ok := cat.ForGroupKind("", "Binding"); !ok || b.Listed {
		t.Errorf("bindings (create only) = %+v, want in the catalog, not listed", b)
	}
	if _, ok := cat.ForGroupKind("", "Pod"); !ok {
		t.Error("pods missing from the catalog")
	}
	for _, r := range s.Resources {
		if strings.Contains(r.Resource, "/") {
			t.Errorf("subresource %s in the catalog", r.Resource)
		}
	}
	wd, _ := cat.Resolve("wd")
	if strings.Join(wd.Versions, ",") != "v1,v1beta1" || wd.Version != "v1" {
		t.Errorf("widgets versions = %v (preferred %s), want v1,v1beta1", wd.Versions, wd.Version)
	}
	if _, ok := cat.ForAPIVersionKind("example.com/v1beta1", "Widget"); !ok {
		t.Error("a reference through a served non-preferred version must resolve")
	}

	var pod, ns *Object
	for i := range s.Objects {
		switch s.Objects[i].Metadata.UID {
		case "pod-1":
			pod = &s.Objects[i]
		case "ns-shop":
			ns = &s.Objects[i]
		}
	}
	if pod.Facts == nil || pod.Facts.Pod.NodeName != "node-a" || pod.Facts.Pod.Phase != "Running" || strings.Join(pod.Facts.Pod.Claims, ",") != "data" {
		t.Errorf("pod facts = %+v", pod.Facts)
	}
	if len(pod.Metadata.OwnerReferences) != 1 || pod.Metadata.OwnerReferences[0].UID != "rs-1" || !pod.Metadata.OwnerReferences[0].Blocking() {
		t.Errorf("pod owner refs = %+v", pod.Metadata.OwnerReferences)
	}
	if ns.Facts == nil || strings.Join(ns.Facts.Namespace.SpecFinalizers, ",") != "kubernetes" {
		t.Errorf("namespace facts = %+v", ns.Facts)
	}

	var out bytes.Buffer
	if err := Write(&out, s); err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"hunter2", "managedFields", "annotations", "PartialObjectMetadata"} {
		if strings.Contains(out.String(), leak) {
			t.Errorf("snapshot contains %q", leak)
		}
	}
	if !strings.Contains(progress.String(), "listing: 7/7 types, 10 objects") {
		t.Errorf("progress = %q", progress.String())
	}
	if !fake.expired || !fake.throttle {
		t.Error("the 410 and 429 paths were not exercised")
	}
}

func TestCaptureNamespace(t *testing.T) {
	srv := httptest.NewServer(&fakeAPIServer{})
	defer srv.Close()
	s, err := Capture(context.Background(), &rest.Config{Host: srv.URL}, CaptureOptions{Namespace: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	want := "v1 Namespace/kube-system; v1 Namespace/shop; v1 ConfigMap/shop/a; v1 ConfigMap/shop/b; apps/v1 Deployment/shop/web; v1 Pod/shop/web-1; apps/v1 ReplicaSet/shop/web-1; example.com/v1 Widget/shop/w"
	if got := strings.Join(refs(s), "; "); got != want {
		t.Errorf("objects = %s\nwant %s", got, want)
	}
	if s.Source.Namespace != "shop" {
		t.Errorf("source namespace = %q", s.Source.Namespace)
	}
}

func TestCaptureUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	_, err := Capture(context.Background(), &rest.Config{Host: srv.URL}, CaptureOptions{})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the cluster at "+srv.URL) {
		t.Errorf("error = %v", err)
	}
}
