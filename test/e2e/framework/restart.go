package framework

import (
	"context"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"
)

// process returns the running process of a component, or nil.
func (cp *ControlPlane) process(name string) *process {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	i := slices.IndexFunc(cp.procs, func(p *process) bool { return p.name == name })
	if i < 0 {
		return nil
	}
	return cp.procs[i]
}

// RestartAPIServer stops kube-apiserver, keeps it down for down, and
// starts it again with the same flags: the same etcd, port and
// certificates, so clients reconnect to the same URL. It returns once the
// API server is ready again; its log before the restart is kept beside
// the new one.
func (cp *ControlPlane) RestartAPIServer(ctx context.Context, down time.Duration) error {
	const name = "kube-apiserver"
	p := cp.process(name)
	if p == nil {
		return fmt.Errorf("%s is not running", name)
	}
	path, args := p.cmd.Path, slices.Clone(p.cmd.Args[1:])
	cp.StopComponent(name)
	if log := cp.LogPaths()[name]; log != "" {
		_ = os.Rename(log, log+fmt.Sprintf(".before-restart-%d", time.Now().UnixNano()))
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(down):
	}
	if err := cp.spawn(name, path, nil, args...); err != nil {
		return err
	}
	return cp.waitHTTP(ctx, name, cp.APIServerURL+"/readyz", cp.Token, 3*time.Minute)
}

// PauseComponent stops a component's process with SIGSTOP: it keeps its
// connections open and answers nothing, as a stalled server does.
// ResumeComponent (SIGCONT) undoes it.
func (cp *ControlPlane) PauseComponent(name string) error {
	return cp.signal(name, syscall.SIGSTOP)
}

// ResumeComponent continues a component stopped by PauseComponent.
func (cp *ControlPlane) ResumeComponent(name string) error {
	return cp.signal(name, syscall.SIGCONT)
}

func (cp *ControlPlane) signal(name string, sig syscall.Signal) error {
	p := cp.process(name)
	if p == nil {
		return fmt.Errorf("%s is not running", name)
	}
	if err := syscall.Kill(p.cmd.Process.Pid, sig); err != nil {
		return fmt.Errorf("signalling %s: %w", name, err)
	}
	return nil
}
