package framework

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// GCGraphPath is the garbage collector's debug handler in kube-controller-manager.
const GCGraphPath = "/debug/controllers/garbage-collector-controller/graph"

// ControlPlane is a running etcd + kube-apiserver + kube-controller-manager,
// with the Workloads profile also kube-scheduler and kwok.
type ControlPlane struct {
	// Profile is which controllers run.
	Profile Profile
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
	// Logs maps component name to its log file. Tests add kwok nodes
	// while others run: read it through LogPaths.
	Logs map[string]string
	// StartupTime is how long Start took once the binaries existed.
	StartupTime time.Duration
	// Audit is the API server's audit policy (Option WithAuditPolicy);
	// AuditLog is the log it writes, rotated siblings beside it (audit.go).
	Audit    AuditPolicy
	AuditLog string
	// apiServerArgs are more kube-apiserver flags (WithAPIServerArgs).
	apiServerArgs []string

	bins ControlPlaneBinaries
	// mu guards procs and Logs: parallel tests start and stop kwok nodes.
	mu    sync.Mutex
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

// etcdBinary is the etcd to run: $KGC_E2E_ETCD, else the one the harness
// built (etcd 3.6: the API server's streaming lists need watch progress
// requests, which etcd 3.4 cannot serve, and kwok's informers rely on them).
func etcdBinary(bins ControlPlaneBinaries) (string, error) {
	if p := os.Getenv("KGC_E2E_ETCD"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("KGC_E2E_ETCD=%s: %w", p, err)
		}
		return p, nil
	}
	return bins.Etcd, nil
}

// Profile says which controllers a control plane runs.
type Profile int

const (
	// GCOnly runs kube-controller-manager's garbage collector and namespace
	// controller only: workloads are inert objects, pods are never scheduled.
	GCOnly Profile = iota
	// Workloads runs every kube-controller-manager controller, kube-scheduler
	// and kwok nodes that play the kubelet.
	Workloads
)

func (p Profile) String() string {
	if p == Workloads {
		return "workloads"
	}
	return "gc-only"
}

// Start brings up the control plane and returns once the API server is ready
// and the garbage collector has proved that it collects dependents; with the
// Workloads profile also once the scheduler answers and the shared kwok nodes
// are Ready.
func Start(ctx context.Context, bins ControlPlaneBinaries, profile Profile, logf func(string, ...any), opts ...Option) (cp *ControlPlane, err error) {
	start := time.Now()
	dir, err := os.MkdirTemp("", "kgc-e2e-"+profile.String()+"-")
	if err != nil {
		return nil, fmt.Errorf("creating control-plane dir: %w", err)
	}
	cp = &ControlPlane{Dir: dir, Logs: map[string]string{}, Profile: profile, bins: bins}
	for _, o := range opts {
		o(cp)
	}
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
	etcdURL, err := cp.startEtcd(ctx, bins)
	if err != nil {
		return cp, err
	}
	if err := cp.startAPIServer(ctx, bins, etcdURL); err != nil {
		return cp, err
	}
	if err := cp.startControllerManager(ctx, bins); err != nil {
		return cp, err
	}
	if profile == Workloads {
		if err := cp.startScheduler(ctx, bins); err != nil {
			return cp, err
		}
		if err := cp.startSharedNodes(ctx); err != nil {
			return cp, err
		}
	}
	if err := waitGCWorks(ctx, cp, logf); err != nil {
		return cp, err
	}
	cp.StartupTime = time.Since(start)
	logf("%s control plane up in %s (logs in %s)", profile, cp.StartupTime.Round(100*time.Millisecond), dir)
	return cp, nil
}

// startEtcd starts etcd with its data in memory-backed /dev/shm when there
// is one (fsyncs on a virtual disk dominate apiserver latency) and returns
// its client URL.
func (cp *ControlPlane) startEtcd(ctx context.Context, bins ControlPlaneBinaries) (string, error) {
	etcdPath, err := etcdBinary(bins)
	if err != nil {
		return "", err
	}
	dataParent := cp.Dir
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		dataParent = "/dev/shm"
	}
	etcdData, err := os.MkdirTemp(dataParent, "kgc-e2e-etcd-")
	if err != nil {
		return "", fmt.Errorf("creating etcd data dir: %w", err)
	}
	clientPort, err := freePort()
	if err != nil {
		return "", err
	}
	peerPort, err := freePort()
	if err != nil {
		return "", err
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
		return "", err
	}
	// Remove the tmpfs data with the rest, even though it is not under Dir.
	cp.lastProcess().cleanup = etcdData
	if err := cp.waitHTTP(ctx, "etcd", etcdURL+"/health", "", 60*time.Second); err != nil {
		return "", err
	}
	return etcdURL, nil
}

