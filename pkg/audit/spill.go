package audit

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"slices"
)

// This file bounds what reading a huge log holds. Once more requests are
// held than Options.Spill allows, every request read is written, as the
// metadata the reader kept (never a body), to temporary files: one per
// bucket of namespaces, the cluster's objects in a bucket of their own.
// A Router says which namespace each request belongs with, and which
// others it ties that one to (an owner in another bucket, a custom
// resource and its CRD). The log is then read a part at a time: the
// buckets tied together, collapsed, sorted and folded exactly as a log
// held whole, but a part's requests only (see Parts).

// Router names the part of the log a request belongs with: the namespace
// whose objects its chain may reach ("" for the cluster's objects), and,
// through tie, every other one its chain may reach (AllParts: any). Known
// is false when the stage does not say (a Namespace's create names it
// only once it responds): the stage then goes where another stage of its
// request goes, or, when none says, to the part it names.
type Router interface {
	Route(e *Event, tie func(part string)) (part string, known bool)
}

// AllParts is the part a request ties to when its chain may reach any
// namespace: a deletecollection across the cluster.
const AllParts = "*"

// buckets is how many files a spilled log is written to: the cluster's
// bucket and the namespaces' hashed into the rest. A part is one bucket
// or several tied together, so a log of many namespaces is read in parts
// of about a hundred and twenty-seventh.
const buckets = 128

// spill is a log being written to temporary files, a bucket each.
type spill struct {
	router Router
	fold   bool
	files  [buckets]*os.File
	w      [buckets]*bufio.Writer
	parent [buckets]int // union-find of the buckets tied together
	buf    []byte
	ties   []string
	tie    func(string)
	err    error
	// used are the buckets a part is read from: those written, and those
	// of the parts Include names (a snapshot's objects, which may be in
	// a namespace the log never names).
	used [buckets]bool
	// pending are the stages whose part their request's other stages
	// will say, by auditID, and the part each named.
	pending map[string][]pendingStage
}

type pendingStage struct {
	st   stage
	part string
}

func newSpill(router Router, fold bool) *spill {
	s := &spill{router: router, fold: fold, pending: map[string][]pendingStage{}}
	for i := range s.parent {
		s.parent[i] = i
	}
	s.tie = func(part string) { s.ties = append(s.ties, part) }
	return s
}

// bucketOf is the bucket of a part: FNV-1a of its name, the cluster's
// apart.
func bucketOf(part string) int {
	if part == "" {
		return 0
	}
	return 1 + int(fnv1a(part)%(buckets-1))
}

func (s *spill) find(b int) int {
	for s.parent[b] != b {
		s.parent[b] = s.parent[s.parent[b]]
		b = s.parent[b]
	}
	return b
}

func (s *spill) union(a, b int) {
	a, b = s.find(a), s.find(b)
	if a != b {
		s.parent[max(a, b)] = min(a, b)
	}
}

func (s *spill) tieBuckets(home int, part string) {
	if part == AllParts {
		for b := range buckets {
			s.union(home, b)
		}
		return
	}
	s.union(home, bucketOf(part))
}

// put writes a stage to its bucket, or holds it until a stage of its
// request says which: the stages of one request must be read back
// together, to collapse as one.
func (s *spill) put(st *stage) {
	s.ties = s.ties[:0]
	part, known := s.router.Route(&st.ev, s.tie)
	home := bucketOf(part)
	for _, t := range s.ties {
		s.tieBuckets(home, t)
	}
	if !known {
		s.pending[st.ev.AuditID] = append(s.pending[st.ev.AuditID], pendingStage{*st, part})
		return
	}
	for _, p := range s.pending[st.ev.AuditID] {
		s.write(home, &p.st)
	}
	delete(s.pending, st.ev.AuditID)
	s.write(home, st)
}

func (s *spill) write(b int, st *stage) {
	if s.err != nil {
		return
	}
	w, err := s.writer(b)
	if err != nil {
		s.err = err
		return
	}
	s.buf = appendStage(s.buf[:0], st) // its length first
	if _, err := w.Write(s.buf); err != nil {
		s.err = err
	}
}

// writer is the writer of a bucket, its file made when first written: a
// temporary file removed at once, so that nothing is left behind however
// kgc ends (where the system lets an open file be removed).
func (s *spill) writer(b int) (*bufio.Writer, error) {
	if s.w[b] != nil {
		return s.w[b], nil
	}
	f, err := os.CreateTemp("", "kgc-audit-*.spill")
	if err != nil {
		return nil, err
	}
	_ = os.Remove(f.Name()) // else removed when the log is closed
	s.files[b], s.used[b] = f, true
	s.w[b] = bufio.NewWriterSize(f, 1<<15)
	return s.w[b], nil
}

