package dataflow

import (
	"cmp"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Worker is one worker's runtime: the dataflows built on it, the messages
// held for dataflows not yet built, and the step function that drives
// them. Step is synchronous; a Cluster runs it on a goroutine per worker
// and a Sim calls it from a test.
//
// Only the worker's own goroutine touches its dataflows. Other goroutines
// reach it through Enqueue, input handles, Activators and Stats, which
// lock or use atomics.
type Worker struct {
	index, peers int
	alloc        Allocator
	// report receives failures: operator panics and broken invariants.
	report func(Failure)
	// wake, if set, makes a parked runner step again.
	wake func()
	// onPublish, if set, sees every progress batch this worker publishes
	// (tests build their ledger from it).
	onPublish func(w int, id ID, batch []Delta)
	// onEnd, if set, is called after a dataflow ended here.
	onEnd func(w int, id ID, r Reason)
	// accounts, if set, are the cluster's dataflow memory accounts; a
	// worker on its own gives each dataflow a private one.
	accounts *accounts
	// afterStep, if set, is called at the end of every step (tests check
	// the attention list's invariant with it).
	afterStep func(w *Worker)
	// slice, if positive, is how long an operator's run should last
	// (Operator.OutOfTime); runStart is when the current run began.
	slice    time.Duration
	runStart time.Time

	remote struct {
		sync.Mutex
		commands    []Command
		activations []activation
	}
	remotePending atomic.Bool
	// waitingExecs are Exec commands that are not finished yet (a peek
	// waiting for its trace to pass its time). They are tried again after
	// every step that did work, not re-queued as remote commands: a
	// re-queued command would wake the worker at once, and a waiting peek
	// would spin a core until what it waits for arrives.
	waitingExecs []Command
	// spareActivations is the activations buffer the worker last took,
	// handed back to the remote queue at the next take: every input push
	// comes through it, so it is reused rather than grown anew.
	spareActivations []activation

	live map[ID]*dataflow
	// attention lists the dataflows a step must visit: the live ones that
	// may have something to do (see enlist). A step visits only these, so
	// its cost follows the dataflows with work, not all live ones.
	// Invariant: a dataflow is on it at most once, exactly when its
	// queued flag is set; at a step boundary every dataflow on it is live,
	// and every live dataflow off it is quiescent (no operator activated
	// or asking to run again, no count change to propagate, nothing to
	// publish, not failed, not complete).
	attention []*dataflow
	// hwm is the highest id whose build command this worker has applied.
	// Invariant: an id at or below hwm is live or ended, never early.
	hwm ID
	// tombstones holds ids above hwm that were dropped before their
	// build arrived; that build will be a no-op.
	tombstones map[ID]struct{}
	// held keeps messages for ids above hwm until the build or a drop.
	held map[ID][]Message
	// dropRequests are drops asked for during the step, applied after
	// the operators ran.
	dropRequests []ID
	inbox        []Message
	stats        workerStats
}

// Command is one entry of a worker's ordered command queue. Every worker
// receives the same commands in the same order.
type Command struct {
	// Exec, if set, makes the command a function run on the worker's
	// goroutine between steps, with the worker's index: the way to read
	// state that only the worker may touch (a trace, for a peek). It
	// reports whether it is finished; if not, it runs again after the
	// next step. Build, ID and Start are ignored.
	Exec func(worker int) bool
	// Build is the build function for dataflow ID; nil means drop ID.
	Build func(*Builder)
	ID    ID
	// Start is the initial time of a dataflow to build.
	Start uint64
	// Fault, if set, makes the command a fault injection: dataflow ID
	// fails on worker FaultWorker exactly as a panic with this value in
	// one of its operators would make it fail. Tests use it to check the
	// failure path end to end; Build and Start are ignored.
	Fault       any
	FaultWorker int
	// Done, if set, is called on the worker's goroutine once applied.
	Done func()
}

// activation asks for operator op of dataflow df to run. It names the
// dataflow by id, so a stale one (for a dataflow that ended meanwhile)
// finds nothing and keeps nothing reachable.
type activation struct {
	df ID
	op int
}

// NewWorker returns worker index of the allocator's workers. report
// receives every failure; it is called on the worker's goroutine and must
// not block.
func NewWorker(index int, alloc Allocator, report func(Failure)) *Worker {
	return &Worker{
		index:      index,
		peers:      alloc.Workers(),
		alloc:      alloc,
		report:     report,
		live:       make(map[ID]*dataflow),
		tombstones: make(map[ID]struct{}),
		held:       make(map[ID][]Message),
	}
}

// Index returns the worker's index.
func (w *Worker) Index() int { return w.index }

// Enqueue appends a command to the worker's queue. It is safe to call from
// any goroutine.
func (w *Worker) Enqueue(c Command) {
	w.remote.Lock()
	w.remote.commands = append(w.remote.commands, c)
	w.remote.Unlock()
	w.remotePending.Store(true)
	w.wakeup()
}

// remoteActivate queues an activation from any goroutine: an Activator,
// or an input handle that queued work. The worker takes it at the start
// of its next step, which is how it learns which dataflow has work
// without looking at the others.
func (w *Worker) remoteActivate(df ID, op int) {
	w.remote.Lock()
	w.remote.activations = append(w.remote.activations, activation{df, op})
	w.remote.Unlock()
	w.remotePending.Store(true)
	w.wakeup()
}

func (w *Worker) wakeup() {
	if w.wake != nil {
		w.wake()
	}
}

func (w *Worker) requestDrop(id ID) { w.dropRequests = append(w.dropRequests, id) }

// enlist puts a running dataflow on the attention list, once. A step's
// phases still to come visit it, or else the next step does. It is
// called on the worker's goroutine by everything that can give a running
// dataflow work; before this list existed, a step found that work by
// visiting every live dataflow:
//
//   - its build finished: finalize activated every operator and set the
//     initial counts, and held messages were delivered (Worker.build);
//   - a message was routed to it: data queued at an input, or a progress
//     batch applied to its counts, which may move frontiers or complete
//     it (dataflow.deliver);
//   - an activation arrived through the remote queue: an Activator, or
//     an input handle that queued records, an advance or a close (Step;
//     InputHandle.push says why no notification is lost);
//   - an operator asked to run again (Operator.Activate);
//   - a progress action was recorded for publication (dataflow.record);
//   - an operator panicked or the runtime found a broken invariant, so
//     that it ends in this step (Worker.fail).
//
// A dataflow stays on the list from one step to the next while it still
// has work (dataflow.needsAttention): an operator asked to run again, its
// own batch moved its counts (frontiers to refresh), or deltas wait for
// publication. Completion needs no mark of its own: counts change only
// when a batch is applied, which happens in a step that visits the
// dataflow. Neither do drops: a drop command or request ends the dataflow
// at once, and an ended dataflow leaves the list at the end of the step.
func (w *Worker) enlist(df *dataflow) {
	if df.queued || df.state != Running {
		return
	}
	df.queued = true
	w.attention = append(w.attention, df)
}

// byID orders dataflows by id.
func byID(a, b *dataflow) int { return cmp.Compare(a.id, b.id) }

// Step runs one step: apply queued commands, take delivered messages, run
// the activated operators, apply requested drops, send each dataflow's
// progress batch, and end the dataflows that completed. It visits only
// the dataflows on the attention list. It reports whether it did
// anything or has work left; a runner parks the worker when it did not.
func (w *Worker) Step() bool {
	worked := false
	if w.remotePending.Swap(false) {
		w.remote.Lock()
		cmds, acts := w.remote.commands, w.remote.activations
		w.remote.commands, w.remote.activations = nil, w.spareActivations[:0]
		w.remote.Unlock()
		for _, c := range cmds {
			if c.Exec != nil {
				if !w.exec(c.Exec) {
					w.waitingExecs = append(w.waitingExecs, c)
					continue
				}
				if c.Done != nil {
					c.Done()
				}
				continue
			}
			w.apply(c)
			w.applyDropRequests()
			if c.Done != nil {
				c.Done()
			}
		}
		for _, a := range acts {
			if df := w.live[a.df]; df != nil {
				df.ops[a.op].activated = true
				df.hot = true
				w.enlist(df)
			}
		}
		w.spareActivations = acts
		worked = true
	}

	w.inbox = w.alloc.Receive(w.index, w.inbox[:0])
	for _, m := range w.inbox {
		w.route(m)
	}
	if len(w.inbox) > 0 {
		worked = true
		clear(w.inbox)
	}

	// Visit in order of id, as a scan of every live dataflow would, so the
	// schedule does not depend on the order in which work arrived. The
	// list may grow while it is visited (an operator may give another
	// dataflow on this worker work); a dataflow enlisted late is visited
	// by the phases still to come. Ended dataflows wait on the list, inert,
	// until the end of the step.
	slices.SortFunc(w.attention, byID)
	visits := 0
	for i := 0; i < len(w.attention); i++ {
		df := w.attention[i]
		if df.state != Running {
			continue
		}
		visits++
		if w.runDataflow(df) {
			worked = true
		}
	}
	if visits > 0 {
		w.stats.visits.Add(int64(visits))
	}
	w.applyDropRequests()
	for i := 0; i < len(w.attention); i++ {
		df := w.attention[i]
		if df.state != Running || df.failed {
			continue
		}
		if len(df.pending) > 0 {
			df.publish()
			worked = true
		}
	}
	// A dataflow whose counts are all zero in this view is complete:
	// every capability was released and every message consumed.
	for i := 0; i < len(w.attention); i++ {
		df := w.attention[i]
		if df.state != Running {
			continue
		}
		switch {
		case df.failed:
			w.end(df, Failed)
		case df.tracker.complete():
			w.end(df, Completed)
		default:
			continue
		}
		worked = true
	}
	// slices.DeleteFunc clears the vacated slots, so an ended dataflow is
	// not kept reachable by the list's backing array.
	w.attention = slices.DeleteFunc(w.attention, func(df *dataflow) bool {
		if df.state == Running && df.needsAttention() {
			return false
		}
		df.queued = false
		return true
	})
	if len(w.attention) > 0 {
		worked = true
	}
	w.retryWaitingExecs()
	if w.afterStep != nil {
		w.afterStep(w)
	}
	return worked
}

// retryWaitingExecs runs each unfinished Exec again and completes those
// that finish. It does not count as work: what an Exec waits for comes
// from a step that did work, after which this runs again.
func (w *Worker) retryWaitingExecs() {
	if len(w.waitingExecs) == 0 {
		return
	}
	kept := w.waitingExecs[:0]
	for _, c := range w.waitingExecs {
		if !w.exec(c.Exec) {
			kept = append(kept, c)
			continue
		}
		if c.Done != nil {
			c.Done()
		}
	}
	clear(w.waitingExecs[len(kept):])
	w.waitingExecs = kept
}

// exec runs an Exec command's function. A panic in it is a bug in the
// caller's code, not in any dataflow: it is reported and the command
// counts as finished, so one bad read cannot take the worker down.
func (w *Worker) exec(f func(int) bool) (done bool) {
	defer func() {
		if v := recover(); v != nil {
			w.report(Failure{Worker: w.index, Operator: "(exec)", Value: v, Stack: debug.Stack()})
			done = true
		}
	}()
	return f(w.index)
}

// runDataflow refreshes one dataflow's frontiers and runs its activated
// operators. It reports whether any operator ran.
func (w *Worker) runDataflow(df *dataflow) bool {
	df.refreshFrontiers()
	if !df.hot || df.failed {
		return false
	}
	ran := false
	for _, op := range df.ops {
		if op.again {
			op.again = false
			op.activated = true
		}
	}
	// The operators run in order, from where the last step stopped; once
	// the dataflow has held the worker for the slice, the rest wait,
	// activated, for the next step. So a dataflow with much to do costs
	// every other dataflow on the worker about one slice (plus one run's
	// overshoot) per step, however many of its operators have work: the
	// others' progress, which needs steps on every worker, is not held
	// back by the sum of its operators' runs.
	start := time.Now()
	first := df.resume
	df.resume = 0
	for pass := 0; ; pass++ {
		df.hot = false
		n := len(df.ops)
		for k := range n {
			i := (first + k) % n
			op := df.ops[i]
			// An operator that asked to run again yielded the worker
			// for this step; it keeps what activates it for the next.
			if !op.activated || pass > 0 && op.again {
				continue
			}
			if ran && w.spent(start) {
				df.resume = i
				df.hot = true
				return true
			}
			op.activated = false
			ran = true
			if !w.schedule(df, op) {
				return true
			}
		}
		first = 0
		// Within the slice, what the operators did is published now
		// rather than at the step's end, and the frontiers it moves are
		// taken in, so that an operator waiting on a capability one
		// upstream released runs in this visit instead of a step later:
		// a write reaches the end of a dataflow in a step or two however
		// long its chain, and a worker with many dataflows visits each
		// once a write rather than once a link. Publishing here is what
		// ending the step here would do. Not when the dataflow failed
		// (its progress is never published) or a drop was asked for in
		// this step (the dropped dataflow's must not be).
		if df.failed || len(df.pending) == 0 || len(w.dropRequests) > 0 || w.spent(start) {
			break
		}
		df.publish()
		df.refreshFrontiers()
		if !df.anyActivated() {
			break
		}
	}
	for _, op := range df.ops {
		if op.activated || op.again {
			df.hot = true
			break
		}
	}
	return ran
}

// spent reports whether a dataflow whose operators began running at start
// has used the worker's slice for this step (see Operator.OutOfTime).
func (w *Worker) spent(start time.Time) bool {
	return w.slice > 0 && (w.slice == SlicePiece || time.Since(start) >= w.slice)
}

// schedule runs one operator and sends what it gave. A panic fails the
// operator's dataflow on this worker and nothing else; it reports
// whether the operator returned normally.
func (w *Worker) schedule(df *dataflow, op *Operator) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			w.fail(df, op.name, v, debug.Stack())
			ok = false
		}
	}()
	for i := range op.consumed {
		op.consumed[i] = Done
	}
	start := time.Now()
	w.runStart = start
	op.logic.Schedule()
	for _, out := range op.outputs {
		out.buf.flushBuffers()
	}
	took := time.Since(start)
	op.schedules++
	op.busy += took
	op.longest = max(op.longest, took)
	for i := range op.consumed {
		op.consumed[i] = Done
	}
	return true
}

