package background

import (
	"sync/atomic"
	"testing"
)

// TestStartBuildsOnceAndWaits: the result is build's, built once however
// many times it is asked for, and asking waits for it.
func TestStartBuildsOnceAndWaits(t *testing.T) {
	var builds atomic.Int32
	release := make(chan struct{})
	get := Start(func() int {
		<-release
		builds.Add(1)
		return 42
	})
	close(release)
	for range 3 {
		if v := get(); v != 42 {
			t.Fatalf("got %d, want 42", v)
		}
	}
	if n := builds.Load(); n != 1 {
		t.Fatalf("built %d times, want once", n)
	}
}
