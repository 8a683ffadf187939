package hugepages

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Advise asks for huge pages under the whole 2 MB pages of s's backing
// array (its capacity, not just its length), if it is large enough to
// hold a few. Call it before filling s: the pages it advises are faulted
// in as huge pages as they are first written. It is best effort: a
// kernel without transparent huge pages, or with them off, ignores it.
func Advise[T any](s []T) {
	var zero T
	size := uintptr(cap(s)) * unsafe.Sizeof(zero)
	if size < minAdvised {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(s))
	start := uintptr(p)
	from := (start+huge-1)&^(huge-1) - start // offsets into s's array
	to := (start+size)&^(huge-1) - start
	// The range lies inside s's array, which s keeps alive.
	_ = unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, from)), to-from), unix.MADV_HUGEPAGE)
}