// fail marks df failed on this worker and reports it. The dataflow ends
// after the run phase, before anything more of it is published.
func (w *Worker) fail(df *dataflow, opName string, v any, stack []byte) {
	df.failed = true
	w.enlist(df)
	w.report(Failure{Dataflow: df.id, Worker: w.index, Operator: opName, Value: v, Stack: stack})
}

func (w *Worker) reportAssertion(df *dataflow, where string, err *AssertionError) {
	w.fail(df, where, err, debug.Stack())
}

// route hands one received message to its dataflow, holds it for a
// dataflow not yet built, or discards it for one that ended.
func (w *Worker) route(m Message) {
	id := m.Channel.Dataflow
	if df := w.live[id]; df != nil {
		df.deliver(m)
		return
	}
	if id > w.hwm {
		if _, dropped := w.tombstones[id]; !dropped {
			w.held[id] = append(w.held[id], m)
			w.stats.held.Add(1)
			return
		}
	}
	w.stats.discarded.Add(1)
}

// apply carries out one command.
func (w *Worker) apply(c Command) {
	if c.Fault != nil {
		if df := w.live[c.ID]; df != nil && w.index == c.FaultWorker && !df.failed {
			w.fail(df, "(injected fault)", c.Fault, nil)
		}
		return
	}
	if c.Build == nil {
		w.drop(c.ID)
		return
	}
	if c.ID <= w.hwm {
		w.report(Failure{Dataflow: c.ID, Worker: w.index, Operator: "(build)",
			Value: assertionFailedf("build of dataflow %d at or below the highest id built, %d: ids are never reused", c.ID, w.hwm)})
		return
	}
	w.hwm = c.ID
	if _, dropped := w.tombstones[c.ID]; dropped {
		delete(w.tombstones, c.ID)
		w.stats.tombstones.Add(-1)
		w.stats.dropped.Add(1)
		return
	}
	w.build(c.ID, c.Start, c.Build)
}

