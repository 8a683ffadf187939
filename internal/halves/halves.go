// Package halves splits work over a range in two, to run side by side
// on the two cores kgc's benchmarks target; callers keep results in
// per-index or per-half slots, so the answer never depends on timing.
package halves

import "sync"

// Do runs f on the two halves of [0, n), side by side, and returns when
// both are done.
func Do(n int, f func(from, to int)) {
	var wg sync.WaitGroup
	wg.Go(func() { f(0, n/2) })
	f(n/2, n)
	wg.Wait()
}
