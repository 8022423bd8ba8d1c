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

func arrange(s dataflow.Stream[Update], name string, pact dataflow.Pact[Update]) *Arranged {
	return buildArrange(s.Builder(), name, nil, func(ob *dataflow.OperatorBuilder) stagedInput {
		return updatesIn{dataflow.NewInput(ob, s, pact)}
	})
}

// ArrangeChunks arranges a stream of chunks of updates (Chunk) that is
// already sharded: each chunk is sent to the worker its keys hash to
// (KeyHash), and stays there. A table's writes come so, split by worker
// ahead of their feed.
//
// If seed is not nil, the collection's updates before the seed's upper
// are the seed's, a batch of this worker's shard built outside the
// dataflow (a table's log read at a restart): the seed is the
// operator's first batch, inserted and sent before any chunk is read,
// and no chunk may be sent before the seed's upper. Its lower must be
// 0.
func ArrangeChunks(s dataflow.Stream[Chunk], name string, seed *Batch) *Arranged {
	if seed != nil {
		if d := seed.Description(); d.Lower != 0 {
			panic(assertionFailedf("arrange: seed %v does not start at 0", d))
		}
	}
	b := s.Builder()
	return buildArrange(b, name, seed, func(ob *dataflow.OperatorBuilder) stagedInput {
		return chunksIn{in: dataflow.NewInput(ob, s, dataflow.Pipeline[Chunk]()), worker: b.Index(), peers: b.Workers()}
	})
}

// buildArrange builds the arrange operator over the input that in adds to it.
func buildArrange(b *dataflow.Builder, name string, seed *Batch, in func(*dataflow.OperatorBuilder) stagedInput) *Arranged {
	ob := b.NewOperator(name)
	input := in(ob)
	out, batches := dataflow.NewOutput[*Batch](ob)
	a := &Arranged{Batches: batches, Trace: newAccountedTrace(b)}
	ob.Build(func(op *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		a.op = op
		l := &arrangeLogic{a: a, in: input, out: out, cap: caps[0], batcher: newAccountedBatcher(b, 0)}
		if seed != nil {
			l.seed = seed
			l.batcher = newAccountedBatcher(b, seed.Description().Upper)
		}
		return l
	})
	return a
}

// stagedInput is the arrange operator's input: stage stages the next
// message's updates in the batcher, and reports whether there was one.
type stagedInput interface {
	stage(b *Batcher) bool
	Frontier() dataflow.Frontier
}

// updatesIn is an input of updates, each at its own time.
type updatesIn struct{ *dataflow.Input[Update] }

func (in updatesIn) stage(b *Batcher) bool {
	_, data, ok := in.Next()
	for _, u := range data {
		b.Stage(u.Key, u.Val, u.Time, u.Diff)
	}
	return ok
}

// chunksIn is an input of chunks, each chunk's updates at the time it
// was sent at.
type chunksIn struct {
	in            *dataflow.Input[Chunk]
	worker, peers int
}

func (in chunksIn) stage(b *Batcher) bool {
	t, data, ok := in.in.Next()
	for i := range data {
		c := &data[i]
		for _, u := range c.Updates {
			in.check(u.Key)
			b.Stage(u.Key, u.Val, t, u.Diff)
		}
		for _, k := range c.Pick {
			row := c.Rows.Row(int(k))
			in.check(row)
			b.Stage(row, nil, t, 1)
		}
	}
	return ok
}

func (in chunksIn) Frontier() dataflow.Frontier { return in.in.Frontier() }

// check, with the invariants on, asserts that key is on its worker.
func (in chunksIn) check(key []byte) {
	if invariants && int(KeyHash(key)%uint64(in.peers)) != in.worker {
		panic(assertionFailedf("arrange: a chunk's key on worker %d, not its own", in.worker))
	}
}

type arrangeLogic struct {
	a   *Arranged
	in  stagedInput
	out *dataflow.Output[*Batch]
	// cap is at the batcher's lower while no seal is in progress, and
	// at the seal's lower while one is: a batch goes out at its lower.
	cap     *dataflow.Capability
	batcher *Batcher
	// upper is the upper of the seal in progress, if any.
	upper dataflow.Frontier
	// seed is the first batch, until the first run emits it
	// (ArrangeChunks).
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
		if l.in.stage(l.batcher) {
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
