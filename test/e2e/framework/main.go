package framework

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Env is what a test gets from the package's control plane.
type Env struct {
	CP        *ControlPlane
	bins      ControlPlaneBinaries
	workloads *lazyPlane
	Config    *rest.Config
	Client    kubernetes.Interface
	Dynamic   dynamic.Interface
	KGCBinary string
	kgcErr    error
}

var (
	suite        *Env
	suiteSkip    string // non-empty: why the control plane could not run
	suiteFailure error  // non-nil: the control plane failed to start
)

// Kubectl is the kubectl the harness built from the same release as the
// control plane.
func (e *Env) Kubectl() string { return e.bins.Kubectl }

// Required reports whether missing prerequisites must fail rather than skip
// the suite (set KGC_E2E_REQUIRED=1 in CI).
func Required() bool { return os.Getenv("KGC_E2E_REQUIRED") != "" }

// Main is the body of a test package's TestMain: it builds (or reuses) the
// binaries, starts one control plane for the package, runs the tests, prints
// the component logs when something failed, and tears everything down.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "e2e: "+format+"\n", args...)
	}
	// testing.Short and the packages' own flags (-seed) are only usable
	// after parsing; m.Run would parse them too late for this function.
	if !flag.Parsed() {
		flag.Parse()
	}
	// The tests mostly wait for the garbage collector, so the default
	// parallelism (GOMAXPROCS, 2 on the project's machines) would leave the
	// machine idle; use 8 unless -parallel was given.
	explicit := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "test.parallel" {
			explicit = true
		}
	})
	if !explicit {
		if err := flag.Set("test.parallel", "8"); err != nil {
			logf("cannot raise -test.parallel: %v", err)
		}
	}
	if testing.Short() {
		suiteSkip = "e2e suite skipped in -short mode"
		return m.Run()
	}
	buildStart := time.Now()
	bins, err := EnsureControlPlaneBinaries(logf)
	if err != nil {
		suiteFailure = fmt.Errorf("building control-plane binaries: %w", err)
		return m.Run()
	}
	logf("control-plane binaries ready in %s", time.Since(buildStart).Round(100*time.Millisecond))

	env := &Env{workloads: &lazyPlane{}}
	// kgc is built concurrently with the control-plane start: both take
	// seconds to minutes and neither needs the other.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		env.KGCBinary, env.kgcErr = BuildKGC(logf)
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	cp, err := Start(ctx, bins, GCOnly, logf)
	cancel()
	wg.Wait()
	if env.KGCBinary != "" {
		defer os.RemoveAll(filepath.Dir(env.KGCBinary))
	}
	if env.kgcErr != nil {
		// Tests that need kgc fail with this error; the others still run.
		logf("%v", env.kgcErr)
	}
	if err != nil {
		suiteFailure = fmt.Errorf("starting control plane: %w", err)
		return m.Run()
	}
	env.CP = cp
	env.bins = bins
	if err := env.initClients(); err != nil {
		cp.Stop(true)
		suiteFailure = err
		return m.Run()
	}
	suite = env
	code := m.Run()
	for _, plane := range []*ControlPlane{cp, env.workloads.plane()} {
		if plane == nil {
			continue
		}
		if code != 0 {
			fmt.Fprintf(os.Stderr, "e2e: tests failed; %s control-plane logs kept in %s\n%s", plane.Profile, plane.Dir, plane.LogTails(30))
		}
		plane.Stop(code != 0)
	}
	return code
}

func (e *Env) initClients() error {
	cfg, err := clientcmd.BuildConfigFromFlags("", e.CP.Kubeconfig)
	if err != nil {
		return fmt.Errorf("loading harness kubeconfig: %w", err)
	}
	// Tests create many objects quickly; the default 5 QPS would dominate
	// the suite's runtime.
	cfg.QPS = 200
	cfg.Burst = 400
	e.Config = cfg
	if e.Client, err = kubernetes.NewForConfig(cfg); err != nil {
		return fmt.Errorf("creating clientset: %w", err)
	}
	if e.Dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		return fmt.Errorf("creating dynamic client: %w", err)
	}
	return nil
}

