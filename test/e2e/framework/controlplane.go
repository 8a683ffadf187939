package framework

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// GCGraphPath is the garbage collector's debug handler in kube-controller-manager.
const GCGraphPath = "/debug/controllers/garbage-collector-controller/graph"

// ControlPlane is a running etcd + kube-apiserver + kube-controller-manager.
type ControlPlane struct {
	// Dir holds certificates, keys, data and logs; it is removed by Stop
	// unless the run failed (then the logs are worth keeping).
	Dir string
	// Kubeconfig is a kubeconfig file with cluster-admin rights (a static
	// token in system:masters) for tests and for kgc.
	Kubeconfig string
	// APIServerURL is https://127.0.0.1:PORT of kube-apiserver.
	APIServerURL string
	// ControllerManagerURL is https://127.0.0.1:PORT of kube-controller-manager.
	ControllerManagerURL string
	// Token is the admin bearer token.
	Token string
	// Logs maps component name to its log file.
	Logs map[string]string
	// StartupTime is how long Start took once the binaries existed.
	StartupTime time.Duration

	procs []*process
}

type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	// cleanup is a directory outside Dir to remove after the process exits.
	cleanup string
}

// freePort asks the kernel for a free loopback port. Another process could
// take it before the component binds it; that race is rare on a test machine
// and shows up as a clear startup failure in the component's log.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// FindEtcd returns the etcd binary to use: $KGC_E2E_ETCD, then etcd on PATH,
// then /usr/bin/etcd (Debian's etcd-server package).
func FindEtcd() (string, error) {
	if p := os.Getenv("KGC_E2E_ETCD"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("KGC_E2E_ETCD=%s: %w; install etcd: apt-get install etcd-server", p, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath("etcd"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/bin/etcd"); err == nil {
		return "/usr/bin/etcd", nil
	}
	return "", errors.New("etcd not found: install etcd: apt-get install etcd-server (or set KGC_E2E_ETCD)")
}

// Start brings up the control plane and returns once the API server is ready
// and the garbage collector has proved that it collects dependents.
func Start(ctx context.Context, bins ControlPlaneBinaries, etcdPath string, logf func(string, ...any)) (cp *ControlPlane, err error) {
	start := time.Now()
	dir, err := os.MkdirTemp("", "kgc-e2e-")
	if err != nil {
		return nil, fmt.Errorf("creating control-plane dir: %w", err)
	}
	cp = &ControlPlane{Dir: dir, Logs: map[string]string{}}
	defer func() {
		if err != nil {
			err = fmt.Errorf("%w\n%s", err, cp.LogTails(40))
			cp.Stop(true)
		}
	}()
	tokenBytes := make([]byte, 16)
	if _, err := rand.Read(tokenBytes); err != nil {
		return cp, fmt.Errorf("generating token: %w", err)
	}
	cp.Token = hex.EncodeToString(tokenBytes)

	// etcd keeps its data in memory-backed /dev/shm when there is one: etcd
	// 3.4 has no --unsafe-no-fsync and fsyncs on a virtual disk dominate
	// apiserver latency.
	dataParent := dir
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		dataParent = "/dev/shm"
	}
	etcdData, err := os.MkdirTemp(dataParent, "kgc-e2e-etcd-")
	if err != nil {
		return cp, fmt.Errorf("creating etcd data dir: %w", err)
	}
	clientPort, err := freePort()
	if err != nil {
		return cp, err
	}
	peerPort, err := freePort()
	if err != nil {
		return cp, err
	}
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	if err := cp.spawn("etcd", etcdPath, nil,
		"--name=kgc-e2e",
		"--data-dir="+etcdData,
		"--listen-client-urls="+etcdURL,
		"--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=kgc-e2e="+peerURL,
		"--initial-cluster-state=new",
		"--logger=zap",
		"--log-outputs=stderr",
		"--quota-backend-bytes=2147483648",
	); err != nil {
		return cp, err
	}
	// Remove the tmpfs data with the rest, even though it is not under Dir.
	cp.procs[len(cp.procs)-1].cleanup = etcdData
	if err := cp.waitHTTP(ctx, "etcd", etcdURL+"/health", "", 60*time.Second); err != nil {
		return cp, err
	}

	// kube-apiserver: static token for the admin, a service-account key the
	// harness generates, self-signed serving certificates in --cert-dir.
	tokenFile := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokenFile, []byte(cp.Token+",kgc-e2e-admin,kgc-e2e-admin,system:masters\n"), 0o600); err != nil {
		return cp, fmt.Errorf("writing token file: %w", err)
	}
	saKey := filepath.Join(dir, "sa.key")
	if err := writeRSAKey(saKey); err != nil {
		return cp, err
	}
	apiPort, err := freePort()
	if err != nil {
		return cp, err
	}
	cp.APIServerURL = fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	if err := cp.spawn("kube-apiserver", bins.APIServer, nil,
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(apiPort),
		"--cert-dir="+filepath.Join(dir, "apiserver-certs"),
		"--token-auth-file="+tokenFile,
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--service-account-key-file="+saKey,
		"--service-account-signing-key-file="+saKey,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		// No kubelet, scheduler or serviceaccount controller run here: pods
		// must be creatable without a "default" ServiceAccount, and the
		// kubernetes Service must not get a loopback endpoint (invalid).
		"--disable-admission-plugins=ServiceAccount",
		"--endpoint-reconciler-type=none",
		"--enable-garbage-collector=true",
		"--profiling=false",
		"--v=1",
	); err != nil {
		return cp, err
	}
	if err := cp.waitHTTP(ctx, "kube-apiserver", cp.APIServerURL+"/readyz", cp.Token, 3*time.Minute); err != nil {
		return cp, err
	}
	cp.Kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(cp.Kubeconfig, cp.APIServerURL, cp.Token); err != nil {
		return cp, err
	}

	// kube-controller-manager with only the controllers whose behaviour kgc
	// simulates. Its secure port serves the GC's debug graph; the admin token
	// authenticates through the delegated TokenReview, and the always-allow
	// list also lets anonymous requests through.
	kcmPort, err := freePort()
	if err != nil {
		return cp, err
	}
	cp.ControllerManagerURL = fmt.Sprintf("https://127.0.0.1:%d", kcmPort)
	if err := cp.spawn("kube-controller-manager", bins.ControllerManager, nil,
		"--kubeconfig="+cp.Kubeconfig,
		"--authentication-kubeconfig="+cp.Kubeconfig,
		"--authorization-kubeconfig="+cp.Kubeconfig,
		"--authentication-skip-lookup=true",
		"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics,"+GCGraphPath,
		"--controllers=garbagecollector,namespace",
		"--use-service-account-credentials=false",
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(kcmPort),
		"--cert-dir="+filepath.Join(dir, "kcm-certs"),
		"--profiling=false",
		"--v=2",
	); err != nil {
		return cp, err
	}
	if err := cp.waitHTTP(ctx, "kube-controller-manager", cp.ControllerManagerURL+"/healthz", "", 2*time.Minute); err != nil {
		return cp, err
	}
	if err := cp.waitHTTP(ctx, "garbage collector debug handler", cp.ControllerManagerURL+GCGraphPath, cp.Token, 2*time.Minute); err != nil {
		return cp, err
	}
	if err := waitGCWorks(ctx, cp, logf); err != nil {
		return cp, err
	}
	cp.StartupTime = time.Since(start)
	logf("control plane up in %s (logs in %s)", cp.StartupTime.Round(100*time.Millisecond), dir)
	return cp, nil
}

