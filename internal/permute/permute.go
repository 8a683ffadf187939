// Package permute reorders a slice in place by a permutation, for sorts
// that sort indexes (cheap to move) rather than the elements (a million
// objects or edges, expensive to move and to hold twice).
package permute

// Apply makes position i of s hold what s[idx[i]] held, following the
// permutation's cycles so that each element moves once and no copy of s
// is made. idx must be a permutation of s's indexes; Apply consumes it,
// leaving every entry -1.
func Apply[T any](s []T, idx []int32) {
	for i := range idx {
		if idx[i] < 0 {
			continue
		}
		first := s[i]
		j := i
		for {
			from := int(idx[j])
			idx[j] = -1
			if from == i {
				s[j] = first
				break
			}
			s[j] = s[from]
			j = from
		}
	}
}
