//go:build !linux

package hugepages

// Advise does nothing outside Linux: other systems decide page sizes
// themselves.
func Advise[T any](s []T) {}
