package audit

import (
	"hash/maphash"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/internal/parallel"
	"github.com/kgc-dev/kgc/internal/radix"
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

// slot is what the table knows of a request besides its event (its
// only stage, or after finish its collapsed stages): events and slots
// are held in blocks side by side, so that the blocks of events can
// become the log's.
type slot struct {
	rank   int8
	failed bool  // a create, update or patch that failed: dropped
	file   int32 // the file of its last stage, in collapse order
	n      int32 // how many stages it had
}

// requestTable files the stages of every file read, a request per slot:
// the log's requests as they are read, before they are sorted into it.
type requestTable struct {
	evs   [][]Event
	slots [][]slot
	n     int
	// ids holds the slot of each request by a hash of its auditID: a
	// map of strings cost three times as much, on the goroutine every
	// stage passes through. An auditID whose hash another one holds
	// (one in 2^64) has its slot in collided.
	ids      map[uint64]int32
	collided map[string]int32
	hash     func(id string) uint64
	// groups are the stages after the first of the requests seen at more
	// than one stage, by slot: the first is in the slot, not copied.
	groups map[int32][]stage
	in     chan []stage
	free   chan []stage
	done   chan struct{}
	// spillAt is how many requests are held before the log is spilled
	// (0: never), with router; spill, once set, takes every stage.
	spillAt int
	router  Router
	fold    bool
	spill   *spill
}

// newRequestTable is a table filed from one goroutine, by add.
func newRequestTable() *requestTable {
	seed := maphash.MakeSeed()
	return &requestTable{ids: map[uint64]int32{}, collided: map[string]int32{}, groups: map[int32][]stage{},
		hash: func(id string) uint64 { return maphash.String(seed, id) }}
}

// startRequestTable is a table filed as batches are sent, by a goroutine
// of its own; opts say when it spills.
func startRequestTable(opts Options) *requestTable {
	c := newRequestTable()
	c.in, c.free, c.done = make(chan []stage, 8), make(chan []stage, 16), make(chan struct{})
	if opts.Spill > 0 && opts.Router != nil {
		c.spillAt, c.router, c.fold = opts.Spill, opts.Router, opts.Fold
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
func (c *requestTable) batch() []stage {
	select {
	case b := <-c.free:
		return b
	default:
		return make([]stage, 0, 256)
	}
}

// send hands a batch of stages over; the sender no longer owns it.
func (c *requestTable) send(b []stage) {
	if len(b) > 0 {
		c.in <- b
	}
}

// wait returns once every batch sent is filed.
func (c *requestTable) wait() {
	close(c.in)
	<-c.done
}

func (c *requestTable) at(i int32) (*Event, *slot) {
	return &c.evs[i/slotBlock][i%slotBlock], &c.slots[i/slotBlock][i%slotBlock]
}

func (c *requestTable) add(st *stage) {
	if c.spill != nil {
		c.spill.put(st)
		return
	}
	h := c.hash(st.ev.AuditID)
	held, taken := c.ids[h]
	if i, ok := c.slotOf(st.ev.AuditID, held, taken); ok {
		c.groups[i] = append(c.groups[i], *st)
		return
	}
	if c.n%slotBlock == 0 {
		c.evs = append(c.evs, make([]Event, slotBlock))
		c.slots = append(c.slots, make([]slot, slotBlock))
	}
	i := int32(c.n)
	c.n++
	if taken {
		c.collided[st.ev.AuditID] = i
	} else {
		c.ids[h] = i
	}
	ev, s := c.at(i)
	*ev, *s = st.ev, slot{rank: st.rank, file: int32(st.file), n: 1, failed: failedWrite(&st.ev)}
	if c.spillAt > 0 && c.n >= c.spillAt {
		c.startSpill()
	}
}

// slotOf finds the slot of a request already filed, given the slot its
// auditID's hash holds, if taken.
func (c *requestTable) slotOf(id string, held int32, taken bool) (int32, bool) {
	switch {
	case !taken:
		return 0, false
	case c.event(held).AuditID == id:
		return held, true
	}
	i, ok := c.collided[id]
	return i, ok
}

// startSpill writes every stage held to a spill, which takes every stage
// from then on: the log is too big to hold.
func (c *requestTable) startSpill() {
	c.spill = newSpill(c.router, c.fold)
	for i := range int32(c.n) {
		ev, s := c.at(i)
		c.spill.put(&stage{ev: *ev, rank: s.rank, file: int(s.file)})
		for k := range c.groups[i] {
			c.spill.put(&c.groups[i][k])
		}
	}
	c.evs, c.slots, c.ids, c.collided, c.groups, c.n = nil, nil, nil, nil, nil, 0
	// What was held is garbage now, hundreds of megabytes of it: collect
	// it at once, or the heap grows by as much again (the reader's
	// garbage) before the runtime's next goal says to.
	runtime.GC()
}

// collapseGroups collapses each request seen at several stages into its
// slot, and returns the duplicate stages met: the first one is the first
// of the request with the lowest auditID, as sorting every stage finds it.
func (c *requestTable) collapseGroups() dupCount {
	var dup dupCount
	ptrs := []*stage{}
	var first stage
	for i, g := range c.groups {
		e, s := c.at(i)
		first = stage{ev: *e, rank: s.rank, file: int(s.file)}
		ptrs = append(ptrs[:0], &first)
		for k := range g {
			ptrs = append(ptrs, &g[k])
		}
		slices.SortFunc(ptrs, compareStages)
		var d dupCount
		ev, ok := collapse(ptrs, &d)
		mergeDup(&dup, d)
		*e, *s = ev, slot{failed: !ok, file: int32(ptrs[len(ptrs)-1].file), n: int32(len(ptrs))}
	}
	c.groups = nil
	return dup
}

// events leaves the kept requests in the blocks they were filed in,
// moved into stageTimestamp order (ties by auditID), counts each in its
// file, and hands the blocks to the log. With fold, the writes no
// post-mortem reads are left out (see fold). Moving in place, rather than
// into one new slice, means the requests are never held twice: on a log
// of millions of events the slice would be a few hundred megabytes made
// beside the blocks.
func (c *requestTable) events(log *Log, fold bool) {
	c.ids, c.collided = nil, nil
	order := sortKept(c.keptSlots(log))
	c.slots = nil
	if fold {
		order = foldEvents(order)
	}
	c.permute(order)
	k := len(order)
	nb := (k + slotBlock - 1) / slotBlock
	if nb > 0 {
		last := c.evs[nb-1]
		clear(last[k-(nb-1)*slotBlock:]) // moved or folded away
		c.evs[nb-1] = last[:k-(nb-1)*slotBlock]
	}
	clear(c.evs[nb:])
	log.chunks, log.per, log.n = c.evs[:nb:nb], slotBlock, k
	c.evs = nil
}

// permute moves the request of slot order[d].slot into slot d, for
// every d, in place: the slots no request moves into are dropped or
// folded away. Each path from such a slot, through the slot its request
// comes from, ends at one past the kept (whose request is moved out
// and left); what is left are cycles among the kept, each turned with
// one request aside.
func (c *requestTable) permute(order []keptSlot) {
	k := int32(len(order))
	moved := make([]bool, k)
	isSource := make([]bool, k)
	for _, o := range order {
		if o.slot < k {
			isSource[o.slot] = true
		}
	}
	for d := range k {
		for j := d; !isSource[d] && j < k && !moved[j]; j = order[j].slot {
			*c.event(j), moved[j] = *c.event(order[j].slot), true
		}
	}
	for d := range k {
		if moved[d] {
			continue
		}
		aside := *c.event(d)
		j := d
		for ; order[j].slot != d; j = order[j].slot {
			*c.event(j), moved[j] = *c.event(order[j].slot), true
		}
		*c.event(j), moved[j] = aside, true
	}
}

func (c *requestTable) event(i int32) *Event { return &c.evs[i/slotBlock][i%slotBlock] }

// sortKept orders the kept requests by stageTimestamp, then auditID. A
// radix sort by the time takes a few linear passes where a comparison
// sort of half a million requests took a fifth of a second on the one
// goroutine left at the end of reading; requests of the same instant,
// few, are then ordered by auditID.
func sortKept(order []keptSlot) []keptSlot {
	if len(order) == 0 {
		return order
	}
	base := order[0].at
	for _, o := range order {
		if o.at == outOfRange {
			slices.SortFunc(order, compareKept)
			return order
		}
		base = min(base, o.at)
	}
	order, _ = radix.Sort(order, nil, func(o keptSlot) uint64 { return uint64(o.at - base) })
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && order[j].at == order[i].at {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(order[i:j], compareKept)
		}
		i = j
	}
	return order
}

// outOfRange stands for a time UnixNano cannot count: such requests
// are compared as times, not as numbers.
const outOfRange = math.MinInt64

func nanos(t time.Time) int64 {
	if y := t.Year(); y < 1700 || y > 2200 {
		return outOfRange
	}
	return t.UnixNano()
}

// compareKept orders requests by stageTimestamp, then auditID.
func compareKept(a, b keptSlot) int {
	if c := a.ev.Time.Compare(b.ev.Time); c != 0 {
		return c
	}
	return strings.Compare(a.ev.AuditID, b.ev.AuditID)
}

// keptSlot is a request to move into the log, and its slot.
type keptSlot struct {
	ev   *Event
	at   int64 // ev.Time in nanoseconds, read once for sorting
	slot int32
}

// keptSlots lists the requests not dropped, counting each in its file.
func (c *requestTable) keptSlots(log *Log) []keptSlot {
	order := make([]keptSlot, 0, c.n)
	for b := range c.slots {
		n := c.blockLen(b)
		for k, s := range c.slots[b][:n] {
			if s.failed {
				log.Dropped += int(s.n)
				c.evs[b][k] = Event{}
				continue
			}
			ev := &c.evs[b][k]
			order = append(order, keptSlot{ev, nanos(ev.Time), int32(b*slotBlock + k)})
			log.Files[s.file].Kept++
		}
	}
	return order
}

// foldEvents keeps of events, in order, those a post-mortem reads, and
// lets go of the others: their slots are emptied, so that their bodies
// and strings can go.
func foldEvents(order []keptSlot) []keptSlot {
	evs := make([]*Event, len(order))
	for i := range order {
		evs[i] = order[i].ev
	}
	keep := foldMask(evs)
	// Emptying a few hundred thousand slots is shared among the cores.
	parallel.Do(len(order), func(_, from, to int) {
		for i, k := range order[from:to] {
			if !keep[from+i] {
				*k.ev = Event{}
			}
		}
	})
	out := order[:0]
	for i, k := range order {
		if keep[i] {
			out = append(out, k)
		}
	}
	clear(order[len(out):])
	return out
}

func (c *requestTable) blockLen(b int) int { return min(slotBlock, c.n-b*slotBlock) }

// failedWrite is a create, update or patch that failed: it changed
// nothing. An update or patch answered 404 is kept: it says its object
// was gone by then, which may be all the log says of its end.
func failedWrite(ev *Event) bool {
	switch ev.Verb {
	case "create":
		return ev.Code >= 400
	case "update", "patch":
		return ev.Code >= 400 && ev.Code != CodeNotFound
	}
	return false
}

// CodeNotFound is the code of a request about an object that is not
// there.
const CodeNotFound = 404