// startAPIServer starts kube-apiserver: static token for the admin, a
// service-account key the harness generates, self-signed serving
// certificates in --cert-dir; then writes the admin kubeconfig.
func (cp *ControlPlane) startAPIServer(ctx context.Context, bins ControlPlaneBinaries, etcdURL string) error {
	tokenFile := filepath.Join(cp.Dir, "tokens.csv")
	if err := os.WriteFile(tokenFile, []byte(cp.Token+",kgc-e2e-admin,kgc-e2e-admin,system:masters\n"), 0o600); err != nil {
		return fmt.Errorf("writing token file: %w", err)
	}
	if err := writeRSAKey(cp.saKey()); err != nil {
		return err
	}
	apiPort, err := freePort()
	if err != nil {
		return err
	}
	cp.APIServerURL = fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(apiPort),
		"--cert-dir=" + filepath.Join(cp.Dir, "apiserver-certs"),
		"--token-auth-file=" + tokenFile,
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--service-account-key-file=" + cp.saKey(),
		"--service-account-signing-key-file=" + cp.saKey(),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		// The kubernetes Service must not get a loopback endpoint (invalid).
		"--endpoint-reconciler-type=none",
		"--enable-garbage-collector=true",
		"--profiling=false",
		"--v=1",
	}
	auditArgs, err := cp.auditArgs()
	if err != nil {
		return err
	}
	args = append(args, auditArgs...)
	args = append(args, cp.apiServerArgs...)
	if cp.Profile == GCOnly {
		// No serviceaccount controller runs here: pods must be creatable
		// without a "default" ServiceAccount.
		args = append(args, "--disable-admission-plugins=ServiceAccount")
	}
	if err := cp.spawn("kube-apiserver", bins.APIServer, nil, args...); err != nil {
		return err
	}
	if err := cp.waitHTTP(ctx, "kube-apiserver", cp.APIServerURL+"/readyz", cp.Token, 3*time.Minute); err != nil {
		return err
	}
	cp.Kubeconfig = filepath.Join(cp.Dir, "kubeconfig")
	return writeKubeconfig(cp.Kubeconfig, cp.APIServerURL, cp.Token)
}

func (cp *ControlPlane) saKey() string { return filepath.Join(cp.Dir, "sa.key") }

// startControllerManager starts kube-controller-manager. Its secure port
// serves the GC's debug graph; the admin token authenticates through the
// delegated TokenReview, and the always-allow list also lets anonymous
// requests through.
func (cp *ControlPlane) startControllerManager(ctx context.Context, bins ControlPlaneBinaries) error {
	kcmPort, err := freePort()
	if err != nil {
		return err
	}
	cp.ControllerManagerURL = fmt.Sprintf("https://127.0.0.1:%d", kcmPort)
	args := append(cp.componentArgs("kcm", kcmPort),
		"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics,"+GCGraphPath,
		// Each controller acts as its own service account, as in a real
		// cluster: the audit log names generic-garbage-collector,
		// namespace-controller, ... (tokens from the TokenRequest API,
		// which the API server's signing key and issuer enable).
		"--use-service-account-credentials=true",
	)
	args = append(args, cp.controllerArgs()...)
	if err := cp.spawn("kube-controller-manager", bins.ControllerManager, nil, args...); err != nil {
		return err
	}
	if err := cp.waitHTTP(ctx, "kube-controller-manager", cp.ControllerManagerURL+"/healthz", "", 2*time.Minute); err != nil {
		return err
	}
	return cp.waitHTTP(ctx, "garbage collector debug handler", cp.ControllerManagerURL+GCGraphPath, cp.Token, 2*time.Minute)
}

