//go:build unix

// Command auditread times audit.Read alone on a file, for the reader's
// figures before the postmortem command exists: it prints the wall time,
// the CPU time, the events kept and dropped. Peak memory is measured from
// outside (BenchmarkPostmortem, or /usr/bin/time -v).
//
//	go run ./test/bench/auditread FILE...
package main

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
)

func main() {
	start := time.Now()
	l, err := audit.Read(os.Args[1:], os.Stdin, audit.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "auditread:", err)
		os.Exit(1)
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	fmt.Printf("wall %.2fs cpu %.2fs peak %d MB: %d requests kept, %d events dropped, %d warnings\n",
		time.Since(start).Seconds(), cpu.Seconds(), ru.Maxrss/1024, l.Len(), l.Dropped, len(l.Warnings))
}
