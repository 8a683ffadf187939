package snapshot

// shared keeps values read before, by key, so that the objects that read
// the same share one copy: label maps, facts. It forgets them all once it
// holds maxShared, so that a dump of a million distinct ones costs a
// bounded table. Look-ups index m directly: m[string(b)] does not copy b.
type shared[K comparable, V any] struct{ m map[K]V }

const maxShared = 1 << 16

// put keeps v under k.
func (s *shared[K, V]) put(k K, v V) {
	if s.m == nil || len(s.m) >= maxShared {
		s.m = make(map[K]V, 1024)
	}
	s.m[k] = v
}
