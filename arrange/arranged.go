package arrange

import (
	"freshet/dataflow"
)

// Arranged is a collection arranged by key in a dataflow, on one worker:
// the stream of batches sealed as the input frontier advances, and this
// worker's shard of the trace they are kept in. Operators of the same
// dataflow read the trace through handles (NewHandle) and learn of new
// batches from the stream.
//
// Invariant: every batch on Batches was inserted into Trace before it was
// sent, and batches arrive in the order of their descriptions.
type Arranged struct {
	Batches dataflow.Stream[*Batch]
	Trace   *Trace
	// export, if the arrangement is exported, is this worker's shard of
	// it; the arrange operator feeds its importers.
	shard *shard
	// op is the arrange operator, activated when compaction is allowed.
	op *dataflow.Operator
}

// Arrange shards s by key across workers and arranges it. The operator
// holds one capability, at its input frontier; each time that frontier
// advances it seals the updates before it into a batch, inserts the batch
// into the trace, and sends it on (empty batches only advance the trace).
func Arrange(s dataflow.Stream[Update], name string) *Arranged {
	return arrange(s, name, dataflow.Exchange(UpdateHash))
}

// ArrangeLocal arranges s on the worker where each update already is: s
// must already be sharded by KeyHash (the output of an operator that reads
// an arrangement keeps its keys on their worker).
func ArrangeLocal(s dataflow.Stream[Update], name string) *Arranged {
	return arrange(s, name, dataflow.Pipeline[Update]())
}

// ArrangeSeeded is Arrange of a collection whose updates before the
// seed's upper are the seed's, a batch of this worker's shard built
// outside the dataflow (a table's log read at a restart): the seed is the
// operator's first batch, inserted and sent before any update of s is
// read, and s must hold no update before the seed's upper. Its lower
// must be 0.
func ArrangeSeeded(s dataflow.Stream[Update], name string, seed *Batch) *Arranged {
	if d := seed.Description(); d.Lower != 0 {
		panic(assertionFailedf("arrange: seed %v does not start at 0", d))
	}
	return arrangeFrom(s, name, dataflow.Exchange(UpdateHash), seed)
}

func arrange(s dataflow.Stream[Update], name string, pact dataflow.Pact[Update]) *Arranged {
	return arrangeFrom(s, name, pact, nil)
}

func arrangeFrom(s dataflow.Stream[Update], name string, pact dataflow.Pact[Update], seed *Batch) *Arranged {
	b := s.Builder()
	ob := b.NewOperator(name)
	in := dataflow.NewInput(ob, s, pact)
	out, batches := dataflow.NewOutput[*Batch](ob)
	a := &Arranged{Batches: batches, Trace: newAccountedTrace(b)}
	ob.Build(func(op *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		a.op = op
		l := &arrangeLogic{a: a, in: in, out: out, cap: caps[0], batcher: newAccountedBatcher(b, 0)}
		if seed != nil {
			l.seed = seed
			l.batcher = newAccountedBatcher(b, seed.Description().Upper)
		}
		return l
	})
	return a
}

type arrangeLogic struct {
	a   *Arranged
	in  *dataflow.Input[Update]
	out *dataflow.Output[*Batch]
	// cap is at the batcher's lower while no seal is in progress, and
	// at the seal's lower while one is: a batch goes out at its lower.
	cap     *dataflow.Capability
	batcher *Batcher
	// upper is the upper of the seal in progress, if any.
	upper dataflow.Frontier
	// seed is the first batch, until the first run emits it
	// (ArrangeSeeded).
	seed *Batch
}

// Schedule stages the input and seals a batch each time the input
// frontier advances. The batcher's merges and seals are worked through a
// piece at a time: when the run is out of time (Operator.OutOfTime) the
// operator keeps its place, holds its capability at the lower of the
// batch it is sealing, and asks to run again. It reads no input while
// merges are due, and seals only once it has read all its input, so that
// the frontier it seals at covers everything it staged.
func (l *arrangeLogic) Schedule() {
	op := l.a.op
	if l.seed != nil {
		l.upper = dataflow.Frontier(l.seed.Description().Upper)
		l.emit(l.seed)
		l.seed = nil
	}
	if l.cap != nil && l.a.shard != nil {
		l.a.shard.applyCompaction()
	}
	for {
		for l.batcher.Busy() {
			if batch := l.batcher.Work(arrangePiece); batch != nil {
				l.emit(batch)
			}
			if l.batcher.Busy() && op.OutOfTime() {
				op.Activate()
				return
			}
		}
		_, data, ok := l.in.Next()
		if ok {
			for _, u := range data {
				l.batcher.Stage(u.Key, u.Val, u.Time, u.Diff)
			}
			if op.OutOfTime() {
				op.Activate()
				return
			}
			continue
		}
		if l.cap == nil {
			l.continueMerges()
			return
		}
		f := l.in.Frontier()
		if uint64(f) <= l.batcher.Lower() {
			l.continueMerges()
			return
		}
		l.upper = f
		l.batcher.BeginSeal(uint64(f))
	}
}

// continueMerges works on the trace's merges in progress when the
// operator has nothing else to do, a piece at a time, asking to run again
// when its run is out of time. Inserts pay for merges with fuel, so the
// last merge a burst starts (a hydration's, a bulk load's) would otherwise
// wait for later writes, holding its two inputs and its reserved output
// all the while: at 1M rows, a third of a table's arrangement.
func (l *arrangeLogic) continueMerges() {
	op := l.a.op
	for l.a.Trace.MergePending() > 0 {
		l.a.Trace.Continue(int64(arrangePiece))
		if l.a.Trace.MergePending() > 0 && op.OutOfTime() {
			op.Activate()
			return
		}
	}
}

// arrangePiece is how many updates the batcher merges between checks of
// the run's time.
var arrangePiece = 4096

// emit inserts a sealed batch into the trace, sends it on and hands it to
// importers, then moves the capability to the batch's upper, or releases
// it if that is the empty frontier.
func (l *arrangeLogic) emit(batch *Batch) {
	if err := l.a.Trace.Insert(batch); err != nil {
		panic(err)
	}
	if batch.Len() > 0 {
		l.out.Give(l.cap.Time(), batch)
	}
	if l.a.shard != nil {
		l.a.shard.publish(batch)
	}
	if l.upper.IsDone() {
		l.cap.Release()
		l.cap = nil
		return
	}
	l.cap.Downgrade(uint64(l.upper))
}

func (l *arrangeLogic) Shutdown(dataflow.Reason) {}
