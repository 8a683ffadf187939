package snapshotio

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// This file reads the items of a List (or a kgc snapshot's objects) on
// several goroutines: one frames each item (finds where it ends and where
// its top-level fields are) and copies it into a batch, one per core
// extracts the batches' objects, each with its own Extractor, and the
// reader files them in the order framed. Framing and extracting
// together cost more than decompressing, so they share the cores instead
// of one of them waiting on the other. What each item becomes, the warnings and the
// errors are the same, in the same order, as read one after the other.

// itemBatch is a run of framed items and the bytes they point into, then
// what they became.
type itemBatch struct {
	buf   []byte
	items []framedItem
	// done marks the batch that ends the array: err is why it ended
	// early, or nil at its ']'.
	done bool
	err  error
	// extracted holds, per item, its object (if kept) and the end of its
	// warnings in warns; ready receives once they are in.
	extracted []extractedItem
	warns     []snapshot.Warning
	ready     chan struct{}
}

// framedItem is one element of the array: an object's top-level fields,
// or a value that is not an object.
type framedItem struct {
	index     int
	fields    topFields
	notObject bool
}

// extractedItem is what one framed item became.
type extractedItem struct {
	obj      snapshot.Object
	kept     bool
	warnsEnd int
}

const (
	itemBatchBytes    = 256 << 10
	minItemBatchBytes = 16 << 10
)

// extractorCount is how many goroutines extract batches: one per core
// (GOMAXPROCS), framing and decompression running beside them. Batches
// are filed in the order framed, so the count changes no result.
func extractorCount() int { return max(1, runtime.GOMAXPROCS(0)) }

// items reads the elements of an array whose '[' was consumed. It returns
// when the array ends or fails; the stream is then positioned after it.
func (rd *reader) items(st *stream, file string, hint typeHint, where, descFmt string) error {
	// itemBatches are in flight: one being filled, one per extractor,
	// one waiting to be filed and one queued.
	itemBatches := len(rd.extractors()) + 3
	work := make(chan *itemBatch, itemBatches)
	inOrder := make(chan *itemBatch, itemBatches)
	free := make(chan *itemBatch, itemBatches)
	for range itemBatches {
		free <- &itemBatch{ready: make(chan struct{}, 1)}
	}
	go frameItems(st, where, descFmt, func(b *itemBatch) {
		inOrder <- b
		work <- b
	}, free)
	for _, x := range rd.extractors() {
		go extractBatches(x, file, hint, where, descFmt, work)
	}
	for b := range inOrder {
		<-b.ready
		from := 0
		for k := range b.extracted {
			e := &b.extracted[k]
			rd.warnings = append(rd.warnings, b.warns[from:e.warnsEnd]...)
			from = e.warnsEnd
			if e.kept {
				rd.file(e.obj)
			}
		}
		if b.done {
			// frameItems sent this batch last and no longer uses st.
			close(work)
			return b.err
		}
		clear(b.extracted)
		b.buf, b.items, b.extracted, b.warns = b.buf[:0], b.items[:0], b.extracted[:0], b.warns[:0]
		free <- b
	}
	return nil // not reached: frameItems always ends with a done batch
}

// extractors are the reader's extractors, one per extracting goroutine,
// kept from one array to the next so that their shared labels and facts
// carry over.
func (rd *reader) extractors() []*Extractor {
	if rd.xs == nil {
		rd.xs = []*Extractor{rd.x}
		for len(rd.xs) < extractorCount() {
			rd.xs = append(rd.xs, NewExtractor())
		}
	}
	return rd.xs
}

// extractBatches extracts the objects of the batches it receives with x
// until work is closed.
func extractBatches(x *Extractor, file string, hint typeHint, where, descFmt string, work <-chan *itemBatch) {
	for b := range work {
		for k := range b.items {
			it := &b.items[k]
			var e extractedItem
			if it.notObject {
				b.warns = append(b.warns, snapshot.Warning{File: file, Object: itemDesc(where, descFmt, it.index)(), Message: "skipped: not an object"})
			} else {
				e.obj, e.kept = checkedExtract(x, file, itemDesc(where, descFmt, it.index), it.fields, hint, &b.warns)
			}
			e.warnsEnd = len(b.warns)
			b.extracted = append(b.extracted, e)
		}
		b.ready <- struct{}{}
	}
}

