package audit

import (
	"maps"
	"slices"
	"sync"
)

// This file converts the values of a document's list (an EventList's
// items, filter-log-events' events, gcloud's array of entries, an Event
// Hubs message's records) on every core. The stream frames each value
// and copies it into a batch; workers convert the batches, each into an
// accumulator and a converter of its own, merged into the file's when
// the list ends. What a list yields does not depend on how it was split:
// the stages are sorted later, the counts add up, and the bad values are
// named by line, those of one line in the order of the batches.

// valueBatch is values of a list, one after the other in data, each
// ending at ends[k] and starting on lines[k].
type valueBatch struct {
	seq   int
	data  []byte
	ends  []int
	lines []int
	// part, when set, is a range of the document to frame instead (see
	// frame.go).
	part *part
}

// pool converts the values of a file's lists at one depth.
type pool struct {
	cv    *converter
	depth int // of the lists' values
	size  int
	jobs  chan valueBatch
	free  chan []byte // batches' buffers converted, to fill again
	accs  []*accumulator
	wg    sync.WaitGroup
	cur   valueBatch
	mu    sync.Mutex
	bad   map[int][]badLine // by batch
	// window is how much of the document is framed in parts at once;
	// indent how indented the lines of its values are, once a cut
	// between them was proven (-1 before); misses how many windows
	// ended in a part not taken. oneFramer: the stream frames every
	// value itself.
	window, indent int
	oneFramer      bool
	misses         int
	// committed is what the parts taken read.
	committed *accumulator
}

// newPool makes the pool of a list read by cv (its depth that of the
// list's values). Its workers start when it first has work for them: a
// list shorter than a batch (an Event Hubs message's few records) is
// converted by the stream's goroutine, without workers to start and
// stop for each of a file's many lists.
func newPool(cv *converter) *pool {
	sp := split(cv.acc.opts)
	return &pool{cv: cv, depth: cv.depth, size: sp.chunk, jobs: make(chan valueBatch, sp.workers),
		free: make(chan []byte, 2*sp.workers+2), bad: map[int][]badLine{},
		window: 2 * sp.workers * sp.chunk, indent: -1, oneFramer: sp.oneFramer}
}

// listPool is the pool for a list at the converter's depth: the one of
// the file's lists before it at that depth, else a new one, once the
// pool of another depth has converted what it holds.
func (cv *converter) listPool() *pool {
	if cv.pool != nil && cv.pool.depth == cv.depth {
		return cv.pool
	}
	cv.closePool()
	cv.pool = newPool(cv)
	return cv.pool
}

// closePool converts what the file's pool holds into its accumulator:
// before anything reads the accumulator or converts into it directly.
func (cv *converter) closePool() {
	if cv.pool != nil {
		cv.pool.wait()
		cv.pool = nil
	}
}

// start starts the workers, once.
func (p *pool) start() {
	if p.accs != nil {
		return
	}
	a, cv := p.cv.acc, p.cv
	for range split(a.opts).workers {
		acc := newAccumulator(a.idx, a.path, a.opts, a.c)
		acc.cv = &converter{acc: acc, forced: cv.forced, yaml: cv.yaml, depth: p.depth, seen: true}
		p.accs = append(p.accs, acc)
		p.wg.Go(func() {
			for b := range p.jobs {
				if b.part != nil {
					p.frame(acc, b.part)
					continue
				}
				p.convert(acc, b)
			}
		})
	}
}

// convertInto converts the batch's values with cv, in order.
func (b *valueBatch) convertInto(cv *converter) {
	start := 0
	for k, end := range b.ends {
		cv.value(b.data[start:end], b.lines[k])
		start = end
	}
}

// convert reads a batch into acc, keeping its bad values apart.
func (p *pool) convert(acc *accumulator, b valueBatch) {
	b.convertInto(acc.cv)
	acc.flush()
	select {
	case p.free <- b.data[:0]:
	default:
	}
	if len(acc.bad) > 0 {
		p.mu.Lock()
		p.bad[b.seq] = acc.bad
		p.mu.Unlock()
		acc.bad = nil
	}
}

