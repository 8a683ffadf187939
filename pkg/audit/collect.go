package audit

import (
	"slices"

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
// order, counting each in its file, and releases the slots.
func (c *collector) events(log *Log) {
	c.ids = nil
	kept := 0
	for i := range c.n {
		if !c.at(int32(i)).failed {
			kept++
		}
	}
	log.Events = hugepages.Make[Event](kept)[:0]
	for b := range c.blocks {
		for _, s := range c.blocks[b][:min(slotBlock, c.n-b*slotBlock)] {
			if s.failed {
				log.Dropped += int(s.n)
				continue
			}
			log.Events = append(log.Events, s.ev)
			log.Files[s.file].Kept++
		}
		c.blocks[b] = nil
	}
	c.blocks = nil
	sortByTime(log.Events)
}

// failedWrite is a create, update or patch that failed: it changed
// nothing.
func failedWrite(ev *Event) bool {
	switch ev.Verb {
	case "create", "update", "patch":
		return ev.Code >= 400
	}
	return false
}