// Setup returns the package's environment, skipping the test when the
// control plane cannot run here (unless KGC_E2E_REQUIRED is set) and failing
// it when the control plane should have run but did not. On failure of the
// test it logs where the component logs are.
func Setup(t testing.TB) *Env {
	t.Helper()
	switch {
	case suiteFailure != nil:
		t.Fatalf("e2e control plane unavailable: %v", suiteFailure)
	case suiteSkip != "":
		if Required() {
			t.Fatalf("KGC_E2E_REQUIRED is set but: %s", suiteSkip)
		}
		t.Skip(suiteSkip)
	case suite == nil:
		t.Fatal("framework.Setup called without framework.Main in TestMain")
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("control-plane logs: %v (tails are printed at the end of the run)", suite.CP.LogPaths())
		}
	})
	return suite
}

// waitGCWorks proves the garbage collector has synced its monitors and runs
// its workers: a Secret owned by a ConfigMap must disappear after the
// ConfigMap is deleted in the background.
func waitGCWorks(ctx context.Context, cp *ControlPlane, logf func(string, ...any)) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.Kubeconfig)
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating clientset: %w", err)
	}
	start := time.Now()
	const ns = "kgc-e2e-warmup"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating warm-up namespace: %w", err)
	}
	owner, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating warm-up owner: %w", err)
	}
	_, err = cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
		Name: "dependent",
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID,
		}},
	}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating warm-up dependent: %w", err)
	}
	// Give the GC a moment to observe the dependent: a dependent it has not
	// seen when the owner goes is still collected (dangling), but later.
	bg := metav1.DeletePropagationBackground
	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, owner.Name, metav1.DeleteOptions{PropagationPolicy: &bg, Preconditions: &metav1.Preconditions{UID: ptrUID(owner.UID)}}); err != nil {
		return fmt.Errorf("deleting warm-up owner: %w", err)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Secrets(ns).Get(ctx, "dependent", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("garbage collector did not collect the warm-up dependent: %w", err)
	}
	logf("garbage collector collects dependents (%s after its debug handler answered)", time.Since(start).Round(100*time.Millisecond))
	return nil
}

func ptrUID(u types.UID) *types.UID { return &u }

// Dedicated starts a control plane of its own for a test that would disturb
// the shared one (for example a CRD whose list always fails, which makes the
// GC wait on every resync). It is stopped when the test ends; its logs are
// kept and printed if the test failed. Options change how it is set up
// (WithAuditPolicy).
func (e *Env) Dedicated(t testing.TB, opts ...Option) *Env {
	t.Helper()
	logf := func(format string, args ...any) { t.Logf(format, args...) }
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cp, err := Start(ctx, e.bins, GCOnly, logf, opts...)
	if err != nil {
		t.Fatalf("starting a dedicated control plane: %v", err)
	}
	d := &Env{CP: cp, bins: e.bins, KGCBinary: e.KGCBinary, kgcErr: e.kgcErr}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("dedicated control plane logs kept in %s\n%s", cp.Dir, cp.LogTails(30))
		}
		cp.Stop(t.Failed())
	})
	if err := d.initClients(); err != nil {
		t.Fatal(err)
	}
	return d
}

// lazyPlane is the package's workload control plane, started by the first
// test that asks for it: runs that select only garbage-collector tests never
// pay for it, and every workload test shares it (each in its own namespace).
type lazyPlane struct {
	once sync.Once
	env  *Env
	err  error
}

func (l *lazyPlane) plane() *ControlPlane {
	if l.env == nil {
		return nil
	}
	return l.env.CP
}

// Workloads returns the workload control plane (Profile Workloads: every
// controller, kube-scheduler, kwok nodes), starting it on first use. It is
// stopped when the package's tests end; its logs are kept and printed if
// any test failed.
func (e *Env) Workloads(t testing.TB) *Env {
	t.Helper()
	if e.workloads == nil {
		t.Fatal("Workloads: this environment has no workload control plane (a Dedicated one?)")
	}
	l := e.workloads
	l.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "e2e: "+format+"\n", args...) }
		cp, err := Start(ctx, e.bins, Workloads, logf)
		if err != nil {
			l.err = fmt.Errorf("starting the workload control plane: %w", err)
			return
		}
		w := &Env{CP: cp, bins: e.bins, KGCBinary: e.KGCBinary, kgcErr: e.kgcErr}
		if err := w.initClients(); err != nil {
			cp.Stop(true)
			l.err = err
			return
		}
		l.env = w
	})
	if l.err != nil {
		t.Fatal(l.err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("workload control-plane logs: %v (tails are printed at the end of the run)", l.env.CP.LogPaths())
		}
	})
	return l.env
}
