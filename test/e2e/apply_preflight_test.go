package e2e

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// requestLog is a reverse proxy in front of kube-apiserver that records
// every request kgc sends through it.
type requestLog struct {
	mu   sync.Mutex
	reqs []string
}

func (l *requestLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.reqs
	l.reqs = nil
	return out
}

// countingKubeconfig starts the proxy and writes a kubeconfig that sends
// kgc through it, with the harness's admin token.
func countingKubeconfig(t *testing.T, env *framework.Env) (string, *requestLog) {
	t.Helper()
	target, err := url.Parse(env.CP.APIServerURL)
	if err != nil {
		t.Fatal(err)
	}
	log := &requestLog{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	// The harness's API server has a self-signed certificate, which its
	// own kubeconfig does not verify either.
	proxy.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // test cluster on loopback
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.mu.Lock()
		log.reqs = append(log.reqs, r.Method+" "+r.URL.Path)
		log.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg := clientcmdapi.NewConfig()
	// TLS, as client-go sends no credentials over plain HTTP.
	cfg.Clusters["proxy"] = &clientcmdapi.Cluster{Server: srv.URL, InsecureSkipTLSVerify: true}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: env.CP.Token}
	cfg.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "admin"}
	cfg.CurrentContext = "proxy"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path, log
}

// TestApplyPreflightReadsOnlyThePlan: checking a 50-object plan before
// its DELETE reads the plan's namespace and what it depends on, not the
// rest of the cluster (other tests fill other namespaces meanwhile): a
// few dozen requests, and no list of a namespaced type at cluster scope.
func TestApplyPreflightReadsOnlyThePlan(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "apply-preflight")
	owner := env.MustCreate(t, ctx, framework.ConfigMaps, framework.Obj("v1", "ConfigMap", ns, "owner"))
	for i := range 49 {
		dep := framework.Obj("v1", "Secret", ns, fmt.Sprintf("dep-%02d", i))
		dep.SetOwnerReferences([]metav1.OwnerReference{framework.Ref(owner, nil, nil)})
		env.MustCreate(t, ctx, framework.Secrets, dep)
	}
	kubeconfig, log := countingKubeconfig(t, env)
	planned := env.KGC(t, "--kubeconfig", kubeconfig, "plan", "delete", "cm/owner", "-n", ns, "--cascade=background", "-o", "json")
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(path, planned, 0o600); err != nil {
		t.Fatal(err)
	}
	var p framework.Plan
	if err := json.Unmarshal(planned, &p); err != nil {
		t.Fatal(err)
	}
	deleted := 0
	for _, o := range p.Objects {
		if o.Fate == "deleted" {
			deleted++
		}
	}
	if deleted != 50 {
		t.Fatalf("the plan deletes %d objects, want the owner and its 49 Secrets", deleted)
	}
	log.take()
	c := &applyCase{env: env, ns: ns}
	rep := c.apply(t, 0, path, "--kubeconfig", kubeconfig, "--yes", "--dry-run=server")
	if rep.Outcome != "dry-run-accepted" {
		t.Fatalf("outcome %s, want dry-run-accepted", rep.Outcome)
	}
	reqs := log.take()
	t.Logf("apply sent %d requests:\n%s", len(reqs), strings.Join(reqs, "\n"))
	outside := 0
	for _, r := range reqs {
		if !strings.Contains(r, "/namespaces/"+ns+"/") {
			outside++
		}
		if !readsOnlyThePlan(r, ns) {
			t.Errorf("apply sent %s, which the plan of namespace %s does not depend on", r, ns)
		}
	}
	// Discovery, the cluster-scoped kinds with facts, who am I, the DELETE.
	if outside > 12 {
		t.Errorf("apply sent %d requests outside namespace %s, want at most 12", outside, ns)
	}
}

// readsOnlyThePlan reports whether request r is one a narrow pre-flight
// of a plan in namespace ns sends: discovery, a list in ns, a list of a
// cluster-scoped kind with facts, the SelfSubjectReview and the DELETE.
func readsOnlyThePlan(r, ns string) bool {
	method, path, _ := strings.Cut(r, " ")
	switch {
	case method == "GET" && (path == "/version" || path == "/api" || path == "/apis"):
		return true
	case strings.Contains(path, "/namespaces/"+ns+"/"):
		return method == "GET" || method == "DELETE"
	case method == "POST":
		return path == "/apis/authentication.k8s.io/v1/selfsubjectreviews"
	}
	switch path {
	case "/api/v1/namespaces", "/api/v1/nodes", "/api/v1/persistentvolumes",
		"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "/apis/apiregistration.k8s.io/v1/apiservices",
		"/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
		"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations":
		return method == "GET"
	}
	return false
}
