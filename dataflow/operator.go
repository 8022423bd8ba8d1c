package dataflow

import (
	"context"
	"time"
)

// Logic is an operator's behaviour. The runtime calls Schedule when the
// operator is activated: a message arrived at an input, an input's
// frontier changed, or the operator asked to run again. Schedule reads
// its inputs and writes its outputs through the ports it was built with;
// the worker does the sending after Schedule returns.
//
// Shutdown is called exactly once, when the dataflow ends on this
// worker, after the last Schedule. Its capabilities are already void and
// nothing it sends goes anywhere. An operator that commits work outside
// the dataflow (a sink) commits only when reason is Completed.
type Logic interface {
	Schedule()
	Shutdown(reason Reason)
}

// ScheduleFunc is a Logic with nothing to do at shutdown.
type ScheduleFunc func()

// Schedule implements Logic.
func (f ScheduleFunc) Schedule() { f() }

// Shutdown implements Logic.
func (f ScheduleFunc) Shutdown(Reason) {}

// Operator is the runtime's side of one operator on one worker: its ports,
// its live capabilities and its activation state. Logic reaches the
// runtime through it.
type Operator struct {
	df      *dataflow
	index   int
	name    string
	logic   Logic
	inputs  []*inPort
	outputs []*outPort
	// connected[i][o] reports whether input i can result in output o.
	connected [][]bool
	// caps is the table of live capabilities: leaks are visible and
	// teardown voids them all.
	caps []*Capability
	// consumed[i] is the least time consumed at input i during the
	// current Schedule, or Done; it justifies sends and retains there.
	consumed []Frontier
	// activated reports whether the operator runs in this step's pass;
	// again, whether it asked to run in the next one.
	activated, again bool
	// deaf reports that a move of an input frontier does not activate
	// the operator (OperatorBuilder.SetNotify).
	deaf bool
	// schedules counts the operator's runs on this worker, busy sums
	// their time and longest is the longest of them, so that an
	// operator that holds its worker can be found (OperatorInfo).
	schedules     int64
	busy, longest time.Duration
}

// Name returns the operator's name.
func (op *Operator) Name() string { return op.name }

// Worker returns the index of the worker the operator runs on.
func (op *Operator) Worker() int { return op.df.w.index }

// Workers returns the number of workers.
func (op *Operator) Workers() int { return op.df.w.peers }

// Dataflow returns the id of the operator's dataflow.
func (op *Operator) Dataflow() ID { return op.df.id }

// Context returns a context that is cancelled when the dataflow ends on
// this worker, for goroutines the operator starts.
func (op *Operator) Context() context.Context { return op.df.ctx }

// OutOfTime reports whether the operator's current run has held its
// worker for the cluster's slice (Config.Slice). An operator that works
// in fuelled slices checks it between pieces of work and, if so, keeps
// its place, asks to run again and returns, as when its fuel runs out;
// what it produces is the same, cut into more messages. A worker on its
// own (tests, the simulator) has no slice: only fuel cuts runs there, so
// they stay deterministic.
func (op *Operator) OutOfTime() bool {
	w := op.df.w
	return w.slice > 0 && (w.slice == SlicePiece || time.Since(w.runStart) >= w.slice)
}

// SlicePiece, as a worker's slice, ends every sliced run after its first
// piece of work, whatever the time: tests use it to cross every place
// where an operator keeps its position, deterministically.
const SlicePiece time.Duration = 1

// SetSlice sets how long an operator's run should hold the worker (see
// Config.Slice); zero or less means no limit. A worker must not be
// running when it is called.
func (w *Worker) SetSlice(d time.Duration) { w.slice = max(d, 0) }

// Crowded reports whether messages pile up in the operator's dataflow on
// this worker: more than crowdedAt wait at its inputs, and another of its
// operators is due to run, which will take them. An operator that makes
// many messages from few (flattening an imported batch) checks it
// between pieces and, while it holds, keeps its place and asks to run
// again, so that a hydration's rows do not all wait in queues at once,
// as messages of 64 bytes a row beside the arrangement they will become.
// Messages that no operator is due to take wait on a frontier, which
// may need the rest of the input: then it is never crowded. An operator
// that checks it must still give something in every run: two that wait
// whole runs on each other's crowd, each due because it asked to run
// again, never finish.
func (op *Operator) Crowded() bool {
	df := op.df
	if df.waiting <= crowdedAt {
		return false
	}
	for _, o := range df.ops {
		if o != op && (o.activated || o.again) {
			return true
		}
	}
	return false
}

// crowdedAt is the most messages a dataflow's inputs hold on a worker
// before Crowded reports it.
var crowdedAt = 64

// Activate asks for the operator to be scheduled again in the next step.
// It must be called on the worker's goroutine, typically from Schedule;
// other goroutines use an Activator.
func (op *Operator) Activate() {
	op.again = true
	op.df.hot = true
	op.df.w.enlist(op.df)
}

// Activator returns a handle that other goroutines may use to activate
// the operator. It does nothing once the dataflow has ended.
func (op *Operator) Activator() *Activator {
	return &Activator{w: op.df.w, df: op.df.id, op: op.index}
}

// RequestDrop asks this worker to drop dataflow id once the current step's
// operators have run. Nothing the step did for id is then published.
func (op *Operator) RequestDrop(id ID) { op.df.w.requestDrop(id) }

// Retain returns a capability for output out at time t, justified by a
// message at a time at or before t consumed during this Schedule at an
// input connected to out, or by a live capability for out at or before t.
func (op *Operator) Retain(out int, t uint64) *Capability {
	if !op.justified(out, t) {
		panic(assertionFailedf("%s retains output %d at %d without a capability or a consumed message at or before it", op.name, out, t))
	}
	return op.mint(out, t)
}

// Capabilities returns the operator's live capabilities. The slice is
// the runtime's; do not keep or modify it.
func (op *Operator) Capabilities() []*Capability { return op.caps }

// justified reports whether the operator may send on out at t now.
func (op *Operator) justified(out int, t uint64) bool {
	for _, c := range op.caps {
		if c.out == out && c.time <= t {
			return true
		}
	}
	for i, f := range op.consumed {
		if f != Done && uint64(f) <= t && op.connected[i][out] {
			return true
		}
	}
	return false
}

func (op *Operator) mint(out int, t uint64) *Capability {
	checkTime(t)
	c := &Capability{op: op, out: out, time: t, slot: len(op.caps)}
	op.caps = append(op.caps, c)
	op.df.record(op.outputs[out].loc, t, +1)
	return c
}

// forget removes c from the live table.
func (op *Operator) forget(c *Capability) {
	last := op.caps[len(op.caps)-1]
	op.caps[c.slot] = last
	last.slot = c.slot
	op.caps[len(op.caps)-1] = nil
	op.caps = op.caps[:len(op.caps)-1]
	c.slot = -1
}

// SetNotify changes, from the operator's own run, whether a move of an
// input frontier activates it (OperatorBuilder.SetNotify): an operator
// that waits on a frontier only at times, such as one holding sums until
// their time has passed, listens only while it does. It takes effect for
// the frontiers' next moves; one that came while it was deaf the
// operator reads from its inputs.
func (op *Operator) SetNotify(notify bool) { op.deaf = !notify }

// Activator activates an operator from any goroutine. Activating an
// operator of a dataflow that has ended does nothing.
type Activator struct {
	w  *Worker
	df ID
	op int
}

// Activate schedules the operator in the worker's next step.
func (a *Activator) Activate() { a.w.remoteActivate(a.df, a.op) }
