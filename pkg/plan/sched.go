package plan

import (
	"fmt"
	"slices"
)

// The real garbage collector runs 20 attemptToDelete and 20
// attemptToOrphan workers (--concurrent-gc-syncs). Items queued together
// are processed at the same time, each reading the API server as it goes:
// a dependent that GETs its owner in its second round trip sees the owner
// as it was, while one that GETs it in its fourth may see what the owner's
// own worker patched in its third. Processing the items one after another
// gets such cases wrong in a way that shows on a real control plane, so the
// simulator runs the items as cooperative tasks on a clock of round trips:
// every API call takes one round, calls are served in round order, a
// write's informer event reaches the graph builder at the end of its round,
// and an item it queues starts on a free worker in the next one (an item
// queued while its worker is still busy with it waits for that worker to
// finish, as the workqueue's dirty set does). Only one task runs at a time,
// handing control over channels, so the result is as deterministic as a
// sequential loop.
//
// Calls close in time are a genuine race. The simulator serves the
// writes of a round before its reads (what a kube-apiserver and
// kube-controller-manager v1.36.3 on loopback do most often: a GET issued
// with a PATCH tends to see it). But a real round trip is not a fixed
// unit: a GET of a custom resource is slower than one of a ConfigMap, and
// under load a write one round later than a read sometimes lands first.
// So when one worker reads an object in the round in which another writes
// it, the plan is simulated again with reads first; when it reads it in
// the round just before, again with that reader's worker a round behind.
// Every object that ends differently gets those outcomes as alternatives.

// order is how racing calls are served.
type order int

const (
	writesFirst order = iota // the plan's own order
	readsFirst               // reads of a round before its writes
	slowReaders              // the readers of near races start a round late
)

// gcWorkers is the default --concurrent-gc-syncs: the number of
// attemptToDelete workers, and of attemptToOrphan workers.
const gcWorkers = 20

type task struct {
	seq    int
	wave   int
	item   *node
	orphan bool
	resume chan struct{}
	round  int  // round of the pending call (the start, before the first)
	write  bool // the pending call is a write
	done   bool
}

type recentCall struct {
	task  *task
	round int
	write bool
}

// sched is the garbage collector's workers.
type sched struct {
	clock   int
	seq     int
	tasks   []*task
	running map[*node]*task // attemptToDelete items being processed
	orphans map[*node]*task // attemptToOrphan items being processed
	dirty   map[*task]bool  // its item was queued again while it ran
	// draining: the simulation was cut short; no task is started.
	draining bool
	handoff  chan struct{}
	cur      *task
	// ops are the recent calls by object UID, to spot a read and a write
	// of one object close together: those of the current clock and of the
	// one before.
	ops, prevOps map[string][]recentCall
	opsClock     int
}

func newSched() *sched {
	return &sched{running: map[*node]*task{}, orphans: map[*node]*task{}, dirty: map[*task]bool{},
		handoff: make(chan struct{}), ops: map[string][]recentCall{}, prevOps: map[string][]recentCall{}}
}

// step starts tasks for queued items on free workers and serves every call
// of the next round; it reports whether there was anything to do.
func (g *gc) step() bool {
	sc := g.sc
	g.startTasks()
	if len(sc.tasks) == 0 {
		return false
	}
	r := sc.tasks[0].round
	for _, t := range sc.tasks[1:] {
		r = min(r, t.round)
	}
	sc.clock = r
	switch r {
	case sc.opsClock:
	case sc.opsClock + 1:
		sc.prevOps, sc.ops = sc.ops, sc.prevOps
		clear(sc.ops)
		sc.opsClock = r
	default:
		clear(sc.ops)
		clear(sc.prevOps)
		sc.opsClock = r
	}
	for {
		var next *task
		for _, t := range sc.tasks {
			if !t.done && t.round == r && (next == nil || g.servedBefore(t, next)) {
				next = t
			}
		}
		if next == nil {
			break
		}
		sc.cur = next
		g.sim.wave = next.wave
		next.resume <- struct{}{}
		<-sc.handoff
		sc.cur = nil
		if next.done {
			g.finish(next)
		}
	}
	return true
}

// drainTasks lets the tasks in flight finish without starting new ones, so
// that a simulation cut short leaves no goroutine behind.
func (g *gc) drainTasks() {
	g.sc.draining = true
	for g.step() {
	}
	g.sc.draining = false
}

