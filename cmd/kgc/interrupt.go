package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"

	"github.com/kgc-dev/kgc/pkg/apply"
)

// exitAtOnce is the exit code of a second interrupt: the shell's for a
// process ended by SIGINT (128+2), as if kgc had not caught it.
const exitAtOnce = 130

// applyRuntime is what kgc apply takes from its process rather than from
// its command line: the cluster to talk to, the interrupts, and how to
// exit at once. Run uses the real ones; tests put theirs in the context
// (withApplyRuntime) to drive the command with a fake cluster and
// interrupts of their own, never real signals.
type applyRuntime struct {
	cluster func() (apply.Cluster, error)
	signals <-chan os.Signal
	exit    func(code int)
}

type applyRuntimeKey struct{}

func withApplyRuntime(ctx context.Context, rt *applyRuntime) context.Context {
	return context.WithValue(ctx, applyRuntimeKey{}, rt)
}

func applyRuntimeFrom(ctx context.Context) *applyRuntime {
	if ctx != nil {
		if rt, ok := ctx.Value(applyRuntimeKey{}).(*applyRuntime); ok {
			return rt
		}
	}
	return &applyRuntime{}
}

// interrupts relays the process's interrupts while an apply runs. Before
// following starts (arm), an interrupt exits at once with exitAtOnce, as
// it always did: at a prompt or during the checks there is nothing to
// report. Once following, the first stops following (the returned channel
// closes) and the report of what was seen is printed; the second exits at
// once. stop
// ends the relay, waiting for it, and, for real signals, gives SIGINT back
// its default. errOut must be safe for the apply and the relay to write
// to at once (lockedWriter).
func (rt *applyRuntime) interrupts(errOut io.Writer) (first <-chan struct{}, arm, stop func()) {
	signals, exit := rt.signals, rt.exit
	release := func() {}
	if signals == nil {
		ch := make(chan os.Signal, 2)
		signal.Notify(ch, os.Interrupt)
		signals, release = ch, func() { signal.Stop(ch) }
	}
	if exit == nil {
		exit = os.Exit
	}
	out, done := make(chan struct{}), make(chan struct{})
	var armed atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-signals:
			if !armed.Load() {
				fmt.Fprintln(errOut, "\ninterrupted")
				exit(exitAtOnce)
				return
			}
			fmt.Fprintln(errOut, "\ninterrupted: following stops and the report of what was seen so far follows; the cascade goes on in the cluster (interrupt again to exit at once)")
			close(out)
		case <-done:
			return
		}
		select {
		case <-signals:
			fmt.Fprintln(errOut, "interrupted again: exiting without the report")
			exit(exitAtOnce)
		case <-done:
		}
	}()
	var once sync.Once
	return out, func() { armed.Store(true) }, func() { once.Do(func() { close(done); wg.Wait(); release() }) }
}

// lockedWriter serialises writes: the progress line and the interrupt
// relay's messages share stderr.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
