package snapshotio

// shared keeps values read before, by key, so that the objects that read
// the same share one copy: label maps, facts. It forgets them all once it
// holds maxShared, so that a dump of a million distinct ones costs a
// bounded table. Look-ups index m directly: m[string(b)] does not copy b.
type shared[K comparable, V any] struct{ m map[K]V }

const maxShared = 1 << 16

// put keeps v under k.
func (s *shared[K, V]) put(k K, v V) {
	switch {
	case s.m == nil:
		s.m = make(map[K]V, 1024)
	case len(s.m) >= maxShared:
		// It filled once, so it will again: sized whole, it does not
		// grow by rehashing every time (0.1 s on a million objects).
		s.m = make(map[K]V, maxShared)
	}
	s.m[k] = v
}
