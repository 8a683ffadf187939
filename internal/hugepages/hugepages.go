// Package hugepages asks the kernel to back kgc's few large blocks that
// are filled from fresh memory (a million objects' slice, the string
// arena's blocks, the graph's nodes, the replay's UID table and sort
// buffers) with transparent huge pages.
//
// Go's runtime leaves its heap to the system's default, which on most
// distributions is huge pages only where asked for (madvise). Filling a
// 192 MB slice then takes 47,000 page faults of 4 KB, each a few
// microseconds on a busy machine: half a second of a one-second read. With
// 2 MB pages it takes a hundred. The advice changes no byte of any result.
package hugepages

// huge is the size of a transparent huge page on the platforms that
// have them (amd64, arm64 with 4 KB base pages).
const huge = 2 << 20

// minAdvised is the smallest block worth advising: below it, aligning to
// huge pages leaves too little.
const minAdvised = 4 * huge

// Make returns a new slice of n zero elements, advised as Advise does: for
// the large scratch and index slices that a replay of a million objects
// fills once, from memory the program has not touched yet.
func Make[T any](n int) []T {
	s := make([]T, n)
	Advise(s)
	return s
}