// startTasks pops queued items onto free workers. An item still being
// processed is not started twice: it is started again when its worker is
// done.
func (g *gc) startTasks() {
	if g.sc.draining {
		return
	}
	g.startFrom(g.attemptToDelete, g.sc.running, false, g.attemptToDeleteWorker)
	g.startFrom(g.attemptToOrphan, g.sc.orphans, true, g.attemptToOrphanWorker)
}

func (g *gc) startFrom(q *queue[*node], running map[*node]*task, orphan bool, handle func(*node, int)) {
	for len(running) < gcWorkers {
		n, w, ok := q.pop()
		if !ok {
			return
		}
		if t, ok := running[n]; ok {
			g.sc.dirty[t] = true
			continue
		}
		g.start(&task{item: n, wave: w, orphan: orphan}, func() { handle(n, w) })
	}
}

func (g *gc) start(t *task, fn func()) {
	sc := g.sc
	sc.seq++
	t.seq, t.round, t.resume = sc.seq, sc.clock, make(chan struct{})
	if g.sim.slow[t.item.Identity().UID] && !g.sim.baseline {
		t.round++
	}
	if t.orphan {
		sc.orphans[t.item] = t
	} else {
		sc.running[t.item] = t
	}
	sc.tasks = append(sc.tasks, t)
	g.sim.workItems++
	go func() {
		<-t.resume
		fn()
		t.done = true
		sc.handoff <- struct{}{}
	}()
}

// finish retires a task; an item queued again while it ran goes back to
// its queue.
func (g *gc) finish(t *task) {
	sc := g.sc
	sc.tasks = slices.DeleteFunc(sc.tasks, func(x *task) bool { return x == t })
	q := g.attemptToDelete
	if t.orphan {
		delete(sc.orphans, t.item)
		q = g.attemptToOrphan
	} else {
		delete(sc.running, t.item)
	}
	if sc.dirty[t] {
		delete(sc.dirty, t)
		q.add(t.item, t.wave)
	}
}

func (g *gc) servedBefore(a, b *task) bool {
	if a.round != b.round {
		return a.round < b.round
	}
	if a.write != b.write {
		return a.write != (g.sim.order == readsFirst)
	}
	return a.seq < b.seq
}

// call is one API round trip of the running task on the object id: the
// task waits for the next round. Outside the scheduler (tests driving the
// collector directly) it returns at once.
func (g *gc) call(write bool, id objectReference) {
	g.yield(write)
	g.touch(write, id)
}

func (g *gc) yield(write bool) {
	sc := g.sc
	t := sc.cur
	if t == nil {
		return
	}
	t.round++
	t.write = write
	sc.handoff <- struct{}{}
	<-t.resume
}

// timingNoteEnd ends the note on each race, so that the notes of races
// that change no outcome can be dropped (dropTimingNotes).
const timingNoteEnd = ": which lands first is timing, so the plan gives the outcomes either way"

// touch records that the running task's current call reads or writes id,
// and notes a race when another task writes the same object in the round
// of a read or the round after it (or reads it in the round of a write or
// the round before).
func (g *gc) touch(write bool, id objectReference) {
	sc := g.sc
	t := sc.cur
	if t == nil {
		return
	}
	for _, ops := range [][]recentCall{sc.prevOps[id.UID], sc.ops[id.UID]} {
		for _, op := range ops {
			if op.task == t || op.write == write || op.task.item == t.item {
				continue
			}
			reader, writer, readAt, writeAt := t, op.task, t.round, op.round
			if write {
				reader, writer, readAt, writeAt = op.task, t, op.round, t.round
			}
			if writeAt != readAt && writeAt != readAt+1 {
				continue
			}
			g.sim.raced = true
			when := "in the same round trip as"
			if writeAt != readAt {
				when = "one round trip before"
				g.sim.nearReaders[reader.item.Identity().UID] = true
			}
			g.sim.note(fmt.Sprintf("the garbage collector's worker for %s reads %s %s the worker for %s changes it"+timingNoteEnd,
				reader.item.Identity(), id, when, writer.item.Identity()))
		}
	}
	sc.ops[id.UID] = append(sc.ops[id.UID], recentCall{task: t, round: t.round, write: write})
}
