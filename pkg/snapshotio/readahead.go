package snapshotio

import "io"

// readAhead reads r on its own goroutine, a few blocks ahead of the
// consumer: decompressing a gzipped snapshot then runs on the second core
// while the first parses, instead of taking turns with it. Close stops
// the goroutine when the consumer gives up early.
type readAhead struct {
	blocks chan aheadBlock
	free   chan []byte
	done   chan struct{}
	exited chan struct{}
	block  []byte // the block being consumed
	cur    []byte // its unread rest
	err    error
}

type aheadBlock struct {
	data []byte
	err  error
}

const (
	aheadBlockSize = 1 << 20
	aheadBlocks    = 4
)

func newReadAhead(r io.Reader) *readAhead {
	ra := &readAhead{blocks: make(chan aheadBlock, aheadBlocks), free: make(chan []byte, aheadBlocks+1), done: make(chan struct{}), exited: make(chan struct{})}
	for i := 0; i < aheadBlocks+1; i++ {
		ra.free <- make([]byte, aheadBlockSize)
	}
	go ra.fill(r)
	return ra
}

// fill reads blocks until r fails or ends (io.EOF included), or Close.
func (ra *readAhead) fill(r io.Reader) {
	defer close(ra.exited)
	for {
		var buf []byte
		select {
		case buf = <-ra.free:
		case <-ra.done:
			return
		}
		n, err := io.ReadFull(r, buf)
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		select {
		case ra.blocks <- aheadBlock{buf[:n], err}:
		case <-ra.done:
			return
		}
		if err != nil {
			return
		}
	}
}

func (ra *readAhead) Read(p []byte) (int, error) {
	for len(ra.cur) == 0 {
		if ra.block != nil {
			// The block was consumed: hand it back for refilling. There
			// are never more blocks than free has room for.
			ra.free <- ra.block
			ra.block = nil
		}
		if ra.err != nil {
			return 0, ra.err
		}
		b := <-ra.blocks
		ra.block, ra.cur, ra.err = b.data[:cap(b.data)], b.data, b.err
	}
	n := copy(p, ra.cur)
	ra.cur = ra.cur[n:]
	return n, nil
}

// Close stops the reading goroutine and waits for it, so that the
// caller may close what it reads; the reader must not be used after.
func (ra *readAhead) Close() error {
	close(ra.done)
	<-ra.exited
	return nil
}