// spawn starts a component in its own process group, logging to Dir/NAME.log.
func (cp *ControlPlane) spawn(name, path string, env []string, args ...string) error {
	logPath := filepath.Join(cp.Dir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("creating %s log: %w", name, err)
	}
	cp.Logs[name] = logPath
	cmd := exec.Command(path, args...)
	cmd.Stdout = f
	cmd.Stderr = f
	cmd.Env = append(cleanEnv(), env...)
	// Own process group so Stop can kill helpers too; Pdeathsig so a test
	// binary killed by -timeout does not leave a control plane behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("starting %s (%s): %w", name, path, err)
	}
	p := &process{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	cp.procs = append(cp.procs, p)
	return nil
}

// cleanEnv drops ETCD_* variables (the Debian package's service reads them)
// and proxy settings, which must never apply to loopback traffic.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "ETCD_"):
		case strings.EqualFold(k, "http_proxy"), strings.EqualFold(k, "https_proxy"):
		default:
			out = append(out, kv)
		}
	}
	return append(out, "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
}

// insecureClient talks TLS to the components' self-signed certificates. Only
// loopback addresses the harness started are ever contacted.
func insecureClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:           nil,
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // self-signed loopback test certs
		},
	}
}

// waitHTTP polls url until it answers 200, a component exits, or timeout.
func (cp *ControlPlane) waitHTTP(ctx context.Context, what, url, token string, timeout time.Duration) error {
	client := insecureClient(5 * time.Second)
	deadline := time.Now().Add(timeout)
	var last string
	for {
		for _, p := range cp.procs {
			select {
			case <-p.done:
				return fmt.Errorf("%s exited while waiting for %s: %v", p.name, what, p.err)
			default:
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("building request for %s: %w", url, err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready at %s after %s: %s", what, url, timeout, last)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Stop kills every component's process group, newest first, and removes the
// working directory unless keep is set.
func (cp *ControlPlane) Stop(keep bool) {
	for i := len(cp.procs) - 1; i >= 0; i-- {
		p := cp.procs[i]
		p.stop()
		if p.cleanup != "" {
			os.RemoveAll(p.cleanup)
		}
	}
	cp.procs = nil
	if !keep && cp.Dir != "" {
		os.RemoveAll(cp.Dir)
	}
}

// LogTails returns the log paths and the last n lines of each log.
func (cp *ControlPlane) LogTails(n int) string {
	var b strings.Builder
	for _, name := range []string{"etcd", "kube-apiserver", "kube-controller-manager"} {
		path, ok := cp.Logs[name]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "==> %s log: %s (last %d lines)\n", name, path, n)
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(&b, "   (unreadable: %v)\n", err)
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > n {
			lines = lines[len(lines)-n:]
		}
		for _, l := range lines {
			b.WriteString("    " + l + "\n")
		}
	}
	return b.String()
}

func writeRSAKey(path string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("generating service-account key: %w", err)
	}
	der := x509.MarshalPKCS1PrivateKey(key)
	data := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: der})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("writing service-account key: %w", err)
	}
	return nil
}

func writeKubeconfig(path, server, token string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kgc-e2e"] = &clientcmdapi.Cluster{Server: server, InsecureSkipTLSVerify: true}
	cfg.AuthInfos["kgc-e2e-admin"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["kgc-e2e"] = &clientcmdapi.Context{Cluster: "kgc-e2e", AuthInfo: "kgc-e2e-admin"}
	cfg.CurrentContext = "kgc-e2e"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("writing kubeconfig %s: %w", path, err)
	}
	return nil
}

// StopComponent stops one component (for example "kube-controller-manager")
// and leaves the others running: a test can then watch what the cluster
// does without it. It reports whether the component was running.
func (cp *ControlPlane) StopComponent(name string) bool {
	for i, p := range cp.procs {
		if p.name != name {
			continue
		}
		p.stop()
		cp.procs = append(cp.procs[:i], cp.procs[i+1:]...)
		return true
	}
	return false
}

// stop ends the process's group: SIGTERM, then SIGKILL after 10 s.
func (p *process) stop() {
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	}
}