// controllerArgs: the GC-only plane runs only the controllers whose
// behaviour kgc simulates without workloads. The workload plane runs them
// all, with what they need: the service-account token controller a signing
// key, the root CA publisher a CA (the API server's self-signed certificate
// is its own CA), and a node lifecycle controller that calls a node
// NotReady seconds, not 50 s, after its kwok stops renewing its lease (kwok
// renews every 2 s, see startKwok).
func (cp *ControlPlane) controllerArgs() []string {
	if cp.Profile == GCOnly {
		return []string{"--controllers=garbagecollector,namespace"}
	}
	return []string{
		"--controllers=*",
		"--service-account-private-key-file=" + cp.saKey(),
		"--root-ca-file=" + filepath.Join(cp.Dir, "apiserver-certs", "apiserver.crt"),
		"--node-monitor-grace-period=" + nodeMonitorGracePeriod.String(),
		"--node-monitor-period=2s",
		// The persistentvolume controller deletes hostPath volumes under
		// /tmp whose reclaim policy is Delete (the volume scenarios).
		"--enable-hostpath-provisioner",
	}
}

// nodeMonitorGracePeriod is how long after its last lease renewal a node
// is called NotReady: well above kwok's 2 s renewal interval so that a busy
// machine does not make nodes flap, short enough that a node scenario waits
// seconds.
const nodeMonitorGracePeriod = 20 * time.Second

// componentArgs are the flags kube-controller-manager and kube-scheduler
// share: the admin kubeconfig for everything, no leader election, a secure
// port on loopback with self-signed certificates.
func (cp *ControlPlane) componentArgs(certDir string, port int) []string {
	return []string{
		"--kubeconfig=" + cp.Kubeconfig,
		"--authentication-kubeconfig=" + cp.Kubeconfig,
		"--authorization-kubeconfig=" + cp.Kubeconfig,
		"--authentication-skip-lookup=true",
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + filepath.Join(cp.Dir, certDir+"-certs"),
		"--profiling=false",
		"--v=2",
	}
}

// startScheduler starts kube-scheduler and waits for its health check.
func (cp *ControlPlane) startScheduler(ctx context.Context, bins ControlPlaneBinaries) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	if err := cp.spawn("kube-scheduler", bins.Scheduler, nil, cp.componentArgs("scheduler", port)...); err != nil {
		return err
	}
	return cp.waitHTTP(ctx, "kube-scheduler", fmt.Sprintf("https://127.0.0.1:%d/healthz", port), "", 2*time.Minute)
}

// spawn starts a component in its own process group, logging to Dir/NAME.log.
func (cp *ControlPlane) spawn(name, path string, env []string, args ...string) error {
	logPath := filepath.Join(cp.Dir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("creating %s log: %w", name, err)
	}
	cp.mu.Lock()
	cp.Logs[name] = logPath
	cp.mu.Unlock()
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
	cp.mu.Lock()
	cp.procs = append(cp.procs, p)
	cp.mu.Unlock()
	return nil
}

// lastProcess is the process spawn started last.
func (cp *ControlPlane) lastProcess() *process {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.procs[len(cp.procs)-1]
}

// running is a copy of the running processes.
func (cp *ControlPlane) running() []*process {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return append([]*process(nil), cp.procs...)
}

// LogPaths is a copy of Logs.
func (cp *ControlPlane) LogPaths() map[string]string {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return maps.Clone(cp.Logs)
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
		for _, p := range cp.running() {
			select {
			case <-p.done:
				return fmt.Errorf("%s exited while waiting for %s: %w", p.name, what, p.err)
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
	procs := cp.running()
	for i := len(procs) - 1; i >= 0; i-- {
		p := procs[i]
		p.stop()
		if p.cleanup != "" {
			os.RemoveAll(p.cleanup)
		}
	}
	cp.mu.Lock()
	cp.procs = nil
	cp.mu.Unlock()
	if !keep && cp.Dir != "" {
		os.RemoveAll(cp.Dir)
	}
}

// LogTails returns the log paths and the last n lines of each log.
func (cp *ControlPlane) LogTails(n int) string {
	var b strings.Builder
	logs := cp.LogPaths()
	for _, name := range slices.Sorted(maps.Keys(logs)) {
		path := logs[name]
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
	cp.mu.Lock()
	i := slices.IndexFunc(cp.procs, func(p *process) bool { return p.name == name })
	if i < 0 {
		cp.mu.Unlock()
		return false
	}
	p := cp.procs[i]
	cp.procs = slices.Delete(cp.procs, i, i+1)
	cp.mu.Unlock()
	p.stop()
	return true
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
