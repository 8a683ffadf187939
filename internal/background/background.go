// Package background computes a value on a goroutine of its own while the
// caller goes on: kgc's outputs of a million objects are split between
// the machine's cores this way (the edges listed while the nodes are
// written, the replay order sorted while the objects are filed).
package background

import "sync"

// Start starts build on a goroutine of its own and returns a function
// that waits for its result; it may be called any number of times.
func Start[T any](build func() T) func() T {
	done := make(chan T, 1)
	go func() { done <- build() }()
	return sync.OnceValue(func() T { return <-done })
}
