// Package capturetest provides a fake Kubernetes API server for tests of
// live capture: discovery and list responses shaped like kube-apiserver's,
// with the failures real clusters show.
//
// Its cluster: namespaces shop and kube-system; in shop a Deployment web,
// its ReplicaSet web-1 and Pod web-1 (on node-a, mounting claim "data"),
// ConfigMaps a and b, a Widget w (example.com, served at v1 and v1beta1);
// in namespace other ConfigMaps c and d (d terminating with the finalizer
// example.com/keep), and two ComponentStatuses without a UID, as the real
// server computes them. Secrets are forbidden (403), metrics.k8s.io/v1beta1
// discovery fails (503), the third ConfigMap page's continue token expires
// once (410) and is then throttled once (429). Lists page at most two
// items at a time, a list asked without a limit comes whole. Every object carries a last-applied annotation holding "hunter2"
// and managedFields, which a snapshot must not keep.
//
// Set NamespaceUser to serve a user bound in one namespace (a RoleBinding
// of the admin ClusterRole in UserNamespace): RBAC then refuses, as 403s
// naming the user, every list at cluster scope and everything in another
// namespace, while lists in UserNamespace and a GET of that Namespace are
// served. Set Unauthorized to answer 401 to everything, as a server does
// to an expired token.
package capturetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// FakeAPIServer serves discovery and lists the way kube-apiserver does,
// with the failures a real cluster shows: a broken aggregated API, a type
// RBAC forbids, an expired continue token and a throttled request.
type FakeAPIServer struct {
	mu sync.Mutex
	// Expired and Throttled report whether the 410 and the 429 were served.
	Expired, Throttled bool
	// Lists records every list request, in arrival order.
	Lists []ListRequest

	// NamespaceUser, when set, is the only user, allowed into
	// UserNamespace only.
	NamespaceUser, UserNamespace string
	// Unauthorized answers every request 401.
	Unauthorized bool
	// JSONOnly serves metadata lists as JSON even to a client that asks
	// for protobuf first, as a server that does not speak it does.
	JSONOnly bool
	// ProtobufLists counts the list pages served as protobuf.
	ProtobufLists int
	// NamespacesForbidden forbids listing namespaces, as a namespace-scoped
	// role does; KubeSystemForbidden forbids the GET of kube-system too.
	NamespacesForbidden, KubeSystemForbidden bool
	// ThrottledPath is a list path answered 429 with Retry-After: 0 every
	// time, as under a throttling storm; Storm counts those answers.
	ThrottledPath string
	Storm         int
}

// refuse answers what RBAC or authentication would refuse, and reports
// whether it did.
func (f *FakeAPIServer) refuse(w http.ResponseWriter, path string) bool {
	if f.Unauthorized {
		status(w, 401, "Unauthorized", "Unauthorized")
		return true
	}
	if f.NamespaceUser == "" {
		return false
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var group string
	var rest []string
	switch {
	case segs[0] == "version", segs[0] == "api" && len(segs) <= 2, segs[0] == "apis" && len(segs) <= 3:
		return false // discovery is every authenticated user's
	case segs[0] == "api":
		rest = segs[2:]
	default:
		group, rest = segs[1], segs[3:]
	}
	verb, scope := "list", "at the cluster scope"
	resource := rest[0]
	if rest[0] == "namespaces" && len(rest) > 1 {
		if rest[1] == f.UserNamespace {
			return false
		}
		scope = fmt.Sprintf("in the namespace %q", rest[1])
		if len(rest) == 2 {
			verb = "get"
		} else {
			resource = rest[2]
		}
	}
	status(w, 403, "Forbidden", fmt.Sprintf("%s is forbidden: User %q cannot %s resource %q in API group %q %s", resource, f.NamespaceUser, verb, resource, group, scope))
	return true
}

// ListRequest is what a list request asked for.
type ListRequest struct {
	Path, ResourceVersion, Continue string
	// Limit is the limit parameter as sent ("" when absent).
	Limit string
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v) // a client that hung up is the test's failure to report
}

const protobufType = "application/vnd.kubernetes.protobuf"

