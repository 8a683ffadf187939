// Package parallel splits work over a range into one part per core the Go
// scheduler may use (runtime.GOMAXPROCS), run side by side. Callers keep
// results in per-index or per-part slots, so the answer never depends on
// timing or on how many cores there are.
package parallel

import (
	"runtime"
	"sync"
)

// Parts is how many parts Do splits [0, n) into: one per core, never more
// than there are indexes, at least one.
func Parts(n int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n))
}

// Do runs f on consecutive parts of [0, n), part p being [from, to), side
// by side, and returns when every part is done. The parts are as even as
// can be; the caller's goroutine runs the last.
func Do(n int, f func(part, from, to int)) {
	parts := Parts(n)
	var wg sync.WaitGroup
	for p := range parts - 1 {
		wg.Go(func() { f(p, bound(n, parts, p), bound(n, parts, p+1)) })
	}
	f(parts-1, bound(n, parts, parts-1), n)
	wg.Wait()
}

// Concat runs f on the parts of [0, n) side by side, as Do does, and
// returns what each part returned, part after part: the order of [0, n).
func Concat[T any](n int, f func(from, to int) []T) []T {
	out := make([][]T, Parts(n))
	Do(n, func(p, from, to int) { out[p] = f(from, to) })
	var total int
	for _, o := range out {
		total += len(o)
	}
	all := make([]T, 0, total)
	for _, o := range out {
		all = append(all, o...)
	}
	return all
}

// bound is where part p of parts starts in [0, n).
func bound(n, parts, p int) int { return int(int64(n) * int64(p) / int64(parts)) }
