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
// Calls of the same round are a genuine race. The simulator serves writes
// first (what a kube-apiserver and kube-controller-manager v1.36.3 on
// loopback do in practice: a GET issued with a PATCH tends to see it), and
// when a read and a write of the same object meet in one round, the plan
// is simulated again with reads first and the objects that end differently
// get an alternative outcome.

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

type batchOp struct {
	task  *task
	write bool
}

// sched is the garbage collector's workers.
type sched struct {
	clock   int
	seq     int
	tasks   []*task
	running map[*node]*task // per queue: deletes, orphans
	orphans map[*node]*task
	dirty   map[*task]bool // its item was queued again while it ran
	handoff chan struct{}
	cur     *task
	// ops are the calls of the current round by object UID, to spot a
	// read and a write of one object meeting in one round.
	ops      map[string][]batchOp
	opsRound int
}

func newSched() *sched {
	return &sched{running: map[*node]*task{}, orphans: map[*node]*task{}, dirty: map[*task]bool{},
		handoff: make(chan struct{}), ops: map[string][]batchOp{}}
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

// startTasks pops queued items onto free workers. An item still being
// processed is not started twice: it is started again when its worker is
// done.
func (g *gc) startTasks() {
	sc := g.sc
	for len(sc.running) < gcWorkers {
		n, w, ok := g.attemptToDel.pop()
		if !ok {
			break
		}
		if t, ok := sc.running[n]; ok {
			sc.dirty[t] = true
			continue
		}
		g.start(&task{item: n, wave: w}, func() { g.handleAttemptToDelete(n, w) })
	}
	for len(sc.orphans) < gcWorkers {
		n, w, ok := g.attemptToOrp.pop()
		if !ok {
			break
		}
		if t, ok := sc.orphans[n]; ok {
			sc.dirty[t] = true
			continue
		}
		g.start(&task{item: n, wave: w, orphan: true}, func() { g.handleAttemptToOrphan(n, w) })
	}
}

func (g *gc) start(t *task, fn func()) {
	sc := g.sc
	sc.seq++
	t.seq, t.round, t.resume = sc.seq, sc.clock, make(chan struct{})
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
	q := g.attemptToDel
	if t.orphan {
		delete(sc.orphans, t.item)
		q = g.attemptToOrp
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
		return a.write != g.sim.readsFirst
	}
	return a.seq < b.seq
}

// call is one API round trip of the running task on the object id: the
// task waits for the next round. Outside the scheduler (tests driving the
// collector directly) it returns at once.
func (g *gc) call(write bool, id identity) {
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

// touch records that the running task's current call reads or writes id,
// and notes a race when another task's call of the same round does the
// opposite to the same object.
func (g *gc) touch(write bool, id identity) {
	sc := g.sc
	t := sc.cur
	if t == nil {
		return
	}
	if sc.opsRound != t.round {
		clear(sc.ops)
		sc.opsRound = t.round
	}
	ops := sc.ops[id.UID]
	for _, op := range ops {
		if op.task == t || op.write == write {
			continue
		}
		reader, writer := t, op.task
		if write {
			reader, writer = op.task, t
		}
		g.sim.raced = true
		g.sim.note(fmt.Sprintf("the garbage collector's worker for %s reads %s in the same round trip as the worker for %s changes it: which lands first is timing, so the plan gives the outcome either way",
			reader.item.id.ref(), id.ref(), writer.item.id.ref()))
	}
	sc.ops[id.UID] = append(ops, batchOp{task: t, write: write})
}
