package main

import (
	"os"
	"runtime/debug"
)

// memoryPhase is a phase of a post-mortem whose garbage collection the
// process tunes.
type memoryPhase int

const (
	// phaseReading: the audit log is read. What the reader keeps lives
	// until the end, so each collection marks all of it again.
	phaseReading memoryPhase = iota
	// phaseAnalyzing: the log is read; the analysis allocates mostly
	// garbage (the roots' documents, written as they are built).
	phaseAnalyzing
)

// The settings tuneProcessMemory applies. docs/performance.md gives
// what they cost and save, measured.
const (
	// readingMemoryLimit is the soft memory limit, which keeps the
	// resident peak under 1 GB whatever the log's size: near it the
	// collector runs more often rather than let the heap grow. The
	// peak is the limit, the heap's overshoot while a collection marks
	// and the binary.
	readingMemoryLimit = 832 << 20
	// readingGC is the collector's growth while reading: off (-1), so
	// that it runs only as the heap nears the soft limit. What the
	// reader keeps lives to the end and a line leaves little garbage, so
	// a collection while reading frees little and marks all of it
	// again. The write-heavy 1M log: no collection against three at a
	// growth of 400%, 5.5% less wall time (medians of 9 alternated
	// runs), and a steadier peak (577–580 MB against 567–761 MB); the
	// 5M log, which reaches the limit, peaks at 889 MB against 842 MB.
	readingGC = -1
	// analyzingGC is the default growth, back once the log is read: a
	// growth of 200% would let the analysis's garbage pile up above the
	// peak of reading a small log.
	analyzingGC = 100
)

// tuneProcessMemory is the real process's Factory.TuneMemory. GOGC and
// GOMEMLIMIT, when set, win.
func tuneProcessMemory(p memoryPhase) {
	gc := readingGC
	if p == phaseAnalyzing {
		gc = analyzingGC
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gc)
	}
	if p == phaseReading && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(readingMemoryLimit)
	}
}
