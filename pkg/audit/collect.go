package audit

import (
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kgc-dev/kgc/internal/hugepages"
)

// This file collapses the stages of each request as the workers read
// them, rather than holding every stage until the end: a log's requests
// are held once, as one record each. Most requests are logged at one
// stage (policies omit RequestReceived); the few seen at several stages
// keep their stages aside until the end, where they collapse exactly as
// a sort of every stage would have (see collapse), whatever order the
// files and workers gave them in.

// slotBlock is how many requests a block of slots holds: about 4 MB.
const slotBlock = 8192

// slot is one request: its only stage, or after finish its collapsed
// stages.
type slot struct {
	ev     Event
	rank   int8
	failed bool  // a create, update or patch that failed: dropped
	file   int32 // the file of its last stage, in collapse order
	n      int32 // how many stages it had
}

// collector files the stages of every file read, a request per slot.
type collector struct {
	blocks [][]slot
	n      int
	ids    map[string]int32
	// groups are the requests seen at more than one stage, by slot.
	groups map[int32][]stage
	in     chan []stage
	free   chan []stage
	done   chan struct{}
}

func newCollector() *collector {
	c := &collector{
		ids:    make(map[string]int32),
		groups: make(map[int32][]stage),
		in:     make(chan []stage, 8),
		free:   make(chan []stage, 16),
		done:   make(chan struct{}),
	}
	go func() {
		defer close(c.done)
		for batch := range c.in {
			for i := range batch {
				c.add(&batch[i])
			}
			clear(batch) // what the stages point at is the slots' now
			select {
			case c.free <- batch[:0]:
			default:
			}
		}
	}()
	return c
}

// batch returns an empty batch to fill.
func (c *collector) batch() []stage {
	select {
	case b := <-c.free:
		return b
	default:
		return make([]stage, 0, 256)
	}
}

// send hands a batch of stages over; the sender no longer owns it.
func (c *collector) send(b []stage) {
	if len(b) > 0 {
		c.in <- b
	}
}

// wait returns once every batch sent is filed.
func (c *collector) wait() {
	close(c.in)
	<-c.done
}

func (c *collector) at(i int32) *slot {
	return &c.blocks[i/slotBlock][i%slotBlock]
}

func (c *collector) add(st *stage) {
	if i, ok := c.ids[st.ev.AuditID]; ok {
		g := c.groups[i]
		if g == nil {
			s := c.at(i)
			g = []stage{{ev: s.ev, rank: s.rank, file: int(s.file)}}
		}
		c.groups[i] = append(g, *st)
		return
	}
	if c.n%slotBlock == 0 {
		b := make([]slot, slotBlock)
		hugepages.Advise(b)
		c.blocks = append(c.blocks, b)
	}
	i := int32(c.n)
	c.n++
	c.ids[st.ev.AuditID] = i
	*c.at(i) = slot{ev: st.ev, rank: st.rank, file: int32(st.file), n: 1, failed: failedWrite(&st.ev)}
}

// collapseGroups collapses each request seen at several stages into its
// slot, and returns the duplicate stages met: the first one is the first
// of the request with the lowest auditID, as sorting every stage finds it.
func (c *collector) collapseGroups() dupCount {
	var dup dupCount
	ptrs := []*stage{}
	for i, g := range c.groups {
		ptrs = ptrs[:0]
		for k := range g {
			ptrs = append(ptrs, &g[k])
		}
		slices.SortFunc(ptrs, compareStages)
		var d dupCount
		ev, ok := collapse(ptrs, &d)
		if d.n > 0 && (dup.n == 0 || d.id < dup.id) {
			dup.id, dup.first = d.id, d.first
		}
		dup.n += d.n
		*c.at(i) = slot{ev: ev, failed: !ok, file: int32(ptrs[len(ptrs)-1].file), n: int32(len(g))}
	}
	c.groups = nil
	return dup
}

// events moves the kept requests into one slice, in stageTimestamp
// order (ties by auditID), counting each in its file, and releases the
// slots. With fold, the writes no post-mortem reads are left out (see
// fold). Moving is first touch of fresh memory: a range per core. A block
// of slots is let go as soon as its last kept request is moved: blocks
// fill in reading order, close to time order, so that the slots and the
// slice are not all held at once (on a log of millions of events, each is
// a few hundred megabytes).
func (c *collector) events(log *Log, fold bool) {
	c.ids = nil
	order := c.keptSlots(log)
	slices.SortFunc(order, func(a, b keptSlot) int {
		if c := a.ev.Time.Compare(b.ev.Time); c != 0 {
			return c
		}
		return strings.Compare(a.ev.AuditID, b.ev.AuditID)
	})
	if fold {
		order = foldEvents(order)
	}
	left := make([]atomic.Int32, len(c.blocks))
	for _, k := range order {
		left[k.block].Add(1)
	}
	for b := range left {
		if left[b].Load() == 0 {
			c.blocks[b] = nil
		}
	}
	log.Events = hugepages.Make[Event](len(order))
	workers := max(1, min(runtime.GOMAXPROCS(0), len(order)/4096))
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(order)/workers, (w+1)*len(order)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				k := order[i]
				log.Events[i], order[i].ev = *k.ev, nil
				if left[k.block].Add(-1) == 0 {
					c.blocks[k.block] = nil // each block is let go by one worker
				}
			}
		}()
	}
	wg.Wait()
	c.blocks = nil
}

// keptSlot is a request to move into the log, and its slot's block.
type keptSlot struct {
	ev    *Event
	block int32
}

// keptSlots lists the requests not dropped, counting each in its file.
func (c *collector) keptSlots(log *Log) []keptSlot {
	order := make([]keptSlot, 0, c.n)
	for b := range c.blocks {
		blk := c.blocks[b][:c.blockLen(b)]
		for k := range blk {
			s := &blk[k]
			if s.failed {
				log.Dropped += int(s.n)
				continue
			}
			order = append(order, keptSlot{&s.ev, int32(b)})
			log.Files[s.file].Kept++
		}
	}
	return order
}

// foldEvents keeps of events, in order, those a post-mortem reads, and
// lets go of the others: their slots are emptied, so that their bodies
// and strings can go before the log's slice is made, not with their
// blocks once the kept requests are moved.
func foldEvents(order []keptSlot) []keptSlot {
	evs := make([]*Event, len(order))
	for i := range order {
		evs[i] = order[i].ev
	}
	keep := foldMask(evs)
	out := order[:0]
	for i, k := range order {
		if keep[i] {
			out = append(out, k)
		} else {
			*k.ev = Event{}
		}
	}
	clear(order[len(out):])
	return out
}

func (c *collector) blockLen(b int) int { return min(slotBlock, c.n-b*slotBlock) }

// failedWrite is a create, update or patch that failed: it changed
// nothing.
func failedWrite(ev *Event) bool {
	switch ev.Verb {
	case "create", "update", "patch":
		return ev.Code >= 400
	}
	return false
}