// build runs a build function as one atomic step and starts the dataflow.
func (w *Worker) build(id ID, start uint64, fn func(*Builder)) {
	checkTime(start)
	df := newDataflow(w, id, start)
	df.account = w.accounts.open(id)
	w.stats.building.Add(1)
	err := func() (err any) {
		defer func() {
			if v := recover(); v != nil {
				err = v
				w.report(Failure{Dataflow: id, Worker: w.index, Operator: "(build)", Value: v, Stack: debug.Stack()})
			}
		}()
		fn(&Builder{df: df})
		df.finalize()
		return nil
	}()
	w.stats.building.Add(-1)
	if err != nil {
		// A build that panicked is a dataflow that failed before it ran:
		// every worker running the same deterministic build fails the
		// same way, and a worker that did not is dropped by coord.
		df.state = Running
		w.end(df, Failed)
		w.discardHeld(id)
		return
	}
	w.live[id] = df
	w.enlist(df)
	w.stats.running.Add(1)
	w.stats.operators.Add(int64(len(df.ops)))
	w.stats.channels.Add(int64(len(df.edges)) + 1)
	held := w.held[id]
	delete(w.held, id)
	w.stats.held.Add(-int64(len(held)))
	for _, m := range held {
		df.deliver(m)
	}
}

// drop ends a live dataflow, or records a tombstone for one not yet
// built. Dropping an ended or unknown old id does nothing.
func (w *Worker) drop(id ID) {
	if df := w.live[id]; df != nil {
		w.end(df, Dropped)
		return
	}
	if id > w.hwm {
		if _, dup := w.tombstones[id]; !dup {
			w.tombstones[id] = struct{}{}
			w.stats.tombstones.Add(1)
			w.discardHeld(id)
		}
	}
}

