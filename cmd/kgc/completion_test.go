package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// completionCluster is a small API server for completion: discovery with a
// short-named type in each group, a subresource and a create-only type
// (neither listable), two groups serving a "configmaps" and a group whose
// discovery fails; and the lists completion asks for.
func completionCluster(t *testing.T) *httptest.Server {
	t.Helper()
	res := func(name, kind string, namespaced bool, short ...string) map[string]any {
		return map[string]any{"name": name, "singularName": strings.ToLower(kind), "kind": kind, "namespaced": namespaced,
			"shortNames": short, "verbs": []string{"delete", "get", "list", "watch"}}
	}
	list := func(names ...string) map[string]any {
		var items []any
		for _, n := range names {
			items = append(items, map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": map[string]any{"name": n}})
		}
		return map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadataList", "metadata": map[string]any{}, "items": items}
	}
	group := func(name string) map[string]any {
		v := map[string]any{"groupVersion": name + "/v1", "version": "v1"}
		return map[string]any{"name": name, "versions": []any{v}, "preferredVersion": v}
	}
	responses := map[string]any{
		"/api":  map[string]any{"kind": "APIVersions", "versions": []string{"v1"}},
		"/apis": map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": []any{group("apps"), group("example.com"), group("broken.example")}},
		"/api/v1": map[string]any{"kind": "APIResourceList", "groupVersion": "v1", "resources": []any{
			res("configmaps", "ConfigMap", true, "cm"), res("namespaces", "Namespace", false, "ns"), res("pods", "Pod", true, "po"),
			res("pods/log", "Pod", true), map[string]any{"name": "bindings", "kind": "Binding", "namespaced": true, "verbs": []string{"create"}}}},
		"/apis/apps/v1": map[string]any{"kind": "APIResourceList", "groupVersion": "apps/v1", "resources": []any{
			res("deployments", "Deployment", true, "deploy"), res("replicasets", "ReplicaSet", true, "rs")}},
		"/apis/example.com/v1": map[string]any{"kind": "APIResourceList", "groupVersion": "example.com/v1", "resources": []any{
			res("widgets", "Widget", true, "wd"), res("configmaps", "ConfigMap", true)}},
		"/api/v1/namespaces":                         list("shop", "kube-system"),
		"/apis/apps/v1/namespaces/shop/deployments":  list("web", "api"),
		"/apis/apps/v1/namespaces/other/deployments": list("batch"),
		"/apis/apps/v1/deployments":                  list("web", "api", "batch"),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		body, ok := responses[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
			body = map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 503, "message": "unavailable"}
		}
		_ = json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// completionKubeconfig points the contexts dev (namespace shop) and prod
// at server.
func completionKubeconfig(t *testing.T, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {server: "` + server + `"}
- name: remote
  cluster: {server: "https://192.0.2.1"}
users:
- name: me
contexts:
- name: dev
  context: {cluster: local, user: me, namespace: shop}
- name: prod
  context: {cluster: remote, user: me}
current-context: dev
`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCompletionFromTheLiveCluster(t *testing.T) {
	kubeconfig := completionKubeconfig(t, completionCluster(t).URL)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"types and short names, listable only", []string{"plan", "delete", ""},
			"cm configmaps configmaps.example.com deploy deployments namespaces ns po pods replicasets rs wd widgets"},
		{"a type by prefix", []string{"why-stuck", "dep"}, "deploy deployments"},
		{"TYPE/NAME in the context's namespace", []string{"plan", "delete", "deploy/"}, "deploy/api deploy/web"},
		{"TYPE/NAME by prefix", []string{"graph", "deployments.apps/w"}, "deployments.apps/web"},
		{"NAME after TYPE", []string{"graph", "deploy", ""}, "api web"},
		{"NAME in the -n namespace", []string{"why-stuck", "-n", "other", "Deployment", ""}, "batch"},
		{"NAME in every namespace with -A", []string{"graph", "-A", "deploy/"}, "deploy/api deploy/batch deploy/web"},
		{"nothing after TYPE NAME", []string{"graph", "deploy", "web", ""}, ""},
		{"namespaces", []string{"graph", "-n", ""}, "kube-system shop"},
		{"contexts", []string{"graph", "--context", ""}, "dev prod"},
		{"clusters", []string{"graph", "--cluster", "r"}, "remote"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, directive := complete(t, append([]string{"--kubeconfig", kubeconfig}, tt.args...)...)
			if strings.Join(got, " ") != tt.want || directive != ":4" {
				t.Errorf("completions %q %s, want %q :4", got, directive, tt.want)
			}
		})
	}
}

// With -f, TYPE/NAME is completed from the input the command will read,
// not from the kubeconfig's cluster, which may be another: its types, and
// its names in the -n namespace, or in any without -n (as offline commands
// look) or with -A.
func TestCompletionFromTheInput(t *testing.T) {
	kubeconfig := completionKubeconfig(t, completionCluster(t).URL)
	ex := "../../examples/cluster.yaml"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"TYPE/NAME in the -n namespace", []string{"plan", "delete", "-f", ex, "-n", "shop", "deploy/"}, "deploy/web"},
		{"TYPE/NAME by prefix", []string{"why-stuck", "-f", ex, "-n", "shop", "pod/db"}, "pod/db-0 pod/db-1"},
		{"NAME after TYPE, any namespace", []string{"graph", "-f", ex, "ns", "l"}, "legacy"},
		{"a type of the input by prefix", []string{"graph", "-f", ex, "widg"}, "widgets"},
		{"a type the input has none of", []string{"graph", "-f", ex, "cronj"}, ""},
		{"-A over -n", []string{"graph", "-f", ex, "-n", "ops", "-A", "sts/"}, "sts/db"},
		{"an unreadable input offers nothing", []string{"graph", "-f", "missing.yaml", "deploy/"}, ""},
		{"standard input is left to the command", []string{"graph", "-f", "-", "deploy/"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, directive := complete(t, append([]string{"--kubeconfig", kubeconfig}, tt.args...)...)
			if strings.Join(got, " ") != tt.want || directive != ":4" {
				t.Errorf("completions %q %s, want %q :4", got, directive, tt.want)
			}
		})
	}
}

// Without a reachable cluster, completion offers nothing and says nothing:
// the shell shows no suggestions rather than an error in the prompt.
func TestCompletionFailsSoft(t *testing.T) {
	srv := completionCluster(t)
	kubeconfig := completionKubeconfig(t, srv.URL)
	srv.Close()
	for _, args := range [][]string{{"plan", "delete", ""}, {"graph", "deploy/"}, {"graph", "-n", ""}} {
		stdout, stderr, code := runKGC(t, append([]string{"__complete", "--kubeconfig", kubeconfig}, args...)...)
		if code != exitOK || stdout != ":4\n" || stderr != "Completion ended with directive: ShellCompDirectiveNoFileComp\n" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want no suggestion and no noise", args, code, stdout, stderr)
		}
	}
	stdout, _, _ := runKGC(t, "__complete", "--kubeconfig", filepath.Join(t.TempDir(), "missing"), "graph", "")
	if stdout != ":4\n" {
		t.Errorf("without a kubeconfig: %q", stdout)
	}
}

// kubectl completes `kubectl kgc plan delete deploy/w<TAB>` by running
// kubectl_complete-kgc with the words after `kubectl kgc`; the script must
// be executable and hand them, unchanged, to kgc's __complete.
func TestKubectlPluginCompletionScript(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the completion script is a POSIX shell script; kubectl on Windows does not run it")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "plugins", "kubectl_complete-kgc"))
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(script); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("%s must exist and be executable: %v", script, err)
	}
	bin := t.TempDir()
	fakeKubectl := "#!/bin/sh\nprintf '%s\\n' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "kubectl"), []byte(fakeKubectl), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(script, "plan", "delete", "--cascade", "", "deploy/w x")
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "kgc\n__complete\nplan\ndelete\n--cascade\n\ndeploy/w x\n"; string(out) != want {
		t.Errorf("kubectl was run with %q, want %q", out, want)
	}
}

// kgc apply WHY.json --remedy <TAB> offers the remedy ids of that
// diagnosis, with their descriptions; nothing before the file is given.
func TestCompleteRemedyIDs(t *testing.T) {
	why, _, code := runKGC(t, "why-stuck", "widget/gizmo", "-n", "shop", "-f", "../../examples/cluster.yaml", "-o", "json")
	if code != exitOK {
		t.Fatalf("why-stuck: exit %d", code)
	}
	path := filepath.Join(t.TempDir(), "why.json")
	if err := os.WriteFile(path, []byte(why), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, _ := runKGC(t, "__complete", "apply", path, "--remedy", "")
	want := "remove-finalizer:widget:shop/gizmo:widgets.example.com/cleanup\tLast resort: remove finalizer widgets.example.com/cleanup from Widget/gizmo -n shop\n:4\n"
	if out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if out, _, _ := runKGC(t, "__complete", "apply", "--remedy", ""); out != ":4\n" {
		t.Errorf("without a file: got %q, want no candidates", out)
	}
}