// writeProtobufList answers a metadata-only list in protobuf, as
// kube-apiserver does: the "k8s\x00" magic, then a runtime.Unknown holding
// the PartialObjectMetadataList. Errors answer JSON, as there.
func writeProtobufList(w http.ResponseWriter, list map[string]any) {
	var typed metav1.PartialObjectMetadataList
	b, err := json.Marshal(list)
	if err == nil {
		err = json.Unmarshal(b, &typed)
	}
	if err == nil {
		b, err = typed.Marshal()
	}
	if err == nil {
		u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"}, Raw: b, ContentType: protobufType}
		b, err = u.Marshal()
	}
	if err != nil {
		status(w, 500, "InternalError", err.Error())
		return
	}
	w.Header().Set("Content-Type", protobufType)
	w.WriteHeader(200)
	_, _ = w.Write(append([]byte("k8s\x00"), b...)) // a client that hung up is the test's failure to report
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

// keepB marks ConfigMap b to be kept by Helm, beside the last-applied
// annotation every object has.
func keepB() map[string]any {
	return map[string]any{"annotations": map[string]any{"helm.sh/resource-policy": "keep",
		"kubectl.kubernetes.io/last-applied-configuration": "{\"secret\":\"hunter2\"}"}}
}

func owner(kind, name, uid string) map[string]any {
	return map[string]any{"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid, "controller": true, "blockOwnerDeletion": true}}}
}

func (f *FakeAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refuse(w, r.URL.Path) {
		return
	}
	if f.ThrottledPath != "" && r.URL.Path == f.ThrottledPath {
		f.Storm++
		w.Header().Set("Retry-After", "0")
		status(w, 429, "TooManyRequests", "too many requests")
		return
	}
	q := r.URL.Query()
	// pageOf serves items two per page with "<prefix>-<n>" continue tokens.
	page := func(prefix string, items []any, metadataOnly bool) {
		f.Lists = append(f.Lists, ListRequest{Path: r.URL.Path, ResourceVersion: q.Get("resourceVersion"), Continue: q.Get("continue"), Limit: q.Get("limit")})
		start := 0
		if c := q.Get("continue"); c != "" {
			start, _ = strconv.Atoi(strings.TrimPrefix(c, prefix+"-"))
		}
		// Without a limit, the whole list is one page, as the API server
		// serves it.
		limit := len(items)
		if q.Has("limit") {
			limit, _ = strconv.Atoi(q.Get("limit"))
			if limit <= 0 || limit > 2 {
				limit = 2
			}
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
			if !f.JSONOnly && strings.HasPrefix(r.Header.Get("Accept"), protobufType) {
				f.ProtobufLists++
				writeProtobufList(w, list)
				return
			}
		}
		writeJSON(w, 200, list)
	}
	obj := func(m map[string]any) any { return map[string]any{"metadata": m} }
	shop := map[string]any{"kind": "Namespace", "apiVersion": "v1", "metadata": meta("", "shop", "ns-shop", nil),
		"spec": map[string]any{"finalizers": []string{"kubernetes"}}, "status": map[string]any{"phase": "Active"}}
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
			map[string]any{"name": "bindings", "kind": "Binding", "namespaced": true, "verbs": []string{"create"}},
			map[string]any{"name": "componentstatuses", "kind": "ComponentStatus", "namespaced": false, "shortNames": []string{"cs"}, "verbs": []string{"get", "list"}}}})
	case "/apis/apps/v1":
		writeJSON(w, 200, map[string]any{"kind": "APIResourceList", "groupVersion": "apps/v1", "resources": []any{
			apiResource("deployments", "Deployment", true, "deploy"), apiResource("replicasets", "ReplicaSet", true, "rs")}})
	case "/apis/example.com/v1", "/apis/example.com/v1beta1":
		gv := strings.TrimPrefix(r.URL.Path, "/apis/")
		writeJSON(w, 200, map[string]any{"kind": "APIResourceList", "groupVersion": gv, "resources": []any{apiResource("widgets", "Widget", true, "wd")}})
	case "/apis/metrics.k8s.io/v1beta1":
		status(w, 503, "ServiceUnavailable", "the server is currently unable to handle the request")
	case "/api/v1/namespaces/kube-system":
		if f.KubeSystemForbidden {
			status(w, 403, "Forbidden", `namespaces "kube-system" is forbidden: User "viewer" cannot get resource "namespaces"`)
			return
		}
		writeJSON(w, 200, map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": meta("", "kube-system", "ns-ks", nil)})
	case "/api/v1/namespaces":
		if f.NamespacesForbidden {
			status(w, 403, "Forbidden", `namespaces is forbidden: User "viewer" cannot list resource "namespaces" at the cluster scope`)
			return
		}
		page("ns", []any{shop, map[string]any{"metadata": meta("", "kube-system", "ns-ks", nil), "status": map[string]any{"phase": "Active"}}}, false)
	case "/api/v1/namespaces/shop":
		writeJSON(w, 200, shop)
	case "/api/v1/pods", "/api/v1/namespaces/shop/pods":
		page("po", []any{
			map[string]any{"metadata": meta("shop", "web-1", "pod-1", owner("ReplicaSet", "web-1", "rs-1")), "spec": map[string]any{"nodeName": "node-a", "volumes": []any{map[string]any{"name": "d", "persistentVolumeClaim": map[string]any{"claimName": "data"}}}}, "status": map[string]any{"phase": "Running"}},
		}, false)
	case "/api/v1/configmaps":
		// Three pages; the second request is throttled once, and the first
		// attempt at the third page finds its continue token expired.
		if q.Get("continue") == "cm-2" && !f.Expired {
			f.Expired = true
			status(w, 410, "Expired", "The provided continue parameter is too old to display a consistent list result.")
			return
		}
		if q.Get("continue") == "cm-2" && !f.Throttled {
			f.Throttled = true
			status(w, 429, "TooManyRequests", "too many requests")
			return
		}
		page("cm", []any{obj(meta("shop", "a", "cm-a", nil)), obj(meta("shop", "b", "cm-b", keepB())), obj(meta("other", "c", "cm-c", nil)),
			obj(meta("other", "d", "cm-d", map[string]any{"finalizers": []string{"example.com/keep"}, "deletionTimestamp": "2025-02-01T00:00:00Z"}))}, true)
	case "/api/v1/namespaces/shop/configmaps":
		page("cm", []any{obj(meta("shop", "a", "cm-a", nil)), obj(meta("shop", "b", "cm-b", keepB()))}, true)
	case "/api/v1/componentstatuses":
		// Computed on every request, as kube-apiserver does: no UID.
		page("cs", []any{obj(map[string]any{"name": "etcd-0"}), obj(map[string]any{"name": "scheduler"})}, true)
	case "/api/v1/secrets", "/api/v1/namespaces/shop/secrets":
		user, scope := "viewer", "at the cluster scope"
		if f.NamespaceUser != "" {
			user, scope = f.NamespaceUser, fmt.Sprintf("in the namespace %q", f.UserNamespace)
		}
		status(w, 403, "Forbidden", fmt.Sprintf("secrets is forbidden: User %q cannot list resource \"secrets\" in API group \"\" %s", user, scope))
	case "/apis/apps/v1/deployments", "/apis/apps/v1/namespaces/shop/deployments":
		// Workloads are listed in full for their facts; their templates
		// carry what a snapshot must drop.
		tpl := map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
			"spec": map[string]any{"containers": []any{map[string]any{"name": "web", "env": []any{map[string]any{"name": "TOKEN", "value": "hunter2"}}}}}}
		page("dep", []any{map[string]any{"metadata": meta("shop", "web", "dep-1", nil),
			"spec": map[string]any{"replicas": 3, "paused": true, "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}}, "template": tpl}}}, false)
	case "/apis/apps/v1/replicasets", "/apis/apps/v1/namespaces/shop/replicasets":
		page("rs", []any{obj(meta("shop", "web-1", "rs-1", owner("Deployment", "web", "dep-1")))}, false)
	case "/apis/example.com/v1/widgets", "/apis/example.com/v1/namespaces/shop/widgets":
		page("wd", []any{obj(meta("shop", "w", "wd-1", nil))}, true)
	default:
		// A list in a namespace holding none of the type, or in one that
		// does not exist, is an empty list, as kube-apiserver serves it.
		if segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/"); len(segs) >= 5 && segs[len(segs)-3] == "namespaces" {
			page("none", nil, true)
			return
		}
		status(w, 404, "NotFound", "the server could not find the requested resource "+r.URL.Path)
	}
}
