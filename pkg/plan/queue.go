package plan

// queue is a deterministic FIFO with the client-go workqueue's dedup
// semantics: an item already waiting is not added twice. A rate-limited
// requeue goes to the back. Items that keep failing without the store
// changing in between are parked ("retrying forever") instead of spinning:
// the real controller would retry them with backoff for ever, and nothing
// they do changes any object, so parking changes no final state. A parked
// item is woken when the store has changed since it was parked.
type queue[T comparable] struct {
	name   string
	items  []qitem[T]
	head   int
	queued map[T]struct{}
	// retry bookkeeping: the store's write count at the last requeue and
	// how many requeues in a row saw no write.
	lastWrites map[T]int
	strikes    map[T]int
	parked     []parkedItem[T]
	isParked   map[T]string
	// delayed holds rate-limited requeues: the real queue re-adds them
	// after a backoff of at least 5 ms, by which time the work the failure
	// was waiting for (events, immediate adds) has usually been done. They
	// go back to the queue only when everything else is idle.
	delayed   []qitem[T]
	isDelayed map[T]struct{}
}

type qitem[T comparable] struct {
	v    T
	wave int
}

type parkedItem[T comparable] struct {
	v      T
	wave   int
	writes int
	reason string
}

// strikesToPark is how many requeues in a row without any store write make
// an item "retrying forever". Two full passes over a queue in which nothing
// changed cannot differ from the third.
const strikesToPark = 3

func newQueue[T comparable](name string) *queue[T] {
	return &queue[T]{name: name, queued: map[T]struct{}{}, lastWrites: map[T]int{}, strikes: map[T]int{}, isParked: map[T]string{}, isDelayed: map[T]struct{}{}}
}

func (q *queue[T]) len() int { return len(q.items) - q.head }

// add enqueues v unless it is already waiting.
func (q *queue[T]) add(v T, wave int) {
	if _, ok := q.queued[v]; ok {
		return
	}
	if _, ok := q.isParked[v]; ok {
		// A fresh add (an event about the item) wakes it.
		q.unpark(v)
	}
	q.queued[v] = struct{}{}
	q.items = append(q.items, qitem[T]{v, wave})
}

func (q *queue[T]) unpark(v T) {
	delete(q.isParked, v)
	delete(q.strikes, v)
	for i := range q.parked {
		if q.parked[i].v == v {
			q.parked = append(q.parked[:i], q.parked[i+1:]...)
			return
		}
	}
}

func (q *queue[T]) pop() (T, int, bool) {
	var zero T
	if q.len() == 0 {
		return zero, 0, false
	}
	it := q.items[q.head]
	q.items[q.head] = qitem[T]{}
	q.head++
	if q.head > 1024 && q.head*2 > len(q.items) {
		q.items = append(q.items[:0:0], q.items[q.head:]...)
		q.head = 0
	}
	delete(q.queued, it.v)
	return it.v, it.wave, true
}

// forget resets the retry bookkeeping of v (the item succeeded).
func (q *queue[T]) forget(v T) {
	delete(q.strikes, v)
	delete(q.lastWrites, v)
}

// requeue is AddRateLimited: back of the queue, or parked when the item has
// failed strikesToPark times in a row with no store write in between.
func (q *queue[T]) requeue(v T, wave int, writes int, reason string) {
	if last, ok := q.lastWrites[v]; ok && last == writes {
		q.strikes[v]++
	} else {
		q.strikes[v] = 0
	}
	q.lastWrites[v] = writes
	if q.strikes[v] >= strikesToPark {
		q.park(v, wave, writes, reason)
		return
	}
	if _, ok := q.isDelayed[v]; ok {
		return
	}
	q.isDelayed[v] = struct{}{}
	q.delayed = append(q.delayed, qitem[T]{v, wave})
}

// park sets v aside until the store's write count differs from writes,
// unless it is already waiting.
func (q *queue[T]) park(v T, wave, writes int, reason string) {
	if _, ok := q.queued[v]; ok {
		return
	}
	if _, ok := q.isParked[v]; !ok {
		q.isParked[v] = reason
		q.parked = append(q.parked, parkedItem[T]{v: v, wave: wave, writes: writes, reason: reason})
	}
}

// flush moves the rate-limited requeues back into the queue; it reports
// whether there were any.
func (q *queue[T]) flush() bool {
	if len(q.delayed) == 0 {
		return false
	}
	for _, it := range q.delayed {
		delete(q.isDelayed, it.v)
		if _, ok := q.queued[it.v]; ok {
			continue
		}
		q.queued[it.v] = struct{}{}
		q.items = append(q.items, it)
	}
	q.delayed = q.delayed[:0]
	return true
}

// wake re-adds parked items parked before the store's write count reached
// writes; it reports whether it woke any.
func (q *queue[T]) wake(writes int) bool {
	woke := false
	keep := q.parked[:0]
	for _, p := range q.parked {
		if p.writes != writes {
			delete(q.isParked, p.v)
			q.strikes[p.v] = 0
			q.lastWrites[p.v] = p.writes
			if _, ok := q.queued[p.v]; !ok {
				q.queued[p.v] = struct{}{}
				q.items = append(q.items, qitem[T]{p.v, p.wave})
			}
			woke = true
			continue
		}
		keep = append(keep, p)
	}
	q.parked = keep
	return woke
}
