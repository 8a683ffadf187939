package framework

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// moduleCommand is a command built from a Go module other than the e2e
// module: etcd and kwok.
type moduleCommand struct {
	name    string // for logs and the build directory
	module  string // the module to require, e.g. go.etcd.io/etcd/server/v3
	version string
	pkg     string // the main package inside it
}

func etcdCommand() moduleCommand {
	return moduleCommand{name: "etcd", module: "go.etcd.io/etcd/server/v3", version: EtcdVersion, pkg: "go.etcd.io/etcd/server/v3"}
}

func kwokCommand() moduleCommand {
	return moduleCommand{name: "kwok", module: "sigs.k8s.io/kwok", version: KwokVersion, pkg: "sigs.k8s.io/kwok/cmd/kwok"}
}

// kwokStageFiles are the stages kwok plays, relative to its module
// directory; the kwok binary embeds none of them (without --config it plays
// nothing). They are kwokctl's defaults (pkg/kwokctl/runtime/cluster.go:
// node-initialize, node-heartbeat-with-lease, the fast pod-ready and
// pod-delete) except pod-complete, which is the general one: it honours the
// pod annotation pod-complete.stage.kwok.x-k8s.io/delay, so a Job scenario
// can keep its pods running (and holding the Job tracking finalizer), where
// the fast one completes every Job pod at once.
func kwokStageFiles() []string {
	return []string{
		"kustomize/stage/node/fast/node-initialize.yaml",
		"kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
		"kustomize/stage/pod/fast/pod-ready.yaml",
		"kustomize/stage/pod/general/pod-complete.yaml",
		"kustomize/stage/pod/fast/pod-delete.yaml",
	}
}

// ensureEtcd builds etcd unless it is cached. The caller holds the cache lock.
func ensureEtcd(cacheDir, out string, logf func(string, ...any)) error {
	if isRegular(out) {
		return nil
	}
	return buildFromModule(cacheDir, out, etcdCommand(), logf)
}

// ensureKwok builds kwok unless it is cached, and writes its stage
// configuration every time (so that a change of kwokStageFiles applies
// without a rebuild). The caller holds the cache lock.
func ensureKwok(cacheDir string, bins ControlPlaneBinaries, logf func(string, ...any)) error {
	c := kwokCommand()
	if !isRegular(bins.Kwok) {
		if err := buildFromModule(cacheDir, bins.Kwok, c, logf); err != nil {
			return err
		}
	}
	out, err := runGo(buildDir(cacheDir, c), "list", "-m", "-f", "{{.Dir}}", c.module)
	if err != nil {
		return err
	}
	modDir := strings.TrimSpace(out)
	var stages []string
	for _, f := range kwokStageFiles() {
		data, err := os.ReadFile(filepath.Join(modDir, f))
		if err != nil {
			return fmt.Errorf("reading kwok stage %s: %w", f, err)
		}
		stages = append(stages, strings.TrimSpace(string(data)))
	}
	tmp := bins.KwokStages + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join(stages, "\n---\n")+"\n"), 0o644); err != nil {
		return fmt.Errorf("writing kwok stages: %w", err)
	}
	if err := os.Rename(tmp, bins.KwokStages); err != nil {
		return fmt.Errorf("installing kwok stages: %w", err)
	}
	return nil
}

// buildDir is the throwaway module c is built in.
func buildDir(cacheDir string, c moduleCommand) string {
	return filepath.Join(cacheDir, "build-"+c.name+"-"+c.version)
}

// buildFromModule builds c into out from a throwaway module under cacheDir
// whose generated go.mod only requires c.module at c.version. It is not `go install pkg@version`
// because etcd's go.mod has replace directives (its sibling modules), which
// that refuses; and it is not the e2e module because the tools' dependencies
// (other k8s.io/* versions, grpc, otel) must not move the versions the
// control plane is built with.
func buildFromModule(cacheDir, out string, c moduleCommand, logf func(string, ...any)) error {
	work := buildDir(cacheDir, c)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", work, err)
	}
	gomod := fmt.Sprintf("module kgc-e2e-build/%s\n\ngo 1.26.0\n", c.name)
	if err := os.WriteFile(filepath.Join(work, "go.mod"), []byte(gomod), 0o644); err != nil {
		return fmt.Errorf("writing %s/go.mod: %w", work, err)
	}
	logf("building %s %s into %s (one-time, takes minutes)", c.pkg, c.version, out)
	start := time.Now()
	if _, err := runGo(work, "get", c.pkg+"@"+c.version); err != nil {
		return err
	}
	tmp := out + ".tmp"
	if err := goBuild(work, tmp, c.pkg); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("installing %s: %w", out, err)
	}
	logf("built %s in %s", filepath.Base(out), time.Since(start).Round(time.Second))
	return nil
}

func isRegular(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