// add queues a value (copied: the stream's buffer moves on). The
// file's converter has now seen a value, as converting it would say: a
// later top-level value that is no record is then a bad one, not a sign
// that the file is no log.
func (p *pool) add(v []byte, line int) {
	p.cv.seen = true
	if p.cur.data == nil {
		p.cur.data = p.buffer()
	}
	p.cur.data = append(p.cur.data, v...)
	p.cur.ends = append(p.cur.ends, len(p.cur.data))
	p.cur.lines = append(p.cur.lines, line)
	if len(p.cur.data) >= p.size {
		p.send()
	}
}

func (p *pool) send() {
	if len(p.cur.ends) == 0 {
		return
	}
	p.start()
	p.jobs <- p.cur
	p.cur = valueBatch{seq: p.cur.seq + 1}
}

// buffer is a batch's buffer: one converted, or a new one, small at
// first and grown as values come. It is taken when a value comes, not
// when a batch is sent, and starts small: a file of many short lists
// (Event Hubs messages) made a buffer of a whole batch for each list,
// and one more at its end.
func (p *pool) buffer() []byte {
	select {
	case b := <-p.free:
		return b
	default:
		return make([]byte, 0, min(p.size, firstBuffer))
	}
}

// firstBuffer is the size a new batch's buffer starts at.
const firstBuffer = 16 << 10

// wait converts what is queued, stops the workers and merges what they
// read into the file's accumulator.
func (p *pool) wait() {
	if p.accs == nil {
		// No worker started: the lists' values are converted here, in
		// order, at their depth, as one worker would.
		depth := p.cv.depth
		p.cv.depth = p.depth
		p.cur.convertInto(p.cv)
		p.cv.depth = depth
		p.cv.acc.sortBad()
		return
	}
	p.send()
	close(p.jobs)
	p.wg.Wait()
	into := p.cv.acc
	for _, a := range p.accs {
		into.add(a)
	}
	if p.committed != nil {
		into.add(p.committed)
	}
	for _, seq := range slices.Sorted(maps.Keys(p.bad)) {
		into.bad = append(into.bad, p.bad[seq]...)
	}
	into.sortBad()
}

// frame frames and converts a part of the document on the worker whose
// accumulator is w, into an accumulator of the part's own that holds its
// stages until the part is taken (or dropped: see frame.go).
func (p *pool) frame(w *accumulator, pt *part) {
	a := newAccumulator(w.idx, w.path, w.opts, w.c)
	a.hold = true
	a.cv = &converter{acc: a, forced: w.cv.forced, yaml: w.cv.yaml, depth: w.cv.depth, seen: true}
	// The worker's strings and unescaping buffer, shared by its parts:
	// a buffer of a part's own grew again from nothing at every part.
	a.in, w.in = w.in, interner{}
	a.cv.buf, w.cv.buf = w.cv.buf, nil
	pt.frame(a)
	a.flush()
	w.in, a.in = a.in, interner{}
	w.cv.buf, a.cv.buf = a.cv.buf, nil
	close(pt.done)
}

// commit takes what a part read, after the values queued before it.
func (p *pool) commit(pt *part) {
	a := pt.acc
	if pt.values > 0 {
		p.cv.seen = true
	}
	a.inParts += pt.values
	for _, b := range a.held {
		a.c.send(b)
	}
	p.send()
	seq := p.cur.seq
	p.cur.seq++
	if len(a.bad) > 0 {
		p.mu.Lock()
		p.bad[seq] = a.bad
		p.mu.Unlock()
	}
	if p.committed == nil {
		p.committed = newAccumulator(a.idx, a.path, a.opts, a.c)
	}
	p.committed.add(a)
}
