// Package radix sorts a million elements by integer keys in a few linear
// passes, where a comparison sort makes twenty million comparisons.
package radix

// Sort sorts s stably by key, sixteen bits at a time from the least
// significant, skipping the digits every element shares (hashes use all
// four, resourceVersions and creation times few). Stability lets a
// caller sort by several keys: by the least significant one first, then
// by the next. It returns the sorted elements, which are either s or a
// buffer of its length; the other holds garbage.
func Sort[T any](s []T, key func(T) uint64) []T {
	if len(s) < 2 {
		return s
	}
	buf := make([]T, len(s))
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
	return s
}
