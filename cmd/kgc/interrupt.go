package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
)

// exitAtOnce is the exit code of a second interrupt: the shell's for a
// process ended by SIGINT (128+2), as if kgc had not caught it.
const exitAtOnce = 130

// interrupts relays the process's interrupts while an apply runs. Before
// following starts (arm), an interrupt exits at once with exitAtOnce, as
// it always did: at a prompt or during the checks there is nothing to
// report. Once following, the first stops following (the returned channel
// closes) and the report of what was seen is printed; the second exits at
// once. stop
// ends the relay, waiting for it, and, for real signals, gives SIGINT back
// its default. errOut must be safe for the apply and the relay to write
// to at once (lockedWriter).
func interrupts(signals <-chan os.Signal, exit func(int), errOut io.Writer) (first <-chan struct{}, arm, stop func()) {
	release := func() {}
	if signals == nil {
		ch := make(chan os.Signal, 2)
		signal.Notify(ch, os.Interrupt)
		signals, release = ch, func() { signal.Stop(ch) }
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
