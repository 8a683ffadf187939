// Package radix sorts a million elements by integer keys in a few linear
// passes, where a comparison sort makes twenty million comparisons.
package radix

import "github.com/kgc-dev/kgc/internal/hugepages"

// Sort sorts s stably by key, sixteen bits at a time from the least
// significant, skipping the digits every element shares (hashes use all
// four, resourceVersions and creation times few). Stability lets a
// caller sort by several keys: by the least significant one first, then
// by the next, passing the spare buffer of one sort to the next. buf is
// the scratch buffer, of s's length (nil: Sort allocates one). It returns
// the sorted elements and the spare, which holds garbage: one is s, the
// other buf.
func Sort[T any](s, buf []T, key func(T) uint64) (sorted, spare []T) {
	if len(s) < 2 {
		return s, buf
	}
	if len(buf) != len(s) {
		buf = hugepages.Make[T](len(s))
	}
	count := make([]int, 1<<16)
	for shift := uint(0); shift < 64; shift += 16 {
		clear(count)
		for _, v := range s {
			count[key(v)>>shift&0xffff]++
		}
		if count[key(s[0])>>shift&0xffff] == len(s) {
			continue // every element has this digit
		}
		at := 0
		for d, c := range count {
			count[d], at = at, at+c
		}
		for _, v := range s {
			d := key(v) >> shift & 0xffff
			buf[count[d]] = v
			count[d]++
		}
		s, buf = buf, s
	}
	return s, buf
}
