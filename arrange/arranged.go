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
	b := s.Builder()
	ob := b.NewOperator(name)
	in := dataflow.NewInput(ob, s, pact)
	out, batches := dataflow.NewOutput[*Batch](ob)
	a := &Arranged{Batches: batches, Trace: newAccountedTrace(b)}
	ob.Build(func(op *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		a.op = op
		return &arrangeLogic{a: a, in: in, out: out, cap: caps[0], batcher: newAccountedBatcher(b, 0)}
	})
	return a
}

type arrangeLogic struct {
	a       *Arranged
	in      *dataflow.Input[Update]
	out     *dataflow.Output[*Batch]
	cap     *dataflow.Capability
	batcher *Batcher
}

func (l *arrangeLogic) Schedule() {
	for {
		_, data, ok := l.in.Next()
		if !ok {
			break
		}
		for _, u := range data {
			l.batcher.Push(u.Key, u.Val, u.Time, u.Diff)
		}
	}
	if l.cap == nil {
		return
	}
	f := l.in.Frontier()
	upper := uint64(f)
	if upper > l.batcher.Lower() {
		batch := l.batcher.Seal(upper)
		if err := l.a.Trace.Insert(batch); err != nil {
			panic(err)
		}
		if batch.Len() > 0 {
			l.out.Give(l.cap.Time(), batch)
		}
		if l.a.shard != nil {
			l.a.shard.publish(batch)
		}
	}
	if l.a.shard != nil {
		l.a.shard.applyCompaction()
	}
	if f.IsDone() {
		l.cap.Release()
		l.cap = nil
		return
	}
	l.cap.Downgrade(upper)
}

func (l *arrangeLogic) Shutdown(dataflow.Reason) {}
