package audit

import (
	"runtime"
	"slices"
	"sync"

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
	// failed counts each block's failed slots, groups not counted
	// until collapsed.
	failed []int32
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
			if s.failed {
				c.failed[i/slotBlock]--
			}
		}
		c.groups[i] = append(g, *st)
		return
	}
	if c.n%slotBlock == 0 {
		b := make([]slot, slotBlock)
		hugepages.Advise(b)
		c.blocks = append(c.blocks, b)
		c.failed = append(c.failed, 0)
	}
	i := int32(c.n)
	c.n++
	c.ids[st.ev.AuditID] = i
	s := c.at(i)
	*s = slot{ev: st.ev, rank: st.rank, file: int32(st.file), n: 1, failed: failedWrite(&st.ev)}
	if s.failed {
		c.failed[i/slotBlock]++
	}
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
		if !ok {
			c.failed[i/slotBlock]++
		}
		*c.at(i) = slot{ev: ev, failed: !ok, file: int32(ptrs[len(ptrs)-1].file), n: int32(len(g))}
	}
	c.groups = nil
	return dup
}

// events moves the kept requests into one slice, in stageTimestamp
// order, counting each in its file, and releases the slots. Moving is
// first touch of fresh memory: a range of blocks per core.
func (c *collector) events(log *Log) {
	c.ids = nil
	offs := make([]int, len(c.blocks)+1)
	for b := range c.blocks {
		offs[b+1] = offs[b] + c.blockLen(b) - int(c.failed[b])
	}
	log.Events = hugepages.Make[Event](offs[len(c.blocks)])
	workers := max(1, min(runtime.GOMAXPROCS(0), len(c.blocks)))
	kept := make([][]int, workers)
	dropped := make([]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		kept[w] = make([]int, len(log.Files))
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			for b := lo; b < hi; b++ {
				out := log.Events[offs[b]:offs[b+1]]
				blk := c.blocks[b][:c.blockLen(b)]
				for k := range blk {
					s := &blk[k]
					if s.failed {
						dropped[w] += int(s.n)
						continue
					}
					out[0], out = s.ev, out[1:]
					kept[w][s.file]++
				}
				c.blocks[b] = nil
			}
		}(w*len(c.blocks)/workers, (w+1)*len(c.blocks)/workers)
	}
	wg.Wait()
	for w := range workers {
		log.Dropped += dropped[w]
		for f, n := range kept[w] {
			log.Files[f].Kept += n
		}
	}
	c.blocks = nil
	sortByTime(log.Events)
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
