package capture

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kgc-dev/kgc/pkg/capture/capturetest"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
	"github.com/kgc-dev/kgc/pkg/snapshotio"
)

func TestCapture(t *testing.T) {
	fake := &capturetest.FakeAPIServer{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	var progress bytes.Buffer
	s, err := Capture(context.Background(), &rest.Config{Host: srv.URL}, Options{Workers: 3, PageSize: 2, Context: "test", Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}

	want := []string{
		"v1 Namespace/kube-system", "v1 Namespace/shop",
		"v1 ConfigMap/c -n other", "v1 ConfigMap/d -n other",
		"v1 ConfigMap/a -n shop", "v1 ConfigMap/b -n shop", "apps/v1 Deployment/web -n shop", "v1 Pod/web-1 -n shop",
		"apps/v1 ReplicaSet/web-1 -n shop", "example.com/v1 Widget/w -n shop",
	}
	if got := strings.Join(refs(s), "\n"); got != strings.Join(want, "\n") {
		t.Errorf("objects:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	// The forbidden secrets are in the catalog, for the caller to sum up
	// with the other RBAC gaps, not one warning line each.
	wantW := []string{
		"metrics.k8s.io/v1beta1: discovery failed, its types are not listed (owners of those types are unknown): the server is currently unable to handle the request",
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
	if ks := namespaceUID(s, "kube-system"); ks == "" || s.Source.KubeSystemUID != ks {
		t.Errorf("source.kubeSystemUID = %q, want the kube-system namespace's UID %q", s.Source.KubeSystemUID, ks)
	}

	cat := s.Catalog()
	sec, _ := cat.ForGroupKind("", "Secret")
	if sec.Listed || !sec.Forbidden() || sec.Error != `secrets is forbidden: User "viewer" cannot list resource "secrets" in API group "" at the cluster scope (HTTP 403)` {
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

	var pod, ns, kept *snapshot.Object
	for i := range s.Objects {
		switch s.Objects[i].Metadata.UID {
		case "cm-b":
			kept = &s.Objects[i]
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
	if kept.Facts == nil || kept.Facts.Keep != "helm.sh/resource-policy=keep" {
		t.Errorf("ConfigMap b's facts = %+v, want its Helm keep marker", kept.Facts)
	}
	// A workload is listed in full and keeps what its controller decides
	// from, never its template.
	for i := range s.Objects {
		o := &s.Objects[i]
		switch o.Metadata.UID {
		case "dep-1":
			if w := o.Facts; w == nil || w.Workload == nil || *w.Workload.Replicas != 3 || !w.Workload.Paused || !w.Workload.SelectorMatchesTemplate {
				t.Errorf("deployment facts = %+v, want replicas 3, paused, selector matching", o.Facts)
			}
		case "rs-1":
			if o.Facts != nil {
				t.Errorf("a ReplicaSet served without spec has facts %+v", o.Facts)
			}
		}
	}

	var out bytes.Buffer
	if err := snapshotio.Write(&out, s); err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"hunter2", "managedFields", "annotations", "PartialObjectMetadata"} {
		if strings.Contains(out.String(), leak) {
			t.Errorf("snapshot contains %q", leak)
		}
	}
	if !strings.Contains(progress.String(), "listing: 8/8 types, 12 objects") || !strings.HasSuffix(progress.String(), "\r\x1b[K") {
		t.Errorf("progress = %q, want the last count, then the line cleared", progress.String())
	}
	if !fake.Expired || !fake.Throttled {
		t.Error("the 410 and 429 paths were not exercised")
	}
}

func TestCaptureNamespace(t *testing.T) {
	srv := httptest.NewServer(&capturetest.FakeAPIServer{})
	defer srv.Close()
	s, err := Capture(context.Background(), &rest.Config{Host: srv.URL}, Options{Namespace: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	want := "v1 Namespace/kube-system; v1 Namespace/shop; v1 ConfigMap/a -n shop; v1 ConfigMap/b -n shop; apps/v1 Deployment/web -n shop; v1 Pod/web-1 -n shop; apps/v1 ReplicaSet/web-1 -n shop; example.com/v1 Widget/w -n shop"
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
	_, err := Capture(context.Background(), &rest.Config{Host: srv.URL}, Options{})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the cluster at "+srv.URL) {
		t.Errorf("error = %v", err)
	}
}

// refs names the snapshot's objects as "apiVersion Kind/name -n ns".
func refs(s *snapshot.Snapshot) []string { return testobj.Refs(s) }

// warnings are the snapshot's warnings as the CLI prints them.
func warnings(s *snapshot.Snapshot) []string { return testobj.Warnings(s) }

// TestCaptureFingerprintWithoutNamespaceList: when namespaces cannot be
// listed, the fingerprint comes from one GET of kube-system; when that is
// forbidden too, there is none (kgc plan says what that costs; a capture
// for any other command warns about nothing).
func TestCaptureFingerprintWithoutNamespaceList(t *testing.T) {
	for name, tc := range map[string]struct {
		fake *capturetest.FakeAPIServer
		want string
	}{
		"from a GET":    {&capturetest.FakeAPIServer{NamespacesForbidden: true}, "ns-ks"},
		"not readable":  {&capturetest.FakeAPIServer{NamespacesForbidden: true, KubeSystemForbidden: true}, ""},
		"from the list": {&capturetest.FakeAPIServer{KubeSystemForbidden: true}, "ns-ks"},
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(tc.fake)
			defer srv.Close()
			s, err := Capture(context.Background(), &rest.Config{Host: srv.URL}, Options{PageSize: 2})
			if err != nil {
				t.Fatal(err)
			}
			if s.Source.KubeSystemUID != tc.want {
				t.Errorf("kubeSystemUID = %q, want %q", s.Source.KubeSystemUID, tc.want)
			}
			if got := strings.Join(warnings(s), "\n"); strings.Contains(got, "fingerprint") {
				t.Errorf("a capture warns about the fingerprint:\n%s", got)
			}
		})
	}
}

// namespaceUID is the UID of the Namespace name in s, or "".
func namespaceUID(s *snapshot.Snapshot, name string) string {
	for _, o := range s.Objects {
		if o.Kind == "Namespace" && o.Metadata.Name == name {
			return o.Metadata.UID
		}
	}
	return ""
}

// TestCaptureOwnersOnly: a narrow capture reads the namespace and the
// cluster-scoped types with facts, and leaves the others unread and
// unlisted without an error or a warning (nothing read depends on them).
func TestCaptureOwnersOnly(t *testing.T) {
	fake := &capturetest.FakeAPIServer{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	s, err := Capture(context.Background(), &rest.Config{Host: srv.URL}, Options{Namespace: "shop", OwnersOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "v1 Namespace/kube-system; v1 Namespace/shop; v1 ConfigMap/a -n shop; v1 ConfigMap/b -n shop; apps/v1 Deployment/web -n shop; v1 Pod/web-1 -n shop; apps/v1 ReplicaSet/web-1 -n shop; example.com/v1 Widget/w -n shop"
	if got := strings.Join(refs(s), "; "); got != want {
		t.Errorf("objects = %s\nwant %s", got, want)
	}
	for _, l := range fake.Lists {
		if strings.Contains(l.Path, "componentstatuses") {
			t.Errorf("a narrow capture listed %s, which no object names as owner", l.Path)
		}
	}
	for _, r := range s.Resources {
		if r.Resource == "componentstatuses" && (r.Listed || r.Error != "") {
			t.Errorf("componentstatuses: listed=%v error=%q, want unlisted without an error", r.Listed, r.Error)
		}
	}
	if w := warnings(s); len(w) != 1 || !strings.Contains(w[0], "metrics.k8s.io") {
		t.Errorf("warnings = %q, want only the failing discovery", w)
	}
}

// TestNarrowReadsTheOwnersKinds: a cluster-scoped kind that an object of
// the namespace names as owner is read, in a later round, and so is the
// kind its own objects name; other cluster-scoped kinds and other
// namespaces are not.
func TestNarrowReadsTheOwnersKinds(t *testing.T) {
	role := testobj.New("rbac.authorization.k8s.io/v1", "ClusterRole", "", "admin").Build()
	// StorageClasses carry no facts (unlike RBAC, read in full as the
	// evidence of who runs a finalizer's controller).
	binding := testobj.New("storage.k8s.io/v1", "StorageClass", "", "b").Build()
	pc := testobj.New("scheduling.k8s.io/v1", "PriorityClass", "", "high").OwnedBy(role).Build()
	cm := testobj.ConfigMap("shop", "c").OwnedBy(pc).Build()
	other := testobj.ConfigMap("other", "d").Build()
	node := testobj.New("v1", "Node", "", "n1").Build()
	s := Narrow(testobj.Snapshot(role, binding, pc, cm, other, node).Build(), "shop")
	want := "rbac.authorization.k8s.io/v1 ClusterRole/admin; v1 Node/n1; scheduling.k8s.io/v1 PriorityClass/high; v1 ConfigMap/c -n shop"
	if got := strings.Join(refs(s), "; "); got != want {
		t.Errorf("objects = %s\nwant %s", got, want)
	}
	for _, r := range s.Resources {
		if r.Kind == "StorageClass" && r.Listed {
			t.Error("StorageClass was read, but nothing names it as owner")
		}
	}
}

// TestCaptureSameInEitherEncoding captures the fake cluster twice: with
// metadata lists served as protobuf, as kube-apiserver serves them, and as
// JSON, as a server that does not speak protobuf does. The objects must be
// the same.
func TestCaptureSameInEitherEncoding(t *testing.T) {
	capture := func(fake *capturetest.FakeAPIServer) *snapshot.Snapshot {
		srv := httptest.NewServer(fake)
		defer srv.Close()
		s, err := Capture(context.Background(), &rest.Config{Host: srv.URL}, Options{Workers: 3, PageSize: 2})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	proto, json := &capturetest.FakeAPIServer{}, &capturetest.FakeAPIServer{JSONOnly: true}
	a, b := capture(proto), capture(json)
	if proto.ProtobufLists == 0 || json.ProtobufLists != 0 {
		t.Fatalf("protobuf pages served: %d and %d, want some, then none", proto.ProtobufLists, json.ProtobufLists)
	}
	if !reflect.DeepEqual(a.Objects, b.Objects) {
		t.Errorf("objects read from protobuf:\n%+v\nfrom JSON:\n%+v", a.Objects, b.Objects)
	}
	if !reflect.DeepEqual(a.Resources, b.Resources) {
		t.Errorf("catalog from protobuf:\n%+v\nfrom JSON:\n%+v", a.Resources, b.Resources)
	}
}

// Under a throttling storm (every list of a type answered 429), each page
// is tried maxTries times in all, not client-go's retries times kgc's,
// and the type is recorded as not listed with the API server's answer.
func TestCaptureBoundsRetriesUnderThrottling(t *testing.T) {
	fake := &capturetest.FakeAPIServer{ThrottledPath: "/api/v1/pods"}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	s, err := Capture(context.Background(), &rest.Config{Host: srv.URL}, Options{Workers: 3, PageSize: 2, Context: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if fake.Storm != maxTries {
		t.Errorf("the throttled list was sent %d times, want %d", fake.Storm, maxTries)
	}
	for _, r := range s.Resources {
		if r.Resource == "pods" && (r.Listed || !strings.Contains(r.Error, "HTTP 429")) {
			t.Errorf("pods: listed %v, error %q; want recorded as not listed (HTTP 429)", r.Listed, r.Error)
		}
	}
}

// A list the API server stops answering in the middle of a capture (the
// client times out) is tried once more, not maxTries times, and then the
// capture stops with an error saying the API server stopped answering:
// --request-timeout bounds the command, not each of its retries.
func TestCaptureStopsWhenTheAPIServerStalls(t *testing.T) {
	fake := &capturetest.FakeAPIServer{}
	var stalled atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/pods" {
			stalled.Add(1)
			<-r.Context().Done() // the client gave up
			return
		}
		fake.ServeHTTP(w, r)
	}))
	defer srv.Close()
	_, err := Capture(context.Background(), &rest.Config{Host: srv.URL, Timeout: 300 * time.Millisecond}, Options{Workers: 3, PageSize: 2})
	var st *StalledError
	if !errors.As(err, &st) || !strings.Contains(err.Error(), "the API server stopped answering") || !strings.Contains(err.Error(), "300ms (--request-timeout)") {
		t.Fatalf("error %v, want the API server stopped answering, naming --request-timeout", err)
	}
	if n := stalled.Load(); n != maxTimeouts {
		t.Errorf("the stalled list was sent %d times, want %d", n, maxTimeouts)
	}
}