// flush ends writing: the stages no other stage of their request placed
// go to the part they named, and what is buffered to the files.
func (s *spill) flush() error {
	ids := slices.Sorted(maps.Keys(s.pending))
	for _, id := range ids {
		for _, p := range s.pending[id] {
			s.write(bucketOf(p.part), &p.st)
		}
	}
	s.pending = nil
	for _, w := range s.w {
		if w != nil && s.err == nil {
			s.err = w.Flush()
		}
	}
	if s.err != nil {
		return fmt.Errorf("writing the audit log's requests to a temporary file: %w: make room in the temporary folder %s or name another with $TMPDIR, or hold the log in memory with --spill-after 0", s.err, os.TempDir())
	}
	return nil
}

// close removes the files.
func (s *spill) close() {
	for _, f := range s.files {
		if f != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}
}

// Router is the Router the log was spilled with; nil when it was not.
func (l *Log) Router() Router {
	if l.spill == nil {
		return nil
	}
	return l.spill.router
}

// Spilled reports whether the log was written to temporary files, to be
// read a part at a time with Parts.
func (l *Log) Spilled() bool { return l.spill != nil }

// Tie says that the chains of one part may reach another: what a Router
// cannot see in the log (owners that only a snapshot shows).
func (l *Log) Tie(a, b string) {
	if l.spill != nil {
		l.spill.tieBuckets(bucketOf(a), b)
	}
}

// Include makes part one of the log's parts, whether or not the log
// names it: what a snapshot holds of it is analyzed too.
func (l *Log) Include(part string) {
	if l.spill != nil {
		l.spill.used[bucketOf(part)] = true
	}
}

// Part is a share of a spilled log: the requests of the parts tied
// together, read as a Log of their own.
type Part struct {
	Log     *Log
	buckets []bool
}

// Owns reports whether a part (a namespace, "" for the cluster's
// objects) is in this share.
func (p *Part) Owns(part string) bool { return p.buckets[bucketOf(part)] }

// Parts reads a spilled log a share at a time, in a fixed order: each
// share's requests collapsed, sorted and folded as Read does a whole log.
// What they count is added to l's files and warnings as each is read, so
// that once every share is read l is what Read would have returned, but
// for its requests. The files are removed at the end.
func (l *Log) Parts() iter.Seq2[*Part, error] {
	return func(yield func(*Part, error) bool) {
		s := l.spill
		defer s.close()
		var dup dupCount
		for _, share := range s.shares() {
			p, err := l.readShare(share, &dup)
			if !yield(p, err) || err != nil {
				return
			}
		}
		if dup.n > 0 {
			l.Warnings = append(l.Warnings, dupWarning(dup))
		}
	}
}

// shares lists the buckets tied together, each share in bucket order,
// shares by their first bucket.
func (s *spill) shares() [][]int {
	byRoot := map[int][]int{}
	var roots []int
	for b := range buckets {
		if !s.used[b] {
			continue
		}
		r := s.find(b)
		if _, ok := byRoot[r]; !ok {
			roots = append(roots, r)
		}
		byRoot[r] = append(byRoot[r], b)
	}
	out := make([][]int, 0, len(roots))
	for _, r := range roots {
		out = append(out, byRoot[r])
	}
	slices.SortFunc(out, func(a, b []int) int { return a[0] - b[0] })
	return out
}

// readShare reads the buckets of a share back into a log of their own.
func (l *Log) readShare(share []int, dup *dupCount) (*Part, error) {
	s := l.spill
	c := newRequestTable()
	for _, b := range share {
		if s.files[b] == nil {
			continue // a part only a snapshot names
		}
		if err := readBucket(s.files[b], c); err != nil {
			return nil, err
		}
	}
	mergeDup(dup, c.collapseGroups())
	part := &Log{Files: make([]File, len(l.Files))}
	c.events(part, s.fold)
	for i := range part.Files {
		l.Files[i].Kept += part.Files[i].Kept
	}
	l.Dropped += part.Dropped
	part.Files = l.Files
	p := &Part{Log: part, buckets: make([]bool, buckets)}
	for _, b := range share {
		p.buckets[b] = true
	}
	return p, nil
}

// readBucket files every stage a bucket's file holds: each its length
// (4 bytes, little-endian) and its body, as appendStage wrote it.
func readBucket(f *os.File, c *requestTable) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("reading back the audit log's temporary file: %w", err)
	}
	br := bufio.NewReaderSize(f, 1<<20)
	buf := make([]byte, 4, 1<<12)
	for {
		_, err := io.ReadFull(br, buf[:4])
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err == nil {
			n := int(binary.LittleEndian.Uint32(buf))
			buf = slices.Grow(buf[:4], n)[:4+n]
			_, err = io.ReadFull(br, buf[4:])
		}
		var st stage
		if err == nil {
			_, err = decodeStage(buf, &st)
		}
		if err != nil {
			return fmt.Errorf("reading back the audit log's temporary file %s: %w", f.Name(), err)
		}
		c.add(&st)
	}
}
