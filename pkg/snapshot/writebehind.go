package snapshot

import "io"

// writeBehind hands what is written to w on its own goroutine, so that
// gzip compresses a snapshot on the second core while the first encodes
// it; the bytes written, and so the file, are the same. Close waits for
// the last write and returns the first error.
type writeBehind struct {
	blocks chan []byte
	free   chan []byte
	exited chan struct{}
	err    error // the goroutine's first error; read after exited
}

const (
	behindBlockSize = 256 << 10
	behindBlocks    = 4
)

func newWriteBehind(w io.Writer) *writeBehind {
	wb := &writeBehind{blocks: make(chan []byte, behindBlocks), free: make(chan []byte, behindBlocks), exited: make(chan struct{})}
	for i := 0; i < behindBlocks; i++ {
		wb.free <- make([]byte, 0, behindBlockSize)
	}
	go wb.drain(w)
	return wb
}

// drain writes blocks until Close; after an error it only recycles them.
func (wb *writeBehind) drain(w io.Writer) {
	defer close(wb.exited)
	for b := range wb.blocks {
		if wb.err == nil {
			_, wb.err = w.Write(b)
		}
		wb.free <- b[:0]
	}
}

// Write copies p into blocks for the goroutine. An error of the
// underlying writer surfaces at Close.
func (wb *writeBehind) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		b := <-wb.free
		k := min(len(p), behindBlockSize)
		wb.blocks <- append(b, p[:k]...)
		p = p[k:]
	}
	return n, nil
}

// Close flushes and stops the goroutine, returning its first error.
func (wb *writeBehind) Close() error {
	close(wb.blocks)
	<-wb.exited
	return wb.err
}
