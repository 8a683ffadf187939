package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// This file reads a plain file of one record per line on every core
// without a framer between the file and the workers: each worker takes
// the next chunk of the file by its offset and reads it itself (pread),
// with the line that runs past its end. A chunk's lines are those that
// start in it; their numbers follow from how many lines the chunks before
// it hold, which each worker counts as soon as it has read its chunk and
// before it parses it, so a worker waits for the chunk before its own only
// as long as that one takes to be read.

// readSplit reads the lines of f from offset start to size, the first
// one numbered firstLine.
func readSplit(f io.ReaderAt, start, size int64, idx int, path string, firstLine int, opts Options, c *collector, setup func(*accumulator)) (*accumulator, error) {
	sp := split(opts)
	chunk := int64(max(sp.chunk, 1))
	s := &splitter{f: f, start: start, size: size, chunk: chunk, bases: []int{firstLine}}
	s.cond = sync.NewCond(&s.mu)
	accs := make([]*accumulator, sp.workers)
	var wg sync.WaitGroup
	for w := range accs {
		accs[w] = newAccumulator(idx, path, opts, c)
		setup(accs[w])
		wg.Go(func() { s.work(accs[w]) })
	}
	wg.Wait()
	if s.err != nil {
		return nil, fmt.Errorf("reading audit log %s: %w", path, s.err)
	}
	return mergeAccumulators(accs), nil
}

// splitter hands out the chunks of a file and numbers their lines.
type splitter struct {
	f                  io.ReaderAt
	start, size, chunk int64
	next               atomic.Int64
	mu                 sync.Mutex
	cond               *sync.Cond
	// bases[k] is the number of chunk k's first line, known once every
	// chunk before it is counted; counts[k] how many lines start in k.
	bases  []int
	counts map[int64]int
	err    error
}

// work reads chunks until none is left, or reading failed.
func (s *splitter) work(acc *accumulator) {
	var buf []byte
	for {
		k := s.next.Add(1) - 1
		lo := s.start + k*s.chunk
		if lo >= s.size {
			return
		}
		hi := min(lo+s.chunk, s.size)
		// From the byte before the chunk: it says whether a line starts
		// at the chunk's first byte.
		from := max(lo-1, s.start)
		var err error
		buf, err = s.read(buf[:0], from, hi)
		// buf[first:end] is the chunk, then the line past it; less when
		// the file was cut shorter since.
		end := min(int(hi-from), len(buf))
		first := min(int(lo-from), end)
		starts, begin := lineStarts(buf, first, end, k == 0)
		base, ok := s.count(k, starts, err)
		if !ok {
			return
		}
		acc.chunk(chunk{data: buf[begin:], firstLine: base, first: k == 0})
		acc.flush()
	}
}

// read reads [from, hi) and on past hi to the end of the line hi falls
// in.
func (s *splitter) read(buf []byte, from, hi int64) ([]byte, error) {
	buf = growTo(buf, int(hi-from))
	n, err := s.f.ReadAt(buf, from)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	buf = buf[:n]
	if n == 0 || buf[n-1] == '\n' || n < int(hi-from) {
		return buf, nil // a file cut shorter since: read to its end
	}
	for off := hi; ; {
		n := len(buf)
		buf = growTo(buf, n+1<<14)
		m, err := s.f.ReadAt(buf[n:], off)
		buf = buf[:n+m]
		if i := bytes.IndexByte(buf[n:], '\n'); i >= 0 {
			return buf[:n+i+1], nil
		}
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		off += int64(m)
	}
}

func growTo(b []byte, n int) []byte {
	if cap(b) < n {
		b = append(b[:cap(b)], make([]byte, n-cap(b))...)
	}
	return b[:n]
}

// lineStarts counts the lines that start in data[first:end] (a line
// starts after a newline, and the file's first at its first byte), and
// where the first of them starts: the chunk's lines are data[begin:],
// each running to its newline.
func lineStarts(data []byte, first, end int, fileStart bool) (int, int) {
	if first >= end {
		return 0, len(data)
	}
	count := bytes.Count(data[first:end-1], []byte{'\n'})
	begin := first
	switch {
	case fileStart:
		count++
	case data[first-1] == '\n':
		count++
	default:
		i := bytes.IndexByte(data[first:], '\n')
		if i < 0 {
			return count, len(data)
		}
		begin = first + i + 1
	}
	if begin >= end {
		return count, len(data)
	}
	return count, begin
}

// count records that chunk k holds n lines and returns the number of
// its first line, once the chunks before it are counted; false when
// reading failed (this chunk or another).
func (s *splitter) count(k int64, n int, err error) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil && s.err == nil {
		s.err = err
	}
	if s.counts == nil {
		s.counts = map[int64]int{}
	}
	s.counts[k] = n
	for c, ok := s.counts[int64(len(s.bases)-1)]; ok; c, ok = s.counts[int64(len(s.bases)-1)] {
		delete(s.counts, int64(len(s.bases)-1))
		s.bases = append(s.bases, s.bases[len(s.bases)-1]+c)
	}
	s.cond.Broadcast()
	for int64(len(s.bases)) <= k && s.err == nil {
		s.cond.Wait()
	}
	if s.err != nil {
		return 0, false
	}
	return s.bases[k], true
}