// itemDesc names the array's element i for messages, lazily: building the
// name of every item of a big List costs more than reading it.
func itemDesc(where, descFmt string, i int) func() string {
	return func() string {
		d := fmt.Sprintf(descFmt, i)
		if where != "" {
			d = where + " " + d
		}
		return d
	}
}

// frameItems frames the array's elements into batches taken from free and
// sends them on, the last one marked done.
func frameItems(st *stream, where, descFmt string, send func(*itemBatch), free <-chan *itemBatch) {
	b := (<-free).grow()
	err := frameArray(st, where, descFmt, func(it framedItem, raw []byte) {
		if len(b.items) > 0 && len(b.buf)+len(raw) > cap(b.buf) {
			send(b)
			b = (<-free).grow()
		}
		b.items = append(b.items, b.keep(it, raw))
	})
	b.done, b.err = true, err
	send(b)
}

// grow gives an empty batch a larger buffer until it reaches
// itemBatchBytes: buffers start small, for the many small Lists of a
// cluster-info dump, and double as they are reused.
func (b *itemBatch) grow() *itemBatch {
	if c := cap(b.buf); c < itemBatchBytes {
		b.buf = make([]byte, 0, max(minItemBatchBytes, min(2*c, itemBatchBytes)))
	}
	return b
}

// keep copies raw, an item's bytes, into the batch, and points the item's
// fields into the copy: the stream's buffer is reused as it reads on.
func (b *itemBatch) keep(it framedItem, raw []byte) framedItem {
	if it.notObject {
		return it
	}
	if len(b.buf)+len(raw) > cap(b.buf) {
		// An item larger than the batch, which holds no bytes yet
		// (frameItems sends a batch before it overflows), gets a buffer
		// of its own size.
		b.buf = make([]byte, 0, len(raw))
	}
	start := len(b.buf)
	b.buf = append(b.buf, raw...)
	dst := b.buf[start:]
	f := &it.fields
	for _, v := range []*[]byte{&f.apiVersion, &f.kind, &f.metadata, &f.spec, &f.status, &f.facts, &f.webhooks, &f.endpoints} {
		if *v != nil {
			// A field is a subslice of raw: its offset is how much
			// shorter its capacity is.
			off := cap(raw) - cap(*v)
			*v = dst[off : off+len(*v) : off+len(*v)]
		}
	}
	return it
}

// frameArray frames the elements of an array whose '[' was consumed,
// handing each to emit with its bytes (valid until the next read of st).
func frameArray(st *stream, where, descFmt string, emit func(framedItem, []byte)) error {
	if empty, err := st.closes(']'); empty || err != nil {
		return err
	}
	for i := 0; ; i++ {
		c, err := st.peek()
		if err != nil {
			return st.wrap(err)
		}
		if c != '{' {
			if _, err := st.value(); err != nil {
				return err
			}
			emit(framedItem{index: i, notObject: true}, nil)
		} else if err := frameObject(st, i, itemDesc(where, descFmt, i), emit); err != nil {
			return err
		}
		c, err = st.peek()
		if err != nil {
			return st.wrap(err)
		}
		st.pos++
		switch c {
		case ',':
		case ']':
			return nil
		default:
			st.pos--
			return st.errorf("expected ',' or ']' after a list item, found %q", c)
		}
	}
}

// frameObject frames the object at the stream's position, reading more
// input until it is whole.
func frameObject(st *stream, i int, desc func() string, emit func(framedItem, []byte)) error {
	for {
		raw := st.buf[st.pos:st.end]
		f, n, err := splitTopPrefix(raw)
		if err == nil {
			if n > st.maxVal {
				return &errTooLarge{st.maxVal}
			}
			emit(framedItem{index: i, fields: f}, raw[:n])
			st.pos += n
			return nil
		}
		var se *syntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("%s: %w", desc(), st.errorfAt(st.pos+se.Off, "%s", se.Msg))
		}
		if !errors.Is(err, errIncomplete) {
			return fmt.Errorf("%s: %w", desc(), err)
		}
		if st.eof {
			return fmt.Errorf("%s: %w", desc(), st.errorf("unexpected end of input inside a list item"))
		}
		if st.end-st.pos > st.maxVal {
			return &errTooLarge{st.maxVal}
		}
		if err := st.fill(); err != nil {
			return st.wrap(err)
		}
	}
}