func (w *Worker) applyDropRequests() {
	for len(w.dropRequests) > 0 {
		id := w.dropRequests[0]
		w.dropRequests = w.dropRequests[1:]
		w.drop(id)
	}
	w.dropRequests = nil
}

func (w *Worker) discardHeld(id ID) {
	held := w.held[id]
	delete(w.held, id)
	w.stats.held.Add(-int64(len(held)))
	w.stats.discarded.Add(int64(len(held)))
}

// end tears a dataflow down on this worker, in order: stop scheduling and
// disable its channels; discard everything unpublished; void its
// capabilities without publishing; make its handles inert; shut its
// operators down; run its release hooks; free it. From here on the worker
// sends nothing for it: to its peers this worker went silent for it.
func (w *Worker) end(df *dataflow, r Reason) {
	if df.state == Ended {
		return
	}
	wasRunning := w.live[df.id] != nil
	df.state = Ended
	df.reason = r
	if wasRunning {
		// The dataflow may still be on the attention list; every phase of
		// a step skips ended dataflows and the step's end removes it.
		delete(w.live, df.id)
		w.stats.running.Add(-1)
		w.stats.operators.Add(-int64(len(df.ops)))
		w.stats.channels.Add(-int64(len(df.edges)) - 1)
	}
	df.pending = nil
	for _, op := range df.ops {
		for _, out := range op.outputs {
			out.buf.discard()
		}
		for _, in := range op.inputs {
			w.stats.discarded.Add(int64(len(in.queue) - in.head))
			in.queue, in.head = nil, 0
		}
		for _, c := range op.caps {
			c.slot = -1
		}
		op.caps = nil
	}
	for _, h := range df.handles {
		h.end(r)
	}
	df.cancel()
	for _, op := range df.ops {
		if op.logic != nil {
			w.safely(df, op.name, func() { op.logic.Shutdown(r) })
		}
	}
	for i := len(df.hooks) - 1; i >= 0; i-- {
		hook := df.hooks[i]
		w.safely(df, "(release hook)", func() { hook(r) })
	}
	df.hooks = nil
	switch r {
	case Completed:
		w.stats.completed.Add(1)
	case Dropped:
		w.stats.dropped.Add(1)
	case Failed:
		w.stats.failed.Add(1)
	}
	w.accounts.close(df.id)
	if w.onEnd != nil {
		w.onEnd(w.index, df.id, r)
	}
}

// safely runs a teardown function; a panic is reported and teardown goes
// on, so one bad Shutdown cannot keep a lease from being released.
func (w *Worker) safely(df *dataflow, where string, f func()) {
	defer func() {
		if v := recover(); v != nil {
			w.report(Failure{Dataflow: df.id, Worker: w.index, Operator: where, Value: v, Stack: debug.Stack()})
		}
	}()
	f()
}

// shutdown drops every live dataflow, in order of id, for a runner that
// is stopping.
func (w *Worker) shutdown() {
	for _, id := range slices.Sorted(maps.Keys(w.live)) {
		if df := w.live[id]; df != nil {
			w.end(df, Dropped)
		}
	}
	clear(w.attention)
	w.attention = w.attention[:0]
}

// Failure reports that a dataflow failed on a worker: an operator
// panicked, its build panicked, or the runtime found a broken invariant.
// The dataflow is already dropped on that worker; the receiver should
// drop it everywhere.
type Failure struct {
	Dataflow ID
	Worker   int
	Operator string
	Value    any
	Stack    []byte
}

func (f Failure) Error() string {
	return fmt.Sprintf("dataflow %d failed on worker %d in %s: %v", f.Dataflow, f.Worker, f.Operator, f.Value)
}
