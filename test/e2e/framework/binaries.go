package framework

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// KubernetesVersion is the k8s.io/kubernetes version the e2e module requires;
// the cached control-plane binaries are keyed by it.
const KubernetesVersion = "v1.36.3"

// e2eModuleDir returns the directory holding test/e2e/go.mod, found from this
// source file so that it works whatever package's directory `go test` runs in.
func e2eModuleDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("framework: cannot locate own source file")
	}
	return filepath.Dir(filepath.Dir(file))
}

// RepoRoot is the kgc repository root (two levels above test/e2e).
func RepoRoot() string { return filepath.Dir(filepath.Dir(e2eModuleDir())) }

// EtcdVersion and KwokVersion are the Go module versions of etcd
// (go.etcd.io/etcd/server/v3) and kwok (sigs.k8s.io/kwok) the harness builds;
// their binaries are cached under these versions.
const (
	EtcdVersion = "v3.6.16"
	KwokVersion = "v0.8.0"
)

// ControlPlaneBinaries holds the paths of the cached control-plane binaries.
type ControlPlaneBinaries struct {
	APIServer         string
	ControllerManager string
	Scheduler         string
	// Kubectl runs the kubectl commands kgc prints as remedies, built
	// from the same release, so no test relies on a kubectl installed
	// by hand.
	Kubectl string
	Etcd    string
	Kwok    string
	// KwokStages is the stage configuration kwok plays (its default node and
	// pod stages, copied from its module), passed with --config.
	KwokStages string
}

// binaryCacheDir is where the control-plane binaries are kept between runs.
// KGC_E2E_BIN_DIR overrides it (for CI caches).
func binaryCacheDir() (string, error) {
	if d := os.Getenv("KGC_E2E_BIN_DIR"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("locating user cache dir: %w", err)
	}
	return filepath.Join(base, "kgc-e2e", KubernetesVersion), nil
}

// EnsureControlPlaneBinaries builds kube-apiserver and kube-controller-manager
// from the e2e module unless they are already cached. Building takes many
// minutes on a small machine, so an exclusive flock on the cache directory makes
// concurrently starting test packages wait for one build instead of each
// starting its own.
func EnsureControlPlaneBinaries(logf func(string, ...any)) (ControlPlaneBinaries, error) {
	dir, err := binaryCacheDir()
	if err != nil {
		return ControlPlaneBinaries{}, err
	}
	bins := ControlPlaneBinaries{
		APIServer:         filepath.Join(dir, "kube-apiserver"),
		ControllerManager: filepath.Join(dir, "kube-controller-manager"),
		Scheduler:         filepath.Join(dir, "kube-scheduler"),
		Kubectl:           filepath.Join(dir, "kubectl"),
		Etcd:              filepath.Join(dir, "etcd-"+EtcdVersion),
		Kwok:              filepath.Join(dir, "kwok-"+KwokVersion),
		KwokStages:        filepath.Join(dir, "kwok-"+KwokVersion+"-stages.yaml"),
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return bins, fmt.Errorf("creating binary cache %s: %w", dir, err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".build.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return bins, fmt.Errorf("opening build lock: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return bins, fmt.Errorf("locking %s: %w", lock.Name(), err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck // released on close anyway

	// The recipe (ldflags) is part of the cache key: binaries built by an
	// older harness are rebuilt (linking only, the Go build cache still has
	// the packages).
	recipePath := filepath.Join(dir, ".recipe")
	if old, err := os.ReadFile(recipePath); err != nil || string(old) != buildRecipe() {
		os.Remove(bins.APIServer)
		os.Remove(bins.ControllerManager)
		os.Remove(bins.Scheduler)
		os.Remove(bins.Kubectl)
	}
	for _, b := range []struct{ out, pkg string }{
		{bins.APIServer, "k8s.io/kubernetes/cmd/kube-apiserver"},
		{bins.ControllerManager, "k8s.io/kubernetes/cmd/kube-controller-manager"},
		{bins.Scheduler, "k8s.io/kubernetes/cmd/kube-scheduler"},
		{bins.Kubectl, "k8s.io/kubernetes/cmd/kubectl"},
	} {
		if fi, err := os.Stat(b.out); err == nil && fi.Mode().IsRegular() {
			continue
		}
		logf("building %s %s into %s (one-time, takes minutes)", b.pkg, KubernetesVersion, dir)
		start := time.Now()
		// Build to a temporary name and rename, so an interrupted build never
		// leaves a truncated binary that later runs would trust.
		tmp := b.out + ".tmp"
		if err := goBuild(e2eModuleDir(), tmp, b.pkg, "-ldflags", versionLDFlags()); err != nil {
			return bins, err
		}
		if err := os.Rename(tmp, b.out); err != nil {
			return bins, fmt.Errorf("installing %s: %w", b.out, err)
		}
		logf("built %s in %s", filepath.Base(b.out), time.Since(start).Round(time.Second))
	}
	if err := os.WriteFile(recipePath, []byte(buildRecipe()), 0o644); err != nil {
		return bins, fmt.Errorf("recording build recipe: %w", err)
	}
	if err := ensureEtcd(dir, bins.Etcd, logf); err != nil {
		return bins, err
	}
	if err := ensureKwok(dir, bins, logf); err != nil {
		return bins, err
	}
	return bins, nil
}

// versionLDFlags stamps the version the way Kubernetes' own build does
// (hack/lib/version.sh); without it the API server reports
// v0.0.0-master+$Format:%H$ and kgc would record that in snapshots.
func versionLDFlags() string {
	var parts []string
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		parts = append(parts,
			"-X "+pkg+".gitVersion="+KubernetesVersion,
			"-X "+pkg+".gitMajor=1",
			"-X "+pkg+".gitMinor=36",
			"-X "+pkg+".gitTreeState=clean",
			"-X "+pkg+".buildDate=1970-01-01T00:00:00Z",
		)
	}
	return strings.Join(parts, " ")
}

func buildRecipe() string { return "ldflags: " + versionLDFlags() + "\n" }

// goBuild runs `go build -o out pkg` in dir with workspaces disabled, so the
// module in dir alone decides the dependency versions.
func goBuild(dir, out, pkg string, flags ...string) error {
	_, err := runGo(dir, append(append([]string{"build", "-o", out}, flags...), pkg)...)
	return err
}

// runGo runs the go command in dir with workspaces disabled and returns its
// standard output; the error carries everything it printed.
func runGo(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go %s (in %s): %w\n%s%s", strings.Join(args, " "), dir, err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}
